/*
 * @cumem/utils rows, C floor. Each batch row has two C variants: a loop of single-range calls
 * and one batch entry point (CUDA 13); the row's value is the faster, which is what
 * `prefetchBatch` & co. are held to.
 *
 * Managed rows are migration-bound, so the page state a step starts from decides its time.
 * Before every timed step (untimed) every page is made resident and populated in the same
 * place: prefetched to the device, filled there, then (prefetch, discardPrefetch) moved to the
 * opposite of the step's target. Steps alternate device, host, device, ... from 0 in every
 * variant. bench/js/utils.mjs and bench/python/utils.py do exactly the same (rows.mjs holds the
 * protocol; bench/run.mjs flags an implementation that reports another).
 */
#include "bench.h"
#include "step-timing.h"

#define RANGES 1024
#define RANGE_BYTES ((size_t)64 << 10)
/* Ranges start 128 KiB apart: no two touch, so nothing can merge them into fewer, larger ranges. */
#define RANGE_STRIDE ((size_t)128 << 10)
#define TOTAL_BYTES (RANGES * RANGE_STRIDE)
#define MATRIX_ROWS 4096
#define MATRIX_COLUMNS 4096
#define HOST_COLUMNS 8192
/* Steps per repetition (even: as many to the device as to the host), timed repetitions, after one
   untimed repetition of warm-up. */
#define MANAGED_STEPS_PER_REP 6
#define MANAGED_REPS 11
#define COPY_STEPS_PER_REP 20
#define COPY_REPS 21

typedef struct {
  CUdeviceptr base; /* the managed allocation the ranges lie in */
  CUdeviceptr pointers[RANGES];
  CUdeviceptr sources[RANGES];
  size_t sizes[RANGES];
} ranges_state;

static CUmemLocation alternate(long iteration) {
  return (iteration & 1) ? host_location() : device_location();
}

static CUresult prefetch_loop(void *state, long iteration) {
  ranges_state *s = (ranges_state *)state;
  CUmemLocation location = alternate(iteration);
  for (int i = 0; i < RANGES; i++) {
    CUresult e = p_cuMemPrefetchAsync(s->pointers[i], s->sizes[i], location, 0, bench_stream);
    if (e != CUDA_SUCCESS) return e;
  }
  return p_cuStreamSynchronize(bench_stream);
}

static CUresult prefetch_batch(void *state, long iteration) {
  ranges_state *s = (ranges_state *)state;
  CUmemLocation location = alternate(iteration);
  size_t start = 0;
  CUresult e = p_cuMemPrefetchBatchAsync(s->pointers, s->sizes, RANGES, &location, &start, 1, 0, bench_stream);
  if (e != CUDA_SUCCESS) return e;
  return p_cuStreamSynchronize(bench_stream);
}

/*
 * The page state every managed step starts from (untimed): the whole allocation prefetched to the
 * device, filled there (so every page is populated, whatever a discard left), and moved to the
 * host when `on_host`.
 */
static CUresult reset_pages(ranges_state *s, int on_host) {
  CUresult e = p_cuMemPrefetchAsync(s->base, TOTAL_BYTES, device_location(), 0, bench_stream);
  if (e == CUDA_SUCCESS) e = p_cuMemsetD8Async(s->base, 0x5a, TOTAL_BYTES, bench_stream);
  if (e == CUDA_SUCCESS && on_host) e = p_cuMemPrefetchAsync(s->base, TOTAL_BYTES, host_location(), 0, bench_stream);
  if (e != CUDA_SUCCESS) return e;
  return p_cuStreamSynchronize(bench_stream);
}

/* Before a step that moves pages to `alternate(iteration)`: every page on the other side. */
static CUresult reset_opposite(void *state, long iteration) {
  return reset_pages((ranges_state *)state, !(iteration & 1));
}

/* Before a discard: every page populated on the device. */
static CUresult reset_device(void *state, long iteration) {
  (void)iteration;
  return reset_pages((ranges_state *)state, 0);
}

/* There is no single-range discard entry point: the loop variant makes one-range batch calls. */
static CUresult discard_loop(void *state, long iteration) {
  (void)iteration;
  ranges_state *s = (ranges_state *)state;
  for (int i = 0; i < RANGES; i++) {
    CUresult e = p_cuMemDiscardBatchAsync(&s->pointers[i], &s->sizes[i], 1, 0, bench_stream);
    if (e != CUDA_SUCCESS) return e;
  }
  return p_cuStreamSynchronize(bench_stream);
}

static CUresult discard_batch(void *state, long iteration) {
  (void)iteration;
  ranges_state *s = (ranges_state *)state;
  CUresult e = p_cuMemDiscardBatchAsync(s->pointers, s->sizes, RANGES, 0, bench_stream);
  if (e != CUDA_SUCCESS) return e;
  return p_cuStreamSynchronize(bench_stream);
}

