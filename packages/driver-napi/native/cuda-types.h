// The few CUDA driver API types, constants and structs the addon uses, declared from NVIDIA's
// documented ABI (CUDA 13.0 driver API reference, cuda.h of CUDA 12.0-13.0) so the addon builds
// without the CUDA toolkit: libcuda.so.1 is opened with dlopen at run time, nothing is linked.
//
// Every struct's layout is pinned below with static_asserts (LP64: linux-x64, linux-arm64), and
// scripts/check-cuda-abi.mjs compares every declaration here (typedefs, enumerators, struct
// sizes and field offsets) and every entry-point signature with the real cuda.h and
// cudaTypedefs.h wherever those are installed (test/cuda-abi.test.ts, part of `pnpm test`).
//
// Adding a type: declare it here in the same form as the others — `typedef enum X_enum : int
// {...} X;` (every CUDA enum is 4 bytes; a fixed type keeps any value the driver or JavaScript
// passes representable), `typedef struct X_st {...} X_v1;` plus `typedef X_v1 X;` — with cuda.h's
// names, field order and enumerator values; add size/offset static_asserts at the end of the
// file that declares it. The check script finds new declarations by those forms, with no list to
// update; it reads this file and the headers it includes at its end (cuda-types-compute.h,
// cuda-types-vmm.h). An entry point's signature goes into cuda-entry-points.h.
#pragma once

#include <cstddef>
#include <cstdint>

#ifndef CUDAAPI
#define CUDAAPI
#endif

// The driver API version these declarations describe: `#if CUDA_VERSION >= ...` in the sources
// selects the entry points of that version (each is still resolved at run time, and used only
// when the installed driver has it).
#ifndef CUDA_VERSION
#define CUDA_VERSION 13000
#endif

typedef uint64_t cuuint64_t;
typedef unsigned long long CUdeviceptr_v2;
typedef CUdeviceptr_v2 CUdeviceptr;
typedef int CUdevice_v1;
typedef CUdevice_v1 CUdevice;
typedef struct CUctx_st* CUcontext;
typedef struct CUarray_st* CUarray;
typedef struct CUevent_st* CUevent;
typedef struct CUstream_st* CUstream;
typedef struct CUmemPoolHandle_st* CUmemoryPool;

#define CU_IPC_HANDLE_SIZE 64
#define CU_DEVICE_CPU ((CUdevice)-1)
#define CU_DEVICE_INVALID ((CUdevice)-2)

// Only the codes the addon names; the driver returns others, which the enum holds (`: int`).
typedef enum cudaError_enum : int {
  CUDA_SUCCESS = 0,
  CUDA_ERROR_INVALID_VALUE = 1,
  CUDA_ERROR_STUB_LIBRARY = 34,
  CUDA_ERROR_NO_DEVICE = 100,
  CUDA_ERROR_INVALID_DEVICE = 101,
  CUDA_ERROR_INVALID_CONTEXT = 201,
  CUDA_ERROR_NOT_READY = 600,
  CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED = 704,
  CUDA_ERROR_UNKNOWN = 999,
} CUresult;

// Stream and event creation flags the staging engine uses (values from cuda.h).
typedef enum CUstream_flags_enum : int { CU_STREAM_NON_BLOCKING = 0x1 } CUstream_flags;
typedef enum CUevent_flags_enum : int { CU_EVENT_DISABLE_TIMING = 0x2 } CUevent_flags;

// Values come from JavaScript (DeviceAttribute of @cumem/core-types).
typedef enum CUdevice_attribute_enum : int { CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 1 } CUdevice_attribute;
// cuDeviceGetP2PAttribute's attribute (values from cuda.h; @cumem/core-types' P2PAttribute).
typedef enum CUdevice_P2PAttribute_enum : int {
  CU_DEVICE_P2P_ATTRIBUTE_PERFORMANCE_RANK = 0x01
} CUdevice_P2PAttribute;

