/*
 * The C floor of cumem's benchmarks: helpers shared by contract.c, memory.c, utils.c, arrow.c.
 *
 * The driver is loaded with dlopen("libcuda.so.1") and dlsym of the exact versioned symbol that
 * cuda.h maps each name to (cuMemAlloc -> cuMemAlloc_v2, ...), which is the symbol `-lcuda`
 * would bind. Loading it ourselves means the programs build without the driver stub library
 * (not every toolkit image ships lib64/stubs) and fail with a JSON error instead of a loader
 * error where no driver is installed.
 *
 * Every program prints one JSON object on stdout:
 *   {"impl":"c","suite":"...","info":{...},"rows":{"<id>":{"value":..,"unit":"..","samples":[..],
 *    "variants":{..},"reference":..,"via":"..","error":".."}}}
 * A failed driver call fails only its row; the program goes on with the next row.
 */
#ifndef CUMEM_BENCH_H
#define CUMEM_BENCH_H

#define _GNU_SOURCE
#include <cuda.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Entry points every program may use. The batch ones (CUDA 13), and those only pageable.c uses
 * (so the other programs run on a mock without them), are looked up as optional. */
#define BENCH_REQUIRED(X)                                                                         \
  X(cuInit) X(cuGetErrorName) X(cuDriverGetVersion) X(cuDeviceGet) X(cuDeviceGetName)             \
  X(cuDevicePrimaryCtxRetain) X(cuCtxSetCurrent) X(cuCtxGetDevice) X(cuCtxSynchronize)            \
  X(cuStreamCreate) X(cuStreamDestroy) X(cuStreamSynchronize) X(cuDeviceGetDefaultMemPool)        \
  X(cuDeviceGetMemPool) X(cuMemAllocFromPoolAsync) X(cuMemFreeAsync) X(cuMemAlloc) X(cuMemFree)   \
  X(cuMemHostAlloc) X(cuMemFreeHost) X(cuMemcpyDtoH) X(cuMemcpyAsync) X(cuMemsetD8Async)          \
  X(cuMemAllocManaged) X(cuMemAdvise) X(cuMemPrefetchAsync) X(cuMemPoolCreate) X(cuMemPoolDestroy) \
  X(cuMemPoolSetAccess) X(cuMemPoolSetAttribute) X(cuMemcpy2DAsync) X(cuMemGetInfo)
#define BENCH_OPTIONAL(X)                                                                         \
  X(cuMemPrefetchBatchAsync) X(cuMemDiscardBatchAsync) X(cuMemDiscardAndPrefetchBatchAsync)       \
  X(cuMemcpyBatchAsync) X(cuDeviceGetCount) X(cuDeviceCanAccessPeer) X(cuMemcpyPeerAsync)      \
  X(cuMemcpyHtoD) X(cuMemHostRegister) X(cuMemHostUnregister)                                     \
  X(cuMemcpyHtoDAsync) X(cuMemcpyDtoHAsync) X(cuEventCreate) X(cuEventRecord) X(cuEventSynchronize) \
  X(cuEventDestroy) X(cuLibraryLoadData) X(cuLibraryUnload) X(cuLibraryGetKernel)                \
  X(cuKernelGetFunction) X(cuLaunchKernelEx)                                                          \
  X(cuMemAddressReserve) X(cuMemAddressFree) X(cuMemCreate) X(cuMemRelease)        \
  X(cuMemMap) X(cuMemUnmap) X(cuMemSetAccess) X(cuMemGetAllocationGranularity)

#define BENCH_STR_(x) #x
/* Expands the macro first: BENCH_STR(cuMemAlloc) is "cuMemAlloc_v2". */
#define BENCH_STR(x) BENCH_STR_(x)
#define BENCH_DECLARE(name) static __typeof__(name) *p_##name;
BENCH_REQUIRED(BENCH_DECLARE)
BENCH_OPTIONAL(BENCH_DECLARE)

/* Helpers each program may leave unused. */
#define BENCH_API static __attribute__((unused))

