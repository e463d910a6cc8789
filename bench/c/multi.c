/*
 * The C floor of the multi-GPU rows (bench/rows.mjs, suite "multi"): 256 MiB copies between
 * stream-ordered pool allocations of devices 0 and 1, with each pool accessible by the other
 * device (cuMemcpyAsync) and without (cuMemcpyPeerAsync), and 1024 x 64 KiB copies from device
 * 0 to device 1 as a loop and as one cuMemcpyBatchAsync. Every copy is ordered on device 0's
 * non-blocking stream, as the JS and Python rows do. With fewer than two devices every row is
 * reported as skipped ("not applicable: needs 2 GPUs"). The all-pairs matrix over every device
 * (up to MAX_DEVICES) is in peer-matrix.h.
 */
#include "bench.h"

#define COPY_BYTES ((size_t)256 << 20)
#define RANGES 1024
#define RANGE_BYTES ((size_t)64 << 10)
#define RANGE_STRIDE ((size_t)128 << 10)
#define TOTAL_BYTES ((size_t)RANGES * RANGE_STRIDE)
#define COPY_STEPS_PER_REP 20
#define COPY_REPS 9

/* Devices measured by the all-pairs matrix (peer-matrix.h): 8 x 7 pair variants fit row_t.variants. */
#define MAX_DEVICES 8

static CUcontext contexts[MAX_DEVICES];
static CUstream own_streams[MAX_DEVICES];
/* [0][d]: the pool of device d accessible by the other device; [1][d]: a pool without peer access. */
static CUmemoryPool pools[2][2];

static void print_skipped(const char *id, const char *unit, const char *reason) {
  printf("%s\n", bench_row_count++ ? "," : "");
  json_string(id);
  printf(":{\"unit\":");
  json_string(unit);
  printf(",\"skipped\":");
  json_string(reason);
  printf(",\"via\":\"driver API (C)\"}");
  fflush(stdout);
}

static CUresult make_pool(CUmemoryPool *pool, int device, int grant_other) {
  CUmemPoolProps props;
  memset(&props, 0, sizeof props);
  props.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
  props.handleTypes = CU_MEM_HANDLE_TYPE_NONE;
  props.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  props.location.id = device;
  CUresult e = p_cuMemPoolCreate(pool, &props);
  if (e != CUDA_SUCCESS) return e;
  cuuint64_t keep = (cuuint64_t)9007199254740991ull; /* as DeviceMemoryResource: keep what it reserved */
  if ((e = p_cuMemPoolSetAttribute(*pool, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, &keep)) != CUDA_SUCCESS) return e;
  if (!grant_other) return CUDA_SUCCESS;
  CUmemAccessDesc access;
  memset(&access, 0, sizeof access);
  access.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  access.location.id = 1 - device;
  access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
  return p_cuMemPoolSetAccess(*pool, &access, 1);
}

/* `size` bytes from a pool of `device`, allocated on that device's own stream and waited for. */
static CUresult pool_allocate(CUdeviceptr *pointer, size_t size, CUmemoryPool pool, int device) {
  CUresult e = p_cuCtxSetCurrent(contexts[device]);
  if (e == CUDA_SUCCESS) e = p_cuMemAllocFromPoolAsync(pointer, size, pool, own_streams[device]);
  if (e == CUDA_SUCCESS) e = p_cuStreamSynchronize(own_streams[device]);
  if (e == CUDA_SUCCESS) e = p_cuCtxSetCurrent(contexts[0]);
  return e;
}

static void pool_free(CUdeviceptr pointer, int device) {
  if (!pointer) return;
  p_cuCtxSetCurrent(contexts[device]);
  p_cuMemFreeAsync(pointer, own_streams[device]);
  p_cuStreamSynchronize(own_streams[device]);
  p_cuCtxSetCurrent(contexts[0]);
}

typedef struct {
  CUdeviceptr dst, src;
  int dst_device, src_device, peer;
} copy_state;

static CUresult copy_batch(void *state, long n) {
  copy_state *s = (copy_state *)state;
  for (long i = 0; i < n; i++) {
    CUresult e = s->peer ? p_cuMemcpyPeerAsync(s->dst, contexts[s->dst_device], s->src, contexts[s->src_device],
                                               COPY_BYTES, bench_stream)
                         : p_cuMemcpyAsync(s->dst, s->src, COPY_BYTES, bench_stream);
    if (e != CUDA_SUCCESS) return e;
  }
  return p_cuStreamSynchronize(bench_stream);
}

/*
 * Checks 3 x 4096 bytes of `pointer`, memory of `device`, hold `value` (each copy is checked once
 * before timing). Read in the owner's context: device 0 may have no access to the pool.
 */
