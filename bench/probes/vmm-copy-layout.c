/* Probe: what sets the bandwidth of a 256 MiB device-to-device copy inside VMM memory?
 * (bench row vmm.copyDtoD256MiB: on two 1x H100 hosts every implementation's VMM copy ran at
 * ~1290 GB/s, C included, while pool copies in the memory suite ran at ~1486 GB/s.)
 * Layouts, measured interleaved (each round times every layout once, in a rotating order, so a
 * change of clocks falls on all of them alike); per layout the median and best GB/s:
 *  - pool:        two cuMemAllocFromPoolAsync buffers (the row's reference)
 *  - memAlloc:    two cuMemAlloc buffers
 *  - vmmOne:      one 512 MiB chunk in one reservation, copy first half -> second (C's row)
 *  - vmmTwo:      two 256 MiB chunks, each in its own reservation (the JS row: two allocate())
 *  - vmmAlignN:   as vmmTwo, reservations aligned to N (2 MiB, 32 MiB, 512 MiB, 2 GiB)
 *  - vmmChunks2M: 128 chunks of 2 MiB per buffer, mapped contiguously
 *  - vmmRdma:     as vmmTwo with gpuDirectRDMACapable (what cuda.core's default options ask)
 * Build: cc -O2 -std=c11 -I/usr/local/cuda/include -o vmm-copy-layout vmm-copy-layout.c -l:libcuda.so.1
 * Run:   ./vmm-copy-layout [device] */
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

#define BYTES ((size_t)256 << 20)
#define MIB ((size_t)1 << 20)
enum { LAYOUTS = 10, ROUNDS = 9, COPIES = 20 };
static int dev = 0;
static CUstream stream;

typedef struct { const char *name; CUdeviceptr src, dst; } layout_t;

static CUdeviceptr vmm_buffer(size_t bytes, size_t align, size_t chunk, int rdma) {
  CUmemAllocationProp p; memset(&p, 0, sizeof p);
  p.type = CU_MEM_ALLOCATION_TYPE_PINNED; p.location.type = CU_MEM_LOCATION_TYPE_DEVICE; p.location.id = dev;
  p.allocFlags.gpuDirectRDMACapable = (unsigned char)rdma;
  CUmemAccessDesc a; memset(&a, 0, sizeof a);
  a.location.type = CU_MEM_LOCATION_TYPE_DEVICE; a.location.id = dev; a.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
  CUdeviceptr base; CK(cuMemAddressReserve(&base, bytes, align, 0, 0));
  for (size_t off = 0; off < bytes; off += chunk) {
    CUmemGenericAllocationHandle h; CK(cuMemCreate(&h, chunk, &p, 0)); CK(cuMemMap(base + off, chunk, 0, h, 0));
    CK(cuMemRelease(h)); /* the mapping keeps the chunk; freed at unmap (never, in this probe) */
  }
  CK(cuMemSetAccess(base, bytes, &a, 1));
  return base;
}

static double copy_gbps(const layout_t *l) {
  double t0 = now_us();
  for (int i = 0; i < COPIES; i++) CK(cuMemcpyAsync(l->dst, l->src, BYTES, stream));
  CK(cuStreamSynchronize(stream));
  return (double)BYTES * COPIES / ((now_us() - t0) * 1e3);
}

int main(int argc, char **argv) {
  if (argc > 1) dev = atoi(argv[1]);
  CUdevice d; CUcontext c;
  CK(cuInit(0)); CK(cuDeviceGet(&d, dev)); CK(cuDevicePrimaryCtxRetain(&c, d)); CK(cuCtxSetCurrent(c));
  CK(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING));
  CUmemAllocationProp p; memset(&p, 0, sizeof p);
  p.type = CU_MEM_ALLOCATION_TYPE_PINNED; p.location.type = CU_MEM_LOCATION_TYPE_DEVICE; p.location.id = dev;
  size_t gmin = 0, grec = 0;
  CK(cuMemGetAllocationGranularity(&gmin, &p, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
  CK(cuMemGetAllocationGranularity(&grec, &p, CU_MEM_ALLOC_GRANULARITY_RECOMMENDED));
  layout_t l[LAYOUTS];
  CUmemoryPool pool; CK(cuDeviceGetDefaultMemPool(&pool, d));
  l[0].name = "pool"; CK(cuMemAllocFromPoolAsync(&l[0].src, BYTES, pool, stream)); CK(cuMemAllocFromPoolAsync(&l[0].dst, BYTES, pool, stream));
  l[1].name = "memAlloc"; CK(cuMemAlloc(&l[1].src, BYTES)); CK(cuMemAlloc(&l[1].dst, BYTES));
  l[2].name = "vmmOne"; l[2].src = vmm_buffer(2 * BYTES, 0, 2 * BYTES, 0); l[2].dst = l[2].src + BYTES;
  l[3].name = "vmmTwo"; l[3].src = vmm_buffer(BYTES, 0, BYTES, 0); l[3].dst = vmm_buffer(BYTES, 0, BYTES, 0);
  l[4].name = "vmmAlign2M"; l[4].src = vmm_buffer(BYTES, 2 * MIB, BYTES, 0); l[4].dst = vmm_buffer(BYTES, 2 * MIB, BYTES, 0);
  l[5].name = "vmmAlign32M"; l[5].src = vmm_buffer(BYTES, 32 * MIB, BYTES, 0); l[5].dst = vmm_buffer(BYTES, 32 * MIB, BYTES, 0);
  l[6].name = "vmmAlign512M"; l[6].src = vmm_buffer(BYTES, 512 * MIB, BYTES, 0); l[6].dst = vmm_buffer(BYTES, 512 * MIB, BYTES, 0);
  l[7].name = "vmmAlign2G"; l[7].src = vmm_buffer(BYTES, 2048 * MIB, BYTES, 0); l[7].dst = vmm_buffer(BYTES, 2048 * MIB, BYTES, 0);
  l[8].name = "vmmChunks2M"; l[8].src = vmm_buffer(BYTES, 0, gmin, 0); l[8].dst = vmm_buffer(BYTES, 0, gmin, 0);
  l[9].name = "vmmRdma"; l[9].src = vmm_buffer(BYTES, 0, BYTES, 1); l[9].dst = vmm_buffer(BYTES, 0, BYTES, 1);
  for (int i = 0; i < LAYOUTS; i++) CK(cuMemsetD8Async(l[i].src, 0x3c, BYTES, stream));
  CK(cuStreamSynchronize(stream));
  double g[LAYOUTS][ROUNDS];
  for (int i = 0; i < LAYOUTS; i++) copy_gbps(&l[i]); /* warm-up */
  for (int r = 0; r < ROUNDS; r++)
    for (int k = 0; k < LAYOUTS; k++) { int i = (r + k) % LAYOUTS; g[i][r] = copy_gbps(&l[i]); }
  printf("{\"granularityMin\":%zu,\"granularityRecommended\":%zu,\"layouts\":{", gmin, grec);
  for (int i = 0; i < LAYOUTS; i++) {
    double s[ROUNDS]; memcpy(s, g[i], sizeof s); qsort(s, ROUNDS, sizeof *s, cmp);
    printf("%s\"%s\":{\"medianGBps\":%.1f,\"bestGBps\":%.1f,\"src\":\"0x%llx\",\"dst\":\"0x%llx\"}", i ? "," : "", l[i].name,
           s[ROUNDS / 2], s[ROUNDS - 1], (unsigned long long)l[i].src, (unsigned long long)l[i].dst);
  }
  printf("}}\n");
  return 0;
}
