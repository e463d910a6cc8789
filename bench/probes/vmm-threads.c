// Does the number of threads a process has (had) change the cost of VMM allocate+free? (bench/README.md)
// Build: cc -O2 -o vmm-threads vmm-threads.c -I$CUDA_HOME/include -lcuda -lpthread; run: taskset -c 0 ./vmm-threads 8
#include <cuda.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sched.h>
static volatile int stop = 0;
static void *spin(void *a) { (void)a; while (!stop) { } return 0; }
static void *sleeper(void *a) { (void)a; while (!stop) usleep(1000); return 0; }
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec * 1e6 + t.tv_nsec / 1e3; }
#define CK(x) do { CUresult e = (x); if (e) { printf("%s failed %d\n", #x, e); exit(1); } } while (0)
static double run(size_t size, int n) {
  CUmemAllocationProp prop; memset(&prop, 0, sizeof prop);
  prop.type = CU_MEM_ALLOCATION_TYPE_PINNED; prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE; prop.location.id = 0;
  CUmemAccessDesc acc; memset(&acc, 0, sizeof acc);
  acc.location = prop.location; acc.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
  double best = 1e18;
  for (int rep = 0; rep < 5; rep++) {
    double t0 = now();
    for (int i = 0; i < n; i++) {
      CUdeviceptr p; CUmemGenericAllocationHandle h;
      CK(cuMemAddressReserve(&p, size, 0, 0, 0)); CK(cuMemCreate(&h, size, &prop, 0));
      CK(cuMemMap(p, size, 0, h, 0)); CK(cuMemSetAccess(p, size, &acc, 1));
      CK(cuMemUnmap(p, size)); CK(cuMemRelease(h)); CK(cuMemAddressFree(p, size));
    }
    double us = (now() - t0) / n; if (us < best) best = us;
  }
  return best;
}
int main(int argc, char **argv) {
  CK(cuInit(0)); CUdevice d; CK(cuDeviceGet(&d, 0)); CUcontext c; CK(cuDevicePrimaryCtxRetain(&c, d)); CK(cuCtxSetCurrent(c));
  size_t two = 2u << 20;
  printf("alone: %.1f us\n", run(two, 300));
  pthread_t t[16];
  int n = argc > 1 ? atoi(argv[1]) : 8;
  for (int i = 0; i < n; i++) pthread_create(&t[i], 0, sleeper, 0);
  usleep(20000);
  printf("%d sleeping threads: %.1f us\n", n, run(two, 300));
  stop = 1; for (int i = 0; i < n; i++) pthread_join(t[i], 0); stop = 0;
  for (int i = 0; i < n; i++) pthread_create(&t[i], 0, spin, 0);
  usleep(20000);
  printf("%d spinning threads: %.1f us\n", n, run(two, 300));
  stop = 1; for (int i = 0; i < n; i++) pthread_join(t[i], 0); stop = 0;
  printf("alone again: %.1f us\n", run(two, 300));
  return 0;
}
