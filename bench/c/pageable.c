/*
 * Pageable host memory rows, C floor. Like for like (issue 47): where cumem copies pageable
 * memory through pinned chunks on several threads (its staged-copy engine), the floor is C
 * running that algorithm with cumem's own parameters (the defaults of
 * staging-settings.ts in packages/memory/src, which bench/run.mjs reads and passes as
 * BENCH_STAGE_CHUNK_BYTES and BENCH_STAGE_THREADS); the driver's direct copy (cuMemcpyHtoD /
 * cuMemcpyDtoH from and to the same memory) stays as the variant `direct`. The same memory
 * pinned in place with cuMemHostRegister is the registered rows' floor.
 */
#include "bench.h"

#include <pthread.h>

#define COPY_BYTES ((size_t)256 << 20)
#define TABLE_ROWS ((size_t)22369621)
#define STAGE_MAX_THREADS 64

static char *pageable;
static CUdeviceptr device;
static size_t stage_chunk = (size_t)4 << 20;
static int stage_threads = 8;

/* --- The pipelined staging copy (cumem's algorithm) --------------------------------------- */
typedef struct {
  int id, to_device;
  char *host;
  CUdeviceptr device;
  size_t bytes;
  CUstream stream;
  void *chunk[2];
  CUevent done[2];
  CUresult result;
} stage_worker;
static stage_worker workers[STAGE_MAX_THREADS];

static size_t env_size(const char *name, size_t fallback) {
  const char *text = getenv(name);
  double value = text && *text ? strtod(text, NULL) : 0;
  return value >= 1 ? (size_t)value : fallback;
}

static CUresult stage_prepare(void) {
  CUresult e;
  stage_chunk = env_size("BENCH_STAGE_CHUNK_BYTES", stage_chunk);
  stage_threads = (int)env_size("BENCH_STAGE_THREADS", (size_t)stage_threads);
  if (stage_threads > STAGE_MAX_THREADS) stage_threads = STAGE_MAX_THREADS;
  for (int i = 0; i < stage_threads; i++) {
    if ((e = p_cuStreamCreate(&workers[i].stream, CU_STREAM_NON_BLOCKING)) != CUDA_SUCCESS) return e;
    for (int k = 0; k < 2; k++) {
      if ((e = p_cuMemHostAlloc(&workers[i].chunk[k], stage_chunk, 0)) != CUDA_SUCCESS) return e;
      if ((e = p_cuEventCreate(&workers[i].done[k], CU_EVENT_DISABLE_TIMING)) != CUDA_SUCCESS) return e;
    }
  }
  return CUDA_SUCCESS;
}

#define STAGE_CK(call) \
  if ((w->result = (call)) != CUDA_SUCCESS) return NULL

static void *stage_thread(void *argument) {
  stage_worker *w = argument;
  STAGE_CK(p_cuCtxSetCurrent(bench_context));
  size_t slice = w->bytes / (size_t)stage_threads, begin = slice * (size_t)w->id;
  size_t end = w->id == stage_threads - 1 ? w->bytes : begin + slice;
  int pending[2] = {0, 0}, k = 0;
  size_t offsets[2] = {0, 0}, sizes[2] = {0, 0};
  for (size_t at = begin; at < end; at += stage_chunk, k ^= 1) {
    size_t n = end - at < stage_chunk ? end - at : stage_chunk;
    if (w->to_device) {
      if (pending[k]) STAGE_CK(p_cuEventSynchronize(w->done[k]));
      memcpy(w->chunk[k], w->host + at, n);
      STAGE_CK(p_cuMemcpyHtoDAsync(w->device + at, w->chunk[k], n, w->stream));
      STAGE_CK(p_cuEventRecord(w->done[k], w->stream));
      pending[k] = 1;
    } else {
      STAGE_CK(p_cuMemcpyDtoHAsync(w->chunk[k], w->device + at, n, w->stream));
      STAGE_CK(p_cuEventRecord(w->done[k], w->stream));
      offsets[k] = at;
      sizes[k] = n;
      int p = k ^ 1;
      if (sizes[p]) {
        STAGE_CK(p_cuEventSynchronize(w->done[p]));
        memcpy(w->host + offsets[p], w->chunk[p], sizes[p]);
        sizes[p] = 0;
      }
    }
  }
  for (int p = 0; p < 2; p++) {
    if (!sizes[p]) continue;
    STAGE_CK(p_cuEventSynchronize(w->done[p]));
    memcpy(w->host + offsets[p], w->chunk[p], sizes[p]);
  }
  w->result = p_cuStreamSynchronize(w->stream);
  return NULL;
}