static int holds(CUdeviceptr pointer, size_t size, unsigned char value, int device) {
  static unsigned char sample[4096];
  size_t offsets[3] = {0, size / 2, size - sizeof sample};
  int ok = p_cuCtxSetCurrent(contexts[device]) == CUDA_SUCCESS;
  for (int k = 0; ok && k < 3; k++) {
    if (p_cuMemcpyDtoH(sample, pointer + offsets[k], sizeof sample) != CUDA_SUCCESS) ok = 0;
    for (size_t i = 0; ok && i < sizeof sample; i++)
      if (sample[i] != value) ok = 0;
  }
  p_cuCtxSetCurrent(contexts[0]);
  return ok;
}

/* Fills memory of `device` on that device's own stream, in its context, and waits. */
static CUresult fill_on_owner(CUdeviceptr pointer, unsigned char value, size_t size, int device) {
  CUresult e = p_cuCtxSetCurrent(contexts[device]);
  if (e == CUDA_SUCCESS) e = p_cuMemsetD8Async(pointer, value, size, own_streams[device]);
  if (e == CUDA_SUCCESS) e = p_cuStreamSynchronize(own_streams[device]);
  if (e == CUDA_SUCCESS) e = p_cuCtxSetCurrent(contexts[0]);
  return e;
}

static void row_peer_copy(row_t *r, int from, int peer) {
  CUdeviceptr src = 0, dst = 0;
  int to = 1 - from;
  unsigned char value = (unsigned char)(0x31 + from + 2 * peer);
  CK(pool_allocate(&src, COPY_BYTES, pools[peer][from], from));
  CK(pool_allocate(&dst, COPY_BYTES, pools[peer][to], to));
  CK(fill_on_owner(src, value, COPY_BYTES, from));
  CK(fill_on_owner(dst, 0, COPY_BYTES, to));
  {
    copy_state s = {dst, src, to, from, peer};
    CK(copy_batch(&s, 1));
    if (!holds(dst, COPY_BYTES, value, to)) {
      row_failf(r, "the copy from device %d to %d did not arrive", from, to);
      goto done;
    }
    CK(measure_bandwidth(r, copy_batch, &s, (double)COPY_BYTES, 8, 7));
  }
done:
  pool_free(src, from);
  pool_free(dst, to);
}

typedef struct {
  CUdeviceptr pointers[RANGES];
  CUdeviceptr sources[RANGES];
  size_t sizes[RANGES];
} ranges_state;

static CUresult ranges_loop(ranges_state *s) {
  for (int i = 0; i < RANGES; i++) {
    CUresult e = p_cuMemcpyAsync(s->pointers[i], s->sources[i], s->sizes[i], bench_stream);
    if (e != CUDA_SUCCESS) return e;
  }
  return p_cuStreamSynchronize(bench_stream);
}

static CUresult ranges_batch(ranges_state *s) {
  CUmemcpyAttributes attributes;
  memset(&attributes, 0, sizeof attributes);
  attributes.srcAccessOrder = CU_MEMCPY_SRC_ACCESS_ORDER_STREAM;
  size_t start = 0;
  CUresult e = p_cuMemcpyBatchAsync(s->pointers, s->sources, s->sizes, RANGES, &attributes, &start, 1, bench_stream);
  if (e != CUDA_SUCCESS) return e;
  return p_cuStreamSynchronize(bench_stream);
}

/* Microseconds per step: the median over COPY_REPS of the mean of COPY_STEPS_PER_REP steps, after one untimed repetition. */
static CUresult measure_ranges(row_t *result, ranges_state *s, int batch) {
  const int reps = bench_reps(COPY_REPS);
  for (int rep = -1; rep < reps; rep++) {
    double total = 0;
    for (int i = 0; i < COPY_STEPS_PER_REP; i++) {
      double t0 = now_s();
      CUresult e = batch ? ranges_batch(s) : ranges_loop(s);
      if (e != CUDA_SUCCESS) return e;
      total += now_s() - t0;
    }
    if (rep >= 0) result->samples[rep] = total / COPY_STEPS_PER_REP * 1e6;
  }
  result->nsamples = reps;
  result->value = median(result->samples, reps);
  result->has_value = 1;
  return CUDA_SUCCESS;
}

