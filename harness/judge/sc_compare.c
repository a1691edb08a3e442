/* sc_compare.c - systems measured or predicted, normalised, scored and ranked (sc_compare.h). */
#include "judge/sc_compare.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/sc_model.h"
#include "plan/sc_plan.h"
#include "util/sc_defaults.h"

static const char *const compare__library_names[] = {
#define SC__LIB_NAME(name) #name,
    SC_LIBRARY_MAP(SC__LIB_NAME)
#undef SC__LIB_NAME
};

/* The software a buyer gets with the GPUs: NCCL's tools, containers and frameworks first; AMD's
 * RCCL follows it closely; Huawei's HCCL needs its own framework ports (seed 004's "ecosystem"
 * caveats); plain MPI has no GPU collective library around it. */
static double compare__ecosystem_score(const char *library)
{
    static const struct {
        const char *name;
        double score;
    } table[] = {{"nccl", 10}, {"rccl", 7}, {"hccl", 5}, {"mpi", 3}};
    for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++)
        if (strcmp(library, table[i].name) == 0)
            return table[i].score;
    return 0;
}

#define SC__HOURS_A_YEAR  8760.0
#define SC__HOURS_A_MONTH (SC__HOURS_A_YEAR / 12) /* 730 */

/* A node's cost per hour: rent per hour, per month, or the purchase written off. */
static double compare__node_cost_hour(const sc_topology_t *t)
{
    if (t->cost_hour_usd > 0)
        return t->cost_hour_usd;
    if (t->cost_month_usd > 0)
        return t->cost_month_usd / SC__HOURS_A_MONTH;
    if (t->cost_purchase_usd > 0) {
        double years =
            t->cost_amortize_years > 0 ? t->cost_amortize_years : SC_DEFAULT_AMORTIZE_YEARS;
        return t->cost_purchase_usd / (years * SC__HOURS_A_YEAR);
    }
    return SC_ABSENT;
}

/* Whether w fits the GPUs' memory at gpus GPUs: the step plan's estimate against t's. */
static void compare__memory(const sc_topology_t *t, const sc_workload_t *w, int gpus,
                            sc_compare_row_t *row)
{
    row->gpu_memory_gb = t != NULL ? t->gpu_memory_gb : 0;
    row->memory_need_gb = 0;
    row->memory_headroom = SC_ABSENT;
    row->memory_fits = true; /* unknown is not refused: the score is left out instead */
    if (w == NULL || t == NULL || t->gpu_memory_gb <= 0) {
        snprintf(row->memory_note, sizeof(row->memory_note), "%s",
                 w == NULL ? "workload not found" : "GPU memory not declared");
        return;
    }
    row->memory_fits = false;
    sc_layout_t l;
    sc_err_t why;
    if (sc_workload_layout(w, gpus, &l, &why) != SC_OK) {
        snprintf(row->memory_note, sizeof(row->memory_note), "layout: %.80s", why.msg);
        return;
    }
    sc_plan_memory_t m;
    sc_plan_memory(w, &l, &m);
    row->memory_need_gb = m.total_bytes / (1024.0 * 1024.0 * 1024.0); /* GPUs' GB are 2^30 */
    row->memory_headroom = 1.0 - row->memory_need_gb / t->gpu_memory_gb;
    row->memory_fits = row->memory_headroom >= 0;
    if (!row->memory_fits)
        snprintf(row->memory_note, sizeof(row->memory_note), "needs %.1f GB a GPU of %.0f",
                 row->memory_need_gb, t->gpu_memory_gb);
    else if (!m.activations_estimated)
        snprintf(row->memory_note, sizeof(row->memory_note), "model states only");
}

