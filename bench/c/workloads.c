/*
 * Workload rows, C floor (issue 47): the same work as bench/js/workloads.mjs with the same
 * concurrency, on the driver API. Kernels: bench/kernels/workloads.ptx (BENCH_KERNELS_PTX, the
 * file the JS rows load), through cuLibraryLoadData as @cumem/compute does.
 *
 * workload.inference<N>Stream(s): 256 requests, each an 8 MiB uint8 batch uploaded from
 * page-locked memory, normalised to float32 (normalize_u8), passed through a bandwidth-bound
 * "model" (MODEL_PASSES launches of model_pass over the 32 MiB tensor) and 1 MiB downloaded into
 * page-locked memory; request i goes to stream i % N, and before reusing a stream's buffers the
 * host waits for that stream's previous request and reads its answer, as a server would.
 *
 * workload.arrowFromDisk: the Arrow IPC file (BENCH_ARROW_FILE, made by bench/js/arrow-file.mjs,
 * which also writes where its two column bodies lie: the file's metadata is not parsed here)
 * dropped from the page cache (untimed), read into page-locked memory, both columns copied to
 * the device, filtered by filter_gt, the count and the kept rows copied back.
 */
#include "bench.h"

#include <fcntl.h>

#define MiB_BYTES ((size_t)1 << 20)
#define BATCH_BYTES (8 * MiB_BYTES)
#define DOWNLOAD_BYTES MiB_BYTES
#define MODEL_PASSES 8
#define MAX_STREAMS 4
#define BLOCK 256

static int requests = 256;

typedef struct {
  CUstream stream;
  void *host_in, *host_out;
  CUdeviceptr in, x;
  int pending;
} slot_t;

typedef struct {
  CUfunction normalize, model, filter;
} kernels_t;

static char *read_text(const char *path, size_t *length) {
  FILE *file = fopen(path, "rb");
  if (!file) return NULL;
  fseek(file, 0, SEEK_END);
  long size = ftell(file);
  fseek(file, 0, SEEK_SET);
  char *text = malloc((size_t)size + 1);
  if (text && fread(text, 1, (size_t)size, file) != (size_t)size) {
    free(text);
    text = NULL;
  }
  if (text) text[size] = '\0';
  if (length) *length = (size_t)size;
  fclose(file);
  return text;
}

static CUresult launch1d(CUfunction function, CUstream stream, unsigned n, void **params) {
  CUlaunchConfig config;
  memset(&config, 0, sizeof config);
  config.gridDimX = (n + BLOCK - 1) / BLOCK, config.gridDimY = config.gridDimZ = 1;
  config.blockDimX = BLOCK, config.blockDimY = config.blockDimZ = 1;
  config.hStream = stream;
  return p_cuLaunchKernelEx(&config, function, params, NULL);
}

/* One request on `slot`: upload, normalise, the model passes, download. `parts`: 1 copies only,
 * 2 kernels only, 3 both. */
static CUresult enqueue_request(const kernels_t *k, slot_t *slot, int parts) {
  CUresult e;
  unsigned n = (unsigned)BATCH_BYTES;
  float scale = 1.0f / 255.0f, bias = -0.5f, a = 0.999f, b = 0.001f;
  if ((parts & 1) && (e = p_cuMemcpyHtoDAsync(slot->in, slot->host_in, BATCH_BYTES, slot->stream)) != CUDA_SUCCESS)
    return e;
  if (parts & 2) {
    void *normalize_params[] = {&slot->in, &slot->x, &n, &scale, &bias};
    if ((e = launch1d(k->normalize, slot->stream, n, normalize_params)) != CUDA_SUCCESS) return e;
    for (int pass = 0; pass < MODEL_PASSES; pass++) {
      void *model_params[] = {&slot->x, &n, &a, &b};
      if ((e = launch1d(k->model, slot->stream, n, model_params)) != CUDA_SUCCESS) return e;
    }
  }
  if ((parts & 1) && (e = p_cuMemcpyDtoHAsync(slot->host_out, slot->x, DOWNLOAD_BYTES, slot->stream)) != CUDA_SUCCESS)
    return e;
  return CUDA_SUCCESS;
}

