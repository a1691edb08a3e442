/* sc_comm_ops.h - every backend op as a call on the communicator (sc_comm_alloc(c, n) for
 * c->ops->alloc(c, n)): the layers above comm call these, never the ops table, so that what
 * an op promises is read in one place (sc_backend.h) and a check or a count added to an op is
 * added once. Inline: the timed loops pay nothing for them. Optional feature tables are asked
 * for with sc_comm_has_*; calling a feature the backend lacks is the caller's bug. */
#ifndef SC_COMM_OPS_H
#define SC_COMM_OPS_H

#include "comm/sc_backend.h"

static inline const char *sc_comm_name(const sc_comm_t *c)
{
    return c->ops->name;
}
/* Whether the library writes NCCL's INFO log (NCCL, RCCL; not HCCL): node reads its NICs there. */
static inline bool sc_comm_writes_nccl_log(const sc_comm_t *c)
{
    return c->ops->nccl_log;
}
/* Whether c is a GPU vendor's collective library (nccl, rccl, hccl), not the host path. */
static inline bool sc_comm_on_gpu(const sc_comm_t *c)
{
    return c->ops->gpu;
}
static inline const char *sc_comm_version(sc_comm_t *c)
{
    return c->ops->version(c);
}
static inline void sc_comm_describe(sc_comm_t *c, sc_kvs_t *out)
{
    c->ops->describe(c, out);
}
static inline void sc_comm_close(sc_comm_t *c)
{
    c->ops->close(c);
}
static inline void *sc_comm_alloc(sc_comm_t *c, size_t bytes)
{
    return c->ops->alloc(c, bytes);
}
static inline void sc_comm_free(sc_comm_t *c, void *ptr)
{
    c->ops->free(c, ptr);
}
static inline sc_status_t sc_comm_to_host(sc_comm_t *c, void *host, const void *buf, size_t bytes,
                                          sc_err_t *err)
{
    return c->ops->to_host(c, host, buf, bytes, err);
}
static inline sc_status_t sc_comm_from_host(sc_comm_t *c, void *buf, const void *host, size_t bytes,
                                            sc_err_t *err)
{
    return c->ops->from_host(c, buf, host, bytes, err);
}
static inline sc_status_t sc_comm_fill_bytes(sc_comm_t *c, void *buf, int byte, size_t bytes,
                                             sc_err_t *err)
{
    return c->ops->fill_bytes(c, buf, byte, bytes, err);
}
static inline sc_status_t sc_comm_check_fill(sc_comm_t *c, void *buf, const sc_check_spec_t *spec,
                                             size_t count, sc_err_t *err)
{
    return c->ops->check_fill(c, buf, spec, count, err);
}
static inline sc_status_t sc_comm_check_count(sc_comm_t *c, const void *buf,
                                              const sc_check_spec_t *spec, const sc_src_t *src,
                                              size_t count, uint64_t *wrong, sc_err_t *err)
{
    return c->ops->check_count(c, buf, spec, src, count, wrong, err);
}
static inline sc_status_t sc_comm_isend(sc_comm_t *c, const void *buf, size_t count,
                                        sc_dtype_t dtype, int peer, sc_err_t *err)
{
    return c->ops->isend(c, buf, count, dtype, peer, err);
}
static inline sc_status_t sc_comm_recv(sc_comm_t *c, void *buf, size_t count, sc_dtype_t dtype,
                                       int peer, sc_err_t *err)
{
    return c->ops->recv(c, buf, count, dtype, peer, err);
}
/* A receive that completes at sc_comm_iwait where the backend has one (NCCL), else a blocking
 * receive (sc_backend.h: irecv). */
static inline bool sc_comm_has_irecv(const sc_comm_t *c)
{
    return c->ops->irecv != NULL;
}
static inline sc_status_t sc_comm_irecv(sc_comm_t *c, void *buf, size_t count, sc_dtype_t dtype,
                                        int peer, sc_err_t *err)
{
    return c->ops->irecv(c, buf, count, dtype, peer, err);
}
static inline sc_status_t sc_comm_iwait(sc_comm_t *c, sc_err_t *err)
{
    return c->ops->iwait(c, err);
}
/* Whether everything started on c has completed, without waiting where the backend can tell
 * (sc_backend.h: itest); else a wait, then done. */
static inline sc_status_t sc_comm_itest(sc_comm_t *c, bool *done, sc_err_t *err)
{
    if (c->ops->itest != NULL)
        return c->ops->itest(c, done, err);
    *done = true;
    return c->ops->iwait(c, err);
}
static inline bool sc_comm_has_copies(const sc_comm_t *c)
{
    return c->ops->copies != NULL;
}
static inline sc_status_t sc_comm_copies(sc_comm_t *c, const sc_copy_opts_t *o, sc_copy_row_t *rows,
                                         int max, int *n, sc_err_t *err)
{
    *n = 0;
    if (c->ops->copies == NULL)
        return sc_err_set(err, SC_ERR_UNSUPPORTED, "backend %s has no devices to copy between",
                          c->ops->name);
    return c->ops->copies(c, o, rows, max, n, err);
}
static inline sc_status_t sc_comm_compute_spin(sc_comm_t *c, double us, double *measured_us,
                                               sc_err_t *err)
{
    return c->ops->compute_spin(c, us, measured_us, err);
}
static inline sc_status_t sc_comm_split(sc_comm_t *c, int color, int key, sc_comm_t **out,
                                        sc_err_t *err)
{
    return c->ops->split(c, color, key, out, err);
}
static inline sc_status_t sc_comm_sync(sc_comm_t *c, sc_err_t *err)
{
    return c->ops->sync(c, err);
}
static inline sc_status_t sc_comm_barrier(sc_comm_t *c, sc_err_t *err)
{
    return c->ops->barrier(c, err);
}

