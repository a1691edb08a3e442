/* cuda_runtime_api.h (the AMD and Ascend builds): see cuda_runtime.h beside it. */
#include "cuda_runtime.h"
