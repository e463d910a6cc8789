/* Allocation entry points of the fake: pools, classic, pinned and managed memory, IPC and
 * pointer attributes, all on fake-memory.c's recorded mappings. */
#include <cuda.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fake-memory.h"
#include "fake-record.h"

int fake_current_ordinal(void);

static FakePool default_pools[FAKE_DEVICES];
static FakePool *default_pool(int ordinal) {
  FakePool *pool = &default_pools[ordinal];
  pool->location_type = CU_MEM_LOCATION_TYPE_DEVICE;
  pool->location_id = ordinal;
  pool->is_default = 1;
  return pool;
}
static int device_ok(CUdevice d) { return d >= FAKE_DEVICE_BASE && d < FAKE_DEVICE_BASE + FAKE_DEVICES; }
CUresult CUDAAPI cuDeviceGetDefaultMemPool(CUmemoryPool *p, CUdevice d) {
  if (!device_ok(d)) return CUDA_ERROR_INVALID_DEVICE;
  *p = (CUmemoryPool)default_pool(d - FAKE_DEVICE_BASE); return CUDA_SUCCESS;
}
CUresult CUDAAPI cuDeviceGetMemPool(CUmemoryPool *p, CUdevice d) { return cuDeviceGetDefaultMemPool(p, d); }

CUresult CUDAAPI cuMemPoolCreate(CUmemoryPool *p, const CUmemPoolProps *props) {
  for (size_t i = 0; i < sizeof props->reserved; i++) if (props->reserved[i]) return CUDA_ERROR_INVALID_VALUE;
  if (props->win32SecurityAttributes || props->usage) return CUDA_ERROR_INVALID_VALUE;
  /* Recorded: size = maxSize, advice = allocType, type/id = location, extra = handleTypes. */
  fake_record("cuMemPoolCreate", (FakeRecord){ .size = (int64_t)props->maxSize, .advice = props->allocType,
              .type = props->location.type, .id = props->location.id, .extra = props->handleTypes });
  FakePool *pool = fake_object(sizeof *pool);
  if (!pool) return CUDA_ERROR_OUT_OF_MEMORY;
  pool->location_type = props->location.type;
  pool->location_id = props->location.id;
  pool->handle_types = props->handleTypes;
  *p = (CUmemoryPool)pool; return CUDA_SUCCESS;
}
/* As the real driver: allocations still out keep their memory until freed. */
CUresult CUDAAPI cuMemPoolDestroy(CUmemoryPool p) {
  FakePool *pool = (FakePool *)p;
  if (!pool || pool->is_default) return CUDA_ERROR_INVALID_VALUE;
  fake_object_free(pool, sizeof *pool); return CUDA_SUCCESS;
}
CUresult CUDAAPI cuMemPoolSetAttribute(CUmemoryPool p, CUmemPool_attribute a, void *v) {
  FakePool *pool = (FakePool *)p;
  if (a < 1 || a > 8) return CUDA_ERROR_INVALID_VALUE;
  pool->attributes[a] = a <= 3 ? *(int *)v : (int64_t)*(cuuint64_t *)v; return CUDA_SUCCESS;
}
CUresult CUDAAPI cuMemPoolGetAttribute(CUmemoryPool p, CUmemPool_attribute a, void *v) {
  FakePool *pool = (FakePool *)p;
  if (a < 1 || a > 8) return CUDA_ERROR_INVALID_VALUE;
  if (a <= 3) *(int *)v = (int)pool->attributes[a]; else *(cuuint64_t *)v = (cuuint64_t)pool->attributes[a];
  return CUDA_SUCCESS;
}
/* Recorded: advice/type/id = the first descriptor's flags and location, count, and extra = the
 * last descriptor packed as type * 100 + id * 10 + flags (an array laid out as cuda.h says). */