/* The optional feature tables (sc_backend.h), asked for first. */
/* What the library chose for the last collective on c; false where it does not say. */
static inline bool sc_comm_last_choice(sc_comm_t *c, sc_lib_choice_t *out)
{
    return c->ops->last_choice != NULL && c->ops->last_choice(c, out);
}
/* The device's own median time between c's last nops operations; false where unknown. */
static inline bool sc_comm_own_time(sc_comm_t *c, int nops, double *median_us)
{
    return c->ops->own_time != NULL && c->ops->own_time(c, nops, median_us);
}
static inline bool sc_comm_has_timer(const sc_comm_t *c)
{
    return c->ops->timer != NULL;
}
static inline sc_status_t sc_comm_timer_reserve(sc_comm_t *c, int count, sc_err_t *err)
{
    return c->ops->timer->reserve(c, count, err);
}
static inline sc_status_t sc_comm_timer_mark(sc_comm_t *c, int index, sc_err_t *err)
{
    return c->ops->timer->mark(c, index, err);
}
static inline sc_status_t sc_comm_timer_interval(sc_comm_t *c, int index, double *us, sc_err_t *err)
{
    return c->ops->timer->interval(c, index, us, err);
}
static inline bool sc_comm_has_graph(const sc_comm_t *c)
{
    return c->ops->graph != NULL;
}
static inline sc_status_t sc_comm_graph_begin(sc_comm_t *c, sc_err_t *err)
{
    return c->ops->graph->begin(c, err);
}
static inline sc_status_t sc_comm_graph_end(sc_comm_t *c, void **graph, sc_err_t *err)
{
    return c->ops->graph->end(c, graph, err);
}
static inline sc_status_t sc_comm_graph_launch(sc_comm_t *c, void *graph, sc_err_t *err)
{
    return c->ops->graph->launch(c, graph, err);
}
static inline void sc_comm_graph_destroy(sc_comm_t *c, void *graph)
{
    c->ops->graph->destroy(c, graph);
}
static inline bool sc_comm_has_group(const sc_comm_t *c)
{
    return c->ops->group != NULL;
}
static inline sc_status_t sc_comm_group_begin(sc_comm_t *c, sc_err_t *err)
{
    return c->ops->group->begin(c, err);
}
static inline sc_status_t sc_comm_group_end(sc_comm_t *c, sc_err_t *err)
{
    return c->ops->group->end(c, err);
}
static inline bool sc_comm_has_rma(const sc_comm_t *c)
{
    return c->ops->rma != NULL;
}
static inline sc_status_t sc_comm_rma_expose(sc_comm_t *c, void *buf, size_t bytes, sc_err_t *err)
{
    return c->ops->rma->expose(c, buf, bytes, err);
}
static inline sc_status_t sc_comm_rma_put(sc_comm_t *c, int peer, const void *src, size_t offset,
                                          size_t bytes, sc_err_t *err)
{
    return c->ops->rma->put(c, peer, src, offset, bytes, err);
}
static inline sc_status_t sc_comm_rma_flush(sc_comm_t *c, int peer, sc_err_t *err)
{
    return c->ops->rma->flush(c, peer, err);
}
static inline bool sc_comm_has_gemm(const sc_comm_t *c)
{
    return c->ops->gemm != NULL;
}
static inline sc_status_t sc_comm_gemm(sc_comm_t *c, const sc_gemm_spec_t *spec,
                                       sc_gemm_result_t *result, sc_err_t *err)
{
    return c->ops->gemm->run(c, spec, result, err);
}
static inline sc_status_t sc_comm_gemm_set(sc_comm_t *c, const sc_gemm_set_t *set, double scale,
                                           double *measured_us, double *flops, sc_err_t *err)
{
    return c->ops->gemm->run_set(c, set, scale, measured_us, flops, err);
}
static inline sc_status_t sc_comm_gemm_check(sc_comm_t *c, sc_gemm_type_t type, int size,
                                             sc_gemm_check_t *out, sc_err_t *err)
{
    return c->ops->gemm->check(c, type, size, out, err);
}
static inline bool sc_comm_has_burn(const sc_comm_t *c)
{
    return c->ops->burn != NULL;
}
static inline sc_status_t sc_comm_burn_start(sc_comm_t *c, const sc_burn_spec_t *spec,
                                             sc_err_t *err)
{
    return c->ops->burn->start(c, spec, err);
}
static inline sc_status_t sc_comm_burn_stop(sc_comm_t *c, sc_burn_result_t *out, sc_err_t *err)
{
    return c->ops->burn->stop(c, out, err);
}
/* The backend's own function for collective coll (NULL: none); sc_comm_coll runs it. */
static inline sc_coll_fn_t sc_comm_coll_fn(const sc_comm_t *c, sc_coll_id_t coll)
{
    return c->ops->coll[coll];
}

#endif