static void row_copy_batch(row_t *r) {
  static ranges_state s;
  CUdeviceptr source = 0, destination = 0;
  row_t loop_result, batch_result;
  memset(&loop_result, 0, sizeof loop_result);
  memset(&batch_result, 0, sizeof batch_result);
  CK(pool_allocate(&source, TOTAL_BYTES, pools[0][0], 0));
  CK(pool_allocate(&destination, TOTAL_BYTES, pools[0][1], 1));
  CK(fill_on_owner(source, 0x3c, TOTAL_BYTES, 0));
  CK(fill_on_owner(destination, 0, TOTAL_BYTES, 1));
  for (int i = 0; i < RANGES; i++) {
    s.pointers[i] = destination + (CUdeviceptr)(i * RANGE_STRIDE);
    s.sources[i] = source + (CUdeviceptr)(i * RANGE_STRIDE);
    s.sizes[i] = RANGE_BYTES;
  }
  CK(p_cuStreamSynchronize(bench_stream));
  CK(ranges_loop(&s));
  if (!holds(destination, RANGE_BYTES, 0x3c, 1)) {
    row_failf(r, "the batch of copies from device 0 to 1 did not arrive");
    goto done;
  }
  CK(measure_ranges(&loop_result, &s, 0));
  row_variant(r, "loop", loop_result.value);
  r->value = loop_result.value;
  r->nsamples = loop_result.nsamples;
  memcpy(r->samples, loop_result.samples, sizeof r->samples);
  r->has_value = 1;
  if (p_cuMemcpyBatchAsync) {
    CK(measure_ranges(&batch_result, &s, 1));
    row_variant(r, "batch", batch_result.value);
    if (batch_result.value < r->value) {
      r->value = batch_result.value;
      memcpy(r->samples, batch_result.samples, sizeof r->samples);
    }
  } else {
    row_variant(r, "batchUnavailable", 1);
  }
  snprintf(r->protocol, sizeof r->protocol, "\"stepsPerRep\":%d,\"reps\":%d,\"warmupReps\":1,\"reset\":\"none\"",
           COPY_STEPS_PER_REP, bench_reps(COPY_REPS));
done:
  pool_free(source, 0);
  pool_free(destination, 1);
}

#include "peer-matrix.h"

static const char *ids[6] = {"multi.peerCopy0to1",         "multi.peerCopy1to0",         "multi.peerCopyNoAccess0to1",
                             "multi.peerCopyNoAccess1to0", "multi.copyBatchCrossDevice", "multi.peerCopyMatrix"};
static const char *units[6] = {"GB/s", "GB/s", "GB/s", "GB/s", "us", "GB/s"};

int main(int argc, char **argv) {
  bench_select(argc, argv);
  if (bench_begin("multi")) return 2;
  int count = 1;
  if (p_cuDeviceGetCount) p_cuDeviceGetCount(&count);
  int can = 0, can_back = 0;
  if (count >= 2 && p_cuDeviceCanAccessPeer && p_cuMemcpyPeerAsync) {
    CUdevice d1;
    if (p_cuDeviceGet(&d1, 1) == CUDA_SUCCESS) {
      p_cuDeviceCanAccessPeer(&can, bench_device, d1);
      p_cuDeviceCanAccessPeer(&can_back, d1, bench_device);
    }
  }
  char reason[128] = "";
  if (count < 2) snprintf(reason, sizeof reason, "not applicable: needs 2 GPUs (%d found)", count);
  else if (!can || !can_back) snprintf(reason, sizeof reason, "not applicable: devices 0 and 1 cannot access each other");
  int matrix = count < MAX_DEVICES ? count : MAX_DEVICES;
  /* The matrix needs every pair of its devices to reach each other. */
  for (int a = 0; !reason[0] && a < matrix; a++) {
    for (int b = 0; !reason[0] && b < matrix; b++) {
      CUdevice da, db;
      int reach = 0;
      if (a == b || p_cuDeviceGet(&da, a) != CUDA_SUCCESS || p_cuDeviceGet(&db, b) != CUDA_SUCCESS) continue;
      p_cuDeviceCanAccessPeer(&reach, da, db);
      if (!reach) snprintf(reason, sizeof reason, "not applicable: device %d cannot access device %d", a, b);
    }
  }
  CUresult e = CUDA_SUCCESS;
  for (int d = 0; !reason[0] && d < matrix; d++) {
    CUdevice device;
    if ((e = p_cuDeviceGet(&device, d)) != CUDA_SUCCESS) break;
    if ((e = p_cuDevicePrimaryCtxRetain(&contexts[d], device)) != CUDA_SUCCESS) break;
    if ((e = p_cuCtxSetCurrent(contexts[d])) != CUDA_SUCCESS) break;
    if ((e = p_cuStreamCreate(&own_streams[d], CU_STREAM_NON_BLOCKING)) != CUDA_SUCCESS) break;
    if (d >= 2) continue; /* the pools of the first rows are of devices 0 and 1 */
    if ((e = make_pool(&pools[0][d], d, 1)) != CUDA_SUCCESS) break;
    if ((e = make_pool(&pools[1][d], d, 0)) != CUDA_SUCCESS) break;
  }
  if (!reason[0] && e != CUDA_SUCCESS) snprintf(reason, sizeof reason, "setup failed: %s", error_name(e));
  if (!reason[0]) p_cuCtxSetCurrent(contexts[0]);
  for (int i = 0; i < 6; i++) {
    if (!bench_wants(ids[i])) continue;
    if (reason[0]) {
      print_skipped(ids[i], units[i], reason);
      continue;
    }
    row_t r = {.id = ids[i], .unit = units[i]};
    if (i < 4) row_peer_copy(&r, i & 1, i >= 2);
    else if (i == 4) row_copy_batch(&r);
    else row_peer_matrix(&r, matrix);
    bench_row(&r);
  }
  return bench_end();
}
