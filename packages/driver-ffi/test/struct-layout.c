/* Prints the size and member offsets of every struct the adapter builds, as cuda.h lays them out. */
#include <cuda.h>
#include <stddef.h>
#include <stdio.h>

#define S(T) printf("%s\"%s\":{\"size\":%zu", first ? "" : ",", #T, sizeof(T)); first = 0
#define M(T, m) printf(",\"%s\":%zu", #m, offsetof(T, m))
#define E() printf("}")

int main(void) {
  int first = 1;
  printf("{");
  S(CUmemLocation); M(CUmemLocation, type); M(CUmemLocation, id); E();
  S(CUmemAccessDesc); M(CUmemAccessDesc, location); M(CUmemAccessDesc, flags); E();
  S(CUmemPoolProps); M(CUmemPoolProps, allocType); M(CUmemPoolProps, handleTypes); M(CUmemPoolProps, location);
  M(CUmemPoolProps, win32SecurityAttributes); M(CUmemPoolProps, maxSize); M(CUmemPoolProps, usage); M(CUmemPoolProps, reserved); E();
  S(CUDA_MEMCPY2D); M(CUDA_MEMCPY2D, srcXInBytes); M(CUDA_MEMCPY2D, srcY); M(CUDA_MEMCPY2D, srcMemoryType); M(CUDA_MEMCPY2D, srcHost);
  M(CUDA_MEMCPY2D, srcDevice); M(CUDA_MEMCPY2D, srcArray); M(CUDA_MEMCPY2D, srcPitch); M(CUDA_MEMCPY2D, dstXInBytes); M(CUDA_MEMCPY2D, dstY);
  M(CUDA_MEMCPY2D, dstMemoryType); M(CUDA_MEMCPY2D, dstHost); M(CUDA_MEMCPY2D, dstDevice); M(CUDA_MEMCPY2D, dstArray); M(CUDA_MEMCPY2D, dstPitch);
  M(CUDA_MEMCPY2D, WidthInBytes); M(CUDA_MEMCPY2D, Height); E();
  S(CUDA_MEMCPY3D); M(CUDA_MEMCPY3D, srcXInBytes); M(CUDA_MEMCPY3D, srcY); M(CUDA_MEMCPY3D, srcZ); M(CUDA_MEMCPY3D, srcLOD);
  M(CUDA_MEMCPY3D, srcMemoryType); M(CUDA_MEMCPY3D, srcHost); M(CUDA_MEMCPY3D, srcDevice); M(CUDA_MEMCPY3D, srcArray); M(CUDA_MEMCPY3D, reserved0);
  M(CUDA_MEMCPY3D, srcPitch); M(CUDA_MEMCPY3D, srcHeight); M(CUDA_MEMCPY3D, dstXInBytes); M(CUDA_MEMCPY3D, dstY); M(CUDA_MEMCPY3D, dstZ);
  M(CUDA_MEMCPY3D, dstLOD); M(CUDA_MEMCPY3D, dstMemoryType); M(CUDA_MEMCPY3D, dstHost); M(CUDA_MEMCPY3D, dstDevice); M(CUDA_MEMCPY3D, dstArray);
  M(CUDA_MEMCPY3D, reserved1); M(CUDA_MEMCPY3D, dstPitch); M(CUDA_MEMCPY3D, dstHeight); M(CUDA_MEMCPY3D, WidthInBytes); M(CUDA_MEMCPY3D, Height);
  M(CUDA_MEMCPY3D, Depth); E();
  S(CUmemcpyAttributes); M(CUmemcpyAttributes, srcAccessOrder); M(CUmemcpyAttributes, srcLocHint); M(CUmemcpyAttributes, dstLocHint);
  M(CUmemcpyAttributes, flags); E();
  S(CUipcMemHandle); M(CUipcMemHandle, reserved); E();
  S(CUmemAllocationProp); M(CUmemAllocationProp, type); M(CUmemAllocationProp, requestedHandleTypes);
  M(CUmemAllocationProp, location); M(CUmemAllocationProp, win32HandleMetaData); M(CUmemAllocationProp, allocFlags); E();
  printf("}\n");
  return 0;
}
