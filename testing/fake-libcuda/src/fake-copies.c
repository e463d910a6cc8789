/* Copies, fills and managed-memory advice of the fake. Every address is host memory here, so
 * device and unified pointers are used directly: a copy into freed memory faults in hostile
 * mode, and AddressSanitizer (preloaded) checks the memmove/memset calls. */
#include <cuda.h>
#include <string.h>

#include "fake-memory.h"
#include "fake-record.h"

#define P(x) ((void *)(uintptr_t)(x))
CUresult CUDAAPI cuMemcpyAsync(CUdeviceptr dst, CUdeviceptr src, size_t n, CUstream s) { (void)s; memmove(P(dst), P(src), n); return CUDA_SUCCESS; }
CUresult CUDAAPI cuMemcpyHtoDAsync(CUdeviceptr dst, const void *src, size_t n, CUstream s) { (void)s; memmove(P(dst), src, n); return CUDA_SUCCESS; }
CUresult CUDAAPI cuMemcpyDtoHAsync(void *dst, CUdeviceptr src, size_t n, CUstream s) { (void)s; memmove(dst, P(src), n); return CUDA_SUCCESS; }
CUresult CUDAAPI cuMemcpyHtoD(CUdeviceptr dst, const void *src, size_t n) { memmove(P(dst), src, n); return CUDA_SUCCESS; }
CUresult CUDAAPI cuMemcpyDtoH(void *dst, CUdeviceptr src, size_t n) { memmove(dst, P(src), n); return CUDA_SUCCESS; }

