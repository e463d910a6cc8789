// Bindings that are nothing but their entry point: each JS argument is read by the type of the
// entry-point parameter it becomes, in order, and the driver's answer (nothing, or the value of a
// leading out-parameter) is returned. The argument rules (ReadAddress, ReadSize, ReadInt), the
// CudaError naming the entry point and the handle-to-bigint conversion live here once for all of
// them. Everything is a template over the entry point, so each binding compiles to the same
// direct call through its loaded pointer that a hand-written body would.
#pragma once

#include <array>
#include <cstddef>
#include <tuple>
#include <type_traits>
#include <utility>

#include "binding-support.h"

namespace cumem {

/**
 * The RangeError message for a view of the wrong length where the driver record T (passed by
 * value, like CUipcMemHandle) is expected: specialized beside the bindings that take one.
 */
template <typename T>
struct RecordSizeError;

/**
 * Reads one argument as the entry-point parameter type T: a driver record by ReadRecord, a handle
 * (any pointer, or an unsigned long long like CUdeviceptr) by ReadAddress, a size_t by ReadSize,
 * any other integer or enum by ReadInt (flags keep their bits, as static_cast gives them).
 */
template <typename T>
inline bool ReadArgument(napi_env env, napi_value value, T* out, const char* name) {
  if constexpr (std::is_class_v<T>) {
    return ReadRecord(env, value, out, name, RecordSizeError<T>::kMessage);
  } else if constexpr (std::is_pointer_v<T> || std::is_same_v<T, unsigned long long>) {
    uint64_t address;
    if (!ReadAddress(env, value, &address, name)) return false;
    *out = AsHandle<T>(address);
    return true;
  } else if constexpr (std::is_same_v<T, size_t>) {
    return ReadSize(env, value, out, name);
  } else {
    static_assert(std::is_integral_v<T> || std::is_enum_v<T>, "an argument is a handle, a size or an integer");
    int32_t number;
    if (!ReadInt(env, value, &number, name)) return false;
    *out = static_cast<T>(number);
    return true;
  }
}

/** An out-parameter's value as JS gets it: a handle as a bigint, a size_t or a float as a number, an int as an int. */
template <typename T>
inline Napi::Value ResultValue(napi_env env, T value) {
  if constexpr (std::is_pointer_v<T> || std::is_same_v<T, unsigned long long>) {
    return HandleValue(env, value);
  } else if constexpr (std::is_same_v<T, size_t> || std::is_floating_point_v<T>) {
    return NumberValue(env, static_cast<double>(value));
  } else {
    return IntValue(env, static_cast<int32_t>(value));
  }
}

/** A query's answer: CUDA_ERROR_NOT_READY is false (work still pending), success true, else a CudaError naming `call`. */
inline Napi::Value Readiness(napi_env env, const DriverState* state, CUresult result, const char* call) {
  if (result == CUDA_ERROR_NOT_READY) return BoolValue(env, false);
  if (!Succeeded(env, state, result, call)) return Napi::Value();
  return BoolValue(env, true);
}

/** The names of a binding's JS arguments, in order (they name the argument in a TypeError / RangeError). */
template <typename... Names>
constexpr std::array<const char*, sizeof...(Names)> ArgumentNames(Names... names) {
  return {names...};
}

// The first N entry-point arguments from info[0..N); the rest (flags the contract does not
// expose) stay 0. False with an exception pending.
template <size_t N, typename... Params, size_t... I>
inline bool ReadArguments(const Napi::CallbackInfo& info, const std::array<const char*, N>& names,
                          [[maybe_unused]] std::tuple<Params...>* out, std::index_sequence<I...>) {
  static_assert(N <= sizeof...(Params), "more JS arguments than the entry point takes");
  [[maybe_unused]] napi_env env = info.Env();
  return (ReadArgument(env, info[I], &std::get<I>(*out), names[I]) && ...);
}

// Reads the arguments and calls `Entry` (after `out`, when the entry point has an out-parameter
// first): false, with an exception pending, if an argument is refused; else the driver's result.
template <auto Entry, size_t N, typename... Params>
inline bool Invoke(const Napi::CallbackInfo& info, const DriverState* state, const std::array<const char*, N>& names,
                   CUresult (*)(Params...), CUresult* result) {
  std::tuple<Params...> arguments{};
  if (!ReadArguments(info, names, &arguments, std::make_index_sequence<N>{})) return false;
  *result = std::apply(state->cu.*Entry, arguments);
  return true;
}

template <auto Entry, size_t N, typename Out, typename... Params>
inline bool Invoke(const Napi::CallbackInfo& info, const DriverState* state, const std::array<const char*, N>& names,
                   CUresult (*)(Out*, Params...), CUresult* result, Out* out) {
  std::tuple<Params...> arguments{};
  if (!ReadArguments(info, names, &arguments, std::make_index_sequence<N>{})) return false;
  *result = std::apply([&](Params... values) { return (state->cu.*Entry)(out, values...); }, arguments);
  return true;
}

// The type an entry point writes through its first (out-) parameter.
template <typename Out, typename... Params>
Out OutTypeOf(CUresult (*)(Out*, Params...));
template <auto Entry>
using EntryOut = decltype(OutTypeOf(std::declval<const EntryPoints&>().*Entry));

// The first step of every binding here: the driver loaded and, for an optional entry point
// (kOptional), resolved.
template <auto Entry, bool kOptional>
inline bool EntryReady(const Napi::CallbackInfo& info, DriverState* state, const char* call) {
  if (!EnsureReady(info.Env(), state)) return false;
  if constexpr (kOptional) {
    return Have(info.Env(), state->cu.*Entry, call);
  } else {
    return true;
  }
}

/** A binding that calls `Entry` with its arguments and returns undefined. */
template <auto Entry, bool kOptional = false, size_t N>
Napi::Value CallEntry(const Napi::CallbackInfo& info, const std::array<const char*, N>& names, const char* call) {
  DriverState* state = StateOf(info);
  CUresult result;
  if (!EntryReady<Entry, kOptional>(info, state, call) || !Invoke<Entry>(info, state, names, state->cu.*Entry, &result) ||
      !Succeeded(info.Env(), state, result, call)) {
    return Napi::Value();
  }
  return Undefined(info.Env());
}

/** A binding that calls the query `Entry` (cuStreamQuery, cuEventQuery) and returns whether the work is done. */
template <auto Entry, bool kOptional = false, size_t N>
Napi::Value ReadyEntry(const Napi::CallbackInfo& info, const std::array<const char*, N>& names, const char* call) {
  DriverState* state = StateOf(info);
  CUresult result;
  if (!EntryReady<Entry, kOptional>(info, state, call) || !Invoke<Entry>(info, state, names, state->cu.*Entry, &result)) {
    return Napi::Value();
  }
  return Readiness(info.Env(), state, result, call);
}

/** A binding that calls `Entry` with an out-parameter first and its arguments after, and returns the out value. */
template <auto Entry, bool kOptional = false, size_t N>
Napi::Value QueryEntry(const Napi::CallbackInfo& info, const std::array<const char*, N>& names, const char* call) {
  DriverState* state = StateOf(info);
  CUresult result;
  EntryOut<Entry> out{};
  if (!EntryReady<Entry, kOptional>(info, state, call) || !Invoke<Entry>(info, state, names, state->cu.*Entry, &result, &out) ||
      !Succeeded(info.Env(), state, result, call)) {
    return Napi::Value();
  }
  return ResultValue(info.Env(), out);
}

// The shareable-handle entry points with a POSIX file descriptor: the handle type is
// CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, and any parameter after it (flags) is 0.
template <typename Handle, typename... Rest>
inline CUresult ExportToFileDescriptor(CUresult (*entry)(void*, Handle, CUmemAllocationHandleType, Rest...),
                                       int* fd, uint64_t handle) {
  return entry(fd, AsHandle<Handle>(handle), CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, Rest{}...);
}
template <typename Out, typename... Rest>
inline CUresult ImportFromFileDescriptor(CUresult (*entry)(Out*, void*, CUmemAllocationHandleType, Rest...), Out* out,
                                         int32_t fd) {
  return entry(out, FileDescriptorHandle(fd), CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, Rest{}...);
}

/** A binding that exports its one handle argument through `Entry` and returns the POSIX file descriptor. */
template <auto Entry, bool kOptional = false, size_t N>
Napi::Value ExportEntry(const Napi::CallbackInfo& info, const std::array<const char*, N>& names, const char* call) {
  static_assert(N == 1, "one argument: the handle");
  DriverState* state = StateOf(info);
  uint64_t handle;
  int fd = -1;
  if (!EntryReady<Entry, kOptional>(info, state, call) || !ReadAddress(info.Env(), info[0], &handle, names[0]) ||
      !Succeeded(info.Env(), state, ExportToFileDescriptor(state->cu.*Entry, &fd, handle), call)) {
    return Napi::Value();
  }
  return IntValue(info.Env(), fd);
}

/** A binding that imports a POSIX file descriptor (its one argument) through `Entry` and returns the handle. */
template <auto Entry, bool kOptional = false, size_t N>
Napi::Value ImportEntry(const Napi::CallbackInfo& info, const std::array<const char*, N>& names, const char* call) {
  static_assert(N == 1, "one argument: the file descriptor");
  DriverState* state = StateOf(info);
  int32_t fd;
  EntryOut<Entry> out{};
  if (!EntryReady<Entry, kOptional>(info, state, call) || !ReadInt(info.Env(), info[0], &fd, names[0]) ||
      !Succeeded(info.Env(), state, ImportFromFileDescriptor(state->cu.*Entry, &out, fd), call)) {
    return Napi::Value();
  }
  return ResultValue(info.Env(), out);
}

/** CallEntry and QueryEntry for an optional entry point: a NotSupportedError where the library lacks it. */
template <auto Entry, size_t N>
Napi::Value OptionalCallEntry(const Napi::CallbackInfo& info, const std::array<const char*, N>& names,
                              const char* call) {
  return CallEntry<Entry, true>(info, names, call);
}
template <auto Entry, size_t N>
Napi::Value OptionalQueryEntry(const Napi::CallbackInfo& info, const std::array<const char*, N>& names,
                               const char* call) {
  return QueryEntry<Entry, true>(info, names, call);
}

}  // namespace cumem

