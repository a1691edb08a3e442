/* fake_test_events.h - the emulated device's unit tests time work on a stream by its events, as
 * a GPU would be timed: the stop event recorded after the work, waited on, read, and both
 * events destroyed. */
#ifndef FAKE_TEST_EVENTS_H
#define FAKE_TEST_EVENTS_H

#include <cuda_runtime.h>

#include "sc_test.h"

/* Milliseconds from start (recorded on st before the work) to the end of st's work so far. */
static inline double fake_test_elapsed_ms(cudaStream_t st, cudaEvent_t start, cudaEvent_t stop)
{
    SC_EXPECT(cudaEventRecord(stop, st) == cudaSuccess);
    SC_EXPECT(cudaEventSynchronize(stop) == cudaSuccess);
    float ms = 0;
    SC_EXPECT(cudaEventElapsedTime(&ms, start, stop) == cudaSuccess);
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
    return (double)ms;
}

#endif