/* Cost and power of the nodes the row uses, from t (power: unless measured already). */
static void compare__normalise(const sc_topology_t *t, sc_compare_row_t *row)
{
    row->throughput_per_gpu = row->gpus > 0 ? row->throughput / row->gpus : 0;
    row->throughput_per_node = row->nodes > 0 ? row->throughput / row->nodes : 0;
    double node_cost = t != NULL ? compare__node_cost_hour(t) : SC_ABSENT;
    row->cost_hour_usd = sc_present(node_cost) ? node_cost * row->nodes : SC_ABSENT;
    if (!sc_present(row->power_kw) && t != NULL && t->power_kw > 0) {
        row->power_kw = t->power_kw * row->nodes;
        snprintf(row->power_from, sizeof(row->power_from), "declared");
    }
    row->samples_per_usd = sc_present(row->cost_hour_usd) && row->cost_hour_usd > 0
                               ? row->throughput * 3600.0 / row->cost_hour_usd
                               : SC_ABSENT;
    row->samples_per_kwh = sc_present(row->power_kw) && row->power_kw > 0
                               ? row->throughput * 3600.0 / row->power_kw
                               : SC_ABSENT;
}

static void compare__row_init(sc_compare_row_t *row, const sc_topology_t *t, const sc_workload_t *w,
                              const char *source, const char *origin)
{
    memset(row, 0, sizeof(*row));
    snprintf(row->source, sizeof(row->source), "%s", source);
    snprintf(row->origin, sizeof(row->origin), "%s", origin);
    if (t != NULL) {
        snprintf(row->system, sizeof(row->system), "%s", t->name);
        snprintf(row->description, sizeof(row->description), "%s", t->description);
        snprintf(row->gpu, sizeof(row->gpu), "%s", t->gpu);
        snprintf(row->library, sizeof(row->library), "%s", compare__library_names[t->library]);
        row->gpus_per_node = (int)t->gpus_per_node;
    }
    if (w != NULL)
        snprintf(row->workload, sizeof(row->workload), "%s", w->name);
    if (w != NULL && t != NULL) {
        sc_model_input_describe(t, w, row->input_note, sizeof(row->input_note));
        sc_model_compute_describe(t, w, row->compute_note, sizeof(row->compute_note));
    }
    row->expected_efficiency = row->cost_hour_usd = row->power_kw = SC_ABSENT;
    row->samples_per_usd = row->samples_per_kwh = row->memory_headroom = SC_ABSENT;
    for (int d = 0; d < SC_DIM_COUNT; d++)
        row->score[d] = SC_ABSENT;
}

/* The GPU counts a predicted curve visits: 1, 2, 4 ... up to a node, a node, whole nodes
 * doubling, and gpus itself. */
static int compare__curve_gpus(int per_node, int gpus, int *out, int max)
{
    int n = 0;
    for (int g = 1; g < per_node && g <= gpus && n < max - 2; g *= 2)
        out[n++] = g;
    if (per_node <= gpus)
        out[n++] = per_node;
    for (int nodes = 2; (long)nodes * per_node <= gpus && n < max - 1; nodes *= 2)
        out[n++] = nodes * per_node;
    if (n == 0 || out[n - 1] != gpus)
        out[n++] = gpus;
    return n;
}

/* The model's all-reduce busbw from 8 B to 1 GiB (x8) on gpus GPUs of t, as rows. */
static void compare__predicted_busbw(const sc_topology_t *t, int gpus, int per_node,
                                     sc_case_rows_t *out)
{
    int on_node = gpus < per_node ? gpus : per_node, nodes = gpus / on_node;
    if (gpus < 2 || (gpus > per_node && gpus % per_node != 0))
        return;
    for (double size = 8; size <= (double)(1ull << 30); size *= 8) {
        sc_prediction_t p;
        sc_model_collective(t, &sc_coll_allreduce, size, on_node, nodes, &p);
        sc_case_row_t *row = SC_LIST_PUSH(out);
        if (row == NULL)
            return;
        memset(row, 0, sizeof(*row));
        snprintf(row->collective, sizeof(row->collective), "allreduce");
        row->size_bytes = (uint64_t)size;
        row->time_us = p.time_us;
        row->algbw_GBps = p.algbw_GBps;
        row->busbw_GBps = p.busbw_GBps;
        row->expected_time_us = p.time_us;
        row->expected_busbw_GBps = p.busbw_GBps;
    }
}