// The whole of a binding `name(...)` made by `Kind` (CallEntry, QueryEntry, ReadyEntry) from the
// entry point `entry`, its JS arguments named by the strings after `entry`.
#define CUMEM_ENTRY_BINDING(Kind, name, Function, entry, ...)                                           \
  constexpr auto CUMEM_CONCAT(Function, Arguments) = ::cumem::ArgumentNames(__VA_ARGS__);              \
  Napi::Value Function(const Napi::CallbackInfo& info) {                                                \
    return ::cumem::Kind<&::cumem::EntryPoints::entry>(info, CUMEM_CONCAT(Function, Arguments), #entry); \
  }                                                                                                     \
  CUMEM_BINDING(name, Function)

// `name(...)` passes its arguments to `entry` and returns undefined (cuMemFree, cuMemcpyAsync...).
#define CUMEM_CALL_BINDING(...) CUMEM_ENTRY_BINDING(CallEntry, __VA_ARGS__)
// `name(...)` returns what `entry` wrote through its first parameter (cuMemAlloc, cuEventCreate...).
#define CUMEM_QUERY_BINDING(...) CUMEM_ENTRY_BINDING(QueryEntry, __VA_ARGS__)
// `name(...)` returns whether `entry` (cuStreamQuery, cuEventQuery) found the work done.
#define CUMEM_READY_BINDING(...) CUMEM_ENTRY_BINDING(ReadyEntry, __VA_ARGS__)
// The same two for an optional entry point (the compute entry points).
#define CUMEM_OPTIONAL_CALL_BINDING(...) CUMEM_ENTRY_BINDING(OptionalCallEntry, __VA_ARGS__)
#define CUMEM_OPTIONAL_QUERY_BINDING(...) CUMEM_ENTRY_BINDING(OptionalQueryEntry, __VA_ARGS__)
// `name(handle)` returns the POSIX file descriptor `entry` exports the handle as.
#define CUMEM_EXPORT_BINDING(...) CUMEM_ENTRY_BINDING(ExportEntry, __VA_ARGS__)
// `name(fd)` returns the handle `entry` imports the POSIX file descriptor as.
#define CUMEM_IMPORT_BINDING(...) CUMEM_ENTRY_BINDING(ImportEntry, __VA_ARGS__)