/* Seconds for `requests` requests over `streams` slots. */
static CUresult serve(const kernels_t *k, slot_t *slots, int streams, int parts, double *seconds, float *answer) {
  CUresult e;
  volatile float seen = 0;
  double t0 = now_s();
  for (int i = 0; i < requests; i++) {
    slot_t *slot = &slots[i % streams];
    if (slot->pending) {
      if ((e = p_cuStreamSynchronize(slot->stream)) != CUDA_SUCCESS) return e;
      seen += ((float *)slot->host_out)[0]; /* the answer is read, as a server would */
    }
    if ((e = enqueue_request(k, slot, parts)) != CUDA_SUCCESS) return e;
    slot->pending = 1;
  }
  for (int s = 0; s < streams; s++) {
    if (slots[s].pending && (e = p_cuStreamSynchronize(slots[s].stream)) != CUDA_SUCCESS) return e;
    slots[s].pending = 0;
  }
  *seconds = now_s() - t0;
  if (answer) *answer = seen;
  return CUDA_SUCCESS;
}

/* Requests per second, the median of the repetitions after one untimed. */
static CUresult measure_serve(row_t *r, const kernels_t *k, slot_t *slots, int streams, int parts) {
  CUresult e;
  int reps = bench_reps(5);
  for (int rep = -1; rep < reps; rep++) {
    double seconds = 0;
    if ((e = serve(k, slots, streams, parts, &seconds, NULL)) != CUDA_SUCCESS) return e;
    if (rep >= 0) r->samples[rep] = requests / seconds;
  }
  r->nsamples = reps;
  r->value = median(r->samples, reps);
  r->has_value = 1;
  return CUDA_SUCCESS;
}

static void rows_inference(row_t *rows, const kernels_t *k) {
  slot_t slots[MAX_STREAMS];
  memset(slots, 0, sizeof slots);
  row_t *r = &rows[0];
  for (int s = 0; s < MAX_STREAMS; s++) {
    CK(p_cuStreamCreate(&slots[s].stream, CU_STREAM_NON_BLOCKING));
    CK(p_cuMemHostAlloc(&slots[s].host_in, BATCH_BYTES, 0));
    CK(p_cuMemHostAlloc(&slots[s].host_out, DOWNLOAD_BYTES, 0));
    CK(p_cuMemAlloc(&slots[s].in, BATCH_BYTES));
    CK(p_cuMemAlloc(&slots[s].x, BATCH_BYTES * 4));
    fill_pattern(slots[s].host_in, BATCH_BYTES, 11u + (uint32_t)s);
  }
  const int counts[3] = {1, 2, 4};
  for (int i = 0; i < 3; i++) {
    row_t *row = &rows[i];
    if (!bench_wants(row->id)) continue;
    CUresult e = measure_serve(row, k, slots, counts[i], 3);
    if (e != CUDA_SUCCESS) row_fail(row, "serve", e, __LINE__);
    snprintf(row->protocol, sizeof row->protocol, "\"requests\":%d,\"streams\":%d,\"reps\":%d,\"warmupReps\":1",
             requests, counts[i], row->nsamples ? row->nsamples : bench_reps(5));
  }
  /* What overlap can give: copies alone and kernels alone on one stream (variants of the 4-stream row). */
  {
    row_t copies = {.id = "copies"}, kernels = {.id = "kernels"};
    if (measure_serve(&copies, k, slots, 1, 1) == CUDA_SUCCESS && measure_serve(&kernels, k, slots, 1, 2) == CUDA_SUCCESS &&
        rows[0].has_value && rows[2].has_value) {
      double copy_ms = 1e3 / copies.value, kernel_ms = 1e3 / kernels.value, one_ms = 1e3 / rows[0].value;
      double four_ms = 1e3 / rows[2].value, best_ms = copy_ms > kernel_ms ? copy_ms : kernel_ms;
      row_variant(&rows[2], "copiesOnlyMsPerRequest", copy_ms);
      row_variant(&rows[2], "kernelsOnlyMsPerRequest", kernel_ms);
      row_variant(&rows[2], "overOneStream", rows[2].value / rows[0].value);
      /* Share of the time overlap could save (one stream minus the slower part alone) that 4 streams saved. */
      if (one_ms > best_ms) row_variant(&rows[2], "overlapAchieved", (one_ms - four_ms) / (one_ms - best_ms));
    }
  }
done:
  for (int s = 0; s < MAX_STREAMS; s++) {
    if (slots[s].x) p_cuMemFree(slots[s].x);
    if (slots[s].in) p_cuMemFree(slots[s].in);
    if (slots[s].host_in) p_cuMemFreeHost(slots[s].host_in);
    if (slots[s].host_out) p_cuMemFreeHost(slots[s].host_out);
    if (slots[s].stream) p_cuStreamDestroy(slots[s].stream);
  }
  for (int i = 1; i < 3; i++)
    if (!rows[i].has_value && !rows[i].error[0] && rows[0].error[0]) snprintf(rows[i].error, sizeof rows[i].error, "%s", rows[0].error);
}

