/* @cumem/memory rows, C floor: what DeviceMemoryResource, Buffer copies and ManagedBuffer do underneath. */
#include "bench.h"

#define COPY_BYTES ((size_t)256 << 20)
#define PREFETCH_BYTES ((size_t)1 << 30)
#define ADVISE_BYTES ((size_t)2 << 20)
/* Operations per repetition: the same in bench/js/memory.mjs, bench/python/memory.py and rows.mjs. */
#define ALLOCATE_CLOSE_ITERATIONS 100000L
/* Untimed warm-up of the allocate + close row: bench/js/memory.mjs's ALLOCATE_CLOSE_WARMUP says why. */
#define ALLOCATE_CLOSE_WARMUP_S 2.0
#define READ_MOSTLY_ITERATIONS 100000L

typedef struct {
  CUmemoryPool pool;
} alloc_state;

static CUresult alloc_close_batch(void *state, long n) {
  alloc_state *s = (alloc_state *)state;
  for (long i = 0; i < n; i++) {
    CUdeviceptr pointer;
    CUresult e = p_cuMemAllocFromPoolAsync(&pointer, 4096, s->pool, bench_stream);
    if (e != CUDA_SUCCESS) return e;
    if ((e = p_cuMemFreeAsync(pointer, bench_stream)) != CUDA_SUCCESS) return e;
  }
  return p_cuStreamSynchronize(bench_stream);
}

static void row_allocate_close(row_t *r) {
  /* DeviceMemoryResource(device) without options allocates from the device's current pool. */
  alloc_state s;
  CK(p_cuDeviceGetMemPool(&s.pool, bench_device));
  /* DeviceMemoryResource (like cuda.core's) raises the pool's release threshold from 0 to the
     maximum (2^53 - 1, the largest exact JS number), so the pool keeps its memory across
     synchronizations: the same pool state here. */
  cuuint64_t keep_all = (1ULL << 53) - 1;
  CK(p_cuMemPoolSetAttribute(s.pool, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, &keep_all));
  CK(measure_calls_warm(r, alloc_close_batch, &s, ALLOCATE_CLOSE_ITERATIONS, ALLOCATE_CLOSE_WARMUP_S));
done:;
}

typedef struct {
  CUdeviceptr dst, src;
  size_t bytes;
} copy_state;

static CUresult copy_batch(void *state, long n) {
  copy_state *s = (copy_state *)state;
  for (long i = 0; i < n; i++) {
    CUresult e = p_cuMemcpyAsync(s->dst, s->src, s->bytes, bench_stream);
    if (e != CUDA_SUCCESS) return e;
  }
  return p_cuStreamSynchronize(bench_stream);
}

/* A pool of page-locked host memory that device 0 may access (CUDA 13 host pools). */
static CUresult create_host_pool(CUmemoryPool *pool) {
  CUmemPoolProps properties;
  memset(&properties, 0, sizeof properties);
  properties.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
  properties.handleTypes = CU_MEM_HANDLE_TYPE_NONE;
  properties.location = host_location();
  CUresult e = p_cuMemPoolCreate(pool, &properties);
  if (e != CUDA_SUCCESS) return e;
  CUmemAccessDesc access = {device_location(), CU_MEM_ACCESS_FLAGS_PROT_READWRITE};
  e = p_cuMemPoolSetAccess(*pool, &access, 1);
  if (e != CUDA_SUCCESS) p_cuMemPoolDestroy(*pool);
  return e;
}

/*
 * Host<->device copies of 256 MiB between page-locked host memory and device memory. Two C
 * variants: cuMemHostAlloc memory, and a host pool with device access; the row's value is the
 * faster one (the floor the adapters are held to).
 */
static void row_host_copy(row_t *r, int to_device) {
  CUdeviceptr device = 0, pooled = 0;
  void *host = NULL;
  CUmemoryPool pool = NULL;
  row_t variant;
  double best = 0;
  CK(p_cuMemAlloc(&device, COPY_BYTES));
  CK(p_cuMemHostAlloc(&host, COPY_BYTES, 0));
  fill_pattern(host, COPY_BYTES, 11);
  CK(p_cuMemsetD8Async(device, 0x5a, COPY_BYTES, bench_stream));
  {
    copy_state s = {to_device ? device : (CUdeviceptr)(uintptr_t)host,
                    to_device ? (CUdeviceptr)(uintptr_t)host : device, COPY_BYTES};
    memset(&variant, 0, sizeof variant);
    CK(measure_bandwidth(&variant, copy_batch, &s, (double)COPY_BYTES, 8, 7));
    row_variant(r, "hostAlloc", variant.value);
    best = variant.value;
    memcpy(r->samples, variant.samples, sizeof variant.samples);
    r->nsamples = variant.nsamples;
  }
  {
    /* Soft: a failure here is recorded as a variant and the cuMemHostAlloc floor still stands. */
    CUresult e = create_host_pool(&pool);
    if (e == CUDA_SUCCESS) e = p_cuMemAllocFromPoolAsync(&pooled, COPY_BYTES, pool, bench_stream);
    if (e == CUDA_SUCCESS) e = p_cuStreamSynchronize(bench_stream);
    if (e == CUDA_SUCCESS) {
      fill_pattern((void *)(uintptr_t)pooled, COPY_BYTES, 13);
      copy_state s = {to_device ? device : pooled, to_device ? pooled : device, COPY_BYTES};
      memset(&variant, 0, sizeof variant);
      e = measure_bandwidth(&variant, copy_batch, &s, (double)COPY_BYTES, 8, 7);
    }
    if (e == CUDA_SUCCESS) {
      row_variant(r, "hostPool", variant.value);
      if (variant.value > best) {
        best = variant.value;
        memcpy(r->samples, variant.samples, sizeof variant.samples);
        r->nsamples = variant.nsamples;
      }
    } else {
      row_variant(r, "hostPoolErrorCode", (double)e);
    }
  }
  r->value = best;
  r->has_value = 1;
done:
  if (pooled) {
    p_cuMemFreeAsync(pooled, bench_stream);
    p_cuStreamSynchronize(bench_stream);
  }
  if (pool) p_cuMemPoolDestroy(pool);
  if (host) p_cuMemFreeHost(host);
  if (device) p_cuMemFree(device);
}

