/* sc_drive_coll_doc.c - what a coll run's documents say of its options: the options as named
 * values (result.json) and nccl-tests' header and -J configuration (sc_drive_coll.h). */
#include <stdio.h>

#include "drive/sc_drive_coll.h"
#include "util/sc_size.h"
#include "util/sc_stats.h"

/* A number rank 0's backend described (NCCL's versions), 0 when it has none. */
static double coll_doc__rank0_number(const sc_kvs_t *info, const char *key)
{
    const sc_kv_t *kv = info != NULL ? sc_kvs_find(&info[0], key) : NULL;
    return kv != NULL && kv->is_number ? kv->number : 0;
}

void sc_drive_coll_nt_config(const sc_coll_opts_t *o, const sc_kvs_t *rank_info,
                             const char *results_dir, sc_nt_config_t *nt)
{
    *nt = (sc_nt_config_t){
        .min_bytes = o->min_bytes,
        .max_bytes = o->max_bytes,
        .step = o->step_set ? (double)o->step_bytes : o->factor,
        .step_is_factor = !o->step_set,
        .warmup = o->eng.warmup,
        .iters = o->eng.iters,
        .agg_iters = o->eng.agg_ops,
        .check_iters = o->eng.check_iters,
        .graph_launches = o->eng.graph_launches,
        .blocking = o->blocking,
        .parallel_init = o->parallel_init,
        .per_iter = o->per_iter != 0,
        .timestamps = o->timestamps != 0,
        .cputime = o->eng.host_time != 0,
        .nccl_headers = (int)coll_doc__rank0_number(rank_info, "nccl_version_header"),
        .nccl_library = (int)coll_doc__rank0_number(rank_info, "nccl_version_library"),
        .statistic = sc_stat_name(o->eng.statistic),
        .combine = sc_combine_name(o->eng.combine),
        .combine_number = (int)o->eng.combine,
        .results_dir = results_dir,
    };
    sc_nt_now(nt->start_time, sizeof(nt->start_time));
}

void sc_drive_coll_options(const sc_coll_opts_t *o, sc_kvs_t *out)
{
    sc_kvs_number(out, "minbytes", (double)o->min_bytes);
    sc_kvs_number(out, "maxbytes", (double)o->max_bytes);
    sc_kvs_number(out, "stepfactor", o->step_set ? 0.0 : o->factor);
    sc_kvs_number(out, "stepbytes", (double)(o->step_set ? o->step_bytes : 0));
    sc_kvs_number(out, "iters", o->eng.iters);
    sc_kvs_number(out, "warmup_iters", o->eng.warmup);
    sc_kvs_number(out, "check_iters", o->eng.check_iters);
    sc_kvs_text(out, "average", sc_combine_name(o->eng.combine));
    sc_kvs_text(out, "statistic", sc_stat_name(o->eng.statistic));
    sc_kvs_number(out, "agg_iters", o->eng.agg_ops);
    sc_kvs_number(out, "cudagraph", o->eng.graph_launches);
    sc_kvs_number(out, "run_cycles", o->cycles);
    sc_kvs_number(out, "timeout_s", o->common.timeout_s);
    sc_kvs_number(out, "target_ci", o->eng.target_ci);
    sc_kvs_number(out, "size_budget_s", o->eng.size_budget_s);
    sc_kvs_number(out, "seed", (double)o->eng.seed);
}
