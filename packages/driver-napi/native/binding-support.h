// Helpers every binding file uses: argument reading without heap allocation, error throwing
// through the JS error factory, and the lazy-load gate at the top of each function.
#pragma once

#ifndef NAPI_VERSION
#define NAPI_VERSION 8
#endif
#include <napi.h>

#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "binding-registry.h"
#include "driver-state.h"

namespace cumem {

// --- Errors (binding-errors.cc) ------------------------------------------------------------
/** Stores the JS function that builds CudaError / DriverUnavailableError / NotSupportedError. */
void SetErrorFactory(const Napi::CallbackInfo& info);
/** A CudaError for `result` from entry point `call`, built by the JS factory (not thrown). */
Napi::Value MakeCudaError(Napi::Env env, PFN_cuGetErrorName_v6000 getName, PFN_cuGetErrorString_v6000 getString,
                          CUresult result, const char* call);
/**
 * MakeCudaError in plain N-API with every status checked, for code that must never throw or
 * abort (a wait settling while its environment shuts down): false when no error could be built.
 */
bool MakeCudaErrorValue(napi_env env, PFN_cuGetErrorName_v6000 getName, PFN_cuGetErrorString_v6000 getString,
                        CUresult result, const char* call, napi_value* out);
/** Throws a CudaError for `result` from entry point `call`. */
void ThrowCudaError(Napi::Env env, const DriverState* state, CUresult result, const char* call);
/** Throws the DriverUnavailableError that describes why `state` failed to load. */
void ThrowUnavailable(Napi::Env env, const DriverState* state);
/** Throws a NotSupportedError with `message`. */
void ThrowNotSupported(Napi::Env env, const std::string& message);

/**
 * Asks the TypeScript side (driver-kit's deriveCapabilities) for the capabilities of a driver
 * whose entry points resolved, and stores them: `status` becomes Ready. False (with a pending
 * exception) when the call threw.
 */
bool ApplyCapabilities(Napi::Env env, DriverState* state);

/** False, with a NotSupportedError "<call> is missing from this libcuda", when the optional entry point `fn` did not resolve. */
template <typename Fn>
inline bool Have(Napi::Env env, Fn fn, const char* call) {
  if (fn != nullptr) return true;
  ThrowNotSupported(env, std::string(call) + " is missing from this libcuda");
  return false;
}

/** Loads the driver if needed; false (with a pending exception) when it is unavailable. */
inline bool EnsureReady(Napi::Env env, DriverState* state) {
  if (state->status == LoadStatus::Ready) return true;
  LoadDriver(state);
  if (state->status == LoadStatus::Resolved) return ApplyCapabilities(env, state);
  if (state->status == LoadStatus::Ready) return true;
  ThrowUnavailable(env, state);
  return false;
}

inline DriverState* StateOf(const Napi::CallbackInfo& info) { return static_cast<DriverState*>(info.Data()); }

// --- Arguments -------------------------------------------------------------------------------
/** An address or handle: a bigint in [0, 2**64) or a non-negative safe-integer number. */
bool ReadAddress(napi_env env, napi_value value, uint64_t* out, const char* name);
/** A byte count or element count: a non-negative safe-integer number. */
bool ReadSize(napi_env env, napi_value value, size_t* out, const char* name);
/** Any 32-bit integer number (ordinals, priorities, attributes, flags). */
bool ReadInt(napi_env env, napi_value value, int32_t* out, const char* name);
/** The first byte and the length in bytes of an ArrayBufferView (a TypedArray or a DataView). */
bool ReadView(napi_env env, napi_value value, void** data, size_t* bytes, const char* name);
/** Like ReadView, and also a bare ArrayBuffer. */
bool ReadMemory(napi_env env, napi_value value, void** data, size_t* bytes, const char* name);
/**
 * Copies an opaque driver record of `size` bytes (an IPC handle, an exported pool pointer) from
 * the view `value` into `record`; a view of another length is a RangeError with `wrongSize`.
 */
bool ReadOpaqueRecord(napi_env env, napi_value value, void* record, size_t size, const char* name,
                      const char* wrongSize);
/** A BigUint64Array: its data, in place (no copy), and its length in elements. */
bool ReadBigUint64Array(napi_env env, napi_value value, uint64_t** data, size_t* length, const char* name);

/**
 * ReadAddress's fast path, inlined into the hot functions: a bigint in [0, 2**64) is one N-API
 * call; anything else (a number, or a wrong value and its error) takes the out-of-line path.
 */
inline bool ReadAddressFast(napi_env env, napi_value value, uint64_t* out, const char* name) {
  bool lossless = false;
  if (napi_get_value_bigint_uint64(env, value, out, &lossless) == napi_ok && lossless) return true;
  return ReadAddress(env, value, out, name);
}

/**
 * ReadSize's fast path, inlined: one N-API call and two compares. The integer test converts
 * back and forth instead of calling std::floor, which is a libm call on baseline x86-64 and a
 * visible part of the alloc + free pair's profile.
 */
inline bool ReadSizeFast(napi_env env, napi_value value, size_t* out, const char* name) {
  double number;
  if (napi_get_value_double(env, value, &number) == napi_ok && number >= 0 && number <= 9007199254740991.0) {
    const auto whole = static_cast<uint64_t>(number);
    if (static_cast<double>(whole) == number) {
      *out = static_cast<size_t>(whole);
      return true;
    }
  }
  return ReadSize(env, value, out, name);
}

/** ReadInt's fast path, inlined: an integer in [-2**31, 2**31). Anything else takes ReadInt. */
inline bool ReadIntFast(napi_env env, napi_value value, int32_t* out, const char* name) {
  double number;
  if (napi_get_value_double(env, value, &number) == napi_ok && number >= -2147483648.0 && number <= 2147483647.0) {
    const auto whole = static_cast<int32_t>(number);
    if (static_cast<double>(whole) == number) {
      *out = whole;
      return true;
    }
  }
  return ReadInt(env, value, out, name);
}

/** A new JS value made from `value` by the N-API function `Make` (napi_create_double and its like). */
template <typename T, napi_status (*Make)(napi_env, T, napi_value*)>
inline Napi::Value MadeValue(napi_env env, T value) {
  napi_value out;
  Make(env, value, &out);
  return Napi::Value(env, out);
}

/** A new bigint holding `value`. */
inline Napi::Value BigIntValue(napi_env env, uint64_t value) {
  return MadeValue<uint64_t, napi_create_bigint_uint64>(env, value);
}
inline Napi::Value NumberValue(napi_env env, double value) { return MadeValue<double, napi_create_double>(env, value); }
inline Napi::Value IntValue(napi_env env, int32_t value) { return MadeValue<int32_t, napi_create_int32>(env, value); }
inline Napi::Value BoolValue(napi_env env, bool value) { return MadeValue<bool, napi_get_boolean>(env, value); }

/** A driver handle (a pointer type, or an integer one like CUdeviceptr) from the 64-bit value JS passes. */
template <typename Handle>
inline Handle AsHandle(uint64_t value) {
  if constexpr (std::is_pointer_v<Handle>) {
    return reinterpret_cast<Handle>(value);
  } else {
    return static_cast<Handle>(value);
  }
}

/** A driver handle (a pointer, or an integer one) as JS gets it: a bigint. */
template <typename Handle>
inline Napi::Value HandleValue(napi_env env, Handle handle) {
  if constexpr (std::is_pointer_v<Handle>) {
    return BigIntValue(env, reinterpret_cast<uint64_t>(handle));
  } else {
    return BigIntValue(env, static_cast<uint64_t>(handle));
  }
}

/** The "OS handle" of a POSIX file descriptor in the driver's shareable-handle calls: its value cast to a pointer. */
inline void* FileDescriptorHandle(int32_t fd) { return reinterpret_cast<void*>(static_cast<uintptr_t>(fd)); }

inline Napi::Value Undefined(napi_env env) {
  napi_value out;
  napi_get_undefined(env, &out);
  return Napi::Value(env, out);
}

/** A new Uint8Array with a copy of `size` bytes at `data`. */
Napi::Value CopyToUint8Array(napi_env env, const void* data, size_t size);

/** The bytes of an opaque driver record (an IPC handle, an exported pool pointer) as a new Uint8Array. */
template <typename Record>
inline Napi::Value RecordBytes(napi_env env, const Record& record) {
  return CopyToUint8Array(env, record.reserved, sizeof(record.reserved));
}

/** ReadOpaqueRecord into a record's `reserved` bytes. */
template <typename Record>
inline bool ReadRecord(napi_env env, napi_value value, Record* record, const char* name, const char* wrongSize) {
  return ReadOpaqueRecord(env, value, record->reserved, sizeof(record->reserved), name, wrongSize);
}

/** Reads packed (type, id, flags) int32 triples into access descriptors; false with an exception pending. */
bool ReadAccessDescriptors(napi_env env, const DriverState* state, napi_value value,
                           std::vector<CUmemAccessDesc>* out, const char* call);

/** Drops one reference to `state`; the last one frees it (and its `pointerResult` buffer). */
void ReleaseState(napi_env env, DriverState* state);

// --- Raw callbacks (the hot paths) --------------------------------------------------------------
// node-addon-api's Napi::Function::New<F> wraps F in a trampoline that builds a CallbackInfo
// (napi_get_cb_info with room for 6 arguments plus `this`) and Napi::Value wrappers. The hot
// functions are plain napi_callbacks instead: one napi_get_cb_info into a fixed array of exactly
// the arguments they take, no `this`, and `nullptr` for undefined (N-API's default return value).
// A raw callback returns its result, or nullptr for undefined or with an exception pending.

/** The DriverState of a raw callback (its data pointer), loaded; nullptr with an exception pending if it cannot load. */
inline DriverState* ReadyState(napi_env env, void* data) {
  auto* state = static_cast<DriverState*>(data);
  if (state->status == LoadStatus::Ready || EnsureReady(Napi::Env(env), state)) return state;
  return nullptr;
}

/**
 * The first step of a raw callback: its `N` arguments (missing ones read as undefined) and its
 * DriverState (the function's data pointer: it comes with the same N-API call, so no lookup).
 * nullptr, with an exception pending, when the driver cannot be loaded.
 */
template <size_t N>
inline DriverState* RawArguments(napi_env env, napi_callback_info info, napi_value (&argv)[N]) {
  size_t argc = N;
  void* data = nullptr;
  napi_get_cb_info(env, info, &argc, argv, nullptr, &data);
  return ReadyState(env, data);
}

/** RawArguments for a function of no arguments. */
inline DriverState* RawState(napi_env env, napi_callback_info info) {
  size_t argc = 0;
  void* data = nullptr;
  napi_get_cb_info(env, info, &argc, nullptr, nullptr, &data);
  return ReadyState(env, data);
}

/** A raw callback's check of a driver call: true on CUDA_SUCCESS, else a CudaError naming `call` is thrown. */
inline bool Succeeded(napi_env env, const DriverState* state, CUresult result, const char* call) {
  if (__builtin_expect(result == CUDA_SUCCESS, 1)) return true;
  ThrowCudaError(Napi::Env(env), state, result, call);
  return false;
}

}  // namespace cumem

