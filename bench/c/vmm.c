/* VirtualMemoryResource rows on the driver API (bench/rows-vmm.mjs): the C floor of each. */
#include "bench.h"

#define GiB (1024.0 * MiB)
#define COPY_BYTES ((size_t)256 << 20)
/* Untimed reps of vmm.allocateFree2MiB: bench/rows-vmm.mjs says why (VMM_PAIR_WARMUP_REPS). */
#define VMM_PAIR_WARMUP_REPS 40

static CUmemAllocationProp chunk_prop(void) {
  CUmemAllocationProp prop;
  memset(&prop, 0, sizeof prop);
  prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  prop.location.id = 0;
  return prop;
}

static CUmemAccessDesc self_access(void) {
  CUmemAccessDesc access;
  memset(&access, 0, sizeof access);
  access.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  access.location.id = 0;
  access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
  return access;
}

static size_t granularity(void) {
  CUmemAllocationProp prop = chunk_prop();
  size_t g = 0;
  if (p_cuMemGetAllocationGranularity(&g, &prop, CU_MEM_ALLOC_GRANULARITY_RECOMMENDED) != CUDA_SUCCESS) return 0;
  return g;
}

/* Maps a new chunk of `size` bytes at `at` with read-write access for device 0. */
static CUresult map_chunk(CUdeviceptr at, size_t size, CUmemGenericAllocationHandle *handle) {
  CUmemAllocationProp prop = chunk_prop();
  CUmemAccessDesc access = self_access();
  CUresult e;
  if ((e = p_cuMemCreate(handle, size, &prop, 0)) != CUDA_SUCCESS) return e;
  if ((e = p_cuMemMap(at, size, 0, *handle, 0)) != CUDA_SUCCESS) return e;
  return p_cuMemSetAccess(at, size, &access, 1);
}

static CUresult allocate_free(size_t size) {
  CUdeviceptr base = 0;
  CUmemGenericAllocationHandle handle = 0;
  CUresult e;
  if ((e = p_cuMemAddressReserve(&base, size, 0, 0, 0)) != CUDA_SUCCESS) return e;
  if ((e = map_chunk(base, size, &handle)) != CUDA_SUCCESS) return e;
  if ((e = p_cuMemUnmap(base, size)) != CUDA_SUCCESS) return e;
  if ((e = p_cuMemRelease(handle)) != CUDA_SUCCESS) return e;
  return p_cuMemAddressFree(base, size);
}

/* Per-step times (us): the median of `reps` means of `per_rep` steps after `warmup_reps` untimed reps. */
static void steps_row_warmed(row_t *r, int per_rep, int reps, int warmup_reps) {
  snprintf(r->protocol, sizeof r->protocol,
           "\"stepsPerRep\":%d,\"reps\":%d,\"warmupReps\":%d,\"reset\":\"none\"", per_rep, reps,
           warmup_reps);
  r->nsamples = reps;
  r->value = median(r->samples, reps);
  r->has_value = 1;
}

static void steps_row(row_t *r, int per_rep, int reps) { steps_row_warmed(r, per_rep, reps, 1); }

/* warmup_reps: bench/rows-vmm.mjs, VMM_PAIR_WARMUP_REPS (the same protocol for every implementation). */
static void row_allocate_free(row_t *r, size_t size, int per_rep, int reps, int warmup_reps) {
  for (int rep = -warmup_reps; rep < reps; rep++) {
    double total = 0;
    for (int i = 0; i < per_rep; i++) {
      double t0 = now_s();
      CK(allocate_free(size));
      total += now_s() - t0;
    }
    if (rep >= 0) r->samples[rep] = total / per_rep * 1e6;
  }
  steps_row_warmed(r, per_rep, reps, warmup_reps);
done:;
}

/* Reserve-ahead growth: 2 GiB reserved, 1 GiB mapped; each step maps the second GiB (timed) and
 * unmaps it again (untimed). */
