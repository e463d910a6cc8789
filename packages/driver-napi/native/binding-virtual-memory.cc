// Virtual memory management: address ranges, physical chunks, mappings, per-device access and
// POSIX-fd sharing of chunks (cuMemAddressReserve and friends, CUDA 10.2+).
#include <cstring>
#include <vector>

#include "binding-calls.h"
#include "binding-support.h"
#include "location-support.h"

namespace cumem {

bool ReadAccessDescriptors(napi_env env, const DriverState* state, napi_value value,
                           std::vector<CUmemAccessDesc>* out, const char* call) {
  void* data = nullptr;
  size_t bytes = 0;
  if (!ReadView(env, value, &data, &bytes, "descriptors")) return false;
  if (bytes % (3 * sizeof(int32_t)) != 0) {
    napi_throw_range_error(env, nullptr, "descriptors must hold (type, id, flags) triples of 32-bit integers");
    return false;
  }
  const size_t count = bytes / (3 * sizeof(int32_t));
  // Copied first: the view's memory is JavaScript's and is read once.
  std::vector<int32_t> packed(count * 3);
  if (count != 0) std::memcpy(packed.data(), data, bytes);
  out->assign(count, CUmemAccessDesc{});
  for (size_t i = 0; i < count; i++) {
    if (!CheckLocation(env, state, packed[3 * i], call)) return false;
    (*out)[i].location = LocationOf(packed[3 * i], packed[3 * i + 1]);
    (*out)[i].flags = static_cast<CUmemAccess_flags>(packed[3 * i + 2]);
  }
  return true;
}

namespace {

// Arguments `first`..`first + 5`: allocationType, requestedHandleTypes, locationType, locationId,
// gpuDirectRdmaCapable (0/1), usage.
bool ReadAllocationProp(const Napi::CallbackInfo& info, const DriverState* state, size_t first,
                        CUmemAllocationProp* prop, const char* call) {
  napi_env env = info.Env();
  int32_t values[6];
  const char* names[6] = {"allocationType", "requestedHandleTypes", "locationType", "locationId",
                          "gpuDirectRdmaCapable", "usage"};
  for (size_t i = 0; i < 6; i++) {
    if (!ReadInt(env, info[first + i], &values[i], names[i])) return false;
  }
  if (!CheckLocation(env, state, values[2], call)) return false;
  std::memset(prop, 0, sizeof(*prop));
  prop->type = static_cast<CUmemAllocationType>(values[0]);
  prop->requestedHandleTypes = static_cast<CUmemAllocationHandleType>(values[1]);
  prop->location = LocationOf(values[2], values[3]);
  prop->allocFlags.gpuDirectRDMACapable = values[4] != 0 ? 1 : 0;
  prop->allocFlags.usage = static_cast<unsigned short>(values[5]);
  return true;
}

// memGetAllocationGranularity(6 property values, option)
Napi::Value MemGetAllocationGranularity(const Napi::CallbackInfo& info) {
  CUMEM_PROLOGUE(info);
  CUmemAllocationProp prop;
  if (!ReadAllocationProp(info, state, 0, &prop, "cuMemGetAllocationGranularity")) return Napi::Value();
  CUMEM_INT(option, 6);
  size_t granularity = 0;
  CUMEM_CHECK(state->cu.cuMemGetAllocationGranularity(&granularity, &prop,
                                                      static_cast<CUmemAllocationGranularity_flags>(option)),
              "cuMemGetAllocationGranularity");
  return NumberValue(env, static_cast<double>(granularity));
}
CUMEM_BINDING("memGetAllocationGranularity", MemGetAllocationGranularity);

CUMEM_QUERY_BINDING("memAddressReserve", MemAddressReserve, cuMemAddressReserve, "size", "alignment", "hint");

CUMEM_CALL_BINDING("memAddressFree", MemAddressFree, cuMemAddressFree, "pointer", "size");

// memCreate(size, 6 property values)
Napi::Value MemCreate(const Napi::CallbackInfo& info) {
  CUMEM_PROLOGUE(info);
  CUMEM_SIZE(size, 0);
  CUmemAllocationProp prop;
  if (!ReadAllocationProp(info, state, 1, &prop, "cuMemCreate")) return Napi::Value();
  CUmemGenericAllocationHandle handle = 0;
  CUMEM_CHECK(state->cu.cuMemCreate(&handle, size, &prop, 0), "cuMemCreate");
  return BigIntValue(env, handle);
}
CUMEM_BINDING("memCreate", MemCreate);

CUMEM_CALL_BINDING("memRelease", MemRelease, cuMemRelease, "handle");

CUMEM_CALL_BINDING("memMap", MemMap, cuMemMap, "pointer", "size", "offset", "handle");

CUMEM_CALL_BINDING("memUnmap", MemUnmap, cuMemUnmap, "pointer", "size");

// memSetAccess(pointer, size, packed (type, id, flags) triples)
Napi::Value MemSetAccess(const Napi::CallbackInfo& info) {
  CUMEM_PROLOGUE(info);
  CUMEM_ADDRESS(pointer, 0);
  CUMEM_SIZE(size, 1);
  std::vector<CUmemAccessDesc> access;
  if (!ReadAccessDescriptors(env, state, info[2], &access, "cuMemSetAccess")) return Napi::Value();
  if (access.empty()) return Undefined(env);
  CUMEM_CHECK(state->cu.cuMemSetAccess(pointer, size, access.data(), access.size()), "cuMemSetAccess");
  return Undefined(env);
}
CUMEM_BINDING("memSetAccess", MemSetAccess);

// memGetAccess(pointer, locationType, locationId)
Napi::Value MemGetAccess(const Napi::CallbackInfo& info) {
  CUMEM_PROLOGUE(info);
  CUMEM_ADDRESS(pointer, 0);
  CUMEM_LOCATION(location, 1, "cuMemGetAccess");
  unsigned long long flags = 0;
  CUMEM_CHECK(state->cu.cuMemGetAccess(&flags, &location, pointer), "cuMemGetAccess");
  return NumberValue(env, static_cast<double>(flags));
}
CUMEM_BINDING("memGetAccess", MemGetAccess);

CUMEM_EXPORT_BINDING("memExportToFileDescriptor", MemExportToFileDescriptor, cuMemExportToShareableHandle, "handle");

CUMEM_IMPORT_BINDING("memImportFromFileDescriptor", MemImportFromFileDescriptor, cuMemImportFromShareableHandle,
                     "fd");

Napi::Value MemGetAllocationPropertiesFromHandle(const Napi::CallbackInfo& info) {
  CUMEM_PROLOGUE(info);
  CUMEM_ADDRESS(handle, 0);
  CUmemAllocationProp prop;
  std::memset(&prop, 0, sizeof(prop));
  CUMEM_CHECK(state->cu.cuMemGetAllocationPropertiesFromHandle(&prop, handle),
              "cuMemGetAllocationPropertiesFromHandle");
  Napi::Object location = Napi::Object::New(env);
  location.Set("type", static_cast<double>(prop.location.type));
  location.Set("id", static_cast<double>(prop.location.id));
  Napi::Object out = Napi::Object::New(env);
  out.Set("allocationType", static_cast<double>(prop.type));
  out.Set("requestedHandleTypes", static_cast<double>(prop.requestedHandleTypes));
  out.Set("location", location);
  out.Set("gpuDirectRdmaCapable", Napi::Boolean::New(env, prop.allocFlags.gpuDirectRDMACapable != 0));
  out.Set("usage", static_cast<double>(prop.allocFlags.usage));
  return out;
}
CUMEM_BINDING("memGetAllocationPropertiesFromHandle", MemGetAllocationPropertiesFromHandle);

}  // namespace
}  // namespace cumem