#define MAX_SAMPLES 64
#define MiB (1024.0 * 1024.0)

typedef struct {
  const char *id;
  const char *unit;
  double value;
  double samples[MAX_SAMPLES];
  int nsamples;
  int has_value;
  char error[600];
  char variants[1024]; /* a JSON object body, without braces: "\"loop\":1.5,\"batch\":0.7" */
  char protocol[256];  /* a JSON object body: how the row was measured; must match bench/rows.mjs */
  double reference;    /* a second C measurement a row's target refers to (e.g. a contiguous copy) */
  int has_reference;
  const char *reference_label;
} row_t;

static int bench_row_count = 0;
/* Row ids given with --rows (comma-separated); NULL runs every row. */
static const char *bench_selected_rows = NULL;

/*
 * Reads `--rows id,id,...` (bench/run.mjs runs the small-call rows' C floor a second time, after
 * the other implementations, with it). Call before bench_begin; unknown arguments are ignored.
 */
BENCH_API void bench_select(int argc, char **argv) {
  for (int i = 1; i + 1 < argc; i++)
    if (strcmp(argv[i], "--rows") == 0) bench_selected_rows = argv[i + 1];
}

/* True when the row `id` was asked for (every row without --rows). */
BENCH_API int bench_wants(const char *id) {
  if (!bench_selected_rows) return 1;
  size_t length = strlen(id);
  for (const char *at = bench_selected_rows; (at = strstr(at, id)) != NULL; at += length) {
    int starts = at == bench_selected_rows || at[-1] == ',';
    int ends = at[length] == '\0' || at[length] == ',';
    if (starts && ends) return 1;
  }
  return 0;
}

BENCH_API double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

BENCH_API void json_string(const char *s) {
  putchar('"');
  for (; *s; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\') printf("\\%c", c);
    else if (c < 0x20) printf("\\u%04x", c);
    else putchar(c);
  }
  putchar('"');
}

BENCH_API const char *error_name(CUresult code) {
  const char *name = NULL;
  if (p_cuGetErrorName && p_cuGetErrorName(code, &name) == CUDA_SUCCESS && name) return name;
  return "CUDA_ERROR_UNKNOWN_CODE";
}

BENCH_API void row_fail(row_t *r, const char *call, CUresult code, int line) {
  if (r->error[0]) return; /* keep the first failure: later ones are usually its consequences */
  snprintf(r->error, sizeof r->error, "%s returned %s (%d) at line %d", call, error_name(code), (int)code, line);
}

BENCH_API void row_failf(row_t *r, const char *format, ...) {
  if (r->error[0]) return;
  va_list args;
  va_start(args, format);
  vsnprintf(r->error, sizeof r->error, format, args);
  va_end(args);
}

BENCH_API void row_variant(row_t *r, const char *name, double value) {
  size_t used = strlen(r->variants);
  snprintf(r->variants + used, sizeof r->variants - used, "%s\"%s\":%.6g", used ? "," : "", name, value);
}

