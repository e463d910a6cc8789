/*
 * @cumem/interop-arrow rows, C floor: the page-locked copy limit for the bytes of a 100-million-row
 * table of an int32 and a float64 column (1.2e9 bytes), one copy per column, each way, from and
 * into cuMemHostAlloc memory into preallocated device memory. The Arrow rows are held to a
 * fraction of this, measured in the same run; their value is the same case on the JS side
 * (columns built with newHostArray, i.e. cuMemHostAlloc; pinned output back), and their
 * pageable-column variants are compared against this same limit.
 */
#include "bench.h"

#define ROWS 100000000ull
#define INT32_BYTES ((size_t)ROWS * 4)
#define FLOAT64_BYTES ((size_t)ROWS * 8)

typedef struct {
  void *host[2];
  CUdeviceptr device[2];
  size_t bytes[2];
  int to_device;
} table_state;

static CUresult table_copy_batch(void *state, long n) {
  table_state *s = (table_state *)state;
  for (long i = 0; i < n; i++) {
    for (int c = 0; c < 2; c++) {
      CUdeviceptr host = (CUdeviceptr)(uintptr_t)s->host[c];
      CUresult e = s->to_device ? p_cuMemcpyAsync(s->device[c], host, s->bytes[c], bench_stream)
                                : p_cuMemcpyAsync(host, s->device[c], s->bytes[c], bench_stream);
      if (e != CUDA_SUCCESS) return e;
    }
  }
  return p_cuStreamSynchronize(bench_stream);
}

static table_state table;

static void row_table(row_t *r, int to_device) {
  table.to_device = to_device;
  CK(measure_bandwidth(r, table_copy_batch, &table, (double)(INT32_BYTES + FLOAT64_BYTES), 3, 5));
done:;
}

int main(void) {
  if (bench_begin("arrow")) return 2;
  row_t r1 = {.id = "arrow.tableToDevice", .unit = "GB/s"};
  row_t r2 = {.id = "arrow.tableFromDevice", .unit = "GB/s"};
  table.bytes[0] = INT32_BYTES;
  table.bytes[1] = FLOAT64_BYTES;
  {
    row_t *r = &r1;
    for (int c = 0; c < 2; c++) {
      CK(p_cuMemHostAlloc(&table.host[c], table.bytes[c], 0));
      CK(p_cuMemAlloc(&table.device[c], table.bytes[c]));
      fill_pattern(table.host[c], table.bytes[c], 23u + (uint32_t)c);
    }
  }
  row_table(&r1, 1);
  row_table(&r2, 0);
done:
  if (r1.error[0] && !r2.error[0]) snprintf(r2.error, sizeof r2.error, "%s", r1.error);
  bench_row(&r1);
  bench_row(&r2);
  for (int c = 0; c < 2; c++) {
    if (table.device[c]) p_cuMemFree(table.device[c]);
    if (table.host[c]) p_cuMemFreeHost(table.host[c]);
  }
  return bench_end();
}
