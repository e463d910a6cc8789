/* The C floor's 2 MiB VMM pair (bench/c/vmm.c allocate_free) as a shared library, so that
 * bench/probes/vmm-memory-vs-bare.mjs can time C's loop inside the Node process beside the
 * adapters' calls: same process, threads and address space.
 * Build: cc -O2 -shared -fPIC -I/usr/local/cuda/include -o vmm-pair-lib.so vmm-pair-lib.c -l:libcuda.so.1 */
#include <cuda.h>
#include <string.h>

/* n pairs of reserve + create + map + set access + unmap + release + free of `size` bytes on the
 * calling thread's current context; 0 on success, else the failing CUresult. */
int vmm_pairs(int n, int device, unsigned long long size) {
  CUmemAllocationProp prop;
  memset(&prop, 0, sizeof prop);
  prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  prop.location.id = device;
  CUmemAccessDesc access;
  memset(&access, 0, sizeof access);
  access.location = prop.location;
  access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
  CUresult e;
  for (int i = 0; i < n; i++) {
    CUdeviceptr base = 0;
    CUmemGenericAllocationHandle chunk = 0;
    if ((e = cuMemAddressReserve(&base, size, 0, 0, 0)) != CUDA_SUCCESS) return e;
    if ((e = cuMemCreate(&chunk, size, &prop, 0)) != CUDA_SUCCESS) return e;
    if ((e = cuMemMap(base, size, 0, chunk, 0)) != CUDA_SUCCESS) return e;
    if ((e = cuMemSetAccess(base, size, &access, 1)) != CUDA_SUCCESS) return e;
    if ((e = cuMemUnmap(base, size)) != CUDA_SUCCESS) return e;
    if ((e = cuMemRelease(chunk)) != CUDA_SUCCESS) return e;
    if ((e = cuMemAddressFree(base, size)) != CUDA_SUCCESS) return e;
  }
  return 0;
}
