/*
 * A stand-in libcuda.so.1 for checking the C benchmark programs on a machine without a GPU:
 * host memory plays device memory, copies are memcpy, advice and prefetch do nothing. It proves
 * the programs load their entry points, run every row and print valid JSON; its numbers mean
 * nothing. Built and used by bench/c/check-mock.sh only.
 */
#include <cuda.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define P(x) ((void *)(uintptr_t)(x))

CUresult cuInit(unsigned int flags) { (void)flags; return CUDA_SUCCESS; }
CUresult cuGetErrorName(CUresult error, const char **name) {
  *name = error == CUDA_SUCCESS ? "CUDA_SUCCESS" : "CUDA_ERROR_MOCK";
  return CUDA_SUCCESS;
}
CUresult cuDriverGetVersion(int *version) { *version = 13000; return CUDA_SUCCESS; }
CUresult cuDeviceGet(CUdevice *device, int ordinal) { *device = ordinal; return CUDA_SUCCESS; }
CUresult cuDeviceGetName(char *name, int length, CUdevice device) {
  (void)device;
  strncpy(name, "Mock GPU", (size_t)length);
  return CUDA_SUCCESS;
}
CUresult cuDevicePrimaryCtxRetain(CUcontext *context, CUdevice device) {
  (void)device;
  *context = (CUcontext)P(0x1000);
  return CUDA_SUCCESS;
}
CUresult cuCtxSetCurrent(CUcontext context) { (void)context; return CUDA_SUCCESS; }
CUresult cuCtxGetDevice(CUdevice *device) { *device = 0; return CUDA_SUCCESS; }
CUresult cuCtxSynchronize(void) { return CUDA_SUCCESS; }
CUresult cuStreamCreate(CUstream *stream, unsigned int flags) {
  (void)flags;
  *stream = (CUstream)P(0x2000);
  return CUDA_SUCCESS;
}
CUresult cuStreamDestroy(CUstream stream) { (void)stream; return CUDA_SUCCESS; }
CUresult cuStreamSynchronize(CUstream stream) { (void)stream; return CUDA_SUCCESS; }
CUresult cuDeviceGetDefaultMemPool(CUmemoryPool *pool, CUdevice device) {
  (void)device;
  *pool = (CUmemoryPool)P(0x3000);
  return CUDA_SUCCESS;
}
CUresult cuDeviceGetMemPool(CUmemoryPool *pool, CUdevice device) { return cuDeviceGetDefaultMemPool(pool, device); }
CUresult cuMemAllocFromPoolAsync(CUdeviceptr *pointer, size_t size, CUmemoryPool pool, CUstream stream) {
  (void)pool, (void)stream;
  *pointer = (CUdeviceptr)(uintptr_t)malloc(size);
  return *pointer ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
}
CUresult cuMemFreeAsync(CUdeviceptr pointer, CUstream stream) { (void)stream; free(P(pointer)); return CUDA_SUCCESS; }
CUresult cuMemAlloc(CUdeviceptr *pointer, size_t size) { return cuMemAllocFromPoolAsync(pointer, size, 0, 0); }
CUresult cuMemFree(CUdeviceptr pointer) { free(P(pointer)); return CUDA_SUCCESS; }
CUresult cuMemHostAlloc(void **pointer, size_t size, unsigned int flags) {
  (void)flags;
  *pointer = malloc(size);
  return *pointer ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
}
CUresult cuMemFreeHost(void *pointer) { free(pointer); return CUDA_SUCCESS; }
CUresult cuMemcpyDtoH(void *host, CUdeviceptr device, size_t bytes) { memcpy(host, P(device), bytes); return CUDA_SUCCESS; }
CUresult cuMemcpyAsync(CUdeviceptr dst, CUdeviceptr src, size_t bytes, CUstream stream) {
  (void)stream;
  memcpy(P(dst), P(src), bytes);
  return CUDA_SUCCESS;
}
CUresult cuMemsetD8Async(CUdeviceptr pointer, unsigned char value, size_t count, CUstream stream) {
  (void)stream;
  memset(P(pointer), value, count);
  return CUDA_SUCCESS;
}
CUresult cuMemAllocManaged(CUdeviceptr *pointer, size_t size, unsigned int flags) {
  (void)flags;
  return cuMemAlloc(pointer, size);
}
CUresult cuMemAdvise(CUdeviceptr pointer, size_t count, CUmem_advise advice, CUmemLocation location) {
  (void)pointer, (void)count, (void)advice, (void)location;
  return CUDA_SUCCESS;
}
CUresult cuMemPrefetchAsync(CUdeviceptr pointer, size_t count, CUmemLocation location, unsigned int flags,
                            CUstream stream) {
  (void)pointer, (void)count, (void)location, (void)flags, (void)stream;
  return CUDA_SUCCESS;
}
CUresult cuMemPoolCreate(CUmemoryPool *pool, const CUmemPoolProps *properties) {
  (void)properties;
  *pool = (CUmemoryPool)P(0x4000);
  return CUDA_SUCCESS;
}
CUresult cuMemPoolDestroy(CUmemoryPool pool) { (void)pool; return CUDA_SUCCESS; }
CUresult cuMemPoolSetAccess(CUmemoryPool pool, const CUmemAccessDesc *map, size_t count) {
  (void)pool, (void)map, (void)count;
  return CUDA_SUCCESS;
}
CUresult cuMemPoolSetAttribute(CUmemoryPool pool, CUmemPool_attribute attribute, void *value) {
  (void)pool, (void)attribute, (void)value;
  return CUDA_SUCCESS;
}
CUresult cuMemcpy2DAsync(const CUDA_MEMCPY2D *copy, CUstream stream) {
  (void)stream;
  const char *src = copy->srcMemoryType == CU_MEMORYTYPE_HOST ? copy->srcHost : P(copy->srcDevice);
  char *dst = copy->dstMemoryType == CU_MEMORYTYPE_HOST ? copy->dstHost : P(copy->dstDevice);
  for (size_t row = 0; row < copy->Height; row++)
    memcpy(dst + row * copy->dstPitch, src + row * copy->srcPitch, copy->WidthInBytes);
  return CUDA_SUCCESS;
}
CUresult cuMemGetInfo(size_t *free_bytes, size_t *total) {
  *free_bytes = (size_t)8 << 30;
  *total = (size_t)16 << 30;
  return CUDA_SUCCESS;
}
CUresult cuMemPrefetchBatchAsync(CUdeviceptr *pointers, size_t *sizes, size_t count, CUmemLocation *locations,
                                 size_t *starts, size_t location_count, unsigned long long flags, CUstream stream) {
  (void)pointers, (void)sizes, (void)count, (void)locations, (void)starts, (void)location_count, (void)flags,
      (void)stream;
  return location_count ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}