/* One staged copy of `bytes` between `host` (pageable) and `dst_or_src` on the device. */
static CUresult staged_copy_of(int to_device, char *host, CUdeviceptr on_device, size_t bytes) {
  pthread_t threads[STAGE_MAX_THREADS];
  for (int i = 0; i < stage_threads; i++) {
    workers[i].id = i;
    workers[i].to_device = to_device;
    workers[i].host = host;
    workers[i].device = on_device;
    workers[i].bytes = bytes;
    workers[i].result = CUDA_SUCCESS;
    pthread_create(&threads[i], NULL, stage_thread, &workers[i]);
  }
  for (int i = 0; i < stage_threads; i++) pthread_join(threads[i], NULL);
  for (int i = 0; i < stage_threads; i++)
    if (workers[i].result != CUDA_SUCCESS) return workers[i].result;
  return CUDA_SUCCESS;
}
static CUresult staged_copy(int to_device) { return staged_copy_of(to_device, pageable, device, COPY_BYTES); }

/* --- Batches ------------------------------------------------------------------------------ */
static CUresult htod_batch(void *state, long n) {
  (void)state;
  for (long i = 0; i < n; i++) {
    CUresult e = p_cuMemcpyHtoD(device, pageable, COPY_BYTES);
    if (e != CUDA_SUCCESS) return e;
  }
  return CUDA_SUCCESS;
}
static CUresult dtoh_batch(void *state, long n) {
  (void)state;
  for (long i = 0; i < n; i++) {
    CUresult e = p_cuMemcpyDtoH(pageable, device, COPY_BYTES);
    if (e != CUDA_SUCCESS) return e;
  }
  return CUDA_SUCCESS;
}
static CUresult staged_batch(void *state, long n) {
  for (long i = 0; i < n; i++) {
    CUresult e = staged_copy(*(int *)state);
    if (e != CUDA_SUCCESS) return e;
  }
  return CUDA_SUCCESS;
}
static CUresult table_batch(void *state, long n) {
  (void)state;
  for (long i = 0; i < n; i++) {
    CUresult e = p_cuMemcpyHtoD(device, pageable, TABLE_ROWS * 4);
    if (e == CUDA_SUCCESS) e = p_cuMemcpyHtoD(device + TABLE_ROWS * 4, pageable + TABLE_ROWS * 4, TABLE_ROWS * 8);
    if (e != CUDA_SUCCESS) return e;
  }
  return CUDA_SUCCESS;
}
/* The table's two columns through the staged engine (cumem stages each column of at least its
   minimum size: both are above 64 MiB). */
static CUresult table_staged_batch(void *state, long n) {
  (void)state;
  for (long i = 0; i < n; i++) {
    CUresult e = staged_copy_of(1, pageable, device, TABLE_ROWS * 4);
    if (e == CUDA_SUCCESS) e = staged_copy_of(1, pageable + TABLE_ROWS * 4, device + TABLE_ROWS * 4, TABLE_ROWS * 8);
    if (e != CUDA_SUCCESS) return e;
  }
  return CUDA_SUCCESS;
}

/*
 * Copies into new memory, the allocation timed and the release not, as every implementation
 * does (issue 47: C used to time free() and JS's and Python's releases were untimed). `staged`:
 * cumem's algorithm into new malloc'd memory, else the direct cuMemcpyDtoH. One untimed copy
 * first; the median of `reps`.
 */
