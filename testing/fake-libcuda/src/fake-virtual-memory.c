/* Virtual memory management in the fake: a reservation is an ordinary recorded device mapping
 * (so copies into a mapped range work), a physical chunk a small object. The fake checks what
 * the driver checks (granularity multiples, ranges inside a reservation, chunk bounds, zeroed
 * reserved fields) and does not alias chunks: bytes do not follow a chunk to a new range. */
#include <cuda.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "fake-memory.h"
#include "fake-record.h"

#define FAKE_GRANULARITY ((size_t)2 << 20)

typedef struct FakeChunk {
  size_t size;
  int handle_types;
  int location_type;
  int location_id;
  int rdma;
  int mappings;
} FakeChunk;

static int device_ok(int ordinal) { return ordinal >= 0 && ordinal < FAKE_DEVICES; }
static int aligned(size_t value) { return value % FAKE_GRANULARITY == 0; }

static CUresult check_prop(const CUmemAllocationProp *prop) {
  if (!prop || prop->type != CU_MEM_ALLOCATION_TYPE_PINNED || prop->win32HandleMetaData) return CUDA_ERROR_INVALID_VALUE;
  if (prop->location.type != CU_MEM_LOCATION_TYPE_DEVICE || !device_ok(prop->location.id)) return CUDA_ERROR_INVALID_DEVICE;
  for (size_t i = 0; i < sizeof prop->allocFlags.reserved; i++) if (prop->allocFlags.reserved[i]) return CUDA_ERROR_INVALID_VALUE;
  if (prop->requestedHandleTypes & ~CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR) return CUDA_ERROR_NOT_SUPPORTED;
  return CUDA_SUCCESS;
}

/* The range [ptr, ptr + size) lies inside one reservation. */
static int reserved_range(CUdeviceptr ptr, size_t size) {
  const FakeAllocation *a = fake_find((uintptr_t)ptr);
  return a && a->kind == FAKE_DEVICE && a->pool == NULL && ptr + size <= a->base + a->size;
}