static CUresult discard_prefetch_loop(void *state, long iteration) {
  ranges_state *s = (ranges_state *)state;
  CUmemLocation location = alternate(iteration);
  size_t start = 0;
  for (int i = 0; i < RANGES; i++) {
    CUresult e = p_cuMemDiscardAndPrefetchBatchAsync(&s->pointers[i], &s->sizes[i], 1, &location, &start, 1, 0,
                                                      bench_stream);
    if (e != CUDA_SUCCESS) return e;
  }
  return p_cuStreamSynchronize(bench_stream);
}

static CUresult discard_prefetch_batch(void *state, long iteration) {
  ranges_state *s = (ranges_state *)state;
  CUmemLocation location = alternate(iteration);
  size_t start = 0;
  CUresult e =
      p_cuMemDiscardAndPrefetchBatchAsync(s->pointers, s->sizes, RANGES, &location, &start, 1, 0, bench_stream);
  if (e != CUDA_SUCCESS) return e;
  return p_cuStreamSynchronize(bench_stream);
}

static CUresult copy_loop(void *state, long iteration) {
  (void)iteration;
  ranges_state *s = (ranges_state *)state;
  for (int i = 0; i < RANGES; i++) {
    CUresult e = p_cuMemcpyAsync(s->pointers[i], s->sources[i], s->sizes[i], bench_stream);
    if (e != CUDA_SUCCESS) return e;
  }
  return p_cuStreamSynchronize(bench_stream);
}

static CUresult copy_batch(void *state, long iteration) {
  (void)iteration;
  ranges_state *s = (ranges_state *)state;
  CUmemcpyAttributes attributes;
  memset(&attributes, 0, sizeof attributes);
  // The same attributes the adapters pass: stream order, no location hints (the contract has none).
  attributes.srcAccessOrder = CU_MEMCPY_SRC_ACCESS_ORDER_STREAM;
  size_t start = 0;
  CUresult e = p_cuMemcpyBatchAsync(s->pointers, s->sources, s->sizes, RANGES, &attributes, &start, 1, bench_stream);
  if (e != CUDA_SUCCESS) return e;
  return p_cuStreamSynchronize(bench_stream);
}

static CUresult managed_ranges(ranges_state *s, CUdeviceptr *base) {
  CUresult e = p_cuMemAllocManaged(base, TOTAL_BYTES, CU_MEM_ATTACH_GLOBAL);
  if (e != CUDA_SUCCESS) return e;
  s->base = *base;
  for (int i = 0; i < RANGES; i++) {
    s->pointers[i] = *base + (CUdeviceptr)i * RANGE_STRIDE;
    s->sizes[i] = RANGE_BYTES;
  }
  /* Touch every page (on the device) so the first prefetch migrates real data. */
  e = p_cuMemsetD8Async(*base, 0x5a, TOTAL_BYTES, bench_stream);
  if (e != CUDA_SUCCESS) return e;
  return p_cuStreamSynchronize(bench_stream);
}

/* `alternating`: steps go to the device and the host in turn, each starting from the other side. */
static void row_managed(row_t *r, int alternating, step_fn loop, step_fn batch, int batch_available) {
  static ranges_state s;
  CUdeviceptr base = 0;
  CK(managed_ranges(&s, &base));
  measure_two(r, alternating ? reset_opposite : reset_device, loop, batch, batch_available, &s,
              MANAGED_STEPS_PER_REP, MANAGED_REPS, alternating ? "oppositeOfTarget" : "device", alternating);
done:
  if (base) p_cuMemFree(base);
}

static void row_copy_batch(row_t *r) {
  static ranges_state s;
  CUdeviceptr source = 0, destination = 0;
  CK(p_cuMemAlloc(&source, TOTAL_BYTES));
  CK(p_cuMemAlloc(&destination, TOTAL_BYTES));
  CK(p_cuMemsetD8Async(source, 0x3c, TOTAL_BYTES, bench_stream));
  for (int i = 0; i < RANGES; i++) {
    s.pointers[i] = destination + (CUdeviceptr)i * RANGE_STRIDE;
    s.sources[i] = source + (CUdeviceptr)i * RANGE_STRIDE;
    s.sizes[i] = RANGE_BYTES;
  }
  CK(p_cuStreamSynchronize(bench_stream));
  measure_two(r, NULL, copy_loop, copy_batch, p_cuMemcpyBatchAsync != NULL, &s, COPY_STEPS_PER_REP, COPY_REPS, "none",
              0);
done:
  if (source) p_cuMemFree(source);
  if (destination) p_cuMemFree(destination);
}