static CUresult measure_new_pageable(row_t *r, int staged, int reps) {
  reps = bench_reps(reps);
  for (int rep = -1; rep < reps; rep++) {
    double t0 = now_s();
    char *fresh = malloc(COPY_BYTES);
    if (!fresh) return CUDA_ERROR_OUT_OF_MEMORY;
    CUresult e = staged ? staged_copy_of(0, fresh, device, COPY_BYTES) : p_cuMemcpyDtoH(fresh, device, COPY_BYTES);
    double elapsed = now_s() - t0;
    free(fresh);
    if (e != CUDA_SUCCESS) return e;
    if (rep >= 0) r->samples[rep] = (double)COPY_BYTES / elapsed / 1e9;
  }
  r->nsamples = reps;
  r->value = median(r->samples, reps);
  r->has_value = 1;
  return CUDA_SUCCESS;
}

/*
 * pageable.copyToHostNew256MiB like for like (issue 47): CudaBuffer.copyToHost() takes new
 * page-locked memory from cumem's pinned pool (a pool that keeps its memory), the allocation
 * timed, and closes it untimed, so the next copy reuses it. C does the same with a host pool:
 * cuMemAllocFromPoolAsync + cuMemcpyDtoHAsync + synchronize timed, cuMemFreeAsync untimed.
 */
static CUresult measure_new_pinned(row_t *r, int reps) {
  CUmemoryPool pool = 0;
  CUmemPoolProps properties;
  memset(&properties, 0, sizeof properties);
  properties.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
  properties.location = host_location();
  cuuint64_t keep_all = ~(cuuint64_t)0;
  CUresult e = p_cuMemPoolCreate(&pool, &properties);
  if (e != CUDA_SUCCESS) return e;
  CUmemAccessDesc access = {device_location(), CU_MEM_ACCESS_FLAGS_PROT_READWRITE};
  if ((e = p_cuMemPoolSetAccess(pool, &access, 1)) != CUDA_SUCCESS) goto out;
  if ((e = p_cuMemPoolSetAttribute(pool, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, &keep_all)) != CUDA_SUCCESS) goto out;
  reps = bench_reps(reps);
  for (int rep = -1; rep < reps; rep++) {
    CUdeviceptr fresh = 0;
    double t0 = now_s();
    if ((e = p_cuMemAllocFromPoolAsync(&fresh, COPY_BYTES, pool, bench_stream)) != CUDA_SUCCESS) goto out;
    e = p_cuMemcpyDtoHAsync((void *)(uintptr_t)fresh, device, COPY_BYTES, bench_stream);
    if (e == CUDA_SUCCESS) e = p_cuStreamSynchronize(bench_stream);
    double elapsed = now_s() - t0;
    CUresult freed = p_cuMemFreeAsync(fresh, bench_stream);
    if (e == CUDA_SUCCESS) e = freed;
    if (e == CUDA_SUCCESS) e = p_cuStreamSynchronize(bench_stream);
    if (e != CUDA_SUCCESS) goto out;
    if (rep >= 0) r->samples[rep] = (double)COPY_BYTES / elapsed / 1e9;
  }
  r->nsamples = reps;
  r->value = median(r->samples, reps);
  r->has_value = 1;
out:
  p_cuMemPoolDestroy(pool);
  return e;
}

static void variant_bandwidth_of(row_t *r, const char *name, batch_fn fn, void *state, double bytes, long per_rep) {
  row_t scratch = {.id = name};
  if (measure_bandwidth(&scratch, fn, state, bytes, per_rep, 5) == CUDA_SUCCESS)
    row_variant(r, name, scratch.value);
}
static void variant_bandwidth(row_t *r, const char *name, batch_fn fn, void *state, long per_rep) {
  variant_bandwidth_of(r, name, fn, state, (double)COPY_BYTES, per_rep);
}