CUresult cuMemDiscardBatchAsync(CUdeviceptr *pointers, size_t *sizes, size_t count, unsigned long long flags,
                                CUstream stream) {
  (void)pointers, (void)sizes, (void)count, (void)flags, (void)stream;
  return CUDA_SUCCESS;
}
CUresult cuMemDiscardAndPrefetchBatchAsync(CUdeviceptr *pointers, size_t *sizes, size_t count,
                                           CUmemLocation *locations, size_t *starts, size_t location_count,
                                           unsigned long long flags, CUstream stream) {
  return cuMemPrefetchBatchAsync(pointers, sizes, count, locations, starts, location_count, flags, stream);
}
CUresult cuMemcpyBatchAsync(CUdeviceptr *dsts, CUdeviceptr *srcs, size_t *sizes, size_t count,
                            CUmemcpyAttributes *attributes, size_t *indices, size_t attribute_count, CUstream stream) {
  (void)attributes, (void)indices, (void)stream;
  if (!attribute_count) return CUDA_ERROR_INVALID_VALUE;
  for (size_t i = 0; i < count; i++) memcpy(P(dsts[i]), P(srcs[i]), sizes[i]);
  return CUDA_SUCCESS;
}

/* Pageable-memory rows (pageable.c): registration is bookkeeping-free here, events are no-ops. */
CUresult cuMemcpyHtoD(CUdeviceptr device, const void *host, size_t bytes) { memcpy(P(device), host, bytes); return CUDA_SUCCESS; }
CUresult cuMemcpyHtoDAsync(CUdeviceptr device, const void *host, size_t bytes, CUstream s) { (void)s; memcpy(P(device), host, bytes); return CUDA_SUCCESS; }
CUresult cuMemcpyDtoHAsync(void *host, CUdeviceptr device, size_t bytes, CUstream s) { (void)s; memcpy(host, P(device), bytes); return CUDA_SUCCESS; }
CUresult cuMemHostRegister(void *p, size_t bytes, unsigned int flags) { (void)flags; return p && bytes ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE; }
CUresult cuMemHostUnregister(void *p) { return p ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE; }
CUresult cuEventCreate(CUevent *e, unsigned int flags) { (void)flags; *e = (CUevent)malloc(8); return CUDA_SUCCESS; }
CUresult cuEventRecord(CUevent e, CUstream s) { (void)e; (void)s; return CUDA_SUCCESS; }
CUresult cuEventSynchronize(CUevent e) { (void)e; return CUDA_SUCCESS; }
CUresult cuEventDestroy(CUevent e) { free(e); return CUDA_SUCCESS; }
