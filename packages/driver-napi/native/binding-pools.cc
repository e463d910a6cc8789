// Stream-ordered pools: creation, attributes, access, the hot alloc/free pair, and IPC export.
#include <cstring>

#include "binding-calls.h"
#include "binding-support.h"
#include "location-support.h"

namespace cumem {
namespace {

bool IsByteCountAttribute(int attribute) {
  // CU_MEMPOOL_ATTR_REUSE_* (1..3) are int; the others cumem uses (4..8) are cuuint64_t.
  return attribute < CU_MEMPOOL_ATTR_REUSE_FOLLOW_EVENT_DEPENDENCIES ||
         attribute > CU_MEMPOOL_ATTR_REUSE_ALLOW_INTERNAL_DEPENDENCIES;
}

// memPoolCreate(allocationType, locationType, locationId, handleTypes, maxSize)
Napi::Value MemPoolCreate(const Napi::CallbackInfo& info) {
  CUMEM_PROLOGUE(info);
  CUMEM_INT(allocationType, 0);
  CUMEM_INT(locationType, 1);
  CUMEM_INT(locationId, 2);
  CUMEM_INT(handleTypes, 3);
  CUMEM_SIZE(maxSize, 4);
  const Capabilities& caps = state->capabilities;
  if (!CheckLocation(env, state, locationType, "cuMemPoolCreate")) return Napi::Value();
  if (allocationType == kManagedAllocation && !caps.managedMemoryPools) {
    ThrowNotSupported(env, "cuMemPoolCreate: a pool of managed memory needs a CUDA 13.0 driver " +
                               ModeNote(state, "managedMemoryPools"));
    return Napi::Value();
  }
  // Any non-device location of a pinned pool is host memory (Host, HostNuma, HostNumaCurrent).
  if (allocationType != kManagedAllocation && locationType != CU_MEM_LOCATION_TYPE_DEVICE &&
      locationType != CU_MEM_LOCATION_TYPE_INVALID && !caps.hostMemoryPools) {
    ThrowNotSupported(env, "cuMemPoolCreate: a pool of page-locked host memory needs a CUDA 13.0 driver " +
                               ModeNote(state, "hostMemoryPools"));
    return Napi::Value();
  }
  CUmemPoolProps properties;
  std::memset(&properties, 0, sizeof(properties));
  properties.allocType = static_cast<CUmemAllocationType>(allocationType);
  properties.handleTypes = static_cast<CUmemAllocationHandleType>(handleTypes);
  properties.location = LocationOf(locationType, locationId);
  properties.maxSize = maxSize;
  CUmemoryPool pool = nullptr;
  CUMEM_CHECK(state->cu.cuMemPoolCreate(&pool, &properties), "cuMemPoolCreate");
  return HandleValue(env, pool);
}
CUMEM_BINDING("memPoolCreate", MemPoolCreate);

CUMEM_CALL_BINDING("memPoolDestroy", MemPoolDestroy, cuMemPoolDestroy, "pool");

Napi::Value MemPoolSetAttribute(const Napi::CallbackInfo& info) {
  CUMEM_PROLOGUE(info);
  CUMEM_ADDRESS(pool, 0);
  CUMEM_INT(attribute, 1);
  CUMEM_SIZE(value, 2);
  cuuint64_t bytes = value;
  int flag = static_cast<int>(value);
  void* data = IsByteCountAttribute(attribute) ? static_cast<void*>(&bytes) : static_cast<void*>(&flag);
  CUMEM_CHECK(state->cu.cuMemPoolSetAttribute(reinterpret_cast<CUmemoryPool>(pool),
                                              static_cast<CUmemPool_attribute>(attribute), data),
              "cuMemPoolSetAttribute");
  return Undefined(env);
}
CUMEM_BINDING("memPoolSetAttribute", MemPoolSetAttribute);

Napi::Value MemPoolGetAttribute(const Napi::CallbackInfo& info) {
  CUMEM_PROLOGUE(info);
  CUMEM_ADDRESS(pool, 0);
  CUMEM_INT(attribute, 1);
  // Zeroed 8 bytes: a 4-byte answer lands in the low half (little-endian hosts only).
  cuuint64_t value = 0;
  CUMEM_CHECK(state->cu.cuMemPoolGetAttribute(reinterpret_cast<CUmemoryPool>(pool),
                                              static_cast<CUmemPool_attribute>(attribute), &value),
              "cuMemPoolGetAttribute");
  if (!IsByteCountAttribute(attribute)) return IntValue(env, static_cast<int32_t>(value & 0xffffffffu));
  return NumberValue(env, static_cast<double>(value));
}
CUMEM_BINDING("memPoolGetAttribute", MemPoolGetAttribute);

// memPoolSetAccess(pool, locationType, locationId, flags)
Napi::Value MemPoolSetAccess(const Napi::CallbackInfo& info) {
  CUMEM_PROLOGUE(info);
  CUMEM_ADDRESS(pool, 0);
  CUMEM_INT(locationType, 1);
  CUMEM_INT(locationId, 2);
  CUMEM_INT(flags, 3);
  if (!CheckLocation(env, state, locationType, "cuMemPoolSetAccess")) return Napi::Value();
  CUmemAccessDesc access;
  std::memset(&access, 0, sizeof(access));
  access.location = LocationOf(locationType, locationId);
  access.flags = static_cast<CUmemAccess_flags>(flags);
  CUMEM_CHECK(state->cu.cuMemPoolSetAccess(reinterpret_cast<CUmemoryPool>(pool), &access, 1), "cuMemPoolSetAccess");
  return Undefined(env);
}
CUMEM_BINDING("memPoolSetAccess", MemPoolSetAccess);

// memPoolGetAccess(pool, locationType, locationId)
Napi::Value MemPoolGetAccess(const Napi::CallbackInfo& info) {
  CUMEM_PROLOGUE(info);
  CUMEM_ADDRESS(pool, 0);
  CUMEM_LOCATION(location, 1, "cuMemPoolGetAccess");
  CUmemAccess_flags flags = CU_MEM_ACCESS_FLAGS_PROT_NONE;
  CUMEM_CHECK(state->cu.cuMemPoolGetAccess(&flags, reinterpret_cast<CUmemoryPool>(pool), &location),
              "cuMemPoolGetAccess");
  return IntValue(env, static_cast<int32_t>(flags));
}
CUMEM_BINDING("memPoolGetAccess", MemPoolGetAccess);

CUMEM_CALL_BINDING("memPoolTrimTo", MemPoolTrimTo, cuMemPoolTrimTo, "pool", "minBytesToKeep");

// The hot pair, as raw callbacks (see RawArguments). The new pointer is not returned: it is
// stored in the binding's `pointerResult` BigUint64Array, from which the Driver's one-line
// forward reads it. A bigint made by napi_create_bigint_uint64 costs a call into the engine's
// runtime, the largest single item of the pair's profile; a typed-array read in JS makes it cheaper.
napi_value MemAllocFromPoolAsync(napi_env env, napi_callback_info info) {
  napi_value argv[3];
  DriverState* state = RawArguments(env, info, argv);
  size_t size;
  uint64_t pool;
  uint64_t stream;
  if (state == nullptr || !ReadSizeFast(env, argv[0], &size, "size") ||
      !ReadAddressFast(env, argv[1], &pool, "pool") || !ReadAddressFast(env, argv[2], &stream, "stream")) {
    return nullptr;
  }
  CUdeviceptr pointer = 0;
  if (Succeeded(env, state,
                state->cu.cuMemAllocFromPoolAsync(&pointer, size, reinterpret_cast<CUmemoryPool>(pool),
                                                  reinterpret_cast<CUstream>(stream)),
                "cuMemAllocFromPoolAsync")) {
    *state->pointerResult = pointer;
  }
  return nullptr;
}
CUMEM_BINDING("memAllocFromPoolAsync", MemAllocFromPoolAsync);

napi_value MemFreeAsync(napi_env env, napi_callback_info info) {
  napi_value argv[2];
  DriverState* state = RawArguments(env, info, argv);
  uint64_t pointer;
  uint64_t stream;
  if (state == nullptr || !ReadAddressFast(env, argv[0], &pointer, "pointer") ||
      !ReadAddressFast(env, argv[1], &stream, "stream")) {
    return nullptr;
  }
  Succeeded(env, state, state->cu.cuMemFreeAsync(pointer, reinterpret_cast<CUstream>(stream)), "cuMemFreeAsync");
  return nullptr;
}
CUMEM_BINDING("memFreeAsync", MemFreeAsync);

CUMEM_EXPORT_BINDING("memPoolExportToFileDescriptor", MemPoolExportToFileDescriptor, cuMemPoolExportToShareableHandle,
                     "pool");

CUMEM_IMPORT_BINDING("memPoolImportFromFileDescriptor", MemPoolImportFromFileDescriptor,
                     cuMemPoolImportFromShareableHandle, "fd");

CUMEM_RECORD_BINDING("memPoolExportPointer", MemPoolExportPointer, cuMemPoolExportPointer, CUmemPoolPtrExportData, CUdeviceptr, pointer);

Napi::Value MemPoolImportPointer(const Napi::CallbackInfo& info) {
  CUMEM_PROLOGUE(info);
  CUMEM_ADDRESS(pool, 0);
  CUmemPoolPtrExportData data;
  const char* wrongSize = "data must be the 64 bytes of memPoolExportPointer";
  if (!ReadRecord(env, info[1], &data, "data", wrongSize)) return Napi::Value();
  CUdeviceptr pointer = 0;
  CUMEM_CHECK(state->cu.cuMemPoolImportPointer(&pointer, reinterpret_cast<CUmemoryPool>(pool), &data),
              "cuMemPoolImportPointer");
  return BigIntValue(env, pointer);
}
CUMEM_BINDING("memPoolImportPointer", MemPoolImportPointer);

}  // namespace
}  // namespace cumem
