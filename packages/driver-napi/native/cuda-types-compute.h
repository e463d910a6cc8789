// Part of cuda-types.h, which includes it after the common declarations this file uses (read
// cuda-types.h's header for the rules: the same forms, and the check script reads this file too).
// Not included on its own.
#pragma once

// The CUDA driver API types of modules, kernels and launches (binding-compute.cc).
typedef struct CUlib_st* CUlibrary;
typedef struct CUkern_st* CUkernel;
typedef struct CUfunc_st* CUfunction;
typedef enum CUjit_option_enum : int { CU_JIT_MAX_REGISTERS = 0 } CUjit_option;
typedef enum CUlibraryOption_enum : int { CU_LIBRARY_HOST_UNIVERSAL_FUNCTION_AND_DATA_TABLE = 0 } CUlibraryOption;
typedef enum CUfunction_attribute_enum : int {
  CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 0,
  CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8
} CUfunction_attribute;
typedef enum CUlaunchAttributeID_enum : int { CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION = 4 } CUlaunchAttributeID;
// cuda.h's union has a member per attribute; clusterDim is the one used, programmaticEvent
// gives the union its 8-byte alignment (it holds a CUevent), as in cuda.h.
typedef union CUlaunchAttributeValue_union {
  char pad[64];
  struct {
    unsigned int x;
    unsigned int y;
    unsigned int z;
  } clusterDim;
  struct {
    CUevent event;
    int flags;
    int triggerAtBlockStart;
  } programmaticEvent;
} CUlaunchAttributeValue;
typedef struct CUlaunchAttribute_st {
  CUlaunchAttributeID id;
  char pad[4];
  CUlaunchAttributeValue value;
} CUlaunchAttribute;
typedef struct CUlaunchConfig_st {
  unsigned int gridDimX;
  unsigned int gridDimY;
  unsigned int gridDimZ;
  unsigned int blockDimX;
  unsigned int blockDimY;
  unsigned int blockDimZ;
  unsigned int sharedMemBytes;
  CUstream hStream;
  CUlaunchAttribute* attrs;
  unsigned int numAttrs;
} CUlaunchConfig;
typedef size_t (*CUoccupancyB2DSize)(int blockSize);

// The layouts on LP64, from the CUDA ABI.
static_assert(sizeof(CUlaunchAttributeValue) == 64 && alignof(CUlaunchAttributeValue) == 8 &&
                  sizeof(CUlaunchAttribute) == 72 && offsetof(CUlaunchAttribute, value) == 8,
              "CUlaunchAttribute");
static_assert(sizeof(CUlaunchConfig) == 56 && offsetof(CUlaunchConfig, hStream) == 32 &&
                  offsetof(CUlaunchConfig, attrs) == 40 && offsetof(CUlaunchConfig, numAttrs) == 48,
              "CUlaunchConfig");