typedef struct {
  CUDA_MEMCPY2D copy;
  CUdeviceptr device;
  void *contiguous;
} strided_state;

static CUresult strided_batch(void *state, long n) {
  strided_state *s = (strided_state *)state;
  for (long i = 0; i < n; i++) {
    CUresult e = p_cuMemcpy2DAsync(&s->copy, bench_stream);
    if (e != CUDA_SUCCESS) return e;
  }
  return p_cuStreamSynchronize(bench_stream);
}

static CUresult contiguous_batch(void *state, long n) {
  strided_state *s = (strided_state *)state;
  size_t bytes = (size_t)MATRIX_ROWS * MATRIX_COLUMNS * 4;
  for (long i = 0; i < n; i++) {
    CUresult e = p_cuMemcpyAsync(s->device, (CUdeviceptr)(uintptr_t)s->contiguous, bytes, bench_stream);
    if (e != CUDA_SUCCESS) return e;
  }
  return p_cuStreamSynchronize(bench_stream);
}

/* A 4096 x 4096 float32 block of an 8192-wide page-locked host matrix, to a dense device matrix. */
static void row_strided(row_t *r) {
  strided_state s;
  memset(&s, 0, sizeof s);
  void *host = NULL;
  size_t bytes = (size_t)MATRIX_ROWS * MATRIX_COLUMNS * 4;
  row_t contiguous;
  memset(&contiguous, 0, sizeof contiguous);
  CK(p_cuMemHostAlloc(&host, (size_t)MATRIX_ROWS * HOST_COLUMNS * 4, 0));
  CK(p_cuMemHostAlloc(&s.contiguous, bytes, 0));
  CK(p_cuMemAlloc(&s.device, bytes));
  fill_pattern(host, (size_t)MATRIX_ROWS * HOST_COLUMNS * 4, 17);
  fill_pattern(s.contiguous, bytes, 19);
  s.copy.srcMemoryType = CU_MEMORYTYPE_HOST;
  s.copy.srcHost = host;
  s.copy.srcPitch = (size_t)HOST_COLUMNS * 4;
  s.copy.dstMemoryType = CU_MEMORYTYPE_DEVICE;
  s.copy.dstDevice = s.device;
  s.copy.dstPitch = (size_t)MATRIX_COLUMNS * 4;
  s.copy.WidthInBytes = (size_t)MATRIX_COLUMNS * 4;
  s.copy.Height = MATRIX_ROWS;
  CK(measure_bandwidth(r, strided_batch, &s, (double)bytes, 8, 7));
  CK(measure_bandwidth(&contiguous, contiguous_batch, &s, (double)bytes, 8, 7));
  r->reference = contiguous.value;
  r->has_reference = 1;
  r->reference_label = "contiguous 64 MiB pinned host-to-device copy (C)";
done:
  if (s.device) p_cuMemFree(s.device);
  if (s.contiguous) p_cuMemFreeHost(s.contiguous);
  if (host) p_cuMemFreeHost(host);
}

int main(int argc, char **argv) {
  bench_select(argc, argv);
  if (bench_begin("utils")) return 2;
  int batch = p_cuMemPrefetchBatchAsync && p_cuMemDiscardBatchAsync && p_cuMemDiscardAndPrefetchBatchAsync;
  row_t r1 = {.id = "utils.prefetchBatch", .unit = "us"};
  if (bench_wants(r1.id)) row_managed(&r1, 1, prefetch_loop, prefetch_batch, batch), bench_row(&r1);
  row_t r2 = {.id = "utils.discardBatch", .unit = "us"};
  if (bench_wants(r2.id)) {
    if (batch) row_managed(&r2, 0, discard_loop, discard_batch, batch);
    else row_failf(&r2, "the driver has no cuMemDiscardBatchAsync (CUDA 13 needed)");
    bench_row(&r2);
  }
  row_t r3 = {.id = "utils.discardPrefetchBatch", .unit = "us"};
  if (bench_wants(r3.id)) {
    if (batch) row_managed(&r3, 1, discard_prefetch_loop, discard_prefetch_batch, batch);
    else row_failf(&r3, "the driver has no cuMemDiscardAndPrefetchBatchAsync (CUDA 13 needed)");
    bench_row(&r3);
  }
  row_t r4 = {.id = "utils.copyBatch", .unit = "us"};
  if (bench_wants(r4.id)) row_copy_batch(&r4), bench_row(&r4);
  row_t r5 = {.id = "utils.strided2DHtoD", .unit = "GB/s"};
  if (bench_wants(r5.id)) row_strided(&r5), bench_row(&r5);
  return bench_end();
}
