/* Contract-level rows, C floor: the same driver calls the adapters make, called directly. */
#include "bench.h"

/* Operations per repetition: the same in bench/js/contract.mjs, bench/python/contract.py and rows.mjs. */
#define CTX_GET_DEVICE_ITERATIONS 1000000L
#define POOL_ALLOC_FREE_ITERATIONS 100000L
#define MEMCPY_DTOH_ITERATIONS 10000L

static CUresult ctx_get_device_batch(void *state, long n) {
  (void)state;
  CUdevice device;
  for (long i = 0; i < n; i++) {
    CUresult e = p_cuCtxGetDevice(&device);
    if (e != CUDA_SUCCESS) return e;
  }
  return CUDA_SUCCESS;
}

typedef struct {
  CUmemoryPool pool;
  size_t size;
} pool_state;

static CUresult pool_alloc_free_batch(void *state, long n) {
  pool_state *s = (pool_state *)state;
  for (long i = 0; i < n; i++) {
    CUdeviceptr pointer;
    CUresult e = p_cuMemAllocFromPoolAsync(&pointer, s->size, s->pool, bench_stream);
    if (e != CUDA_SUCCESS) return e;
    if ((e = p_cuMemFreeAsync(pointer, bench_stream)) != CUDA_SUCCESS) return e;
  }
  return p_cuStreamSynchronize(bench_stream);
}

typedef struct {
  CUdeviceptr device;
  unsigned char *host;
} dtoh_state;

static CUresult dtoh_batch(void *state, long n) {
  dtoh_state *s = (dtoh_state *)state;
  for (long i = 0; i < n; i++) {
    CUresult e = p_cuMemcpyDtoH(s->host, s->device, 8);
    if (e != CUDA_SUCCESS) return e;
  }
  return CUDA_SUCCESS;
}

static void row_ctx_get_device(row_t *r) {
  CK(measure_calls(r, ctx_get_device_batch, NULL, CTX_GET_DEVICE_ITERATIONS));
done:;
}

static void row_pool_alloc_free(row_t *r) {
  pool_state s = {0, 4096};
  CK(p_cuDeviceGetDefaultMemPool(&s.pool, bench_device));
  CK(measure_calls(r, pool_alloc_free_batch, &s, POOL_ALLOC_FREE_ITERATIONS));
done:;
}

static void row_memcpy_dtoh(row_t *r) {
  /* Pageable host memory, as a JS ArrayBuffer is: the adapters copy into one. */
  dtoh_state s = {0, malloc(8)};
  unsigned char expected[8];
  fill_pattern(expected, 8, 7);
  CK(p_cuMemAlloc(&s.device, 8));
  /* Known bytes on the device first, so the timed copy moves real data (UVA takes a pageable source). */
  CK(p_cuMemcpyAsync(s.device, (CUdeviceptr)(uintptr_t)expected, 8, bench_stream));
  CK(p_cuStreamSynchronize(bench_stream));
  CK(measure_calls(r, dtoh_batch, &s, MEMCPY_DTOH_ITERATIONS));
  if (memcmp(s.host, expected, 8) != 0) row_failf(r, "the 8 bytes read back differ from those written");
done:
  if (s.device) p_cuMemFree(s.device);
  free(s.host);
}

int main(int argc, char **argv) {
  bench_select(argc, argv);
  if (bench_begin("contract")) return 2;
  row_t r1 = {.id = "contract.ctxGetDevice", .unit = "ns"};
  if (bench_wants(r1.id)) row_ctx_get_device(&r1), bench_row(&r1);
  row_t r2 = {.id = "contract.poolAllocFree4KiB", .unit = "ns"};
  if (bench_wants(r2.id)) row_pool_alloc_free(&r2), bench_row(&r2);
  row_t r3 = {.id = "contract.memcpyDtoH8B", .unit = "ns"};
  if (bench_wants(r3.id)) row_memcpy_dtoh(&r3), bench_row(&r3);
  return bench_end();
}