static const char *end_of(CUmemorytype type, const void *host, CUdeviceptr device) {
  if (type == CU_MEMORYTYPE_HOST) return host;
  if (type == CU_MEMORYTYPE_UNIFIED || type == CU_MEMORYTYPE_DEVICE) return P(device);
  return NULL;
}
CUresult CUDAAPI cuMemcpy2DAsync(const CUDA_MEMCPY2D *c, CUstream s) {
  (void)s;
  const char *src = end_of(c->srcMemoryType, c->srcHost, c->srcDevice);
  char *dst = (char *)end_of(c->dstMemoryType, c->dstHost, c->dstDevice);
  if (!src || !dst || c->srcArray || c->dstArray || c->srcPitch < c->WidthInBytes || c->dstPitch < c->WidthInBytes) return CUDA_ERROR_INVALID_VALUE;
  src += c->srcY * c->srcPitch + c->srcXInBytes; dst += c->dstY * c->dstPitch + c->dstXInBytes;
  for (size_t y = 0; y < c->Height; y++) memmove(dst + y * c->dstPitch, src + y * c->srcPitch, c->WidthInBytes);
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuMemcpy3DAsync(const CUDA_MEMCPY3D *c, CUstream s) {
  (void)s;
  const char *src = end_of(c->srcMemoryType, c->srcHost, c->srcDevice);
  char *dst = (char *)end_of(c->dstMemoryType, c->dstHost, c->dstDevice);
  if (!src || !dst || c->reserved0 || c->reserved1 || c->srcLOD || c->dstLOD || c->srcPitch < c->WidthInBytes || c->dstPitch < c->WidthInBytes) return CUDA_ERROR_INVALID_VALUE;
  if (c->Depth > 1 && (c->srcHeight < c->Height || c->dstHeight < c->Height)) return CUDA_ERROR_INVALID_VALUE;
  for (size_t z = 0; z < c->Depth; z++)
    for (size_t y = 0; y < c->Height; y++)
      memmove(dst + (z + c->dstZ) * c->dstPitch * c->dstHeight + (y + c->dstY) * c->dstPitch + c->dstXInBytes,
              src + (z + c->srcZ) * c->srcPitch * c->srcHeight + (y + c->srcY) * c->srcPitch + c->srcXInBytes, c->WidthInBytes);
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuMemcpyBatchAsync(CUdeviceptr *dsts, CUdeviceptr *srcs, size_t *sizes, size_t count, CUmemcpyAttributes *attrs, size_t *attrsIdxs, size_t numAttrs, CUstream s) {
  (void)s;
  if (numAttrs < 1 || numAttrs > count || attrsIdxs[0] != 0) return CUDA_ERROR_INVALID_VALUE;
  for (size_t i = 0; i < numAttrs; i++) if (attrs[i].srcAccessOrder != CU_MEMCPY_SRC_ACCESS_ORDER_STREAM || attrs[i].flags) return CUDA_ERROR_INVALID_VALUE;
  for (size_t i = 0; i < count; i++) memmove(P(dsts[i]), P(srcs[i]), sizes[i]);
  /* Recorded: type/id = the first attribute's source and destination hint types. */
  fake_record("cuMemcpyBatchAsync_v2", (FakeRecord){ .type = attrs[0].srcLocHint.type, .id = attrs[0].dstLocHint.type,
              .count = (int64_t)count, .extra = (int64_t)numAttrs });
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuMemsetD8Async(CUdeviceptr d, unsigned char v, size_t n, CUstream s) { (void)s; memset(P(d), v, n); return CUDA_SUCCESS; }
CUresult CUDAAPI cuMemsetD16Async(CUdeviceptr d, unsigned short v, size_t n, CUstream s) { (void)s; for (size_t i = 0; i < n; i++) ((unsigned short *)P(d))[i] = v; return CUDA_SUCCESS; }
CUresult CUDAAPI cuMemsetD32Async(CUdeviceptr d, unsigned int v, size_t n, CUstream s) { (void)s; for (size_t i = 0; i < n; i++) ((unsigned int *)P(d))[i] = v; return CUDA_SUCCESS; }

/* Managed memory: advice is accepted and kept per range for cuMemRangeGetAttribute. */
static int accessed_by[FAKE_DEVICES + 1]; /* CPU, then each device */
static int managed_only(CUdeviceptr d) { const FakeAllocation *a = fake_find((uintptr_t)d); return a && a->kind == FAKE_MANAGED; }
static __attribute__((unused)) int slot_of(CUmemLocation l) {
  if (l.type == CU_MEM_LOCATION_TYPE_HOST) return 0;
  if (l.type == CU_MEM_LOCATION_TYPE_DEVICE && l.id >= 0 && l.id < FAKE_DEVICES) return 1 + l.id;
  return -1;
}
/* Advice and prefetches are recorded (pointer, size, advice, location type/id, extra = flags)
 * before the checks, so a test sees exactly what reached C even for a refused pointer. */
#ifndef FAKE_WITHOUT_ADVISE /* the "without-advise" build variant: a driver with no cuMemAdvise at all */
CUresult CUDAAPI cuMemAdvise(CUdeviceptr d, size_t n, CUmem_advise a, CUmemLocation l) {
  fake_footprint();
  fake_record("cuMemAdvise_v2", (FakeRecord){ .pointer = (int64_t)d, .size = (int64_t)n, .advice = a, .type = l.type, .id = l.id });
  if (!managed_only(d)) return CUDA_ERROR_INVALID_VALUE;
  if (a == CU_MEM_ADVISE_SET_ACCESSED_BY || a == CU_MEM_ADVISE_UNSET_ACCESSED_BY) {
    int slot = slot_of(l);
    if (slot < 0) return CUDA_ERROR_INVALID_VALUE;
    accessed_by[slot] = a == CU_MEM_ADVISE_SET_ACCESSED_BY;
  }
  return CUDA_SUCCESS;
}
#endif
CUresult CUDAAPI cuMemPrefetchAsync(CUdeviceptr d, size_t n, CUmemLocation l, unsigned int flags, CUstream s) {
  (void)s;
  fake_record("cuMemPrefetchAsync_v2", (FakeRecord){ .pointer = (int64_t)d, .size = (int64_t)n, .type = l.type, .id = l.id, .extra = flags });
  return managed_only(d) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}
/* Batches are recorded: pointer = the last pointer, size = the sum of sizes, advice = the last
 * location's start index, type/id = the last location, count, extra = the number of locations. */
static CUresult batch(const char *symbol, CUdeviceptr *dptrs, size_t *sizes, size_t count, CUmemLocation *locs, size_t *idx, size_t nlocs, unsigned long long flags) {
  if (flags || nlocs > count || (nlocs && idx[0] != 0)) return CUDA_ERROR_INVALID_VALUE;
  int64_t total = 0;
  for (size_t i = 0; i < count; i++) total += (int64_t)sizes[i];
  fake_record(symbol, (FakeRecord){ .pointer = count ? (int64_t)dptrs[count - 1] : 0, .size = total, .advice = nlocs ? (int64_t)idx[nlocs - 1] : -1,
              .type = nlocs ? (int64_t)locs[nlocs - 1].type : -1, .id = nlocs ? locs[nlocs - 1].id : -1,
              .count = (int64_t)count, .extra = (int64_t)nlocs });
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuMemPrefetchBatchAsync(CUdeviceptr *dptrs, size_t *sizes, size_t count, CUmemLocation *locs, size_t *idx, size_t nlocs, unsigned long long flags, CUstream s) {
  (void)s; return batch("cuMemPrefetchBatchAsync", dptrs, sizes, count, locs, idx, nlocs, flags);
}
CUresult CUDAAPI cuMemDiscardBatchAsync(CUdeviceptr *dptrs, size_t *sizes, size_t count, unsigned long long flags, CUstream s) {
  (void)s; return batch("cuMemDiscardBatchAsync", dptrs, sizes, count, NULL, NULL, 0, flags);
}
CUresult CUDAAPI cuMemDiscardAndPrefetchBatchAsync(CUdeviceptr *dptrs, size_t *sizes, size_t count, CUmemLocation *locs, size_t *idx, size_t nlocs, unsigned long long flags, CUstream s) {
  (void)s; return batch("cuMemDiscardAndPrefetchBatchAsync", dptrs, sizes, count, locs, idx, nlocs, flags);
}
/* Recorded: pointer, size = n, advice = the attribute, extra = the data size asked for. */
CUresult CUDAAPI cuMemRangeGetAttribute(void *data, size_t size, CUmem_range_attribute a, CUdeviceptr d, size_t n) {
  fake_record("cuMemRangeGetAttribute", (FakeRecord){ .pointer = (int64_t)d, .size = (int64_t)n, .advice = a, .extra = (int64_t)size });
  if (!managed_only(d)) return CUDA_ERROR_INVALID_VALUE;
  if (a == CU_MEM_RANGE_ATTRIBUTE_ACCESSED_BY) {
    if (size % 4) return CUDA_ERROR_INVALID_VALUE;
    int *out = data; size_t slots = size / 4, used = 0;
    for (size_t i = 0; i < slots; i++) out[i] = CU_DEVICE_INVALID;
    for (int i = 0; i <= FAKE_DEVICES && used < slots; i++)
      if (accessed_by[i]) out[used++] = i == 0 ? CU_DEVICE_CPU : i - 1;
    return CUDA_SUCCESS;
  }
  if (size != 4) return CUDA_ERROR_INVALID_VALUE;
  *(int *)data = a == CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION ? CU_DEVICE_INVALID : 0; return CUDA_SUCCESS;
}
CUresult CUDAAPI cuMemcpyPeerAsync(CUdeviceptr dst, CUcontext dc, CUdeviceptr src, CUcontext sc, size_t n, CUstream s) {
  (void)s; if (!dc || !sc) return CUDA_ERROR_INVALID_CONTEXT; memmove(P(dst), P(src), n); return CUDA_SUCCESS;
}