static void row_grow(row_t *r) {
  const size_t one = (size_t)GiB;
  CUdeviceptr base = 0;
  CUmemGenericAllocationHandle first = 0, second = 0;
  CUmemAccessDesc access = self_access();
  CUmemAllocationProp prop = chunk_prop();
  const int per_rep = 5, reps = bench_reps(5);
  CK(p_cuMemAddressReserve(&base, 2 * one, 0, 0, 0));
  CK(p_cuMemCreate(&first, one, &prop, 0));
  CK(p_cuMemMap(base, one, 0, first, 0));
  CK(p_cuMemSetAccess(base, one, &access, 1));
  for (int rep = -1; rep < reps; rep++) {
    double total = 0;
    for (int i = 0; i < per_rep; i++) {
      double t0 = now_s();
      CK(map_chunk(base + one, one, &second));
      total += now_s() - t0;
      CK(p_cuCtxSynchronize());
      CK(p_cuMemUnmap(base + one, one));
      CK(p_cuMemRelease(second));
      second = 0;
    }
    if (rep >= 0) r->samples[rep] = total / per_rep * 1e6;
  }
  steps_row(r, per_rep, reps);
done:
  if (second) p_cuMemRelease(second);
  if (first) p_cuMemUnmap(base, one), p_cuMemRelease(first);
  if (base) p_cuMemAddressFree(base, 2 * one);
}

/*
 * The pool alternative: allocate 2 GiB, copy the old 1 GiB into it, free the old, synchronize.
 * Like for like (issue 47): the pool is a new one that keeps its memory (release threshold at its
 * maximum), as `new DeviceMemoryResource(device, {})` in bench/js/vmm.mjs makes; with the
 * device's default pool and its threshold of 0 every synchronize returned the memory and every
 * timed 2 GiB allocation mapped new pages. That form stays as the variant `defaultPoolThreshold0`.
 */
static CUresult pool_grow_steps(row_t *r, CUmemoryPool pool, int per_rep, int reps);

static void row_pool_grow(row_t *r) {
  CUmemoryPool pool = 0, default_pool = 0;
  CUmemPoolProps props;
  memset(&props, 0, sizeof props);
  props.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
  props.location = device_location();
  cuuint64_t keep_all = ~(cuuint64_t)0;
  const int per_rep = 5, reps = bench_reps(5);
  CK(p_cuMemPoolCreate(&pool, &props));
  CK(p_cuMemPoolSetAttribute(pool, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, &keep_all));
  CK(pool_grow_steps(r, pool, per_rep, reps));
  steps_row(r, per_rep, reps);
  {
    row_t scratch = {.id = "vmm.poolGrow1To2GiBByCopy.defaultPool"};
    CK(p_cuDeviceGetMemPool(&default_pool, bench_device));
    if (pool_grow_steps(&scratch, default_pool, per_rep, reps) == CUDA_SUCCESS)
      row_variant(r, "defaultPoolThreshold0", median(scratch.samples, reps));
  }
done:
  if (pool) p_cuMemPoolDestroy(pool);
}

