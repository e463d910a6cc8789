/* The older forms real drivers still export (cuMemAdvise, cuMemPrefetchAsync, cuEventElapsedTime
 * of CUDA 8.0 / 2.0, cuMemcpyBatchAsync of CUDA 12.8), compiled against cuda.h's internal
 * declarations of them. Build variants leave some out, as a driver that dropped them would:
 * "without-legacy" (-DFAKE_WITHOUT_LEGACY) the CUDA 8.0 cuMemAdvise and cuMemPrefetchAsync,
 * "without-legacy-timing" those and the CUDA 2.0 cuEventElapsedTime, "without-advise"
 * cuMemAdvise in both forms. Calls are recorded (fake-record.h), device = the CUdevice argument. */
#define __CUDA_API_VERSION_INTERNAL 1
#include <cuda.h>

#include "fake-record.h"

#if !defined(FAKE_WITHOUT_LEGACY) && !defined(FAKE_WITHOUT_ADVISE)
CUresult CUDAAPI cuMemAdvise(CUdeviceptr d, size_t n, CUmem_advise a, CUdevice device) {
  fake_record("cuMemAdvise", (FakeRecord){ .pointer = (int64_t)d, .size = (int64_t)n, .advice = a, .device = device });
  return CUDA_SUCCESS;
}
#endif
#ifndef FAKE_WITHOUT_LEGACY
CUresult CUDAAPI cuMemPrefetchAsync(CUdeviceptr d, size_t n, CUdevice device, CUstream s) {
  (void)s;
  fake_record("cuMemPrefetchAsync", (FakeRecord){ .pointer = (int64_t)d, .size = (int64_t)n, .device = device });
  return CUDA_SUCCESS;
}
#endif
#ifndef FAKE_WITHOUT_LEGACY_TIMING
CUresult CUDAAPI cuEventElapsedTime(float *ms, CUevent a, CUevent b) {
  (void)a; (void)b;
  fake_record("cuEventElapsedTime", (FakeRecord){ 0 });
  *ms = 2.5f; return CUDA_SUCCESS;
}
#endif

/* CUDA 12.8/12.9 cuMemcpyBatchAsync, with the failIdx output CUDA 13 dropped: what a 12.8
 * driver binds; a CUDA 13 driver exports both, and the adapters prefer _v2 there. */
CUresult CUDAAPI cuMemcpyBatchAsync(CUdeviceptr *dsts, CUdeviceptr *srcs, size_t *sizes, size_t count,
                                    CUmemcpyAttributes *attrs, size_t *attrsIdxs, size_t numAttrs,
                                    size_t *failIdx, CUstream hStream) {
  (void)attrs; (void)attrsIdxs; (void)hStream;
  *failIdx = 0;
  for (size_t i = 0; i < count; i++) {
    char *dst = (char *)(uintptr_t)dsts[i];
    const char *src = (const char *)(uintptr_t)srcs[i];
    for (size_t at = 0; at < sizes[i]; at++) dst[at] = src[at];
  }
  fake_record("cuMemcpyBatchAsync", (FakeRecord){ .count = (int64_t)count, .extra = (int64_t)numAttrs });
  return CUDA_SUCCESS;
}