/* Checks a driver call inside a row function, which must have `row_t *r` and a `done:` label. */
#define CK(call)                                                  \
  do {                                                            \
    CUresult ck_result_ = (call);                                 \
    if (ck_result_ != CUDA_SUCCESS) {                             \
      row_fail(r, #call, ck_result_, __LINE__);                   \
      goto done;                                                  \
    }                                                             \
  } while (0)

BENCH_API int compare_doubles(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

BENCH_API double median(const double *values, int count) {
  double sorted[MAX_SAMPLES];
  memcpy(sorted, values, sizeof(double) * (size_t)count);
  qsort(sorted, (size_t)count, sizeof(double), compare_doubles);
  return count % 2 ? sorted[count / 2] : 0.5 * (sorted[count / 2 - 1] + sorted[count / 2]);
}

/* Runs `n` operations and waits for the device; returns the first driver error. */
typedef CUresult (*batch_fn)(void *state, long n);

/*
 * Repetitions of the small-call rows: the median of CALL_REPS timed repetitions of a fixed
 * number of operations, after one untimed repetition of the same size (the warm-up). The same
 * numbers are used by bench/js/harness.mjs and bench/python/common.py; rows.mjs holds them.
 */
#define CALL_REPS 11
#define CALL_WARMUP_REPS 1

/* A cap from the environment (bench/repetitions.mjs says why): a positive number, else none. */
static double bench_cap(const char *name) {
  const char *text = getenv(name);
  double value = text && *text ? strtod(text, NULL) : 0;
  return value > 0 ? value : 1e300;
}
/* Timed repetitions under BENCH_MAX_REPS, at least 1. */
BENCH_API int bench_reps(int reps) {
  double cap = bench_cap("BENCH_MAX_REPS");
  int capped = (double)reps < cap ? reps : (int)cap;
  return capped < 1 ? 1 : capped;
}
/* A row's time-based warm-up under BENCH_MAX_WARMUP_MS. */
BENCH_API double bench_warmup_s(double warmup_s) {
  double cap = bench_cap("BENCH_MAX_WARMUP_MS") / 1e3;
  return warmup_s < cap ? warmup_s : cap;
}

/* Repetitions the rows with a warm-up skip at most, per process, while the host is in its slow
   mode (SLOW_REPS_SKIPPED_MAX in bench/js/harness.mjs, which says why). */
#define SLOW_REPS_SKIPPED_MAX 24
static int slow_reps_left = SLOW_REPS_SKIPPED_MAX;
static int gate_fast_mode_now(void); /* process-gate.h */

/* Time per operation in nanoseconds of `fn(state, iterations)` (see CALL_REPS), after untimed
   repetitions that go on for at least `warmup_s` seconds (callsNs's warmupMs in bench/js/harness.mjs);
   with a warm-up, each timed repetition waits for the host's fast mode as callsNs's do. */
BENCH_API CUresult measure_calls_warm(row_t *r, batch_fn fn, void *state, long iterations, double warmup_s) {
  CUresult e;
  const int reps = bench_reps(CALL_REPS);
  warmup_s = bench_warmup_s(warmup_s);
  const double warm = now_s() + warmup_s;
  for (int i = 0; i < CALL_WARMUP_REPS || now_s() < warm; i++)
    if ((e = fn(state, iterations)) != CUDA_SUCCESS) return e;
  int slow_reps_skipped = 0;
  for (int i = 0; i < reps;) {
    if (warmup_s > 0 && slow_reps_left > 0 && !gate_fast_mode_now()) {
      slow_reps_left--;
      slow_reps_skipped++;
      if ((e = fn(state, iterations)) != CUDA_SUCCESS) return e;
      continue;
    }
    double t0 = now_s();
    if ((e = fn(state, iterations)) != CUDA_SUCCESS) return e;
    r->samples[i++] = (now_s() - t0) / (double)iterations * 1e9;
  }
  r->nsamples = reps;
  r->value = median(r->samples, reps);
  r->has_value = 1;
  int written = snprintf(r->protocol, sizeof r->protocol, "\"iterations\":%ld,\"reps\":%d,\"warmupReps\":%d",
                         iterations, reps, CALL_WARMUP_REPS);
  if (warmup_s > 0 && written > 0 && (size_t)written < sizeof r->protocol)
    snprintf(r->protocol + written, sizeof r->protocol - (size_t)written, ",\"warmupMs\":%.0f,\"slowRepsSkipped\":%d",
             warmup_s * 1e3, slow_reps_skipped);
  return CUDA_SUCCESS;
}

/* measure_calls_warm with the one untimed repetition of every call row. */
BENCH_API CUresult measure_calls(row_t *r, batch_fn fn, void *state, long iterations) {
  return measure_calls_warm(r, fn, state, iterations, 0);
}

/* Untimed warm-up of a bandwidth row (as BANDWIDTH_WARMUP_MS in bench/js/harness.mjs, which says
 * why): fn(state, 1) again and again until this much time has passed, so the GPU's clocks have
 * left their idle level. */
#define BANDWIDTH_WARMUP_S 0.2

/* Throughput in GB/s (1e9 bytes per second) of `fn(state, per_rep)` moving `bytes` per operation. */
BENCH_API CUresult measure_bandwidth(row_t *r, batch_fn fn, void *state, double bytes, long per_rep, int reps) {
  CUresult e;
  const double warm = now_s() + BANDWIDTH_WARMUP_S;
  do {
    if ((e = fn(state, 1)) != CUDA_SUCCESS) return e;
  } while (now_s() < warm);
  reps = bench_reps(reps);
  if (reps > MAX_SAMPLES) reps = MAX_SAMPLES;
  for (int i = 0; i < reps; i++) {
    double t0 = now_s();
    if ((e = fn(state, per_rep)) != CUDA_SUCCESS) return e;
    r->samples[i] = bytes * (double)per_rep / (now_s() - t0) / 1e9;
  }
  r->nsamples = reps;
  r->value = median(r->samples, reps);
  r->has_value = 1;
  return CUDA_SUCCESS;
}

/* Fills host memory with a non-zero pseudo-random pattern (never time copies of zeros). */
BENCH_API void fill_pattern(void *memory, size_t bytes, uint32_t seed) {
  uint32_t *words = (uint32_t *)memory;
  uint32_t x = seed ? seed : 1u;
  for (size_t i = 0; i < bytes / 4; i++) {
    x = x * 1664525u + 1013904223u;
    words[i] = x | 0x01010101u;
  }
}

static CUdevice bench_device;
static CUcontext bench_context;
static CUstream bench_stream;
static int bench_driver_version;
static char bench_device_name[256];

BENCH_API void print_fatal(const char *suite, const char *message) {
  printf("{\"impl\":\"c\",\"suite\":");
  json_string(suite);
  printf(",\"error\":");
  json_string(message);
  printf(",\"rows\":{}}\n");
}

/*
 * Loads the driver, makes device 0's primary context current and creates one non-blocking
 * stream. Prints the JSON header on success; prints a whole JSON error object and returns
 * non-zero on failure.
 */
/*
 * Node and Python processes always run several threads; a plain C program runs one. The driver
 * is measurably slower in a process that has ever had a second thread: on 1x H100 (driver
 * 580.159) a VMM 2 MiB allocate+free pair took 50.5 us in a single-threaded C process and 73 us
 * once one idle thread existed, even pinned to one CPU and after that thread had exited (a
 * process's libc switches to its multi-threaded paths for good). That cost is the runtime's, not
 * cumem's, so the floor is measured in a process with one idle thread, as Node's and Python's
 * are; BENCH_C_SINGLE_THREAD=1 measures the single-threaded process (bench/run.mjs records it
 * as the C variant `singleThreadedProcess`).
 */
static const char *bench_process = "multi-threaded (one idle thread)";

static void *bench_idle_thread(void *unused) {
  (void)unused;
  for (;;) pause();
  return NULL;
}

static void bench_become_multithreaded(void) {
  const char *single = getenv("BENCH_C_SINGLE_THREAD");
  if (single && strcmp(single, "1") == 0) {
    bench_process = "single-threaded";
    return;
  }
  pthread_t thread;
  if (pthread_create(&thread, NULL, bench_idle_thread, NULL) != 0) {
    bench_process = "single-threaded (pthread_create failed)";
    return;
  }
  pthread_detach(thread);
}

#include "process-gate.h"

BENCH_API int bench_begin(const char *suite) {
  char message[600];
  bench_become_multithreaded();
  void *library = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    snprintf(message, sizeof message, "dlopen(libcuda.so.1) failed: %s", dlerror());
    print_fatal(suite, message);
    return 1;
  }
#define BENCH_LOAD_REQUIRED(name)                                                    \
  p_##name = (__typeof__(name) *)dlsym(library, BENCH_STR(name));                    \
  if (!p_##name) {                                                                   \
    snprintf(message, sizeof message, "libcuda.so.1 has no %s", BENCH_STR(name));    \
    print_fatal(suite, message);                                                     \
    return 1;                                                                        \
  }
#define BENCH_LOAD_OPTIONAL(name) p_##name = (__typeof__(name) *)dlsym(library, BENCH_STR(name));
  BENCH_REQUIRED(BENCH_LOAD_REQUIRED)
  BENCH_OPTIONAL(BENCH_LOAD_OPTIONAL)
  CUresult e;
  const char *step = "cuInit";
  if ((e = p_cuInit(0)) != CUDA_SUCCESS) goto fail;
  step = "cuDriverGetVersion";
  if ((e = p_cuDriverGetVersion(&bench_driver_version)) != CUDA_SUCCESS) goto fail;
  step = "cuDeviceGet";
  if ((e = p_cuDeviceGet(&bench_device, 0)) != CUDA_SUCCESS) goto fail;
  step = "cuDeviceGetName";
  if ((e = p_cuDeviceGetName(bench_device_name, sizeof bench_device_name, bench_device)) != CUDA_SUCCESS) goto fail;
  step = "cuDevicePrimaryCtxRetain";
  if ((e = p_cuDevicePrimaryCtxRetain(&bench_context, bench_device)) != CUDA_SUCCESS) goto fail;
  step = "cuCtxSetCurrent";
  if ((e = p_cuCtxSetCurrent(bench_context)) != CUDA_SUCCESS) goto fail;
  step = "cuStreamCreate";
  if ((e = p_cuStreamCreate(&bench_stream, CU_STREAM_NON_BLOCKING)) != CUDA_SUCCESS) goto fail;
  bench_process_gate(bench_stream);
  printf("{\"impl\":\"c\",\"suite\":");
  json_string(suite);
  printf(",\"info\":{\"device\":");
  json_string(bench_device_name);
  printf(",\"driverVersion\":%d,\"batchEntryPoints\":%s,\"process\":", bench_driver_version,
         p_cuMemPrefetchBatchAsync && p_cuMemcpyBatchAsync ? "true" : "false");
  json_string(bench_process);
  printf("},\"rows\":{");
  fflush(stdout);
  return 0;
fail:
  snprintf(message, sizeof message, "%s returned %s (%d)", step, error_name(e), (int)e);
  print_fatal(suite, message);
  return 1;
}

/* Prints one row; call once per row, after the row's function returned. */
BENCH_API void bench_row(const row_t *r) {
  printf("%s\n", bench_row_count++ ? "," : "");
  json_string(r->id);
  printf(":{\"unit\":");
  json_string(r->unit);
  if (r->has_value && !r->error[0]) {
    printf(",\"value\":%.6g,\"samples\":[", r->value);
    for (int i = 0; i < r->nsamples; i++) printf("%s%.6g", i ? "," : "", r->samples[i]);
    printf("]");
  }
  if (r->variants[0]) printf(",\"variants\":{%s}", r->variants);
  if (r->protocol[0]) printf(",\"protocol\":{%s}", r->protocol);
  if (r->has_reference) {
    printf(",\"reference\":{\"value\":%.6g,\"label\":", r->reference);
    json_string(r->reference_label ? r->reference_label : "");
    printf("}");
  }
  printf(",\"via\":\"driver API (C)\"");
  if (r->error[0]) {
    printf(",\"error\":");
    json_string(r->error);
  }
  printf("}");
  fflush(stdout);
}

BENCH_API int bench_end(void) {
  printf("\n}}\n");
  return 0;
}

/* A location on device 0, or on the host. */
BENCH_API CUmemLocation device_location(void) {
  CUmemLocation location = {CU_MEM_LOCATION_TYPE_DEVICE, (int)bench_device};
  return location;
}
BENCH_API CUmemLocation host_location(void) {
  CUmemLocation location = {CU_MEM_LOCATION_TYPE_HOST, 0};
  return location;
}

#endif
