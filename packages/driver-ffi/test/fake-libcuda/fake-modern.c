/* The current (CUDA 13.0) forms of every entry point the adapter binds. */
#include <cuda.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "fake-state.h"

FakeLast fake_last_call;
void fake_last(FakeLast *out) { *out = fake_last_call; }

static int env_int(const char *name, int fallback) {
  const char *value = getenv(name);
  return value ? atoi(value) : fallback;
}

static __thread CUcontext current_context;
#define FAKE_DEVICES 2
#define NOT_SUPPORTED CUDA_ERROR_NOT_SUPPORTED

CUresult CUDAAPI cuInit(unsigned int Flags) { return Flags == 0 ? (CUresult)env_int("FAKE_CUDA_INIT_RESULT", 0) : CUDA_ERROR_INVALID_VALUE; }
CUresult CUDAAPI cuDriverGetVersion(int *v) { *v = env_int("FAKE_CUDA_VERSION", 13000); return CUDA_SUCCESS; }
CUresult CUDAAPI cuGetErrorName(CUresult e, const char **s) {
  switch (e) {
    case CUDA_SUCCESS: *s = "CUDA_SUCCESS"; return CUDA_SUCCESS;
    case CUDA_ERROR_INVALID_VALUE: *s = "CUDA_ERROR_INVALID_VALUE"; return CUDA_SUCCESS;
    case CUDA_ERROR_NO_DEVICE: *s = "CUDA_ERROR_NO_DEVICE"; return CUDA_SUCCESS;
    case CUDA_ERROR_INVALID_DEVICE: *s = "CUDA_ERROR_INVALID_DEVICE"; return CUDA_SUCCESS;
    case CUDA_ERROR_NOT_SUPPORTED: *s = "CUDA_ERROR_NOT_SUPPORTED"; return CUDA_SUCCESS;
    case CUDA_ERROR_ILLEGAL_ADDRESS: *s = "CUDA_ERROR_ILLEGAL_ADDRESS"; return CUDA_SUCCESS;
    case CUDA_ERROR_INVALID_CONTEXT: *s = "CUDA_ERROR_INVALID_CONTEXT"; return CUDA_SUCCESS;
    default: *s = NULL; return CUDA_ERROR_INVALID_VALUE;
  }
}
CUresult CUDAAPI cuGetErrorString(CUresult e, const char **s) {
  if (e == CUDA_ERROR_ILLEGAL_ADDRESS) { *s = "an illegal memory access was encountered"; return CUDA_SUCCESS; }
  const char *name;
  if (cuGetErrorName(e, &name) != CUDA_SUCCESS) { *s = NULL; return CUDA_ERROR_INVALID_VALUE; }
  *s = "fake description";
  return CUDA_SUCCESS;
}

