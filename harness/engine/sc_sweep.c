/* sc_sweep.c - `run --sweep`: the all-reduce bandwidth sweep beside the training step. */
#include "sc_sweep.h"

sc_status_t sc_run_sweep(sc_comm_t *world, MPI_Comm control, sc_watchdog_t *wd, uint64_t max_bytes,
                         json_t **out, sc_err_t *err)
{
    sc_engine_opts_t eo;
    sc_engine_opts_default(&eo);
    eo.iters = 20;
    eo.warmup = 3;
    sc_engine_t *eng = NULL;
    sc_status_t status = sc_engine_create(world, control, &eo, wd, &eng, err);
    json_t *rows = json_array();
    for (uint64_t size = 4; status == SC_OK && size <= max_bytes; size *= 4) {
        sc_case_t c = {.coll = &sc_coll_allreduce, .dtype = SC_DTYPE_float, .op = SC_REDOP_sum};
        if (!sc_engine_shape_case(eng, &c, size))
            continue;
        sc_case_result_t r;
        status = sc_engine_run_case(eng, &c, &r, err);
        if (status == SC_OK)
            json_array_append_new(
                rows,
                json_pack("{s:s, s:I, s:f, s:f, s:f, s:I}", "collective", "allreduce", "size_bytes",
                          (json_int_t)c.size_bytes, "time_us", r.time_us.median, "algbw_GBps",
                          r.algbw_GBps, "busbw_GBps", r.busbw_GBps, "wrong", (json_int_t)r.wrong));
    }
    sc_engine_destroy(eng);
    *out = rows;
    return status;
}
