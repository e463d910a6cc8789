// Bindings that are nothing but their entry point: each JS argument is read by the type of the
// entry-point parameter it becomes, in order, and the driver's answer (nothing, or the value of a
// leading out-parameter) is returned. The argument rules (ReadAddress, ReadSize, ReadInt), the
// CudaError naming the entry point and the handle-to-bigint conversion live here once for all of
// them. Everything is a template over the entry point, so each binding compiles to the same
// direct call through its loaded pointer that a hand-written body would.
#pragma once

#include <cstddef>
#include <tuple>
#include <type_traits>
#include <utility>

#include "binding-support.h"

namespace cumem {

/**
 * Reads one argument as the entry-point parameter type T: a handle (any pointer, or an
 * unsigned long long like CUdeviceptr) by ReadAddress, a size_t by ReadSize, any other integer
 * or enum by ReadInt (flags keep their bits, as static_cast gives them).
 */
template <typename T>
inline bool ReadArgument(napi_env env, napi_value value, T* out, const char* name) {
  if constexpr (std::is_pointer_v<T> || std::is_same_v<T, unsigned long long>) {
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

/** An out-parameter's value as JS gets it: a handle as a bigint, a size_t as a number, an int as an int. */
template <typename T>
inline Napi::Value ResultValue(napi_env env, T value) {
  if constexpr (std::is_pointer_v<T> || std::is_same_v<T, unsigned long long>) {
    return HandleValue(env, value);
  } else if constexpr (std::is_same_v<T, size_t>) {
    return NumberValue(env, static_cast<double>(value));
  } else {
    return IntValue(env, static_cast<int32_t>(value));
  }
}

// The entry point's arguments from info[0..], or false with an exception pending.
template <typename... Params, size_t... I>
inline bool ReadArguments(const Napi::CallbackInfo& info, const char* const* names, std::tuple<Params...>* out,
                          std::index_sequence<I...>) {
  napi_env env = info.Env();
  return (ReadArgument(env, info[I], &std::get<I>(*out), names[I]) && ...);
}

template <auto Entry, typename... Params>
inline Napi::Value CallWith(const Napi::CallbackInfo& info, DriverState* state, const char* const* names,
                            const char* call, CUresult (*)(Params...)) {
  std::tuple<Params...> arguments;
  if (!ReadArguments(info, names, &arguments, std::index_sequence_for<Params...>{})) return Napi::Value();
  const CUresult result = std::apply(state->cu.*Entry, arguments);
  if (!Succeeded(info.Env(), state, result, call)) return Napi::Value();
  return Undefined(info.Env());
}

template <auto Entry, typename Out, typename... Params>
inline Napi::Value QueryWith(const Napi::CallbackInfo& info, DriverState* state, const char* const* names,
                             const char* call, CUresult (*)(Out*, Params...)) {
  std::tuple<Params...> arguments;
  if (!ReadArguments(info, names, &arguments, std::index_sequence_for<Params...>{})) return Napi::Value();
  Out out{};
  const CUresult result =
      std::apply([&](Params... values) { return (state->cu.*Entry)(&out, values...); }, arguments);
  if (!Succeeded(info.Env(), state, result, call)) return Napi::Value();
  return ResultValue(info.Env(), out);
}

/** A binding that calls `Entry` with its arguments (named `names`) and returns undefined. */
template <auto Entry>
Napi::Value CallEntry(const Napi::CallbackInfo& info, const char* const* names, const char* call) {
  DriverState* state = StateOf(info);
  if (!EnsureReady(info.Env(), state)) return Napi::Value();
  return CallWith<Entry>(info, state, names, call, state->cu.*Entry);
}

/** A binding that calls `Entry` with an out-parameter first and its arguments after, and returns the out value. */
template <auto Entry>
Napi::Value QueryEntry(const Napi::CallbackInfo& info, const char* const* names, const char* call) {
  DriverState* state = StateOf(info);
  if (!EnsureReady(info.Env(), state)) return Napi::Value();
  return QueryWith<Entry>(info, state, names, call, state->cu.*Entry);
}

}  // namespace cumem

// The whole of a binding `name(...)` that passes its arguments, named by the strings after
// `entry`, to the entry point `entry` and returns undefined (cuMemFree, cuMemcpyAsync and their like).
#define CUMEM_CALL_BINDING(name, Function, entry, ...)                                        \
  constexpr const char* CUMEM_CONCAT(Function, Arguments)[] = {__VA_ARGS__};                  \
  Napi::Value Function(const Napi::CallbackInfo& info) {                                      \
    return ::cumem::CallEntry<&::cumem::EntryPoints::entry>(info, CUMEM_CONCAT(Function, Arguments), #entry); \
  }                                                                                           \
  CUMEM_BINDING(name, Function)

// The same for an entry point whose first parameter is an out-parameter (cuMemAlloc,
// cuStreamCreateWithPriority...): the binding returns what the driver wrote there.
#define CUMEM_QUERY_BINDING(name, Function, entry, ...)                                        \
  constexpr const char* CUMEM_CONCAT(Function, Arguments)[] = {__VA_ARGS__};                   \
  Napi::Value Function(const Napi::CallbackInfo& info) {                                       \
    return ::cumem::QueryEntry<&::cumem::EntryPoints::entry>(info, CUMEM_CONCAT(Function, Arguments), #entry); \
  }                                                                                            \
  CUMEM_BINDING(name, Function)
