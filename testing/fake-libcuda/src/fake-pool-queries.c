/* cuMemGetMemPool / cuMemGetDefaultMemPool (CUDA 13.0): the pool a location uses. The fake has
 * no cuMemSetMemPool, so a location's current pool is its default pool: a device's own for
 * pinned device memory, and one default host pool per allocation type. Default pools cannot be
 * destroyed (cuMemPoolDestroy refuses them). Other locations (NUMA nodes) are not modelled. */
#include <cuda.h>

#include "fake-memory.h"
#include "fake-record.h"

static FakePool host_pools[2];

static CUresult named_pool(const char *call, CUmemoryPool *p, CUmemLocation *l, CUmemAllocationType t) {
  if (!p || !l) return CUDA_ERROR_INVALID_VALUE;
  /* Recorded: advice = allocation type, type/id = location. */
  fake_record(call, (FakeRecord){ .advice = t, .type = l->type, .id = l->id });
  int managed = t == CU_MEM_ALLOCATION_TYPE_MANAGED;
  if (!managed && t != CU_MEM_ALLOCATION_TYPE_PINNED) return CUDA_ERROR_INVALID_VALUE;
  if (l->type == CU_MEM_LOCATION_TYPE_DEVICE && !managed) {
    if (l->id < 0 || l->id >= FAKE_DEVICES) return CUDA_ERROR_INVALID_DEVICE;
    return cuDeviceGetDefaultMemPool(p, FAKE_DEVICE_BASE + l->id);
  }
  if (l->type != CU_MEM_LOCATION_TYPE_HOST) return CUDA_ERROR_INVALID_VALUE;
  FakePool *pool = &host_pools[managed];
  pool->location_type = CU_MEM_LOCATION_TYPE_HOST;
  pool->location_id = 0;
  pool->is_default = 1;
  *p = (CUmemoryPool)pool;
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuMemGetMemPool(CUmemoryPool *p, CUmemLocation *l, CUmemAllocationType t) {
  return named_pool("cuMemGetMemPool", p, l, t);
}
CUresult CUDAAPI cuMemGetDefaultMemPool(CUmemoryPool *p, CUmemLocation *l, CUmemAllocationType t) {
  return named_pool("cuMemGetDefaultMemPool", p, l, t);
}