CUresult CUDAAPI cuMemPoolSetAccess(CUmemoryPool p, const CUmemAccessDesc *map, size_t count) {
  (void)p;
  if (!count) return CUDA_ERROR_INVALID_VALUE;
  const CUmemAccessDesc *end = &map[count - 1];
  fake_record("cuMemPoolSetAccess", (FakeRecord){ .advice = map->flags, .type = map->location.type, .id = map->location.id,
              .count = (int64_t)count, .extra = end->location.type * 100 + end->location.id * 10 + end->flags });
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuMemPoolGetAccess(CUmemAccess_flags *f, CUmemoryPool p, CUmemLocation *l) {
  (void)p;
  fake_record("cuMemPoolGetAccess", (FakeRecord){ .type = l->type, .id = l->id });
  *f = CU_MEM_ACCESS_FLAGS_PROT_READWRITE; return CUDA_SUCCESS;
}
CUresult CUDAAPI cuMemPoolTrimTo(CUmemoryPool p, size_t keep) { (void)p; (void)keep; return CUDA_SUCCESS; }

static int pool_kind(const FakePool *pool) {
  if (pool->location_type == CU_MEM_LOCATION_TYPE_DEVICE) return FAKE_DEVICE;
  return FAKE_HOST;
}
CUresult CUDAAPI cuMemAllocFromPoolAsync(CUdeviceptr *d, size_t n, CUmemoryPool p, CUstream s) {
  (void)s;
  fake_footprint();
  FakePool *pool = (FakePool *)p;
  if (!pool || n == 0) return CUDA_ERROR_INVALID_VALUE;
  int kind = pool_kind(pool);
  uintptr_t base = fake_allocate(n, kind, kind == FAKE_DEVICE ? pool->location_id : -1, pool);
  if (!base) return CUDA_ERROR_OUT_OF_MEMORY;
  *d = (CUdeviceptr)base; return CUDA_SUCCESS;
}
CUresult CUDAAPI cuMemFreeAsync(CUdeviceptr d, CUstream s) {
  (void)s;
  fake_footprint();
  return fake_release((uintptr_t)d, 0);
}
CUresult CUDAAPI cuMemAlloc(CUdeviceptr *d, size_t n) {
  if (n == 0) return CUDA_ERROR_INVALID_VALUE;
  uintptr_t base = fake_allocate(n, FAKE_DEVICE, fake_current_ordinal(), NULL);
  *d = (CUdeviceptr)base; return base ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
}
/* cuMemFree frees cuMemAllocManaged memory too. */
CUresult CUDAAPI cuMemFree(CUdeviceptr d) {
  const FakeAllocation *a = fake_find((uintptr_t)d);
  if (!a || a->base != (uintptr_t)d || a->kind == FAKE_HOST || a->pool) return CUDA_ERROR_INVALID_VALUE;
  return fake_release((uintptr_t)d, 0);
}
CUresult CUDAAPI cuMemHostAlloc(void **pp, size_t n, unsigned int flags) {
  (void)flags;
  if (n == 0) return CUDA_ERROR_INVALID_VALUE;
  *pp = (void *)fake_allocate(n, FAKE_HOST, -1, NULL); return *pp ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
}
CUresult CUDAAPI cuMemFreeHost(void *p) { return fake_release((uintptr_t)p, FAKE_HOST); }
CUresult CUDAAPI cuMemAllocManaged(CUdeviceptr *d, size_t n, unsigned int flags) {
  (void)flags;
  if (n == 0) return CUDA_ERROR_INVALID_VALUE;
  uintptr_t base = fake_allocate(n, FAKE_MANAGED, fake_current_ordinal(), NULL);
  *d = (CUdeviceptr)base; return base ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
}

/* Interprocess: the fake has one process's memory only. A pool exports a descriptor of
 * /dev/null and imports any descriptor as a new, empty pool (the fd is recorded as extra);
 * exported pointers and IPC handles round-trip within this process only. */
CUresult CUDAAPI cuMemPoolExportToShareableHandle(void *h, CUmemoryPool p, CUmemAllocationHandleType t, unsigned long long f) {
  FakePool *pool = (FakePool *)p;
  if (t != CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR || f || !(pool->handle_types & t)) return CUDA_ERROR_INVALID_VALUE;
  *(int *)h = open("/dev/null", O_RDONLY | O_CLOEXEC); return CUDA_SUCCESS;
}
CUresult CUDAAPI cuMemPoolImportFromShareableHandle(CUmemoryPool *p, void *h, CUmemAllocationHandleType t, unsigned long long f) {
  if (t != CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR || f) return CUDA_ERROR_INVALID_VALUE;
  fake_record("cuMemPoolImportFromShareableHandle", (FakeRecord){ .extra = (int64_t)(intptr_t)h });
  FakePool *pool = fake_object(sizeof *pool);
  if (!pool) return CUDA_ERROR_OUT_OF_MEMORY;
  pool->location_type = CU_MEM_LOCATION_TYPE_DEVICE;
  pool->handle_types = t;
  *p = (CUmemoryPool)pool; return CUDA_SUCCESS;
}
static CUdeviceptr exported_pointer(const unsigned char *reserved, unsigned char marker) {
  CUdeviceptr d = 0;
  if (reserved[63] != marker) return 0;
  memcpy(&d, reserved, 8);
  return fake_find((uintptr_t)d) ? d : 0;
}
CUresult CUDAAPI cuMemPoolExportPointer(CUmemPoolPtrExportData *out, CUdeviceptr d) {
  if (!fake_find((uintptr_t)d)) return CUDA_ERROR_INVALID_VALUE;
  memset(out, 0, sizeof *out); memcpy(out->reserved, &d, 8); out->reserved[63] = 0x5A; return CUDA_SUCCESS;
}
CUresult CUDAAPI cuMemPoolImportPointer(CUdeviceptr *d, CUmemoryPool p, CUmemPoolPtrExportData *in) {
  (void)p; *d = exported_pointer(in->reserved, 0x5A); return *d ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}
CUresult CUDAAPI cuIpcGetMemHandle(CUipcMemHandle *h, CUdeviceptr d) {
  if (!fake_find((uintptr_t)d)) return CUDA_ERROR_INVALID_VALUE;
  memset(h, 0, sizeof *h); memcpy(h->reserved, &d, 8); h->reserved[63] = 0x77; return CUDA_SUCCESS;
}
/* Recorded: pointer = the allocation, extra = flags. */
CUresult CUDAAPI cuIpcOpenMemHandle(CUdeviceptr *d, CUipcMemHandle h, unsigned int flags) {
  *d = exported_pointer((const unsigned char *)h.reserved, 0x77);
  fake_record("cuIpcOpenMemHandle", (FakeRecord){ .pointer = (int64_t)*d, .extra = flags });
  return *d ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}
CUresult CUDAAPI cuIpcCloseMemHandle(CUdeviceptr d) { return fake_find((uintptr_t)d) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE; }
CUresult CUDAAPI cuIpcGetEventHandle(CUipcEventHandle *h, CUevent e) {
  memset(h, 0, sizeof *h); memcpy(h->reserved, &e, sizeof e); h->reserved[63] = 0x66; return CUDA_SUCCESS;
}
CUresult CUDAAPI cuIpcOpenEventHandle(CUevent *e, CUipcEventHandle h) {
  if ((unsigned char)h.reserved[63] != 0x66) { *e = NULL; return CUDA_ERROR_INVALID_VALUE; }
  memcpy(e, h.reserved, sizeof *e); return CUDA_SUCCESS;
}

/* Pointers: the truth about recorded allocations; anything else is not CUDA memory. */
CUresult CUDAAPI cuPointerGetAttribute(void *data, CUpointer_attribute a, CUdeviceptr p) {
  const FakeAllocation *found = fake_find((uintptr_t)p);
  if (!found) return CUDA_ERROR_INVALID_VALUE;
  switch (a) {
    case CU_POINTER_ATTRIBUTE_RANGE_SIZE: *(size_t *)data = found->size; return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_RANGE_START_ADDR: *(CUdeviceptr *)data = found->base; return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL: *(int *)data = found->device < 0 ? fake_current_ordinal() : found->device; return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_IS_MANAGED: *(char *)data = found->kind == FAKE_MANAGED; return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_MEMORY_TYPE:
      *(unsigned int *)data = found->kind == FAKE_HOST ? CU_MEMORYTYPE_HOST : CU_MEMORYTYPE_DEVICE; return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_DEVICE_POINTER: *(CUdeviceptr *)data = p; return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_HOST_POINTER:
      if (found->kind == FAKE_DEVICE) return CUDA_ERROR_INVALID_VALUE;
      *(void **)data = (void *)(uintptr_t)p; return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE: *(CUmemoryPool *)data = (CUmemoryPool)found->pool; return CUDA_SUCCESS;
    default: return CUDA_ERROR_INVALID_VALUE;
  }
}

/* Registered host memory (cuMemHostRegister): a small table of ranges. Overlaps and unknown
 * pointers get the driver's codes. In hostile mode registration reads every page of the range,
 * as pinning does, so registering memory that is no longer mapped faults here too. */
#define FAKE_REGISTRATIONS 256
static struct { uintptr_t base; size_t size; } registrations[FAKE_REGISTRATIONS];
CUresult CUDAAPI cuMemHostRegister_v2(void *p, size_t n, unsigned int flags) {
  uintptr_t base = (uintptr_t)p;
  if (!p || n == 0 || (flags & ~0xFu)) return CUDA_ERROR_INVALID_VALUE;
  int free_slot = -1;
  for (int i = 0; i < FAKE_REGISTRATIONS; i++) {
    if (!registrations[i].size) { if (free_slot < 0) free_slot = i; continue; }
    if (base < registrations[i].base + registrations[i].size && registrations[i].base < base + n)
      return CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED;
  }
  if (free_slot < 0) return CUDA_ERROR_OUT_OF_MEMORY;
  if (fake_hostile()) {
    volatile const char *bytes = p;
    for (size_t at = 0; at < n; at += 4096) (void)bytes[at];
    (void)bytes[n - 1];
  }
  registrations[free_slot].base = base; registrations[free_slot].size = n;
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuMemHostUnregister(void *p) {
  for (int i = 0; i < FAKE_REGISTRATIONS; i++) {
    if (registrations[i].size && registrations[i].base == (uintptr_t)p) { registrations[i].size = 0; return CUDA_SUCCESS; }
  }
  return CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED;
}