sc_status_t sc_compare_predict(const sc_topology_t *t, const sc_workload_t *w, int gpus,
                               sc_compare_system_t *out, sc_err_t *err)
{
    memset(out, 0, sizeof(*out));
    sc_compare_row_t *row = &out->row;
    compare__row_init(row, t, w, "predicted", t->path);
    int per_node = t->gpus_per_node > 0 ? (int)t->gpus_per_node : 1;
    int list[64], n = compare__curve_gpus(per_node, gpus, list, 64);
    char why[256] = "";
    sc_scale_base_t base = {0, 0};
    for (int i = 0; i < n; i++) {
        int g = list[i], on_node = g < per_node ? g : per_node, nodes = g / on_node;
        sc_step_prediction_t p;
        sc_err_t skip;
        if (g > per_node && g % per_node != 0) { /* not whole nodes */
            snprintf(why, sizeof(why), "%d GPUs are not whole nodes of %d", g, per_node);
            continue;
        }
        if (sc_model_step(t, w, on_node, nodes, 1.0, 1.0, &p, &skip) != SC_OK) {
            snprintf(why, sizeof(why), "%s", skip.msg); /* the layout does not fit here */
            continue;
        }
        if (!(p.throughput > 0 && isfinite(p.step_ms))) {
            snprintf(why, sizeof(why), "the model prices no step on %d nodes (no network?)", nodes);
            continue;
        }
        sc_scaling(&base, p.throughput, p.flops_per_sample, p.gpus, &p.speedup, &p.efficiency);
        /* Efficiency as the step's share of compute: what the curve's ratio to its first point
         * is when that point is one GPU, and still meaningful where the layout needs many
         * (GPT-3's 16): communication, pipeline bubbles and waits are what it loses. */
        p.efficiency = p.step_ms > 0 ? p.compute_ms / p.step_ms : 0;
        sc_point_t *pt = SC_LIST_PUSH(&out->curve);
        if (pt == NULL)
            return sc_err_set(err, SC_ERR_NOMEM, "compare: no memory for %s's curve", t->name);
        sc_point_init(pt);
        pt->gpus = p.gpus;
        pt->nodes = p.nodes;
        pt->throughput = p.throughput;
        pt->speedup = p.speedup;
        pt->efficiency = p.efficiency;
        pt->expected_efficiency = p.efficiency;
        if (g == gpus) {
            row->gpus = p.gpus;
            row->nodes = p.nodes;
            row->throughput = p.throughput;
            row->efficiency = row->expected_efficiency = p.efficiency;
        }
    }
    compare__predicted_busbw(t, row->gpus ? row->gpus : gpus, per_node, &out->busbw);
    bool at_scale = row->gpus != 0;
    if (!at_scale) { /* not at this scale: the row says so */
        row->gpus = gpus;
        row->nodes = (gpus + per_node - 1) / per_node;
    }
    compare__memory(t, w, gpus, row);
    if (!at_scale) {
        row->memory_fits = false;
        snprintf(row->memory_note, sizeof(row->memory_note), "not at %d GPUs: %.60s", gpus, why);
    }
    compare__normalise(t, row);
    return SC_OK;
}

/* The mean power of every GPU the run sampled, summed, in kW (SC_ABSENT: none sampled). */
static double compare__measured_kw(const sc_result_t *r)
{
    double kw = 0;
    bool any = false;
    for (int h = 0; h < r->nhealth; h++)
        for (int g = 0; g < r->health[h].ngpus; g++) {
            const sc_gpu_health_t *gpu = &r->health[h].gpus[g];
            double sum = 0;
            size_t n = 0;
            for (size_t s = 0; s < gpu->nsamples; s++)
                if (gpu->samples[s].power_w >= 0) {
                    sum += gpu->samples[s].power_w;
                    n++;
                }
            if (n > 0) {
                kw += sum / (double)n / 1000.0;
                any = true;
            }
        }
    return any ? kw : SC_ABSENT;
}

