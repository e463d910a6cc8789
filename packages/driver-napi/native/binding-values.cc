// Reading JS arguments with plain N-API calls: no Napi::Value wrappers, no heap, and the
// common case (a bigint address, a TypedArray) costs one N-API call.
#include <cmath>
#include <cstring>

#include "binding-support.h"

namespace cumem {
namespace {

constexpr double kMaxSafeInteger = 9007199254740991.0;

bool Throw(napi_env env, bool range, const char* name, const char* what) {
  std::string message = std::string(name) + what;
  if (range) {
    napi_throw_range_error(env, nullptr, message.c_str());
  } else {
    napi_throw_type_error(env, nullptr, message.c_str());
  }
  return false;
}

size_t ElementSize(napi_typedarray_type type) {
  switch (type) {
    case napi_int8_array:
    case napi_uint8_array:
    case napi_uint8_clamped_array:
      return 1;
    case napi_int16_array:
    case napi_uint16_array:
      return 2;
    case napi_int32_array:
    case napi_uint32_array:
    case napi_float32_array:
      return 4;
    default:
      return 8;
  }
}

// The rule every numeric argument follows: a number (else a TypeError "<name><notNumber>"), whole
// and in [lowest, highest] (else a RangeError "<name><outOfRange>"), stored as a T.
template <typename T>
bool ReadWholeNumber(napi_env env, napi_value value, double lowest, double highest, T* out, const char* name,
                     const char* notNumber, const char* outOfRange) {
  double number;
  if (napi_get_value_double(env, value, &number) != napi_ok) return Throw(env, false, name, notNumber);
  if (!(number >= lowest && number <= highest) || std::floor(number) != number) {
    return Throw(env, true, name, outOfRange);
  }
  *out = static_cast<T>(number);
  return true;
}

}  // namespace

bool ReadAddress(napi_env env, napi_value value, uint64_t* out, const char* name) {
  bool lossless = false;
  napi_status status = napi_get_value_bigint_uint64(env, value, out, &lossless);
  if (status == napi_ok) {
    return lossless || Throw(env, true, name, " must be an address in [0, 2**64)");
  }
  return ReadWholeNumber(env, value, 0, kMaxSafeInteger, out, name, " must be a bigint or a number address",
                         " must be a non-negative safe integer or a bigint");
}

bool ReadSize(napi_env env, napi_value value, size_t* out, const char* name) {
  return ReadWholeNumber(env, value, 0, kMaxSafeInteger, out, name, " must be a non-negative integer number",
                         " must be a non-negative safe integer");
}

bool ReadInt(napi_env env, napi_value value, int32_t* out, const char* name) {
  double number = 0;
  if (!ReadWholeNumber(env, value, -2147483648.0, 4294967295.0, &number, name, " must be an integer number",
                       " must be a 32-bit integer")) {
    return false;
  }
  // Flags may use the full unsigned range; they keep their bits.
  *out = number > 2147483647.0 ? static_cast<int32_t>(static_cast<uint32_t>(number)) : static_cast<int32_t>(number);
  return true;
}

// The bytes of a TypedArray or DataView; false, with nothing thrown, for anything else (each
// caller names what it accepts). Inlined into both callers.
inline bool ViewBytes(napi_env env, napi_value value, void** data, size_t* bytes) {
  napi_typedarray_type type;
  size_t length;
  // One call decides the common case; it fails without side effects on anything else.
  if (napi_get_typedarray_info(env, value, &type, &length, data, nullptr, nullptr) == napi_ok) {
    *bytes = length * ElementSize(type);
    return true;
  }
  bool isDataView = false;
  return napi_is_dataview(env, value, &isDataView) == napi_ok && isDataView &&
         napi_get_dataview_info(env, value, bytes, data, nullptr, nullptr) == napi_ok;
}

bool ReadView(napi_env env, napi_value value, void** data, size_t* bytes, const char* name) {
  if (ViewBytes(env, value, data, bytes)) return true;
  return Throw(env, false, name, " must be an ArrayBufferView (a TypedArray, Buffer or DataView)");
}

bool ReadMemory(napi_env env, napi_value value, void** data, size_t* bytes, const char* name) {
  bool isArrayBuffer = false;
  if (napi_is_arraybuffer(env, value, &isArrayBuffer) == napi_ok && isArrayBuffer) {
    return napi_get_arraybuffer_info(env, value, data, bytes) == napi_ok;
  }
  if (ViewBytes(env, value, data, bytes)) return true;
  return Throw(env, false, name, " must be an ArrayBufferView or an ArrayBuffer");
}

bool ReadOpaqueRecord(napi_env env, napi_value value, void* record, size_t size, const char* name,
                      const char* wrongSize) {
  void* bytes = nullptr;
  size_t length = 0;
  if (!ReadView(env, value, &bytes, &length, name)) return false;
  if (length != size) {
    napi_throw_range_error(env, nullptr, wrongSize);
    return false;
  }
  std::memcpy(record, bytes, size);
  return true;
}

bool ReadBigUint64Array(napi_env env, napi_value value, uint64_t** data, size_t* length, const char* name) {
  napi_typedarray_type type;
  void* pointer = nullptr;
  if (napi_get_typedarray_info(env, value, &type, length, &pointer, nullptr, nullptr) != napi_ok ||
      type != napi_biguint64_array) {
    return Throw(env, false, name, " must be a BigUint64Array");
  }
  *data = static_cast<uint64_t*>(pointer);
  return true;
}

Napi::Value CopyToUint8Array(napi_env env, const void* data, size_t size) {
  Napi::Uint8Array array = Napi::Uint8Array::New(env, size);
  if (size > 0) std::memcpy(array.Data(), data, size);
  return array;
}

}  // namespace cumem