static void row_device_copy(row_t *r) {
  CUdeviceptr a = 0, b = 0;
  CK(p_cuMemAlloc(&a, COPY_BYTES));
  CK(p_cuMemAlloc(&b, COPY_BYTES));
  CK(p_cuMemsetD8Async(a, 0x3c, COPY_BYTES, bench_stream));
  {
    copy_state s = {b, a, COPY_BYTES};
    CK(measure_bandwidth(r, copy_batch, &s, (double)COPY_BYTES, 20, 7));
  }
done:
  if (a) p_cuMemFree(a);
  if (b) p_cuMemFree(b);
}

typedef struct {
  CUdeviceptr pointer;
} advise_state;

/* Alternates set/unset so every call changes the advice, as toggling `readMostly` does. */
static CUresult advise_batch(void *state, long n) {
  advise_state *s = (advise_state *)state;
  for (long i = 0; i < n; i++) {
    CUmem_advise advice = (i & 1) ? CU_MEM_ADVISE_UNSET_READ_MOSTLY : CU_MEM_ADVISE_SET_READ_MOSTLY;
    CUresult e = p_cuMemAdvise(s->pointer, ADVISE_BYTES, advice, device_location());
    if (e != CUDA_SUCCESS) return e;
  }
  return CUDA_SUCCESS;
}

static void row_read_mostly(row_t *r) {
  advise_state s = {0};
  CK(p_cuMemAllocManaged(&s.pointer, ADVISE_BYTES, CU_MEM_ATTACH_GLOBAL));
  CK(measure_calls(r, advise_batch, &s, READ_MOSTLY_ITERATIONS));
done:
  if (s.pointer) p_cuMemFree(s.pointer);
}

/* 1 GiB of managed memory prefetched host -> device; each timed prefetch starts from the host. */
static void row_prefetch(row_t *r) {
  CUdeviceptr managed = 0;
  double to_host[MAX_SAMPLES];
  const int reps = bench_reps(5);
  CK(p_cuMemAllocManaged(&managed, PREFETCH_BYTES, CU_MEM_ATTACH_GLOBAL));
  CK(p_cuMemsetD8Async(managed, 0x5a, PREFETCH_BYTES, bench_stream));
  CK(p_cuStreamSynchronize(bench_stream));
  for (int i = -1; i < reps; i++) { /* i == -1 is the warm-up */
    double t0 = now_s();
    CK(p_cuMemPrefetchAsync(managed, PREFETCH_BYTES, host_location(), 0, bench_stream));
    CK(p_cuStreamSynchronize(bench_stream));
    double t1 = now_s();
    CK(p_cuMemPrefetchAsync(managed, PREFETCH_BYTES, device_location(), 0, bench_stream));
    CK(p_cuStreamSynchronize(bench_stream));
    double t2 = now_s();
    if (i >= 0) {
      to_host[i] = (double)PREFETCH_BYTES / (t1 - t0) / 1e9;
      r->samples[i] = (double)PREFETCH_BYTES / (t2 - t1) / 1e9;
    }
  }
  r->nsamples = reps;
  r->value = median(r->samples, reps);
  r->has_value = 1;
  row_variant(r, "deviceToHost", median(to_host, reps));
done:
  if (managed) p_cuMemFree(managed);
}

int main(int argc, char **argv) {
  bench_select(argc, argv);
  if (bench_begin("memory")) return 2;
  row_t r1 = {.id = "memory.deviceAllocateClose4KiB", .unit = "ns"};
  if (bench_wants(r1.id)) row_allocate_close(&r1), bench_row(&r1);
  row_t r2 = {.id = "memory.copyHtoD256MiB", .unit = "GB/s"};
  if (bench_wants(r2.id)) row_host_copy(&r2, 1), bench_row(&r2);
  row_t r3 = {.id = "memory.copyDtoH256MiB", .unit = "GB/s"};
  if (bench_wants(r3.id)) row_host_copy(&r3, 0), bench_row(&r3);
  row_t r4 = {.id = "memory.copyDtoD256MiB", .unit = "GB/s"};
  if (bench_wants(r4.id)) row_device_copy(&r4), bench_row(&r4);
  row_t r5 = {.id = "memory.readMostlySet", .unit = "ns"};
  if (bench_wants(r5.id)) row_read_mostly(&r5), bench_row(&r5);
  row_t r6 = {.id = "memory.prefetchHtoD1GiB", .unit = "GB/s"};
  if (bench_wants(r6.id)) row_prefetch(&r6), bench_row(&r6);
  return bench_end();
}