typedef enum CUpointer_attribute_enum : int {
  CU_POINTER_ATTRIBUTE_BUFFER_ID = 7,
  CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL = 9,
  CU_POINTER_ATTRIBUTE_RANGE_SIZE = 12,
  CU_POINTER_ATTRIBUTE_ALLOWED_HANDLE_TYPES = 14,
  CU_POINTER_ATTRIBUTE_MAPPING_SIZE = 18,
  CU_POINTER_ATTRIBUTE_MEMORY_BLOCK_ID = 20,
} CUpointer_attribute;

typedef enum CUmemorytype_enum : int {
  CU_MEMORYTYPE_HOST = 0x01,
  CU_MEMORYTYPE_DEVICE = 0x02,
  CU_MEMORYTYPE_ARRAY = 0x03,
  CU_MEMORYTYPE_UNIFIED = 0x04,
} CUmemorytype;

typedef enum CUmem_advise_enum : int {
  CU_MEM_ADVISE_SET_READ_MOSTLY = 1,
  CU_MEM_ADVISE_UNSET_READ_MOSTLY = 2,
  CU_MEM_ADVISE_SET_PREFERRED_LOCATION = 3,
  CU_MEM_ADVISE_UNSET_PREFERRED_LOCATION = 4,
  CU_MEM_ADVISE_SET_ACCESSED_BY = 5,
  CU_MEM_ADVISE_UNSET_ACCESSED_BY = 6,
} CUmem_advise;

typedef enum CUmem_range_attribute_enum : int {
  CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY = 1,
  CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION = 2,
  CU_MEM_RANGE_ATTRIBUTE_ACCESSED_BY = 3,
  CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION = 4,
  CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_TYPE = 5,
  CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_ID = 6,
  CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION_TYPE = 7,
  CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION_ID = 8,
} CUmem_range_attribute;

typedef enum CUdriverProcAddress_flags_enum : int {
  CU_GET_PROC_ADDRESS_DEFAULT = 0,
  CU_GET_PROC_ADDRESS_LEGACY_STREAM = 1 << 0,
  CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM = 1 << 1,
} CUdriverProcAddress_flags;

typedef enum CUdriverProcAddressQueryResult_enum : int {
  CU_GET_PROC_ADDRESS_SUCCESS = 0,
  CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND = 1,
  CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT = 2,
} CUdriverProcAddressQueryResult;

typedef enum CUmemAllocationHandleType_enum : int {
  CU_MEM_HANDLE_TYPE_NONE = 0x0,
  CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR = 0x1,
  CU_MEM_HANDLE_TYPE_WIN32 = 0x2,
  CU_MEM_HANDLE_TYPE_WIN32_KMT = 0x4,
  CU_MEM_HANDLE_TYPE_FABRIC = 0x8,
  CU_MEM_HANDLE_TYPE_MAX = 0x7FFFFFFF,
} CUmemAllocationHandleType;

typedef enum CUmemAccess_flags_enum : int {
  CU_MEM_ACCESS_FLAGS_PROT_NONE = 0x0,
  CU_MEM_ACCESS_FLAGS_PROT_READ = 0x1,
  CU_MEM_ACCESS_FLAGS_PROT_READWRITE = 0x3,
  CU_MEM_ACCESS_FLAGS_PROT_MAX = 0x7FFFFFFF,
} CUmemAccess_flags;

typedef enum CUmemLocationType_enum : int {
  CU_MEM_LOCATION_TYPE_INVALID = 0x0,
  CU_MEM_LOCATION_TYPE_DEVICE = 0x1,
  CU_MEM_LOCATION_TYPE_HOST = 0x2,
  CU_MEM_LOCATION_TYPE_HOST_NUMA = 0x3,
  CU_MEM_LOCATION_TYPE_HOST_NUMA_CURRENT = 0x4,
  CU_MEM_LOCATION_TYPE_MAX = 0x7FFFFFFF,
} CUmemLocationType;

typedef enum CUmemAllocationType_enum : int {
  CU_MEM_ALLOCATION_TYPE_INVALID = 0x0,
  CU_MEM_ALLOCATION_TYPE_PINNED = 0x1,
  CU_MEM_ALLOCATION_TYPE_MANAGED = 0x2,
  CU_MEM_ALLOCATION_TYPE_MAX = 0x7FFFFFFF,
} CUmemAllocationType;

