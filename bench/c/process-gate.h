/* The process-mode gate of the C programs (bench/process-gate.mjs explains it), included by
 * bench.h and run by bench_begin once the context and stream exist. Without BENCH_PROCESS_GATE it
 * does nothing. With it, the process times the two calibration loops (the same as
 * bench/js/process-mode.mjs and bench/python/common.py), writes them as JSON to
 * BENCH_PROCESS_GATE_OUT, then exits 0 for BENCH_PROCESS_GATE=calibrate, exits 75 when a time is
 * above its threshold in BENCH_PROCESS_GATE={"poolPairNs":N,"vmmPairUs":N}, else returns. */

static double gate_now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* ns per cuMemAllocFromPoolAsync + cuMemFreeAsync pair of 4 KiB (default pool), best of 3 x 5000. */
static double gate_pool_pair_ns(CUstream stream) {
  CUmemoryPool pool;
  if (p_cuDeviceGetDefaultMemPool(&pool, bench_device) != CUDA_SUCCESS) return -1;
  double best = 1e30;
  for (int rep = -1; rep < 3; rep++) {
    double t0 = gate_now_s();
    for (int i = 0; i < 5000; i++) {
      CUdeviceptr p;
      if (p_cuMemAllocFromPoolAsync(&p, 4096, pool, stream) != CUDA_SUCCESS) return -1;
      if (p_cuMemFreeAsync(p, stream) != CUDA_SUCCESS) return -1;
    }
    if (p_cuStreamSynchronize(stream) != CUDA_SUCCESS) return -1;
    double ns = (gate_now_s() - t0) / 5000 * 1e9;
    if (rep >= 0 && ns < best) best = ns;
  }
  return best;
}

/* us per VMM pair (reserve, create, map, set access, unmap, release, free) of 2 MiB, best of 3 x 50. */
static double gate_vmm_pair_us(void) {
  if (!p_cuMemAddressReserve || !p_cuMemCreate || !p_cuMemMap || !p_cuMemSetAccess || !p_cuMemUnmap ||
      !p_cuMemRelease || !p_cuMemAddressFree || !p_cuMemGetAllocationGranularity)
    return -1;
  CUmemAllocationProp prop;
  memset(&prop, 0, sizeof prop);
  prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  prop.location.id = (int)bench_device;
  CUmemAccessDesc access;
  memset(&access, 0, sizeof access);
  access.location = prop.location;
  access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
  size_t size = 2u << 20, granularity = 0;
  if (p_cuMemGetAllocationGranularity(&granularity, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM) != CUDA_SUCCESS) return -1;
  if (granularity > size) size = granularity;
  double best = 1e30;
  for (int rep = -1; rep < 3; rep++) {
    double t0 = gate_now_s();
    for (int i = 0; i < 50; i++) {
      CUdeviceptr base;
      CUmemGenericAllocationHandle chunk;
      if (p_cuMemAddressReserve(&base, size, 0, 0, 0) != CUDA_SUCCESS) return -1;
      if (p_cuMemCreate(&chunk, size, &prop, 0) != CUDA_SUCCESS) return -1;
      if (p_cuMemMap(base, size, 0, chunk, 0) != CUDA_SUCCESS) return -1;
      if (p_cuMemSetAccess(base, size, &access, 1) != CUDA_SUCCESS) return -1;
      if (p_cuMemUnmap(base, size) != CUDA_SUCCESS || p_cuMemRelease(chunk) != CUDA_SUCCESS) return -1;
      if (p_cuMemAddressFree(base, size) != CUDA_SUCCESS) return -1;
    }
    double us = (gate_now_s() - t0) / 50 * 1e6;
    if (rep >= 0 && us < best) best = us;
  }
  return best;
}

/* A number after "key": in a flat JSON object, or -1. */
static double gate_limit(const char *json, const char *key) {
  char quoted[64];
  snprintf(quoted, sizeof quoted, "\"%s\"", key);
  const char *at = strstr(json, quoted);
  if (!at || !(at = strchr(at + strlen(quoted), ':'))) return -1;
  return strtod(at + 1, NULL);
}

/* Set once the process passed the gate: the pool loop's limit and stream, for gate_fast_mode_now. */
static double gate_pool_limit = -1;
static CUstream gate_stream;

/* Whether the host is in its fast mode now (fastModeNow in bench/js/process-mode.mjs): always
   true in a process that was not gated. */
static int gate_fast_mode_now(void) {
  return gate_pool_limit <= 0 || gate_pool_pair_ns(gate_stream) <= gate_pool_limit;
}

static void bench_process_gate(CUstream stream) {
  const char *gate = getenv("BENCH_PROCESS_GATE");
  if (!gate || !gate[0]) return;
  double pool = gate_pool_pair_ns(stream);
  double vmm = gate_vmm_pair_us();
  const char *out = getenv("BENCH_PROCESS_GATE_OUT");
  if (out && out[0]) {
    FILE *file = fopen(out, "w");
    if (file) {
      fprintf(file, "{\"poolPairNs\":%.1f", pool);
      if (vmm >= 0) fprintf(file, ",\"vmmPairUs\":%.1f", vmm);
      fprintf(file, "}");
      fclose(file);
    }
  }
  if (strcmp(gate, "calibrate") == 0) exit(0);
  double pool_limit = gate_limit(gate, "poolPairNs"), vmm_limit = gate_limit(gate, "vmmPairUs");
  if ((pool_limit > 0 && pool > pool_limit) || (vmm_limit > 0 && vmm >= 0 && vmm > vmm_limit)) {
    fprintf(stderr, "[process-gate] slow mode (poolPairNs %.0f, vmmPairUs %.1f): exit 75\n", pool, vmm);
    exit(75);
  }
  gate_pool_limit = pool_limit;
  gate_stream = stream;
}