/* Devices: CUdevice handles are ordinal + 100 to prove the adapter maps ordinals with cuDeviceGet. */
static int device_ok(CUdevice d) { return d >= 100 && d < 100 + FAKE_DEVICES; }
CUresult CUDAAPI cuDeviceGet(CUdevice *d, int ordinal) {
  if (ordinal < 0 || ordinal >= FAKE_DEVICES) return CUDA_ERROR_INVALID_DEVICE;
  *d = 100 + ordinal; return CUDA_SUCCESS;
}
CUresult CUDAAPI cuDeviceGetCount(int *count) { *count = FAKE_DEVICES; return CUDA_SUCCESS; }
CUresult CUDAAPI cuDeviceGetName(char *name, int len, CUdevice d) {
  if (!device_ok(d)) return CUDA_ERROR_INVALID_DEVICE;
  char text[32]; int n = snprintf(text, sizeof text, "Fake GPU %d", d - 100);
  if (n >= len) n = len - 1;
  memcpy(name, text, n); name[n] = 0; return CUDA_SUCCESS;
}
CUresult CUDAAPI cuDeviceGetUuid(CUuuid *uuid, CUdevice d) {
  if (!device_ok(d)) return CUDA_ERROR_INVALID_DEVICE;
  for (int i = 0; i < 16; i++) uuid->bytes[i] = (char)(i * 16 + d - 100);
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuDeviceTotalMem(size_t *bytes, CUdevice d) { if (!device_ok(d)) return CUDA_ERROR_INVALID_DEVICE; *bytes = (size_t)80 << 30; return CUDA_SUCCESS; }
CUresult CUDAAPI cuDeviceGetAttribute(int *pi, CUdevice_attribute a, CUdevice d) { if (!device_ok(d)) return CUDA_ERROR_INVALID_DEVICE; *pi = (int)a * 1000 + d; return CUDA_SUCCESS; }
CUresult CUDAAPI cuDeviceGetDefaultMemPool(CUmemoryPool *p, CUdevice d) { if (!device_ok(d)) return CUDA_ERROR_INVALID_DEVICE; *p = (CUmemoryPool)(uintptr_t)(0xD000 + d); return CUDA_SUCCESS; }
CUresult CUDAAPI cuDeviceGetMemPool(CUmemoryPool *p, CUdevice d) { if (!device_ok(d)) return CUDA_ERROR_INVALID_DEVICE; *p = (CUmemoryPool)(uintptr_t)(0xE000 + d); return CUDA_SUCCESS; }

/* Contexts: the primary context of device d is the address 0xC000 + d. */
CUresult CUDAAPI cuDevicePrimaryCtxRetain(CUcontext *c, CUdevice d) { if (!device_ok(d)) return CUDA_ERROR_INVALID_DEVICE; *c = (CUcontext)(uintptr_t)(0xC000 + d); return CUDA_SUCCESS; }
CUresult CUDAAPI cuDevicePrimaryCtxRelease(CUdevice d) { return device_ok(d) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_DEVICE; }
CUresult CUDAAPI cuCtxSetCurrent(CUcontext c) { current_context = c; return CUDA_SUCCESS; }
CUresult CUDAAPI cuCtxGetCurrent(CUcontext *c) { *c = current_context; return CUDA_SUCCESS; }
CUresult CUDAAPI cuCtxGetDevice(CUdevice *d) {
  if (!current_context) return CUDA_ERROR_INVALID_CONTEXT;
  *d = (CUdevice)((uintptr_t)current_context - 0xC000); return CUDA_SUCCESS;
}
CUresult CUDAAPI cuCtxSynchronize(void) { return CUDA_SUCCESS; }
CUresult CUDAAPI cuMemGetInfo(size_t *f, size_t *t) { *f = (size_t)3 << 30; *t = (size_t)80 << 30; return CUDA_SUCCESS; }
CUresult CUDAAPI cuCtxGetStreamPriorityRange(int *least, int *greatest) { *least = 0; *greatest = -5; return CUDA_SUCCESS; }

/* Peers: distinct devices can access each other; P2P attributes are attrib * 100 + src * 10 + dst
 * (ordinals); enabling peer access twice answers CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED, as the driver does. */
static int peer_enabled[FAKE_DEVICES][FAKE_DEVICES];
CUresult CUDAAPI cuDeviceCanAccessPeer(int *can, CUdevice d, CUdevice peer) {
  if (!device_ok(d) || !device_ok(peer)) return CUDA_ERROR_INVALID_DEVICE;
  *can = d != peer; return CUDA_SUCCESS;
}
CUresult CUDAAPI cuDeviceGetP2PAttribute(int *value, CUdevice_P2PAttribute a, CUdevice src, CUdevice dst) {
  if (!device_ok(src) || !device_ok(dst)) return CUDA_ERROR_INVALID_DEVICE;
  *value = (int)a * 100 + (src - 100) * 10 + (dst - 100); return CUDA_SUCCESS;
}
CUresult CUDAAPI cuCtxEnablePeerAccess(CUcontext peer, unsigned int flags) {
  if (!current_context) return CUDA_ERROR_INVALID_CONTEXT;
  int self = (int)((uintptr_t)current_context - 0xC000) - 100, other = (int)((uintptr_t)peer - 0xC000) - 100;
  if (flags || self < 0 || self >= FAKE_DEVICES || other < 0 || other >= FAKE_DEVICES || other == self) return CUDA_ERROR_INVALID_VALUE;
  if (peer_enabled[self][other]) return CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED;
  peer_enabled[self][other] = 1; return CUDA_SUCCESS;
}

/* Streams and events: handles are malloc'd words; the stream 0xBAD fails synchronisation. */
CUresult CUDAAPI cuStreamCreateWithPriority(CUstream *s, unsigned int flags, int priority) {
  int64_t *w = malloc(16); w[0] = flags; w[1] = priority; *s = (CUstream)w; return CUDA_SUCCESS;
}
CUresult CUDAAPI cuStreamDestroy(CUstream s) { free(s); return CUDA_SUCCESS; }
CUresult CUDAAPI cuStreamSynchronize(CUstream s) {
  usleep(100000); /* long enough for a test to see the event loop keep running */
  return (uintptr_t)s == 0xBAD ? CUDA_ERROR_ILLEGAL_ADDRESS : CUDA_SUCCESS;
}
/* Busy for `ms` from the first query of a run of queries, then done (and ready for the next run):
 * the FFI adapter's non-blocking waits poll these queries. */
static int busy_for(struct timespec *since, long ms) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  if (since->tv_sec == 0 && since->tv_nsec == 0) *since = now;
  long elapsed = (now.tv_sec - since->tv_sec) * 1000 + (now.tv_nsec - since->tv_nsec) / 1000000;
  if (elapsed < ms) return 1;
  since->tv_sec = 0;
  since->tv_nsec = 0;
  return 0;
}
static struct timespec stream_busy_since, event_busy_since;
CUresult CUDAAPI cuStreamQuery(CUstream s) {
  if ((uintptr_t)s == 0xB05) return CUDA_ERROR_NOT_READY;
  if ((uintptr_t)s == 0xBAD) return CUDA_ERROR_ILLEGAL_ADDRESS;
  if ((uintptr_t)s == 0x5 && busy_for(&stream_busy_since, 100)) return CUDA_ERROR_NOT_READY;
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuStreamWaitEvent(CUstream s, CUevent e, unsigned int f) { (void)s; (void)e; return f == 0 ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE; }
CUresult CUDAAPI cuEventCreate(CUevent *e, unsigned int flags) { int64_t *w = malloc(8); w[0] = flags; *e = (CUevent)w; return CUDA_SUCCESS; }
CUresult CUDAAPI cuEventDestroy(CUevent e) { free(e); return CUDA_SUCCESS; }
CUresult CUDAAPI cuEventRecord(CUevent e, CUstream s) { (void)e; (void)s; return CUDA_SUCCESS; }
CUresult CUDAAPI cuEventSynchronize(CUevent e) { (void)e; usleep(20000); return CUDA_SUCCESS; }
CUresult CUDAAPI cuEventQuery(CUevent e) {
  if ((uintptr_t)e == 0xE05) return CUDA_ERROR_NOT_READY;
  if ((uintptr_t)e == 0x77 && busy_for(&event_busy_since, 20)) return CUDA_ERROR_NOT_READY;
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuEventElapsedTime(float *ms, CUevent a, CUevent b) { (void)a; (void)b; fake_last_call.call = FAKE_CALL_ELAPSED_V2; *ms = 1.5f; return CUDA_SUCCESS; }

/* Pools: the properties the adapter sent are kept for the tests. */
static CUmemPoolProps last_props;
static int64_t pool_attributes[16];
CUresult CUDAAPI cuMemPoolCreate(CUmemoryPool *p, const CUmemPoolProps *props) {
  last_props = *props;
  for (size_t i = 0; i < sizeof props->reserved; i++) if (props->reserved[i]) return CUDA_ERROR_INVALID_VALUE;
  if (props->win32SecurityAttributes || props->usage) return CUDA_ERROR_INVALID_VALUE;
  fake_last_call = (FakeLast){ FAKE_CALL_POOL_CREATE, 0, (int64_t)props->maxSize, props->allocType, props->location.type, props->location.id, 0, 0, props->handleTypes };
  *p = (CUmemoryPool)malloc(8); return CUDA_SUCCESS;
}
CUresult CUDAAPI cuMemPoolDestroy(CUmemoryPool p) { free(p); return CUDA_SUCCESS; }
CUresult CUDAAPI cuMemPoolSetAttribute(CUmemoryPool p, CUmemPool_attribute a, void *v) {
  (void)p; if (a < 1 || a > 8) return CUDA_ERROR_INVALID_VALUE;
  pool_attributes[a] = a <= 3 ? *(int *)v : (int64_t)*(cuuint64_t *)v; return CUDA_SUCCESS;
}
CUresult CUDAAPI cuMemPoolGetAttribute(CUmemoryPool p, CUmemPool_attribute a, void *v) {
  (void)p; if (a < 1 || a > 8) return CUDA_ERROR_INVALID_VALUE;
  if (a <= 3) *(int *)v = (int)pool_attributes[a]; else *(cuuint64_t *)v = (cuuint64_t)pool_attributes[a];
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuMemPoolSetAccess(CUmemoryPool p, const CUmemAccessDesc *map, size_t count) {
  /* extra packs the last descriptor (type * 100 + id * 10 + flags) to check an array is laid out as cuda.h says. */
  const CUmemAccessDesc *end = &map[count - 1];
  (void)p; fake_last_call = (FakeLast){ FAKE_CALL_POOL_ACCESS, 0, 0, map->flags, map->location.type, map->location.id, 0, (int64_t)count,
                                        end->location.type * 100 + end->location.id * 10 + end->flags };
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuMemPoolGetAccess(CUmemAccess_flags *f, CUmemoryPool p, CUmemLocation *l) { (void)p; *f = (CUmemAccess_flags)(l->type * 10 + l->id); return CUDA_SUCCESS; }
CUresult CUDAAPI cuMemPoolTrimTo(CUmemoryPool p, size_t keep) { (void)p; (void)keep; return CUDA_SUCCESS; }
CUresult CUDAAPI cuMemAllocFromPoolAsync(CUdeviceptr *d, size_t n, CUmemoryPool p, CUstream s) { (void)p; (void)s; void *m = malloc(n ? n : 1); if (!m) return CUDA_ERROR_OUT_OF_MEMORY; *d = (CUdeviceptr)(uintptr_t)m; return CUDA_SUCCESS; }
CUresult CUDAAPI cuMemFreeAsync(CUdeviceptr d, CUstream s) { (void)s; free((void *)(uintptr_t)d); return CUDA_SUCCESS; }
CUresult CUDAAPI cuMemPoolExportToShareableHandle(void *h, CUmemoryPool p, CUmemAllocationHandleType t, unsigned long long f) {
  (void)p; if (t != CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR || f) return CUDA_ERROR_INVALID_VALUE;
  *(int *)h = dup(1); return CUDA_SUCCESS;
}
CUresult CUDAAPI cuMemPoolImportFromShareableHandle(CUmemoryPool *p, void *h, CUmemAllocationHandleType t, unsigned long long f) {
  if (t != CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR || f) return CUDA_ERROR_INVALID_VALUE;
  fake_last_call = (FakeLast){ FAKE_CALL_POOL_IMPORT_FD, 0, 0, 0, 0, 0, 0, 0, (int64_t)(intptr_t)h };
  *p = (CUmemoryPool)(uintptr_t)(0xF000 + (int)(intptr_t)h); return CUDA_SUCCESS;
}
CUresult CUDAAPI cuMemPoolExportPointer(CUmemPoolPtrExportData *out, CUdeviceptr d) { memset(out, 0, sizeof *out); memcpy(out->reserved, &d, 8); out->reserved[63] = 0x5A; return CUDA_SUCCESS; }
CUresult CUDAAPI cuMemPoolImportPointer(CUdeviceptr *d, CUmemoryPool p, CUmemPoolPtrExportData *in) { (void)p; if (in->reserved[63] != 0x5A) return CUDA_ERROR_INVALID_VALUE; memcpy(d, in->reserved, 8); return CUDA_SUCCESS; }

/* Classic allocation. */
CUresult CUDAAPI cuMemAlloc(CUdeviceptr *d, size_t n) { void *m = calloc(1, n ? n : 1); *d = (CUdeviceptr)(uintptr_t)m; return m ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY; }
CUresult CUDAAPI cuMemFree(CUdeviceptr d) { free((void *)(uintptr_t)d); return CUDA_SUCCESS; }
CUresult CUDAAPI cuMemHostAlloc(void **pp, size_t n, unsigned int flags) { (void)flags; *pp = calloc(1, n ? n : 1); return CUDA_SUCCESS; }
CUresult CUDAAPI cuMemFreeHost(void *p) { free(p); return CUDA_SUCCESS; }
CUresult CUDAAPI cuMemHostRegister_v2(void *p, size_t n, unsigned int flags) { (void)flags; return p && n ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE; }
CUresult CUDAAPI cuMemHostUnregister(void *p) { return p ? CUDA_SUCCESS : CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED; }
CUresult CUDAAPI cuMemAllocManaged(CUdeviceptr *d, size_t n, unsigned int flags) { (void)flags; *d = (CUdeviceptr)(uintptr_t)calloc(1, n ? n : 1); return CUDA_SUCCESS; }
CUresult CUDAAPI cuIpcGetMemHandle(CUipcMemHandle *h, CUdeviceptr d) { memset(h, 0, sizeof *h); memcpy(h->reserved, &d, 8); h->reserved[63] = 0x77; return CUDA_SUCCESS; }
CUresult CUDAAPI cuIpcOpenMemHandle(CUdeviceptr *d, CUipcMemHandle h, unsigned int flags) { if (h.reserved[63] != 0x77) return CUDA_ERROR_INVALID_VALUE; memcpy(d, h.reserved, 8); *d += flags; return CUDA_SUCCESS; }
CUresult CUDAAPI cuIpcCloseMemHandle(CUdeviceptr d) { (void)d; return CUDA_SUCCESS; }
CUresult CUDAAPI cuIpcGetEventHandle(CUipcEventHandle *h, CUevent e) { memset(h, 0, sizeof *h); memcpy(h->reserved, &e, sizeof e); h->reserved[63] = 0x66; return CUDA_SUCCESS; }
CUresult CUDAAPI cuIpcOpenEventHandle(CUevent *e, CUipcEventHandle h) { if (h.reserved[63] != 0x66) return CUDA_ERROR_INVALID_VALUE; memcpy(e, h.reserved, sizeof *e); return CUDA_SUCCESS; }

/* Copies: every address is host memory here, so device and unified pointers are used directly. */
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
  fake_last_call = (FakeLast){ FAKE_CALL_MEMCPY_BATCH_V2, 0, 0, 0, attrs[0].srcLocHint.type, attrs[0].dstLocHint.type, 0, (int64_t)count, (int64_t)numAttrs };
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuMemsetD8Async(CUdeviceptr d, unsigned char v, size_t n, CUstream s) { (void)s; memset(P(d), v, n); return CUDA_SUCCESS; }
CUresult CUDAAPI cuMemsetD16Async(CUdeviceptr d, unsigned short v, size_t n, CUstream s) { (void)s; for (size_t i = 0; i < n; i++) ((unsigned short *)P(d))[i] = v; return CUDA_SUCCESS; }
CUresult CUDAAPI cuMemcpyPeerAsync(CUdeviceptr dst, CUcontext dc, CUdeviceptr src, CUcontext sc, size_t n, CUstream s) {
  (void)s; if (!dc || !sc) return CUDA_ERROR_INVALID_CONTEXT; memmove(P(dst), P(src), n); return CUDA_SUCCESS;
}
CUresult CUDAAPI cuMemsetD32Async(CUdeviceptr d, unsigned int v, size_t n, CUstream s) { (void)s; for (size_t i = 0; i < n; i++) ((unsigned int *)P(d))[i] = v; return CUDA_SUCCESS; }

/* Managed memory: what arrived is recorded for the tests. */
CUresult CUDAAPI cuMemAdvise(CUdeviceptr d, size_t n, CUmem_advise a, CUmemLocation l) {
  fake_last_call = (FakeLast){ FAKE_CALL_ADVISE_V2, (int64_t)d, (int64_t)n, a, l.type, l.id, 0, 0, 0 }; return CUDA_SUCCESS;
}
CUresult CUDAAPI cuMemPrefetchAsync(CUdeviceptr d, size_t n, CUmemLocation l, unsigned int flags, CUstream s) {
  (void)s; fake_last_call = (FakeLast){ FAKE_CALL_PREFETCH_V2, (int64_t)d, (int64_t)n, 0, l.type, l.id, 0, 0, flags }; return CUDA_SUCCESS;
}
static CUresult batch(int call, CUdeviceptr *dptrs, size_t *sizes, size_t count, CUmemLocation *locs, size_t *idx, size_t nlocs, unsigned long long flags) {
  if (flags || nlocs > count || (nlocs && idx[0] != 0)) return CUDA_ERROR_INVALID_VALUE;
  int64_t total = 0; for (size_t i = 0; i < count; i++) total += (int64_t)sizes[i];
  fake_last_call = (FakeLast){ call, (int64_t)dptrs[count - 1], total, nlocs ? (int64_t)idx[nlocs - 1] : -1,
                               nlocs ? (int64_t)locs[nlocs - 1].type : -1, nlocs ? locs[nlocs - 1].id : -1, 0, (int64_t)count, (int64_t)nlocs };
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuMemPrefetchBatchAsync(CUdeviceptr *dptrs, size_t *sizes, size_t count, CUmemLocation *locs, size_t *idx, size_t nlocs, unsigned long long flags, CUstream s) {
  (void)s; return batch(FAKE_CALL_PREFETCH_BATCH, dptrs, sizes, count, locs, idx, nlocs, flags);
}
CUresult CUDAAPI cuMemDiscardBatchAsync(CUdeviceptr *dptrs, size_t *sizes, size_t count, unsigned long long flags, CUstream s) {
  (void)s; return batch(FAKE_CALL_DISCARD_BATCH, dptrs, sizes, count, NULL, NULL, 0, flags);
}
CUresult CUDAAPI cuMemDiscardAndPrefetchBatchAsync(CUdeviceptr *dptrs, size_t *sizes, size_t count, CUmemLocation *locs, size_t *idx, size_t nlocs, unsigned long long flags, CUstream s) {
  (void)s; return batch(FAKE_CALL_DISCARD_PREFETCH_BATCH, dptrs, sizes, count, locs, idx, nlocs, flags);
}
CUresult CUDAAPI cuMemRangeGetAttribute(void *data, size_t size, CUmem_range_attribute a, CUdeviceptr d, size_t n) {
  (void)d; (void)n;
  if (a == CU_MEM_RANGE_ATTRIBUTE_ACCESSED_BY) {
    if (size % 4) return CUDA_ERROR_INVALID_VALUE;
    int *out = data; size_t slots = size / 4;
    for (size_t i = 0; i < slots; i++) out[i] = CU_DEVICE_INVALID;
    /* Every device and the CPU advised, as a real driver lists them (the H200 run returned
       [-1, 0]): a caller sizing the array to the device count alone loses the last one. */
    const int accessors[FAKE_DEVICES + 1] = { CU_DEVICE_CPU, 101, 100 };
    for (size_t i = 0; i < slots && i < FAKE_DEVICES + 1; i++) out[i] = accessors[i];
    return CUDA_SUCCESS;
  }
  if (size != 4) return CUDA_ERROR_INVALID_VALUE;
  *(int *)data = (int)a * 10 + 1; return CUDA_SUCCESS;
}

/* Pointers: fixed answers of each width. */
CUresult CUDAAPI cuPointerGetAttribute(void *data, CUpointer_attribute a, CUdeviceptr p) {
  switch (a) {
    case CU_POINTER_ATTRIBUTE_RANGE_SIZE: *(size_t *)data = (size_t)5 << 32; return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL: *(int *)data = -1; return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_IS_MANAGED: *(char *)data = 1; return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_MEMORY_TYPE: *(unsigned int *)data = CU_MEMORYTYPE_DEVICE; return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_RANGE_START_ADDR: *(CUdeviceptr *)data = p & ~(CUdeviceptr)0xFFF; return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE: *(CUmemoryPool *)data = (CUmemoryPool)(uintptr_t)0xFEEDFACECAFEULL; return CUDA_SUCCESS;
    default: return CUDA_ERROR_INVALID_VALUE;
  }
}
