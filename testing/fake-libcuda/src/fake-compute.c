/* Modules, kernels and launches of the fake (cuda.h 12.4+ prototypes). Nothing runs: a launch is
 * recorded so the tests can check how each adapter encoded CUlaunchConfig, its cluster attribute
 * and kernelParams. The one library holds one kernel shaped like fill_f32(float *, float,
 * unsigned): parameters at offsets 0, 8, 12 of sizes 8, 4, 4.
 *   cuLibraryLoadData: PTX text starting "garbage" is CUDA_ERROR_INVALID_PTX.
 *   cuLibraryGetKernel: the name "missing" is CUDA_ERROR_NOT_FOUND.
 *   cuLaunchKernelEx records pointer = the 8 bytes of parameter 0, size = sharedMemBytes,
 *   advice/type/id = gridDim x/y/z, device = blockDimX, count = blockDimY * 1000 + blockDimZ,
 *   extra = -1 without attributes, else id * 1000000 + clusterDim x * 10000 + y * 100 + z. */
#include <cuda.h>
#include <stdint.h>
#include <string.h>

#include "fake-record.h"

#define FAKE_LIBRARY ((CUlibrary)(uintptr_t)0x5100)
#define FAKE_KERNEL ((CUkernel)(uintptr_t)0x5200)
#define FAKE_FUNCTION ((CUfunction)(uintptr_t)0x5300)

static const size_t parameter_offsets[] = {0, 8, 12};
static const size_t parameter_sizes[] = {8, 4, 4};

CUresult CUDAAPI cuLibraryLoadData(CUlibrary *library, const void *code, CUjit_option *jitOptions,
                                   void **jitOptionsValues, unsigned int numJitOptions,
                                   CUlibraryOption *libraryOptions, void **libraryOptionValues,
                                   unsigned int numLibraryOptions) {
  (void)jitOptions; (void)jitOptionsValues; (void)libraryOptions; (void)libraryOptionValues;
  if (library == NULL || code == NULL || numJitOptions != 0 || numLibraryOptions != 0) return CUDA_ERROR_INVALID_VALUE;
  if (strncmp((const char *)code, "garbage", 7) == 0) return CUDA_ERROR_INVALID_PTX;
  *library = FAKE_LIBRARY;
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuLibraryUnload(CUlibrary library) {
  return library == FAKE_LIBRARY ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}
CUresult CUDAAPI cuLibraryGetKernel(CUkernel *kernel, CUlibrary library, const char *name) {
  if (library != FAKE_LIBRARY) return CUDA_ERROR_INVALID_HANDLE;
  if (strcmp(name, "missing") == 0) return CUDA_ERROR_NOT_FOUND;
  *kernel = FAKE_KERNEL;
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuKernelGetFunction(CUfunction *function, CUkernel kernel) {
  if (kernel != FAKE_KERNEL) return CUDA_ERROR_INVALID_HANDLE;
  *function = FAKE_FUNCTION;
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuFuncGetAttribute(int *value, CUfunction_attribute attribute, CUfunction function) {
  if (function != FAKE_FUNCTION) return CUDA_ERROR_INVALID_HANDLE;
  switch (attribute) {
    case CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK: *value = 1024; break;
    case CU_FUNC_ATTRIBUTE_NUM_REGS: *value = 10; break;
    case CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES: *value = 49152; break;
    default: *value = 0;
  }
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuFuncSetAttribute(CUfunction function, CUfunction_attribute attribute, int value) {
  fake_record("cuFuncSetAttribute", (FakeRecord){ .advice = attribute, .size = value });
  return function == FAKE_FUNCTION ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}
CUresult CUDAAPI cuFuncGetParamInfo(CUfunction function, size_t index, size_t *offset, size_t *size) {
  if (function != FAKE_FUNCTION || index >= 3) return CUDA_ERROR_INVALID_VALUE;
  *offset = parameter_offsets[index];
  *size = parameter_sizes[index];
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuLaunchKernelEx(const CUlaunchConfig *config, CUfunction f, void **kernelParams, void **extra) {
  if (config == NULL || f != FAKE_FUNCTION || kernelParams == NULL || extra != NULL) return CUDA_ERROR_INVALID_VALUE;
  uint64_t first = 0;
  memcpy(&first, kernelParams[0], sizeof first);
  int64_t attribute = -1;
  if (config->numAttrs > 0) {
    const CUlaunchAttribute *a = &config->attrs[0];
    attribute = (int64_t)a->id * 1000000 + a->value.clusterDim.x * 10000 + a->value.clusterDim.y * 100 +
                a->value.clusterDim.z;
  }
  fake_record("cuLaunchKernelEx", (FakeRecord){
    .pointer = (int64_t)first, .size = config->sharedMemBytes, .advice = config->gridDimX,
    .type = config->gridDimY, .id = config->gridDimZ, .device = config->blockDimX,
    .count = (int64_t)config->blockDimY * 1000 + config->blockDimZ, .extra = attribute });
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuOccupancyMaxActiveBlocksPerMultiprocessor(int *blocks, CUfunction function, int blockSize,
                                                              size_t dynamicSMemSize) {
  if (function != FAKE_FUNCTION || blockSize <= 0) return CUDA_ERROR_INVALID_VALUE;
  (void)dynamicSMemSize;
  *blocks = 2048 / blockSize;
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuOccupancyMaxPotentialBlockSize(int *minGridSize, int *blockSize, CUfunction function,
                                                  CUoccupancyB2DSize blockSizeToDynamicSMemSize,
                                                  size_t dynamicSMemSize, int blockSizeLimit) {
  (void)dynamicSMemSize;
  if (function != FAKE_FUNCTION || blockSizeToDynamicSMemSize != NULL) return CUDA_ERROR_INVALID_VALUE;
  *blockSize = blockSizeLimit > 0 && blockSizeLimit < 256 ? blockSizeLimit : 256;
  *minGridSize = 264;
  return CUDA_SUCCESS;
}