static void compare__versions(const sc_result_t *r, char *buf, size_t len)
{
    size_t used = (size_t)snprintf(buf, len, "%s", r->backend);
    for (size_t i = 0; i < r->libraries.n && used < len; i++) {
        const sc_kv_t *kv = &r->libraries.items[i];
        if (!kv->is_number && (strcmp(kv->key, "mpi") == 0 || strcmp(kv->key, "backend") == 0))
            used += (size_t)snprintf(buf + used, len - used, "; %s", kv->text);
    }
}

sc_status_t sc_compare_measured(const sc_result_t *r, const char *dir, const sc_topology_t *t,
                                const sc_workload_t *w, int gpus, sc_compare_system_t *out,
                                sc_err_t *err)
{
    memset(out, 0, sizeof(*out));
    sc_compare_row_t *row = &out->row;
    if (strcmp(r->command, "run") != 0 || r->points.n == 0)
        return sc_err_set(err, SC_ERR_INPUT,
                          "%s: a %s run with no scaling points (compare takes `scalecheck run` "
                          "directories)",
                          dir, r->command);
    compare__row_init(row, t, w, "measured", dir);
    if (t == NULL)
        snprintf(row->system, sizeof(row->system), "%s", r->topology[0] ? r->topology : "?");
    snprintf(row->workload, sizeof(row->workload), "%s", r->workload);
    snprintf(row->library, sizeof(row->library), "%s", r->backend);
    const sc_point_t *at = NULL;
    for (size_t i = 0; i < r->points.n; i++) {
        const sc_point_t *p = &r->points.items[i];
        if ((gpus == 0 && (at == NULL || p->gpus > at->gpus)) || p->gpus == gpus)
            at = p;
        sc_point_t *pt = SC_LIST_PUSH(&out->curve);
        if (pt != NULL)
            *pt = (sc_point_t){.gpus = p->gpus,
                               .nodes = p->nodes,
                               .throughput = p->throughput,
                               .speedup = p->speedup,
                               .efficiency = p->efficiency,
                               .expected_efficiency = p->expected_efficiency};
    }
    if (at == NULL)
        return sc_err_set(err, SC_ERR_INPUT, "%s: the run has no point at %d GPUs (--gpus)", dir,
                          gpus);
    row->gpus = at->gpus;
    row->nodes = at->nodes;
    row->throughput = at->throughput;
    row->efficiency = at->efficiency;
    row->expected_efficiency = at->expected_efficiency;
    row->shrunk = r->bytes_scale != 1.0 || r->compute_scale != 1.0;
    if (row->shrunk)
        snprintf(row->note, sizeof(row->note),
                 "a shrunk run (bytes x%g, compute x%g): its throughput is not the workload's, "
                 "and not scored",
                 r->bytes_scale, r->compute_scale);
    row->power_kw = compare__measured_kw(r);
    if (sc_present(row->power_kw))
        snprintf(row->power_from, sizeof(row->power_from), "measured");
    sc_tally_t tally = sc_result_tally(r);
    if (r->judged)
        snprintf(row->verdict, sizeof(row->verdict), "%s", sc_level_name(tally.level));
    compare__versions(r, row->versions, sizeof(row->versions));
    int claims = 0, held = 0;
    for (size_t i = 0; i < r->checks.n; i++)
        if (strcmp(r->checks.items[i].source, "claim") == 0) {
            claims++;
            held += r->checks.items[i].level != SC_LEVEL_FAIL;
        }
    if (claims > 0)
        snprintf(row->claims, sizeof(row->claims), "%d of %d held", held, claims);
    row->differences = (int)r->findings.n;
    for (size_t i = 0; i < r->sweep.n; i++) {
        sc_case_row_t *c = SC_LIST_PUSH(&out->busbw);
        if (c != NULL)
            *c = r->sweep.items[i];
    }
    compare__memory(t, w, row->gpus, row);
    compare__normalise(t, row);
    return SC_OK;
}