static CUresult pool_grow_steps(row_t *r, CUmemoryPool pool, int per_rep, int reps) {
  const size_t one = (size_t)GiB;
  CUdeviceptr old = 0, grown = 0;
  CUresult result = CUDA_SUCCESS;
  CK(p_cuMemAllocFromPoolAsync(&old, one, pool, bench_stream));
  CK(p_cuMemsetD8Async(old, 0x5a, one, bench_stream));
  CK(p_cuStreamSynchronize(bench_stream));
  for (int rep = -1; rep < reps; rep++) {
    double total = 0;
    for (int i = 0; i < per_rep; i++) {
      double t0 = now_s();
      CK(p_cuMemAllocFromPoolAsync(&grown, 2 * one, pool, bench_stream));
      CK(p_cuMemcpyAsync(grown, old, one, bench_stream));
      CK(p_cuMemFreeAsync(old, bench_stream));
      CK(p_cuStreamSynchronize(bench_stream));
      total += now_s() - t0;
      /* Back to 1 GiB, untimed. */
      CK(p_cuMemAllocFromPoolAsync(&old, one, pool, bench_stream));
      CK(p_cuMemcpyAsync(old, grown, one, bench_stream));
      CK(p_cuMemFreeAsync(grown, bench_stream));
      CK(p_cuStreamSynchronize(bench_stream));
      grown = 0;
    }
    if (rep >= 0) r->samples[rep] = total / per_rep * 1e6;
  }
done:
  if (grown) p_cuMemFreeAsync(grown, bench_stream);
  if (old) p_cuMemFreeAsync(old, bench_stream);
  p_cuStreamSynchronize(bench_stream);
  if (r->error[0]) result = CUDA_ERROR_UNKNOWN;
  return result;
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

/* 256 MiB device-to-device between two VMM ranges; the reference is the same copy between pool buffers. */
static void row_copy(row_t *r) {
  CUdeviceptr vmm = 0, a = 0, b = 0;
  CUmemGenericAllocationHandle handle = 0;
  CUmemoryPool pool = 0;
  row_t pooled = {.id = "pool", .unit = "GB/s"};
  CK(p_cuMemAddressReserve(&vmm, 2 * COPY_BYTES, 0, 0, 0));
  CK(map_chunk(vmm, 2 * COPY_BYTES, &handle));
  CK(p_cuMemsetD8Async(vmm, 0x3c, COPY_BYTES, bench_stream));
  {
    copy_state s = {vmm + COPY_BYTES, vmm, COPY_BYTES};
    CK(measure_bandwidth(r, copy_batch, &s, (double)COPY_BYTES, 20, 7));
  }
  CK(p_cuDeviceGetMemPool(&pool, bench_device));
  CK(p_cuMemAllocFromPoolAsync(&a, COPY_BYTES, pool, bench_stream));
  CK(p_cuMemAllocFromPoolAsync(&b, COPY_BYTES, pool, bench_stream));
  CK(p_cuMemsetD8Async(a, 0x3c, COPY_BYTES, bench_stream));
  {
    copy_state s = {b, a, COPY_BYTES};
    CK(measure_bandwidth(&pooled, copy_batch, &s, (double)COPY_BYTES, 20, 7));
  }
  r->reference = pooled.value;
  r->has_reference = 1;
  r->reference_label = "256 MiB device-to-device copy between pool buffers (C)";
done:
  if (handle) p_cuMemUnmap(vmm, 2 * COPY_BYTES), p_cuMemRelease(handle);
  if (vmm) p_cuMemAddressFree(vmm, 2 * COPY_BYTES);
  if (a) p_cuMemFreeAsync(a, bench_stream);
  if (b) p_cuMemFreeAsync(b, bench_stream);
  p_cuStreamSynchronize(bench_stream);
}

int main(int argc, char **argv) {
  bench_select(argc, argv);
  if (bench_begin("vmm")) return 2;
  const size_t g = granularity();
  row_t r1 = {.id = "vmm.allocateFree2MiB", .unit = "us"};
  if (bench_wants(r1.id)) row_allocate_free(&r1, g > ((size_t)2 << 20) ? g : (size_t)2 << 20, 50, bench_reps(7), VMM_PAIR_WARMUP_REPS), bench_row(&r1);
  row_t r2 = {.id = "vmm.allocateFree1GiB", .unit = "us"};
  if (bench_wants(r2.id)) row_allocate_free(&r2, (size_t)GiB, 5, bench_reps(5), 1), bench_row(&r2);
  row_t r3 = {.id = "vmm.grow1To2GiBInPlace", .unit = "us"};
  if (bench_wants(r3.id)) row_grow(&r3), bench_row(&r3);
  row_t r4 = {.id = "vmm.poolGrow1To2GiBByCopy", .unit = "us"};
  if (bench_wants(r4.id)) row_pool_grow(&r4), bench_row(&r4);
  row_t r5 = {.id = "vmm.copyDtoD256MiB", .unit = "GB/s"};
  if (bench_wants(r5.id)) row_copy(&r5), bench_row(&r5);
  return bench_end();
}
