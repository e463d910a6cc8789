/* The older forms real drivers still export (cuMemAdvise, cuMemPrefetchAsync, cuEventElapsedTime
 * of CUDA 8.0 / 2.0), compiled against cuda.h's internal declarations of them. */
#define __CUDA_API_VERSION_INTERNAL 1
#include <cuda.h>

CUresult CUDAAPI cuMemAdvise(CUdeviceptr d, size_t n, CUmem_advise a, CUdevice device) {
  (void)d; (void)n; (void)a; (void)device; return CUDA_SUCCESS;
}
CUresult CUDAAPI cuMemPrefetchAsync(CUdeviceptr d, size_t n, CUdevice device, CUstream s) {
  (void)d; (void)n; (void)device; (void)s; return CUDA_SUCCESS;
}
CUresult CUDAAPI cuEventElapsedTime(float *ms, CUevent a, CUevent b) { (void)a; (void)b; *ms = 1.5f; return CUDA_SUCCESS; }