/* The best figure of a dimension among the systems, for the relative scores. */
static double compare__best(const sc_compare_systems_t *s, size_t offset)
{
    double best = 0;
    for (size_t i = 0; i < s->n; i++) {
        double v;
        memcpy(&v, (const char *)&s->items[i].row + offset, sizeof(v));
        if (sc_present(v) && v > best && !s->items[i].row.shrunk)
            best = v;
    }
    return best;
}

static double compare__relative(double v, double best)
{
    return sc_present(v) && best > 0 ? 10.0 * v / best : SC_ABSENT;
}

/* row's scores and its total. A dimension some compared system has a figure for (scored[d]) is
 * in every total: a system without the figure scores 0 there, so that a missing figure never
 * lifts a total above one that has it (its score stays absent for the tables). */
static void compare__score(sc_compare_row_t *row, const double best[3], const sc_weights_t *weights,
                           const bool scored[SC_DIM_COUNT])
{
    double eff = row->efficiency < 0 ? 0 : row->efficiency > 1 ? 1 : row->efficiency;
    row->score[SC_DIM_scaling] = row->throughput > 0 ? 10.0 * eff : 0;
    row->score[SC_DIM_throughput] = compare__relative(row->throughput, best[0]);
    row->score[SC_DIM_cost] = compare__relative(row->samples_per_usd, best[1]);
    row->score[SC_DIM_energy] = compare__relative(row->samples_per_kwh, best[2]);
    if (row->shrunk) /* its samples/s are a shrunk workload's: no measure of the system */
        row->score[SC_DIM_throughput] = row->score[SC_DIM_cost] = row->score[SC_DIM_energy] =
            SC_ABSENT;
    if (sc_present(row->memory_headroom)) {
        double h = row->memory_headroom / SC_DEFAULT_FULL_HEADROOM;
        row->score[SC_DIM_memory] = row->memory_fits ? 10.0 * (h > 1 ? 1 : h) : 0;
    }
    row->score[SC_DIM_ecosystem] = compare__ecosystem_score(row->library);
    double sum = 0, used = 0;
    for (int d = 0; d < SC_DIM_COUNT; d++)
        if (scored[d] && weights->w[d] > 0) {
            sum += weights->w[d] * (sc_present(row->score[d]) ? row->score[d] : 0);
            used += weights->w[d];
        }
    row->total = used > 0 ? sum / used : 0;
}

/* Which dimensions some system has a score for (scores made, then the rows scored again). */
static void compare__scored(sc_compare_systems_t *s, const double best[3],
                            const sc_weights_t *weights, bool scored[SC_DIM_COUNT])
{
    const bool all[SC_DIM_COUNT] = {0};
    for (int d = 0; d < SC_DIM_COUNT; d++)
        scored[d] = false;
    for (size_t i = 0; i < s->n; i++) {
        compare__score(&s->items[i].row, best, weights, all);
        for (int d = 0; d < SC_DIM_COUNT; d++)
            scored[d] = scored[d] || sc_present(s->items[i].row.score[d]);
    }
}

static int compare__by_rank(const void *a, const void *b)
{
    const sc_compare_row_t *x = &((const sc_compare_system_t *)a)->row;
    const sc_compare_row_t *y = &((const sc_compare_system_t *)b)->row;
    if (x->memory_fits != y->memory_fits)
        return x->memory_fits ? -1 : 1;
    return (x->total < y->total) - (x->total > y->total);
}

void sc_compare_rank(sc_compare_systems_t *s, const sc_weights_t *weights)
{
    const double best[3] = {compare__best(s, offsetof(sc_compare_row_t, throughput)),
                            compare__best(s, offsetof(sc_compare_row_t, samples_per_usd)),
                            compare__best(s, offsetof(sc_compare_row_t, samples_per_kwh))};
    bool scored[SC_DIM_COUNT];
    compare__scored(s, best, weights, scored);
    for (size_t i = 0; i < s->n; i++)
        compare__score(&s->items[i].row, best, weights, scored);
    qsort(s->items, s->n, sizeof(*s->items), compare__by_rank);
    for (size_t i = 0; i < s->n; i++)
        s->items[i].row.rank = (int)i + 1;
}
