// Managed memory: advise and prefetch in the CUmemLocation form (CUDA >= 12.2) or the CUDA 12.0
// CUdevice form, the CUDA 13 batch entry points, and range attributes.
#include <vector>

#include "binding-support.h"
#include "location-support.h"

namespace cumem {
namespace {

// memAdvise(pointer, size, advice, locationType, locationId), a raw callback (see RawArguments):
// it is timed by the readMostlySet benchmark.
napi_value MemAdvise(napi_env env, napi_callback_info info) {
  napi_value argv[5];
  DriverState* state = RawArguments(env, info, argv);
  uint64_t pointer;
  size_t size;
  int32_t advice;
  int32_t type;
  int32_t id;
  if (state == nullptr || !ReadAddressFast(env, argv[0], &pointer, "pointer") ||
      !ReadSizeFast(env, argv[1], &size, "size") || !ReadIntFast(env, argv[2], &advice, "advice") ||
      !ReadIntFast(env, argv[3], &type, "type") || !ReadIntFast(env, argv[4], &id, "id") ||
      !CheckLocation(env, state, type, "cuMemAdvise")) {
    return nullptr;
  }
  const CUmem_advise how = static_cast<CUmem_advise>(advice);
#if CUDA_VERSION >= 12020
  // The location form when it is the mode's choice, or to emulate a missing ordinal form.
  if (state->capabilities.memoryLocations || state->cu.cuMemAdvise_v8000 == nullptr) {
    Succeeded(env, state, state->cu.cuMemAdvise_v12020(pointer, size, how, DriverLocation(type, id)), "cuMemAdvise");
    return nullptr;
  }
#endif
  CUdevice device;
  if (!Succeeded(env, state, LegacyDevice(state, type, id, &device), "cuMemAdvise")) return nullptr;
  Succeeded(env, state, state->cu.cuMemAdvise_v8000(pointer, size, how, device), "cuMemAdvise");
  return nullptr;
}
CUMEM_BINDING("memAdvise", MemAdvise);

// memPrefetchAsync(pointer, size, locationType, locationId, stream)
Napi::Value MemPrefetchAsync(const Napi::CallbackInfo& info) {
  CUMEM_PROLOGUE(info);
  CUMEM_ADDRESS(pointer, 0);
  CUMEM_SIZE(size, 1);
  CUMEM_INT(type, 2);
  CUMEM_INT(id, 3);
  CUMEM_ADDRESS(stream, 4);
  if (!CheckLocation(env, state, type, "cuMemPrefetchAsync")) return Napi::Value();
  CUstream hStream = reinterpret_cast<CUstream>(stream);
#if CUDA_VERSION >= 12020
  if (state->capabilities.memoryLocations || state->cu.cuMemPrefetchAsync_v8000 == nullptr) {
    CUMEM_CHECK(state->cu.cuMemPrefetchAsync_v12020(pointer, size, DriverLocation(type, id), 0, hStream),
                "cuMemPrefetchAsync");
    return Undefined(env);
  }
#endif
  CUdevice device;
  CUMEM_CHECK(LegacyDevice(state, type, id, &device), "cuMemPrefetchAsync");
  CUMEM_CHECK(state->cu.cuMemPrefetchAsync_v8000(pointer, size, device, hStream), "cuMemPrefetchAsync");
  return Undefined(env);
}
CUMEM_BINDING("memPrefetchAsync", MemPrefetchAsync);

bool RequireBatch(napi_env env, const DriverState* state, const char* call) {
  if (state->capabilities.batchPrefetchDiscard) return true;
  ThrowNotSupported(Napi::Env(env), std::string(call) + " needs a CUDA 13.0 driver " +
                                        ModeNote(state, "batchPrefetchDiscard"));
  return false;
}

// The ranges of a batch: two BigUint64Arrays read in place, and how many of their entries count.
struct Ranges {
  uint64_t* pointers = nullptr;
  uint64_t* sizes = nullptr;
  size_t count = 0;
};

bool ReadRanges(napi_env env, const Napi::CallbackInfo& info, Ranges* out) {
  size_t pointerCount = 0, sizeCount = 0;
  if (!ReadBigUint64Array(env, info[0], &out->pointers, &pointerCount, "pointers") ||
      !ReadBigUint64Array(env, info[1], &out->sizes, &sizeCount, "sizes") ||
      !ReadSize(env, info[2], &out->count, "count")) {
    return false;
  }
  if (out->count > pointerCount || out->count > sizeCount) {
    napi_throw_range_error(env, nullptr, "count is larger than pointers or sizes");
    return false;
  }
  return true;
}

// The prefetch targets: MemLocation objects and the index of the first range each applies to.
bool ReadTargets(napi_env env, const DriverState* state, const Napi::CallbackInfo& info, const char* call,
                 std::vector<CUmemLocation>* locations, std::vector<size_t>* starts) {
  if (!info[3].IsArray() || !info[4].IsArray()) {
    napi_throw_type_error(env, nullptr, "locations and locationStarts must be arrays");
    return false;
  }
  Napi::Array locationArray = info[3].As<Napi::Array>();
  Napi::Array startArray = info[4].As<Napi::Array>();
  const uint32_t length = locationArray.Length();
  if (startArray.Length() != length) {
    napi_throw_range_error(env, nullptr, "locations and locationStarts must have the same length");
    return false;
  }
  locations->resize(length);
  starts->resize(length);
  for (uint32_t i = 0; i < length; i++) {
    Napi::Value entry = locationArray.Get(i);
    if (!entry.IsObject()) {
      napi_throw_type_error(env, nullptr, "locations must hold MemLocation objects");
      return false;
    }
    Napi::Object location = entry.As<Napi::Object>();
    int32_t type, id;
    size_t start;
    if (!ReadInt(env, location.Get("type"), &type, "location.type") ||
        !ReadInt(env, location.Get("id"), &id, "location.id") ||
        !ReadSize(env, startArray.Get(i), &start, "locationStarts[i]") || !CheckLocation(env, state, type, call)) {
      return false;
    }
    (*locations)[i] = DriverLocation(type, id);
    (*starts)[i] = start;
  }
  return true;
}

Napi::Value PrefetchBatch(const Napi::CallbackInfo& info, bool discard) {
  CUMEM_PROLOGUE(info);
  const char* call = discard ? "cuMemDiscardAndPrefetchBatchAsync" : "cuMemPrefetchBatchAsync";
  if (!RequireBatch(env, state, call)) return Napi::Value();
  Ranges ranges;
  if (!ReadRanges(env, info, &ranges)) return Napi::Value();
  std::vector<CUmemLocation> locations;
  std::vector<size_t> starts;
  if (!ReadTargets(env, state, info, call, &locations, &starts)) return Napi::Value();
  CUMEM_ADDRESS(stream, 5);
  if (ranges.count == 0) return Undefined(env);
#if CUDA_VERSION >= 13000
  auto* pointers = reinterpret_cast<CUdeviceptr*>(ranges.pointers);
  auto* sizes = reinterpret_cast<size_t*>(ranges.sizes);
  CUstream hStream = reinterpret_cast<CUstream>(stream);
  if (discard) {
    CUMEM_CHECK(state->cu.cuMemDiscardAndPrefetchBatchAsync(pointers, sizes, ranges.count, locations.data(),
                                                            starts.data(), locations.size(), 0, hStream),
                "cuMemDiscardAndPrefetchBatchAsync");
  } else {
    CUMEM_CHECK(state->cu.cuMemPrefetchBatchAsync(pointers, sizes, ranges.count, locations.data(), starts.data(),
                                                  locations.size(), 0, hStream),
                "cuMemPrefetchBatchAsync");
  }
#endif
  return Undefined(env);
}

Napi::Value MemPrefetchBatchAsync(const Napi::CallbackInfo& info) { return PrefetchBatch(info, false); }
CUMEM_BINDING("memPrefetchBatchAsync", MemPrefetchBatchAsync);

Napi::Value MemDiscardAndPrefetchBatchAsync(const Napi::CallbackInfo& info) { return PrefetchBatch(info, true); }
CUMEM_BINDING("memDiscardAndPrefetchBatchAsync", MemDiscardAndPrefetchBatchAsync);

// memDiscardBatchAsync(pointers, sizes, count, stream)
Napi::Value MemDiscardBatchAsync(const Napi::CallbackInfo& info) {
  CUMEM_PROLOGUE(info);
  if (!RequireBatch(env, state, "cuMemDiscardBatchAsync")) return Napi::Value();
  Ranges ranges;
  if (!ReadRanges(env, info, &ranges)) return Napi::Value();
  CUMEM_ADDRESS(stream, 3);
  if (ranges.count == 0) return Undefined(env);
#if CUDA_VERSION >= 13000
  CUMEM_CHECK(state->cu.cuMemDiscardBatchAsync(reinterpret_cast<CUdeviceptr*>(ranges.pointers),
                                               reinterpret_cast<size_t*>(ranges.sizes), ranges.count, 0,
                                               reinterpret_cast<CUstream>(stream)),
              "cuMemDiscardBatchAsync");
#endif
  return Undefined(env);
}
CUMEM_BINDING("memDiscardBatchAsync", MemDiscardBatchAsync);

Napi::Value MemRangeGetAttribute(const Napi::CallbackInfo& info) {
  CUMEM_PROLOGUE(info);
  CUMEM_ADDRESS(pointer, 0);
  CUMEM_SIZE(size, 1);
  CUMEM_INT(attribute, 2);
  int value = 0;
  CUMEM_CHECK(state->cu.cuMemRangeGetAttribute(&value, sizeof(value), static_cast<CUmem_range_attribute>(attribute),
                                               pointer, size),
              "cuMemRangeGetAttribute");
  return IntValue(env, value);
}
CUMEM_BINDING("memRangeGetAttribute", MemRangeGetAttribute);

Napi::Value MemRangeGetAccessedBy(const Napi::CallbackInfo& info) {
  CUMEM_PROLOGUE(info);
  CUMEM_ADDRESS(pointer, 0);
  CUMEM_SIZE(size, 1);
  int devices = 0;
  CUMEM_CHECK(state->cu.cuDeviceGetCount(&devices), "cuDeviceGetCount");
  // One slot per device plus one for the CPU (CU_DEVICE_CPU can be an accessor too); unused
  // slots come back as CU_DEVICE_INVALID and are dropped.
  std::vector<int> slots(static_cast<size_t>(devices) + 1, CU_DEVICE_INVALID);
  CUMEM_CHECK(state->cu.cuMemRangeGetAttribute(slots.data(), slots.size() * sizeof(int),
                                               CU_MEM_RANGE_ATTRIBUTE_ACCESSED_BY, pointer, size),
              "cuMemRangeGetAttribute");
  Napi::Array out = Napi::Array::New(env);
  uint32_t next = 0;
  for (int slot : slots) {
    if (slot != CU_DEVICE_INVALID) out.Set(next++, Napi::Number::New(env, slot));
  }
  return out;
}
CUMEM_BINDING("memRangeGetAccessedBy", MemRangeGetAccessedBy);

}  // namespace
}  // namespace cumem
