/*
 * Pageable host memory rows, C floor: the driver's own copies from and to ordinary malloc'd
 * memory (cuMemcpyHtoD / cuMemcpyDtoH), which is what cumem's staged copies are compared with,
 * the same memory pinned in place with cuMemHostRegister, and, as a variant, the pipelined copy
 * through pinned chunks on threads that bench/../shared/probes/pageable.c measured (the technique
 * cumem's N-API engine uses), so a run shows how close the engine comes to it.
 */
#include "bench.h"

#include <pthread.h>

#define COPY_BYTES ((size_t)256 << 20)
#define TABLE_ROWS ((size_t)22369621)
#define STAGE_CHUNK ((size_t)8 << 20)
#define STAGE_THREADS 4

static char *pageable;
static CUdeviceptr device;

/* --- The pipelined staging copy (variant) ------------------------------------------------ */
typedef struct {
  int id, to_device;
  size_t bytes;
  CUstream stream;
  void *chunk[2];
  CUevent done[2];
  CUresult result;
} stage_worker;
static stage_worker workers[STAGE_THREADS];

static CUresult stage_prepare(void) {
  CUresult e;
  for (int i = 0; i < STAGE_THREADS; i++) {
    if ((e = p_cuStreamCreate(&workers[i].stream, CU_STREAM_NON_BLOCKING)) != CUDA_SUCCESS) return e;
    for (int k = 0; k < 2; k++) {
      if ((e = p_cuMemHostAlloc(&workers[i].chunk[k], STAGE_CHUNK, 0)) != CUDA_SUCCESS) return e;
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
  size_t slice = w->bytes / STAGE_THREADS, begin = slice * (size_t)w->id;
  size_t end = w->id == STAGE_THREADS - 1 ? w->bytes : begin + slice;
  int pending[2] = {0, 0}, k = 0;
  size_t offsets[2] = {0, 0}, sizes[2] = {0, 0};
  for (size_t at = begin; at < end; at += STAGE_CHUNK, k ^= 1) {
    size_t n = end - at < STAGE_CHUNK ? end - at : STAGE_CHUNK;
    if (w->to_device) {
      if (pending[k]) STAGE_CK(p_cuEventSynchronize(w->done[k]));
      memcpy(w->chunk[k], pageable + at, n);
      STAGE_CK(p_cuMemcpyHtoDAsync(device + at, w->chunk[k], n, w->stream));
      STAGE_CK(p_cuEventRecord(w->done[k], w->stream));
      pending[k] = 1;
    } else {
      STAGE_CK(p_cuMemcpyDtoHAsync(w->chunk[k], device + at, n, w->stream));
      STAGE_CK(p_cuEventRecord(w->done[k], w->stream));
      offsets[k] = at;
      sizes[k] = n;
      int p = k ^ 1;
      if (sizes[p]) {
        STAGE_CK(p_cuEventSynchronize(w->done[p]));
        memcpy(pageable + offsets[p], w->chunk[p], sizes[p]);
        sizes[p] = 0;
      }
    }
  }
  for (int p = 0; p < 2; p++) {
    if (!sizes[p]) continue;
    STAGE_CK(p_cuEventSynchronize(w->done[p]));
    memcpy(pageable + offsets[p], w->chunk[p], sizes[p]);
  }
  w->result = p_cuStreamSynchronize(w->stream);
  return NULL;
}

static CUresult staged_copy(int to_device) {
  pthread_t threads[STAGE_THREADS];
  for (int i = 0; i < STAGE_THREADS; i++) {
    workers[i].id = i;
    workers[i].to_device = to_device;
    workers[i].bytes = COPY_BYTES;
    workers[i].result = CUDA_SUCCESS;
    pthread_create(&threads[i], NULL, stage_thread, &workers[i]);
  }
  for (int i = 0; i < STAGE_THREADS; i++) pthread_join(threads[i], NULL);
  for (int i = 0; i < STAGE_THREADS; i++)
    if (workers[i].result != CUDA_SUCCESS) return workers[i].result;
  return CUDA_SUCCESS;
}

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
/* A fresh malloc'd destination per copy: the allocation is timed, as new Uint8Array is in JS. */
static CUresult fresh_batch(void *state, long n) {
  (void)state;
  for (long i = 0; i < n; i++) {
    char *fresh = malloc(COPY_BYTES);
    if (!fresh) return CUDA_ERROR_OUT_OF_MEMORY;
    CUresult e = p_cuMemcpyDtoH(fresh, device, COPY_BYTES);
    free(fresh);
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

static void variant_bandwidth(row_t *r, const char *name, batch_fn fn, void *state, long per_rep) {
  row_t scratch = {.id = name};
  if (measure_bandwidth(&scratch, fn, state, (double)COPY_BYTES, per_rep, 5) == CUDA_SUCCESS)
    row_variant(r, name, scratch.value);
}

int main(int argc, char **argv) {
  bench_select(argc, argv);
  if (bench_begin("pageable")) return 2;
  row_t rows[7] = {
      {.id = "pageable.htod256MiB", .unit = "GB/s"},       {.id = "pageable.dtohTouched256MiB", .unit = "GB/s"},
      {.id = "pageable.dtohNew256MiB", .unit = "GB/s"},    {.id = "registered.htod256MiB", .unit = "GB/s"},
      {.id = "registered.dtoh256MiB", .unit = "GB/s"},     {.id = "arrow.tableToDevicePageable", .unit = "GB/s"},
      {.id = "pageable.copyToHostNew256MiB", .unit = "GB/s"}, /* the floor: dtohNew256MiB's copy again */
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
  { row_t *r = &rows[0]; CK(measure_bandwidth(r, htod_batch, NULL, (double)COPY_BYTES, 2, 7)); variant_bandwidth(r, "staged", staged_batch, &up, 2); }
  { row_t *r = &rows[1]; CK(measure_bandwidth(r, dtoh_batch, NULL, (double)COPY_BYTES, 2, 7)); variant_bandwidth(r, "staged", staged_batch, &down, 2); }
  { row_t *r = &rows[2]; CK(measure_bandwidth(r, fresh_batch, NULL, (double)COPY_BYTES, 1, 7)); }
  { row_t *r = &rows[6]; CK(measure_bandwidth(r, fresh_batch, NULL, (double)COPY_BYTES, 1, 7)); }
  { row_t *r = &rows[5]; CK(measure_bandwidth(r, table_batch, NULL, (double)(TABLE_ROWS * 12), 2, 7)); }
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
