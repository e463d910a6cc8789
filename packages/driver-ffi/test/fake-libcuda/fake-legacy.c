/* The older forms some drivers still export, compiled against cuda.h's internal declarations of
 * them. Building with -DFAKE_WITHOUT_LEGACY leaves them out, as a driver that dropped them would. */
#define __CUDA_API_VERSION_INTERNAL 1
#include <cuda.h>
#include "fake-state.h"

#ifndef FAKE_WITHOUT_LEGACY
CUresult CUDAAPI cuMemAdvise(CUdeviceptr d, size_t n, CUmem_advise a, CUdevice device) {
  fake_last_call = (FakeLast){ FAKE_CALL_ADVISE_V1, (int64_t)d, (int64_t)n, a, 0, 0, device, 0, 0 }; return CUDA_SUCCESS;
}
CUresult CUDAAPI cuMemPrefetchAsync(CUdeviceptr d, size_t n, CUdevice device, CUstream s) {
  (void)s; fake_last_call = (FakeLast){ FAKE_CALL_PREFETCH_V1, (int64_t)d, (int64_t)n, 0, 0, 0, device, 0, 0 }; return CUDA_SUCCESS;
}
CUresult CUDAAPI cuEventElapsedTime(float *ms, CUevent a, CUevent b) { (void)a; (void)b; fake_last_call.call = FAKE_CALL_ELAPSED_V1; *ms = 2.5f; return CUDA_SUCCESS; }
#endif

/* CUDA 12.8/12.9 cuMemcpyBatchAsync, with the failIdx output CUDA 13 dropped. Defined for the
 * prototype check only when FAKE_BATCH_V1 is set (a 12.8 driver); the adapter prefers _v2. */
#ifdef FAKE_BATCH_V1
CUresult CUDAAPI cuMemcpyBatchAsync(CUdeviceptr *dsts, CUdeviceptr *srcs, size_t *sizes, size_t count,
                                    CUmemcpyAttributes *attrs, size_t *attrsIdxs, size_t numAttrs,
                                    size_t *failIdx, CUstream hStream) {
  (void)dsts; (void)srcs; (void)sizes; (void)attrs; (void)attrsIdxs; (void)hStream;
  *failIdx = 0;
  fake_last_call = (FakeLast){ FAKE_CALL_MEMCPY_BATCH_V1, 0, 0, 0, 0, 0, 0, (int64_t)count, (int64_t)numAttrs };
  return CUDA_SUCCESS;
}
#endif