typedef enum CUmemPool_attribute_enum : int {
  CU_MEMPOOL_ATTR_REUSE_FOLLOW_EVENT_DEPENDENCIES = 1,
  CU_MEMPOOL_ATTR_REUSE_ALLOW_OPPORTUNISTIC = 2,
  CU_MEMPOOL_ATTR_REUSE_ALLOW_INTERNAL_DEPENDENCIES = 3,
  CU_MEMPOOL_ATTR_RELEASE_THRESHOLD = 4,
  CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT = 5,
  CU_MEMPOOL_ATTR_RESERVED_MEM_HIGH = 6,
  CU_MEMPOOL_ATTR_USED_MEM_CURRENT = 7,
  CU_MEMPOOL_ATTR_USED_MEM_HIGH = 8,
} CUmemPool_attribute;

typedef enum CUmemcpySrcAccessOrder_enum : int {
  CU_MEMCPY_SRC_ACCESS_ORDER_INVALID = 0x0,
  CU_MEMCPY_SRC_ACCESS_ORDER_STREAM = 0x1,
  CU_MEMCPY_SRC_ACCESS_ORDER_DURING_API_CALL = 0x2,
  CU_MEMCPY_SRC_ACCESS_ORDER_ANY = 0x3,
  CU_MEMCPY_SRC_ACCESS_ORDER_MAX = 0x7FFFFFFF,
} CUmemcpySrcAccessOrder;

typedef struct CUuuid_st {
  char bytes[16];
} CUuuid;

typedef struct CUipcMemHandle_st {
  char reserved[CU_IPC_HANDLE_SIZE];
} CUipcMemHandle_v1;
typedef CUipcMemHandle_v1 CUipcMemHandle;

typedef struct CUipcEventHandle_st {
  char reserved[CU_IPC_HANDLE_SIZE];
} CUipcEventHandle_v1;
typedef CUipcEventHandle_v1 CUipcEventHandle;

typedef struct CUmemPoolPtrExportData_st {
  unsigned char reserved[64];
} CUmemPoolPtrExportData_v1;
typedef CUmemPoolPtrExportData_v1 CUmemPoolPtrExportData;

typedef struct CUmemLocation_st {
  CUmemLocationType type;
  int id;
} CUmemLocation_v1;
typedef CUmemLocation_v1 CUmemLocation;

typedef struct CUmemPoolProps_st {
  CUmemAllocationType allocType;
  CUmemAllocationHandleType handleTypes;
  CUmemLocation location;
  void* win32SecurityAttributes;
  size_t maxSize;
  unsigned short usage;
  unsigned char reserved[54];
} CUmemPoolProps_v1;
typedef CUmemPoolProps_v1 CUmemPoolProps;

typedef struct CUmemAccessDesc_st {
  CUmemLocation location;
  CUmemAccess_flags flags;
} CUmemAccessDesc_v1;
typedef CUmemAccessDesc_v1 CUmemAccessDesc;

typedef struct CUmemcpyAttributes_st {
  CUmemcpySrcAccessOrder srcAccessOrder;
  CUmemLocation srcLocHint;
  CUmemLocation dstLocHint;
  unsigned int flags;
} CUmemcpyAttributes_v1;
typedef CUmemcpyAttributes_v1 CUmemcpyAttributes;

typedef struct CUDA_MEMCPY2D_st {
  size_t srcXInBytes;
  size_t srcY;
  CUmemorytype srcMemoryType;
  const void* srcHost;
  CUdeviceptr srcDevice;
  CUarray srcArray;
  size_t srcPitch;
  size_t dstXInBytes;
  size_t dstY;
  CUmemorytype dstMemoryType;
  void* dstHost;
  CUdeviceptr dstDevice;
  CUarray dstArray;
  size_t dstPitch;
  size_t WidthInBytes;
  size_t Height;
} CUDA_MEMCPY2D_v2;
typedef CUDA_MEMCPY2D_v2 CUDA_MEMCPY2D;

