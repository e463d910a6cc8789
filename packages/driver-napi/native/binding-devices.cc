// Devices, primary contexts and the current context; plus the driver's version and capabilities.
#include "binding-calls.h"
#include "binding-support.h"
#include "device-handles.h"
#include "staging-engine.h"

namespace cumem {
namespace {

// The whole of a binding `name(ordinal)` that asks `entry` for the device's `Handle` (a pool, a
// primary context) and returns it as a bigint.
#define CUMEM_DEVICE_HANDLE_BINDING(name, Function, entry, Handle) \
  Napi::Value Function(const Napi::CallbackInfo& info) {           \
    CUMEM_PROLOGUE(info);                                          \
    CUMEM_DEVICE(device, 0, #entry);                               \
    Handle handle = nullptr;                                       \
    CUMEM_CHECK(state->cu.entry(&handle, device), #entry);         \
    return HandleValue(env, handle);                               \
  }                                                                \
  CUMEM_BINDING(name, Function)

Napi::Value DriverVersion(const Napi::CallbackInfo& info) {
  CUMEM_PROLOGUE(info);
  return IntValue(env, state->driverVersion);
}
CUMEM_BINDING("driverVersion", DriverVersion);

Napi::Value GetCapabilities(const Napi::CallbackInfo& info) {
  CUMEM_PROLOGUE(info);
  const Capabilities& caps = state->capabilities;
  Napi::Object out = Napi::Object::New(env);
  out.Set("memoryLocations", caps.memoryLocations);
  out.Set("hostNumaLocations", caps.hostNumaLocations);
  out.Set("batchPrefetchDiscard", caps.batchPrefetchDiscard);
  out.Set("batchMemcpy", caps.batchMemcpy);
  out.Set("hostMemoryPools", caps.hostMemoryPools);
  out.Set("managedMemoryPools", caps.managedMemoryPools);
  out.Set("interprocess", caps.interprocess);
  out.Set("memoryPoolQueries", caps.memoryPoolQueries);
  out.Set("kernelParameterInfo", caps.kernelParameterInfo);
  return out;
}
CUMEM_BINDING("capabilities", GetCapabilities);

CUMEM_QUERY_BINDING("deviceGetCount", DeviceGetCount, cuDeviceGetCount);

Napi::Value DeviceGetName(const Napi::CallbackInfo& info) {
  CUMEM_PROLOGUE(info);
  CUMEM_DEVICE(device, 0, "cuDeviceGetName");
  char name[256] = {0};
  CUMEM_CHECK(state->cu.cuDeviceGetName(name, static_cast<int>(sizeof(name) - 1), device), "cuDeviceGetName");
  return Napi::String::New(env, name);
}
CUMEM_BINDING("deviceGetName", DeviceGetName);

Napi::Value DeviceGetUuid(const Napi::CallbackInfo& info) {
  CUMEM_PROLOGUE(info);
  CUMEM_DEVICE(device, 0, "cuDeviceGetUuid");
  CUuuid uuid;
  CUMEM_CHECK(state->cu.cuDeviceGetUuid(&uuid, device), "cuDeviceGetUuid");
  return CopyToUint8Array(env, uuid.bytes, sizeof(uuid.bytes));
}
CUMEM_BINDING("deviceGetUuid", DeviceGetUuid);

Napi::Value DeviceTotalMem(const Napi::CallbackInfo& info) {
  CUMEM_PROLOGUE(info);
  CUMEM_DEVICE(device, 0, "cuDeviceTotalMem");
  size_t bytes = 0;
  CUMEM_CHECK(state->cu.cuDeviceTotalMem(&bytes, device), "cuDeviceTotalMem");
  return NumberValue(env, static_cast<double>(bytes));
}
CUMEM_BINDING("deviceTotalMem", DeviceTotalMem);

Napi::Value DeviceGetAttribute(const Napi::CallbackInfo& info) {
  CUMEM_PROLOGUE(info);
  CUMEM_INT(attribute, 0);
  CUMEM_DEVICE(device, 1, "cuDeviceGetAttribute");
  int value = 0;
  CUMEM_CHECK(state->cu.cuDeviceGetAttribute(&value, static_cast<CUdevice_attribute>(attribute), device),
              "cuDeviceGetAttribute");
  return IntValue(env, value);
}
CUMEM_BINDING("deviceGetAttribute", DeviceGetAttribute);

CUMEM_DEVICE_HANDLE_BINDING("deviceGetDefaultMemPool", DeviceGetDefaultMemPool, cuDeviceGetDefaultMemPool, CUmemoryPool);

CUMEM_DEVICE_HANDLE_BINDING("deviceGetMemPool", DeviceGetMemPool, cuDeviceGetMemPool, CUmemoryPool);

CUMEM_DEVICE_HANDLE_BINDING("primaryContextRetain", PrimaryContextRetain, cuDevicePrimaryCtxRetain, CUcontext);

Napi::Value PrimaryContextRelease(const Napi::CallbackInfo& info) {
  CUMEM_PROLOGUE(info);
  CUMEM_DEVICE(device, 0, "cuDevicePrimaryCtxRelease");
  ReleaseStagingBefore(state, device);
  CUMEM_CHECK(state->cu.cuDevicePrimaryCtxRelease(device), "cuDevicePrimaryCtxRelease");
  return Undefined(env);
}
CUMEM_BINDING("primaryContextRelease", PrimaryContextRelease);

CUMEM_CALL_BINDING("contextSetCurrent", ContextSetCurrent, cuCtxSetCurrent, "context");

CUMEM_QUERY_BINDING("contextGetCurrent", ContextGetCurrent, cuCtxGetCurrent);

// The benchmark's "trivial call", as a raw callback (see RawArguments): one branch, one driver
// call, one small integer (which JS holds without allocating).
napi_value ContextGetDevice(napi_env env, napi_callback_info info) {
  DriverState* state = RawState(env, info);
  CUdevice device = 0;
  if (state == nullptr || !Succeeded(env, state, state->cu.cuCtxGetDevice(&device), "cuCtxGetDevice")) return nullptr;
  // The contract answers the ordinal; the cached reverse lookup makes no driver call once warm.
  napi_value out;
  napi_create_int32(env, OrdinalOf(state, device), &out);
  return out;
}
CUMEM_BINDING("contextGetDevice", ContextGetDevice);

CUMEM_CALL_BINDING("contextSynchronize", ContextSynchronize, cuCtxSynchronize);

// An entry point that answers two numbers of type T through its two parameters, as { first, second }.
template <typename T, auto Entry>
Napi::Value NumberPair(const Napi::CallbackInfo& info, const char* first, const char* second, const char* call) {
  CUMEM_PROLOGUE(info);
  T a = 0;
  T b = 0;
  CUMEM_CHECK((state->cu.*Entry)(&a, &b), call);
  Napi::Object out = Napi::Object::New(env);
  out.Set(first, static_cast<double>(a));
  out.Set(second, static_cast<double>(b));
  return out;
}

Napi::Value MemGetInfo(const Napi::CallbackInfo& info) {
  return NumberPair<size_t, &EntryPoints::cuMemGetInfo>(info, "free", "total", "cuMemGetInfo");
}
CUMEM_BINDING("memGetInfo", MemGetInfo);

Napi::Value ContextGetStreamPriorityRange(const Napi::CallbackInfo& info) {
  return NumberPair<int, &EntryPoints::cuCtxGetStreamPriorityRange>(info, "least", "greatest",
                                                                     "cuCtxGetStreamPriorityRange");
}
CUMEM_BINDING("contextGetStreamPriorityRange", ContextGetStreamPriorityRange);

}  // namespace
}  // namespace cumem
