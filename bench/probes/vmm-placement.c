/* Probe: does where a VMM range lies, or how long the process has run, change what mapping costs?
 * (bench rows vmm.*: one process of an implementation takes 2x another's time for the same calls.)
 * Prints, per mode, the reserved address's alignment and the median / min of timed steps:
 *  - grow: cuMemCreate + cuMemMap + cuMemSetAccess of 1 GiB into the second half of a 2 GiB
 *    reservation (the vmm.grow1To2GiBInPlace step), unmapped and released again untimed;
 *  - pair2MiB: reserve + create + map + setAccess + unmap + release + free of 2 MiB, in blocks.
 * Modes: the reservation's alignment 0 (the driver's choice), 2 GiB, and 0 again (drift).
 * Build: cc -O2 -std=c11 -I/usr/local/cuda/include -o vmm-placement vmm-placement.c -l:libcuda.so.1
 * Run:   ./vmm-placement [device [quick]]   (one line per mode; quick: one line, see quick()) */
#define _POSIX_C_SOURCE 199309L
#include <cuda.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define CK(x) do { CUresult e_ = (x); if (e_ != CUDA_SUCCESS) { const char *n_; cuGetErrorName(e_, &n_); \
  fprintf(stderr, "%s failed: %s (line %d)\n", #x, n_, __LINE__); exit(1); } } while (0)
static double now_us(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec * 1e6 + t.tv_nsec / 1e3; }
static int cmp(const void *a, const void *b) { double x = *(const double *)a, y = *(const double *)b; return x < y ? -1 : x > y; }
static double med(double *v, int n) { qsort(v, n, sizeof *v, cmp); return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2; }

static int dev = 0;
static CUmemAllocationProp prop(void) {
  CUmemAllocationProp p; memset(&p, 0, sizeof p);
  p.type = CU_MEM_ALLOCATION_TYPE_PINNED; p.location.type = CU_MEM_LOCATION_TYPE_DEVICE; p.location.id = dev;
  return p;
}
static CUmemAccessDesc access(void) {
  CUmemAccessDesc a; memset(&a, 0, sizeof a);
  a.location.type = CU_MEM_LOCATION_TYPE_DEVICE; a.location.id = dev; a.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
  return a;
}
static CUmemGenericAllocationHandle map_at(CUdeviceptr at, size_t size) {
  CUmemAllocationProp p = prop(); CUmemAccessDesc a = access(); CUmemGenericAllocationHandle h;
  CK(cuMemCreate(&h, size, &p, 0)); CK(cuMemMap(at, size, 0, h, 0)); CK(cuMemSetAccess(at, size, &a, 1));
  return h;
}
static void unmap(CUdeviceptr at, size_t size, CUmemGenericAllocationHandle h) { CK(cuMemUnmap(at, size)); CK(cuMemRelease(h)); }

static void grow(const char *mode, size_t align) {
  const size_t one = (size_t)1 << 30; enum { N = 15 };
  CUdeviceptr base; double t[N];
  CK(cuMemAddressReserve(&base, 2 * one, align, 0, 0));
  CUmemGenericAllocationHandle first = map_at(base, one);
  for (int i = -2; i < N; i++) {
    double t0 = now_us(); CUmemGenericAllocationHandle h = map_at(base + one, one); double t1 = now_us();
    unmap(base + one, one, h);
    if (i >= 0) t[i] = t1 - t0;
  }
  unmap(base, one, first); CK(cuMemAddressFree(base, 2 * one));
  double m = med(t, N);
  printf("{\"mode\":\"grow %s\",\"base\":\"0x%llx\",\"mod1GiB\":%llu,\"mod2GiB\":%llu,\"medianUs\":%.1f,\"minUs\":%.1f}\n", mode,
         (unsigned long long)base, (unsigned long long)(base % one) >> 20, (unsigned long long)(base % (2 * one)) >> 20, m, t[0]);
}

static void pairs(const char *mode) {
  const size_t two = (size_t)2 << 20; enum { BLOCKS = 4, PER = 500 };
  double blocks[BLOCKS];
  for (int b = -1; b < BLOCKS; b++) {
    double t0 = now_us();
    for (int i = 0; i < PER; i++) {
      CUdeviceptr base; CK(cuMemAddressReserve(&base, two, 0, 0, 0));
      CUmemGenericAllocationHandle h = map_at(base, two); unmap(base, two, h); CK(cuMemAddressFree(base, two));
    }
    if (b >= 0) blocks[b] = (now_us() - t0) / PER;
  }
  printf("{\"mode\":\"pair2MiB %s\",\"blocksUs\":[%.1f,%.1f,%.1f,%.1f]}\n", mode, blocks[0], blocks[1], blocks[2], blocks[3]);
}

/* One line: the 2 MiB VMM pair and a 4 KiB pool allocate + free pair (ns) on this CPU. */
static void quick(void) {
  const size_t two = (size_t)2 << 20; enum { PER = 300, POOL = 20000 };
  double t0 = now_us();
  for (int i = 0; i < PER; i++) {
    CUdeviceptr base; CK(cuMemAddressReserve(&base, two, 0, 0, 0));
    CUmemGenericAllocationHandle h = map_at(base, two); unmap(base, two, h); CK(cuMemAddressFree(base, two));
  }
  double vmm = (now_us() - t0) / PER;
  CUstream s; CK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING)); CUmemoryPool pool; CK(cuDeviceGetDefaultMemPool(&pool, dev));
  double best = 1e30;
  for (int rep = 0; rep < 5; rep++) {
    t0 = now_us();
    for (int i = 0; i < POOL; i++) { CUdeviceptr p; CK(cuMemAllocFromPoolAsync(&p, 4096, pool, s)); CK(cuMemFreeAsync(p, s)); }
    CK(cuStreamSynchronize(s));
    double ns = (now_us() - t0) * 1e3 / POOL; if (ns < best) best = ns;
  }
  printf("{\"pair2MiBUs\":%.1f,\"poolPairNs\":%.0f}\n", vmm, best);
}

int main(int argc, char **argv) {
  int quick_only = argc > 2 && strcmp(argv[2], "quick") == 0;
  if (argc > 1) dev = atoi(argv[1]);
  CUdevice d; CUcontext c;
  CK(cuInit(0)); CK(cuDeviceGet(&d, dev)); CK(cuDevicePrimaryCtxRetain(&c, d)); CK(cuCtxSetCurrent(c));
  if (quick_only) { quick(); return 0; }
  pairs("first");
  grow("align0", 0);
  grow("align2GiB", (size_t)2 << 30);
  grow("align0-again", 0);
  pairs("last");
  return 0;
}