/* --- Arrow from disk ---------------------------------------------------------------------- */

/* The layout bench/js/arrow-file.mjs wrote beside the file: "rows idOffset valueOffset threshold". */
typedef struct {
  size_t rows, id_offset, value_offset, file_bytes;
  double threshold;
} arrow_layout_t;

static int drop_from_page_cache(const char *path) {
  int fd = open(path, O_RDONLY);
  if (fd < 0) return -1;
  int result = posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
  close(fd);
  return result;
}

static int read_file(const char *path, void *into, size_t bytes) {
  int fd = open(path, O_RDONLY);
  if (fd < 0) return -1;
  size_t done = 0;
  while (done < bytes) {
    ssize_t got = read(fd, (char *)into + done, bytes - done > ((size_t)64 << 20) ? (size_t)64 << 20 : bytes - done);
    if (got <= 0) break;
    done += (size_t)got;
  }
  close(fd);
  return done == bytes ? 0 : -1;
}

static void row_arrow_from_disk(row_t *r, const kernels_t *k) {
  const char *path = getenv("BENCH_ARROW_FILE");
  char layout_path[4096];
  arrow_layout_t layout = {0};
  void *file = NULL, *out_ids = NULL, *out_values = NULL;
  CUdeviceptr ids = 0, values = 0, kept_ids = 0, kept_values = 0, count = 0;
  if (!path) {
    row_failf(r, "BENCH_ARROW_FILE is not set (bench/run.mjs makes the file)");
    return;
  }
  snprintf(layout_path, sizeof layout_path, "%s.layout", path);
  char *text = read_text(layout_path, NULL);
  if (!text || sscanf(text, "%zu %zu %zu %zu %lf", &layout.rows, &layout.id_offset, &layout.value_offset, &layout.file_bytes,
                      &layout.threshold) != 5) {
    row_failf(r, "cannot read %s", layout_path);
    free(text);
    return;
  }
  free(text);
  unsigned n = (unsigned)layout.rows;
  CK(p_cuMemHostAlloc(&file, layout.file_bytes, 0));
  CK(p_cuMemHostAlloc(&out_ids, layout.rows * 4, 0));
  CK(p_cuMemHostAlloc(&out_values, layout.rows * 8, 0));
  CK(p_cuMemAlloc(&ids, layout.rows * 4));
  CK(p_cuMemAlloc(&values, layout.rows * 8));
  CK(p_cuMemAlloc(&kept_ids, layout.rows * 4));
  CK(p_cuMemAlloc(&kept_values, layout.rows * 8));
  CK(p_cuMemAlloc(&count, 4));
  int reps = bench_reps(5);
  double disk_s = 1e300, pcie_s = 1e300;
  unsigned kept = 0;
  for (int rep = -1; rep < reps; rep++) {
    if (drop_from_page_cache(path) != 0) {
      row_failf(r, "posix_fadvise(DONTNEED) of %s failed", path);
      goto done;
    }
    double t0 = now_s();
    if (read_file(path, file, layout.file_bytes) != 0) {
      row_failf(r, "reading %s failed", path);
      goto done;
    }
    double read_done = now_s();
    CK(p_cuMemcpyHtoDAsync(ids, (char *)file + layout.id_offset, layout.rows * 4, bench_stream));
    CK(p_cuMemcpyHtoDAsync(values, (char *)file + layout.value_offset, layout.rows * 8, bench_stream));
    CK(p_cuMemsetD8Async(count, 0, 4, bench_stream));
    void *params[] = {&ids, &values, &n, &layout.threshold, &kept_ids, &kept_values, &count};
    CK(launch1d(k->filter, bench_stream, n, params));
    CK(p_cuMemcpyDtoHAsync(&kept, count, 4, bench_stream));
    CK(p_cuStreamSynchronize(bench_stream));
    CK(p_cuMemcpyDtoHAsync(out_ids, kept_ids, (size_t)kept * 4, bench_stream));
    CK(p_cuMemcpyDtoHAsync(out_values, kept_values, (size_t)kept * 8, bench_stream));
    CK(p_cuStreamSynchronize(bench_stream));
    double elapsed = now_s() - t0;
    if (rep >= 0) r->samples[rep] = (double)layout.file_bytes / elapsed / 1e9;
    if (read_done - t0 < disk_s) disk_s = read_done - t0;
    /* The PCIe part alone: the two columns again, from the same page-locked memory. */
    double p0 = now_s();
    CK(p_cuMemcpyHtoDAsync(ids, (char *)file + layout.id_offset, layout.rows * 4, bench_stream));
    CK(p_cuMemcpyHtoDAsync(values, (char *)file + layout.value_offset, layout.rows * 8, bench_stream));
    CK(p_cuStreamSynchronize(bench_stream));
    if (now_s() - p0 < pcie_s) pcie_s = now_s() - p0;
  }
  r->nsamples = reps;
  r->value = median(r->samples, reps);
  r->has_value = 1;
  {
    double disk = (double)layout.file_bytes / disk_s / 1e9, pcie = (double)layout.rows * 12 / pcie_s / 1e9;
    row_variant(r, "diskGBps", disk);
    row_variant(r, "pcieGBps", pcie);
    /* The limit: reading and copying one after the other, each at its best (file bytes per second). */
    row_variant(r, "limitGBps", (double)layout.file_bytes / (disk_s + pcie_s) / 1e9);
    row_variant(r, "keptRows", (double)kept);
  }
  snprintf(r->protocol, sizeof r->protocol, "\"reps\":%d,\"warmupReps\":1,\"pageCache\":\"dropped\"", reps);
done:
  if (count) p_cuMemFree(count);
  if (kept_values) p_cuMemFree(kept_values);
  if (kept_ids) p_cuMemFree(kept_ids);
  if (values) p_cuMemFree(values);
  if (ids) p_cuMemFree(ids);
  if (out_values) p_cuMemFreeHost(out_values);
  if (out_ids) p_cuMemFreeHost(out_ids);
  if (file) p_cuMemFreeHost(file);
}