// The first lines of every binding: the state, the lazy load, and an early return on failure.
#define CUMEM_PROLOGUE(info)                               \
  napi_env env = (info).Env();                             \
  ::cumem::DriverState* state = ::cumem::StateOf(info);    \
  if (!::cumem::EnsureReady((info).Env(), state)) return Napi::Value()

#define CUMEM_ADDRESS(variable, index)                                                  \
  uint64_t variable;                                                                    \
  if (!::cumem::ReadAddress(env, info[index], &variable, #variable)) return Napi::Value()

#define CUMEM_SIZE(variable, index)                                                  \
  size_t variable;                                                                   \
  if (!::cumem::ReadSize(env, info[index], &variable, #variable)) return Napi::Value()

#define CUMEM_INT(variable, index)                                                  \
  int32_t variable;                                                                 \
  if (!::cumem::ReadInt(env, info[index], &variable, #variable)) return Napi::Value()

// A JS memory argument: its first byte as `variable` (which names it in a TypeError) and its
// length in bytes as `bytes`. CUMEM_VIEW takes an ArrayBufferView, CUMEM_MEMORY an ArrayBuffer too.
#define CUMEM_BYTES_WITH(reader, variable, bytes, index) \
  void* variable = nullptr;                              \
  size_t bytes = 0;                                      \
  if (!::cumem::reader(env, info[index], &variable, &bytes, #variable)) return Napi::Value()
#define CUMEM_VIEW(variable, bytes, index) CUMEM_BYTES_WITH(ReadView, variable, bytes, index)
#define CUMEM_MEMORY(variable, bytes, index) CUMEM_BYTES_WITH(ReadMemory, variable, bytes, index)

// Calls `call` (an expression returning CUresult); on failure throws a CudaError naming `name`.
#define CUMEM_CHECK(call, name)                                  \
  do {                                                           \
    CUresult cumem_result_ = (call);                             \
    if (cumem_result_ != CUDA_SUCCESS) {                         \
      ::cumem::ThrowCudaError((info).Env(), state, cumem_result_, name); \
      return Napi::Value();                                      \
    }                                                            \
  } while (0)

// The whole of a binding `name(argument)` that asks `entry` for the opaque `Record` (an IPC
// handle, an exported pool pointer) of its one handle argument and returns the record's bytes.
#define CUMEM_RECORD_BINDING(name, Function, entry, Record, Handle, argument)           \
  Napi::Value Function(const Napi::CallbackInfo& info) {                                \
    CUMEM_PROLOGUE(info);                                                               \
    CUMEM_ADDRESS(argument, 0);                                                         \
    Record record{};                                                                    \
    CUMEM_CHECK(state->cu.entry(&record, ::cumem::AsHandle<Handle>(argument)), #entry); \
    return ::cumem::RecordBytes(env, record);                                           \
  }                                                                                     \
  CUMEM_BINDING(name, Function)