CUresult CUDAAPI cuMemGetAllocationGranularity(size_t *granularity, const CUmemAllocationProp *prop,
                                               CUmemAllocationGranularity_flags option) {
  CUresult r = check_prop(prop);
  if (r != CUDA_SUCCESS) return r;
  if (option != CU_MEM_ALLOC_GRANULARITY_MINIMUM && option != CU_MEM_ALLOC_GRANULARITY_RECOMMENDED) return CUDA_ERROR_INVALID_VALUE;
  *granularity = FAKE_GRANULARITY; return CUDA_SUCCESS;
}
CUresult CUDAAPI cuMemAddressReserve(CUdeviceptr *ptr, size_t size, size_t alignment, CUdeviceptr addr, unsigned long long flags) {
  fake_record("cuMemAddressReserve", (FakeRecord){ .size = (int64_t)size, .extra = (int64_t)alignment, .pointer = (int64_t)addr });
  CUresult injected = fake_injected("cuMemAddressReserve");
  if (injected != CUDA_SUCCESS) return injected;
  if (!size || !aligned(size) || flags || (alignment && alignment % FAKE_GRANULARITY)) return CUDA_ERROR_INVALID_VALUE;
  /* The hint is not honoured (the driver may return another address; callers must check). */
  uintptr_t base = fake_allocate(size, FAKE_DEVICE, fake_env_int("FAKE_CUDA_VMM_DEVICE", 0), NULL);
  if (!base) return CUDA_ERROR_OUT_OF_MEMORY;
  *ptr = base; return CUDA_SUCCESS;
}
CUresult CUDAAPI cuMemAddressFree(CUdeviceptr ptr, size_t size) {
  fake_record("cuMemAddressFree", (FakeRecord){ .pointer = (int64_t)ptr, .size = (int64_t)size });
  const FakeAllocation *a = fake_find((uintptr_t)ptr);
  if (!a || a->base != ptr || a->size != size) return CUDA_ERROR_INVALID_VALUE;
  return fake_release(ptr, FAKE_DEVICE);
}
CUresult CUDAAPI cuMemCreate(CUmemGenericAllocationHandle *handle, size_t size, const CUmemAllocationProp *prop, unsigned long long flags) {
  CUresult r = check_prop(prop);
  if (r != CUDA_SUCCESS) return r;
  fake_record("cuMemCreate", (FakeRecord){ .size = (int64_t)size, .type = prop->location.type, .id = prop->location.id,
                                           .extra = prop->requestedHandleTypes, .advice = prop->allocFlags.gpuDirectRDMACapable });
  CUresult injected = fake_injected("cuMemCreate");
  if (injected != CUDA_SUCCESS) return injected;
  if (!size || !aligned(size) || flags) return CUDA_ERROR_INVALID_VALUE;
  FakeChunk *chunk = fake_object(sizeof *chunk);
  if (!chunk) return CUDA_ERROR_OUT_OF_MEMORY;
  *chunk = (FakeChunk){ size, prop->requestedHandleTypes, prop->location.type, prop->location.id,
                        prop->allocFlags.gpuDirectRDMACapable, 0 };
  *handle = (CUmemGenericAllocationHandle)(uintptr_t)chunk; return CUDA_SUCCESS;
}
CUresult CUDAAPI cuMemRelease(CUmemGenericAllocationHandle handle) {
  fake_record("cuMemRelease", (FakeRecord){ .pointer = (int64_t)handle });
  FakeChunk *chunk = (FakeChunk *)(uintptr_t)handle;
  if (!chunk) return CUDA_ERROR_INVALID_VALUE;
  /* As the driver: a chunk still mapped lives on until its last unmap; the fake keeps it. */
  if (chunk->mappings == 0) fake_object_free(chunk, sizeof *chunk);
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuMemMap(CUdeviceptr ptr, size_t size, size_t offset, CUmemGenericAllocationHandle handle, unsigned long long flags) {
  fake_record("cuMemMap", (FakeRecord){ .pointer = (int64_t)ptr, .size = (int64_t)size, .extra = (int64_t)offset });
  FakeChunk *chunk = (FakeChunk *)(uintptr_t)handle;
  if (!chunk || flags || !size || !aligned(size) || !aligned(offset) || offset + size > chunk->size) return CUDA_ERROR_INVALID_VALUE;
  if (!reserved_range(ptr, size)) return CUDA_ERROR_INVALID_VALUE;
  chunk->mappings++;
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuMemUnmap(CUdeviceptr ptr, size_t size) {
  fake_record("cuMemUnmap", (FakeRecord){ .pointer = (int64_t)ptr, .size = (int64_t)size });
  if (!size || !aligned(size) || !reserved_range(ptr, size)) return CUDA_ERROR_INVALID_VALUE;
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuMemSetAccess(CUdeviceptr ptr, size_t size, const CUmemAccessDesc *desc, size_t count) {
  fake_record("cuMemSetAccess", (FakeRecord){ .pointer = (int64_t)ptr, .size = (int64_t)size, .count = (int64_t)count,
                                              .id = count ? desc[count - 1].location.id : -1,
                                              .extra = count ? (int64_t)desc[count - 1].flags : -1 });
  if (!count || !desc || !size || !reserved_range(ptr, size)) return CUDA_ERROR_INVALID_VALUE;
  for (size_t i = 0; i < count; i++) {
    if (desc[i].location.type != CU_MEM_LOCATION_TYPE_DEVICE || !device_ok(desc[i].location.id)) return CUDA_ERROR_INVALID_DEVICE;
    if (desc[i].flags != 0 && desc[i].flags != 1 && desc[i].flags != 3) return CUDA_ERROR_INVALID_VALUE;
  }
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuMemGetAccess(unsigned long long *flags, const CUmemLocation *location, CUdeviceptr ptr) {
  if (!location || !reserved_range(ptr, 1)) return CUDA_ERROR_INVALID_VALUE;
  *flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE; return CUDA_SUCCESS;
}
CUresult CUDAAPI cuMemExportToShareableHandle(void *shareable, CUmemGenericAllocationHandle handle, CUmemAllocationHandleType type, unsigned long long flags) {
  FakeChunk *chunk = (FakeChunk *)(uintptr_t)handle;
  if (!chunk || flags || type != CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR || !(chunk->handle_types & type)) return CUDA_ERROR_INVALID_VALUE;
  *(int *)shareable = open("/dev/null", O_RDONLY | O_CLOEXEC); return CUDA_SUCCESS;
}
CUresult CUDAAPI cuMemImportFromShareableHandle(CUmemGenericAllocationHandle *handle, void *os, CUmemAllocationHandleType type) {
  fake_record("cuMemImportFromShareableHandle", (FakeRecord){ .extra = (int64_t)(intptr_t)os });
  if (type != CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR || fcntl((int)(intptr_t)os, F_GETFD) < 0) return CUDA_ERROR_INVALID_VALUE;
  FakeChunk *chunk = fake_object(sizeof *chunk);
  if (!chunk) return CUDA_ERROR_OUT_OF_MEMORY;
  *chunk = (FakeChunk){ FAKE_GRANULARITY, type, CU_MEM_LOCATION_TYPE_DEVICE, 0, 0, 0 };
  *handle = (CUmemGenericAllocationHandle)(uintptr_t)chunk; return CUDA_SUCCESS;
}
CUresult CUDAAPI cuMemGetAllocationPropertiesFromHandle(CUmemAllocationProp *prop, CUmemGenericAllocationHandle handle) {
  FakeChunk *chunk = (FakeChunk *)(uintptr_t)handle;
  if (!chunk || !prop) return CUDA_ERROR_INVALID_VALUE;
  memset(prop, 0, sizeof *prop);
  prop->type = CU_MEM_ALLOCATION_TYPE_PINNED;
  prop->requestedHandleTypes = (CUmemAllocationHandleType)chunk->handle_types;
  prop->location.type = (CUmemLocationType)chunk->location_type;
  prop->location.id = chunk->location_id;
  prop->allocFlags.gpuDirectRDMACapable = (unsigned char)chunk->rdma;
  return CUDA_SUCCESS;
}