int main(int argc, char **argv) {
  bench_select(argc, argv);
  if (bench_begin("workloads")) return 2;
  const char *quick = getenv("BENCH_QUICK");
  if (quick && strcmp(quick, "1") == 0) requests = 32;
  row_t rows[4] = {
      {.id = "workload.inference1Stream", .unit = "req/s"},
      {.id = "workload.inference2Streams", .unit = "req/s"},
      {.id = "workload.inference4Streams", .unit = "req/s"},
      {.id = "workload.arrowFromDisk", .unit = "GB/s"},
  };
  kernels_t k = {0};
  CUlibrary library = NULL;
  const char *ptx_path = getenv("BENCH_KERNELS_PTX");
  char *ptx = ptx_path ? read_text(ptx_path, NULL) : NULL;
  CUresult e = CUDA_ERROR_NOT_FOUND;
  if (!ptx || !p_cuLibraryLoadData || !p_cuLaunchKernelEx) {
    for (int i = 0; i < 4; i++) row_failf(&rows[i], "no kernels: BENCH_KERNELS_PTX unreadable or libcuda lacks cuLibraryLoadData");
  } else if ((e = p_cuLibraryLoadData(&library, ptx, NULL, NULL, 0, NULL, NULL, 0)) != CUDA_SUCCESS) {
    for (int i = 0; i < 4; i++) row_failf(&rows[i], "cuLibraryLoadData returned %s", error_name(e));
  } else {
    CUkernel kernel = NULL;
    const char *names[3] = {"normalize_u8", "model_pass", "filter_gt"};
    CUfunction *functions[3] = {&k.normalize, &k.model, &k.filter};
    for (int i = 0; i < 3 && e == CUDA_SUCCESS; i++) {
      e = p_cuLibraryGetKernel(&kernel, library, names[i]);
      if (e == CUDA_SUCCESS) e = p_cuKernelGetFunction(functions[i], kernel);
    }
    if (e != CUDA_SUCCESS)
      for (int i = 0; i < 4; i++) row_failf(&rows[i], "kernel lookup returned %s", error_name(e));
    else {
      if (bench_wants(rows[0].id) || bench_wants(rows[1].id) || bench_wants(rows[2].id)) rows_inference(rows, &k);
      if (bench_wants(rows[3].id)) row_arrow_from_disk(&rows[3], &k);
    }
  }
  free(ptx);
  for (int i = 0; i < 4; i++) bench_row(&rows[i]);
  if (library) p_cuLibraryUnload(library);
  return bench_end();
}
