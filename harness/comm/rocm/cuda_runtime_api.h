/* cuda_runtime_api.h (AMD build): see cuda_runtime.h beside it. */
#include "cuda_runtime.h"
