// Part of cuda-types.h, which includes it after the common declarations this file uses (read
// cuda-types.h's header for the rules: the same forms, and the check script reads this file too).
// Not included on its own.
#pragma once

// Virtual memory management (cuda.h 13.0): a physical chunk's handle, its properties, and
// the granularity query's option.
typedef unsigned long long CUmemGenericAllocationHandle_v1;
typedef CUmemGenericAllocationHandle_v1 CUmemGenericAllocationHandle;

typedef enum CUmemAllocationGranularity_flags_enum : int {
  CU_MEM_ALLOC_GRANULARITY_MINIMUM = 0x0,
  CU_MEM_ALLOC_GRANULARITY_RECOMMENDED = 0x1,
} CUmemAllocationGranularity_flags;

// cuda.h declares allocFlags' struct anonymously, inside CUmemAllocationProp; named here so the
// check script (which reads flat struct bodies) compares the enclosing struct's offsets.
struct CumemAllocationFlags {
  unsigned char compressionType;
  unsigned char gpuDirectRDMACapable;
  unsigned short usage;
  unsigned char reserved[4];
};

typedef struct CUmemAllocationProp_st {
  CUmemAllocationType type;
  CUmemAllocationHandleType requestedHandleTypes;
  CUmemLocation location;
  void* win32HandleMetaData;
  CumemAllocationFlags allocFlags;
} CUmemAllocationProp_v1;
typedef CUmemAllocationProp_v1 CUmemAllocationProp;

// The layouts on LP64, from the CUDA ABI.
static_assert(sizeof(CUmemGenericAllocationHandle) == 8, "CUmemGenericAllocationHandle");
static_assert(sizeof(CUmemAllocationProp) == 32 && offsetof(CUmemAllocationProp, requestedHandleTypes) == 4 &&
                  offsetof(CUmemAllocationProp, location) == 8 &&
                  offsetof(CUmemAllocationProp, win32HandleMetaData) == 16 &&
                  offsetof(CUmemAllocationProp, allocFlags) == 24 &&
                  offsetof(CUmemAllocationProp, allocFlags.gpuDirectRDMACapable) == 25 &&
                  offsetof(CUmemAllocationProp, allocFlags.usage) == 26,
              "CUmemAllocationProp");