typedef struct CUDA_MEMCPY3D_st {
  size_t srcXInBytes;
  size_t srcY;
  size_t srcZ;
  size_t srcLOD;
  CUmemorytype srcMemoryType;
  const void* srcHost;
  CUdeviceptr srcDevice;
  CUarray srcArray;
  void* reserved0;
  size_t srcPitch;
  size_t srcHeight;
  size_t dstXInBytes;
  size_t dstY;
  size_t dstZ;
  size_t dstLOD;
  CUmemorytype dstMemoryType;
  void* dstHost;
  CUdeviceptr dstDevice;
  CUarray dstArray;
  void* reserved1;
  size_t dstPitch;
  size_t dstHeight;
  size_t WidthInBytes;
  size_t Height;
  size_t Depth;
} CUDA_MEMCPY3D_v2;
typedef CUDA_MEMCPY3D_v2 CUDA_MEMCPY3D;

// The layouts on LP64 (the only data model the addon is built for), from the CUDA ABI.
static_assert(sizeof(void*) == 8 && sizeof(size_t) == 8, "@cumem/driver-napi is built for 64-bit Linux only");
static_assert(sizeof(CUresult) == 4 && sizeof(CUmemLocationType) == 4, "CUDA enums are 4 bytes");
static_assert(sizeof(CUdeviceptr) == 8, "CUdeviceptr is 64-bit");
static_assert(sizeof(CUuuid) == 16, "CUuuid");
static_assert(sizeof(CUipcMemHandle) == 64 && sizeof(CUipcEventHandle) == 64, "IPC handles");
static_assert(sizeof(CUmemPoolPtrExportData) == 64, "CUmemPoolPtrExportData");
static_assert(sizeof(CUmemLocation) == 8 && offsetof(CUmemLocation, id) == 4, "CUmemLocation");
static_assert(sizeof(CUmemAccessDesc) == 12 && offsetof(CUmemAccessDesc, flags) == 8, "CUmemAccessDesc");
static_assert(sizeof(CUmemcpyAttributes) == 24 && offsetof(CUmemcpyAttributes, srcLocHint) == 4 &&
                  offsetof(CUmemcpyAttributes, dstLocHint) == 12 && offsetof(CUmemcpyAttributes, flags) == 20,
              "CUmemcpyAttributes");
static_assert(sizeof(CUmemPoolProps) == 88 && offsetof(CUmemPoolProps, location) == 8 &&
                  offsetof(CUmemPoolProps, win32SecurityAttributes) == 16 && offsetof(CUmemPoolProps, maxSize) == 24 &&
                  offsetof(CUmemPoolProps, usage) == 32 && offsetof(CUmemPoolProps, reserved) == 34,
              "CUmemPoolProps");
static_assert(sizeof(CUDA_MEMCPY2D) == 128 && offsetof(CUDA_MEMCPY2D, srcMemoryType) == 16 &&
                  offsetof(CUDA_MEMCPY2D, srcHost) == 24 && offsetof(CUDA_MEMCPY2D, dstXInBytes) == 56 &&
                  offsetof(CUDA_MEMCPY2D, dstMemoryType) == 72 && offsetof(CUDA_MEMCPY2D, WidthInBytes) == 112,
              "CUDA_MEMCPY2D");
static_assert(sizeof(CUDA_MEMCPY3D) == 200 && offsetof(CUDA_MEMCPY3D, srcMemoryType) == 32 &&
                  offsetof(CUDA_MEMCPY3D, srcPitch) == 72 && offsetof(CUDA_MEMCPY3D, dstXInBytes) == 88 &&
                  offsetof(CUDA_MEMCPY3D, dstMemoryType) == 120 && offsetof(CUDA_MEMCPY3D, WidthInBytes) == 176,
              "CUDA_MEMCPY3D");

// The declarations of one area each, after the common ones they use.
#include "cuda-types-compute.h"
#include "cuda-types-vmm.h"
