/* backend_nccl_time.c - device time and the compute phase of the NCCL backend: the timer's
 * marks (CUDA events recorded on the communication stream between operations issued back to
 * back, as nccl-tests times them: nothing on the host ever holds the stream, so no host function
 * blocks CUDA's callback thread and CUDA_LAUNCH_BLOCKING=1 cannot deadlock it), the spin kernel
 * on the compute stream (the matrix products: backend_nccl_gemm.c). */
#include <stdlib.h>

#include "comm/backend_nccl.h"
#include "compute/sc_compute_cuda.h"

/* Mark `index`, made on first use (a batch of -n N needs N + 1). */
static sc_status_t nccl__mark_event(nccl__comm_t *c, int index, cudaEvent_t *event, sc_err_t *err)
{
    if (index >= c->nmarks) {
        int want = index + 1 > 2 * c->nmarks ? index + 1 : 2 * c->nmarks;
        cudaEvent_t *marks = realloc(c->marks, (size_t)want * sizeof(*marks));
        if (marks == NULL)
            return nccl__fail(c, SC_ERR_NOMEM, "device timer", "no memory for its events", err);
        c->marks = marks;
        for (; c->nmarks < want; c->nmarks++) {
            sc_status_t status =
                nccl__cuda(c, cudaEventCreate(&c->marks[c->nmarks]), "cudaEventCreate", err);
            if (status != SC_OK)
                return status;
        }
    }
    *event = c->marks[index];
    return SC_OK;
}

static sc_status_t nccl__reserve(sc_comm_t *comm, int count, sc_err_t *err)
{
    cudaEvent_t last = NULL;
    return count > 0 ? nccl__mark_event(nccl__of(comm), count - 1, &last, err) : SC_OK;
}

static sc_status_t nccl__mark(sc_comm_t *comm, int index, sc_err_t *err)
{
    nccl__comm_t *c = nccl__of(comm);
    cudaEvent_t event = NULL;
    sc_status_t status = nccl__mark_event(c, index, &event, err);
    return status == SC_OK
               ? nccl__cuda(c, cudaEventRecord(event, c->stream), "cudaEventRecord(timer)", err)
               : status;
}

static sc_status_t nccl__interval(sc_comm_t *comm, int index, double *us, sc_err_t *err)
{
    nccl__comm_t *c = nccl__of(comm);
    float ms = 0;
    *us = 0;
    if (index < 1 || index >= c->nmarks)
        return nccl__fail(c, SC_ERR_RUNTIME, "device timer", "no such mark", err);
    sc_status_t status =
        nccl__cuda(c, cudaEventElapsedTime(&ms, c->marks[index - 1], c->marks[index]),
                   "cudaEventElapsedTime", err);
    *us = (double)ms * 1e3;
    return status;
}

const sc_timer_ops_t sc_nccl_timer = {nccl__reserve, nccl__mark, nccl__interval};

void sc_nccl_free_marks(nccl__comm_t *c)
{
    for (int i = 0; i < c->nmarks; i++)
        cudaEventDestroy(c->marks[i]);
    free(c->marks);
    c->marks = NULL;
    c->nmarks = 0;
}

sc_status_t sc_nccl_compute_begin(nccl__comm_t *c, sc_err_t *err)
{
    return nccl__cuda(c, cudaEventRecord(c->ev_compute_start, c->compute_stream), "cudaEventRecord",
                      err);
}

sc_status_t sc_nccl_compute_end(nccl__comm_t *c, sc_status_t status, double *measured_us,
                                sc_err_t *err)
{
    cudaStream_t cs = c->compute_stream;
    if (status == SC_OK)
        status = nccl__cuda(c, cudaEventRecord(c->ev_compute_stop, cs), "cudaEventRecord", err);
    if (status == SC_OK) /* bounded like every wait: the work is finite by construction */
        status = nccl__cuda(c, cudaEventSynchronize(c->ev_compute_stop), "compute phase", err);
    float ms = 0;
    if (status == SC_OK)
        status = nccl__cuda(c, cudaEventElapsedTime(&ms, c->ev_compute_start, c->ev_compute_stop),
                            "cudaEventElapsedTime", err);
    *measured_us = (double)ms * 1e3;
    return status;
}

sc_status_t sc_nccl_compute_spin(sc_comm_t *comm, double us, double *measured_us, sc_err_t *err)
{
    nccl__comm_t *c = nccl__of(comm);
    sc_status_t status = sc_nccl_compute_begin(c, err);
    if (status == SC_OK)
        status = nccl__cuda(c, sc_cuda_spin(c->compute_stream, us), "spin kernel", err);
    return sc_nccl_compute_end(c, status, measured_us, err);
}