int main(int argc, char **argv) {
  bench_select(argc, argv);
  if (bench_begin("pageable")) return 2;
  row_t rows[7] = {
      {.id = "pageable.htod256MiB", .unit = "GB/s"},       {.id = "pageable.dtohTouched256MiB", .unit = "GB/s"},
      {.id = "pageable.dtohNew256MiB", .unit = "GB/s"},    {.id = "registered.htod256MiB", .unit = "GB/s"},
      {.id = "registered.dtoh256MiB", .unit = "GB/s"},     {.id = "arrow.tableToDevicePageable", .unit = "GB/s"},
      {.id = "pageable.copyToHostNew256MiB", .unit = "GB/s"}, /* new memory from a host pool, as cumem's */
  };
  int up = 1, down = 0;
  {
    row_t *r = &rows[0];
    if (!p_cuMemcpyHtoD || !p_cuMemHostRegister || !p_cuMemHostUnregister || !p_cuMemcpyHtoDAsync ||
        !p_cuMemcpyDtoHAsync || !p_cuEventCreate || !p_cuEventRecord || !p_cuEventSynchronize) {
      row_failf(r, "libcuda.so.1 lacks an entry point this program needs");
      goto done;
    }
    pageable = malloc(COPY_BYTES);
    if (!pageable) {
      row_failf(r, "malloc(256 MiB) failed");
      goto done;
    }
    fill_pattern(pageable, COPY_BYTES, 29u);
    CK(p_cuMemAlloc(&device, COPY_BYTES));
    CK(stage_prepare());
  }
  /* The value: cumem's staged algorithm and parameters; the driver's direct copy as `direct`. */
  { row_t *r = &rows[0]; CK(measure_bandwidth(r, staged_batch, &up, (double)COPY_BYTES, 2, 7)); variant_bandwidth(r, "direct", htod_batch, NULL, 2); }
  { row_t *r = &rows[1]; CK(measure_bandwidth(r, staged_batch, &down, (double)COPY_BYTES, 2, 7)); variant_bandwidth(r, "direct", dtoh_batch, NULL, 2); }
  {
    row_t *r = &rows[2];
    CK(measure_new_pageable(r, 1, 7));
    row_t direct = {.id = "direct"};
    if (measure_new_pageable(&direct, 0, 7) == CUDA_SUCCESS) row_variant(r, "direct", direct.value);
  }
  { row_t *r = &rows[6]; CK(measure_new_pinned(r, 7)); }
  { row_t *r = &rows[5]; CK(measure_bandwidth(r, table_staged_batch, NULL, (double)(TABLE_ROWS * 12), 2, 7)); variant_bandwidth_of(r, "direct", table_batch, NULL, (double)(TABLE_ROWS * 12), 2); }
  row_variant(&rows[0], "stageChunkMiB", (double)stage_chunk / (1 << 20));
  row_variant(&rows[0], "stageThreads", (double)stage_threads);
  {
    row_t *r = &rows[3];
    double t0 = now_s();
    CK(p_cuMemHostRegister(pageable, COPY_BYTES, 0));
    double registered_ms = (now_s() - t0) * 1e3;
    row_variant(r, "registerMs", registered_ms);
    CUresult e = measure_bandwidth(r, htod_batch, NULL, (double)COPY_BYTES, 4, 7);
    if (e == CUDA_SUCCESS) e = measure_bandwidth(&rows[4], dtoh_batch, NULL, (double)COPY_BYTES, 4, 7);
    CK(p_cuMemHostUnregister(pageable));
    CK(e);
    /* One shot: register, copy, unregister, as a one-time user would. */
    t0 = now_s();
    CK(p_cuMemHostRegister(pageable, COPY_BYTES, 0));
    CK(p_cuMemcpyHtoD(device, pageable, COPY_BYTES));
    CK(p_cuMemHostUnregister(pageable));
    row_variant(r, "registerCopyUnregister", (double)COPY_BYTES / (now_s() - t0) / 1e9);
  }
done:
  for (int i = 1; i < 7; i++)
    if (!rows[i].has_value && !rows[i].error[0] && rows[0].error[0]) snprintf(rows[i].error, sizeof rows[i].error, "%s", rows[0].error);
  for (int i = 0; i < 7; i++) bench_row(&rows[i]);
  return bench_end();
}
