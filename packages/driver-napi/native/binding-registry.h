// The addon's list of bindings: each binding function names itself once, beside its definition
// (CUMEM_BINDING), and createBinding (addon.cc) makes one JS function per entry with
// AddBindings. A new binding file needs no Register function and no line in addon.cc.
#pragma once

#ifndef NAPI_VERSION
#define NAPI_VERSION 8
#endif
#include <napi.h>

#include <type_traits>

namespace cumem {

struct DriverState;

/**
 * One entry of the list, made at load (static initialization) and never freed: the object is
 * the list node, so registering allocates nothing. Entries keep their definition order within
 * a file.
 */
class BindingEntry {
 public:
  BindingEntry(const char* name, napi_callback callback) noexcept;
  const char* name;
  napi_callback callback;
  const BindingEntry* next = nullptr;
};

/** Adds every registered binding to `target`, each bound to (and holding a reference to) `state`. */
void AddBindings(Napi::Env env, Napi::Object target, DriverState* state);

/**
 * The napi_callback of a node-addon-api style binding: exactly what Napi::Function::New<F>
 * installs (node-addon-api's TemplatedCallback with C++ exceptions off), a direct call of F, so
 * the per-call cost is unchanged.
 */
template <Napi::Value (*F)(const Napi::CallbackInfo&)>
napi_value Adapted(napi_env env, napi_callback_info info) {
  Napi::CallbackInfo callbackInfo(env, info);
  return F(callbackInfo);
}

/** The napi_callback of binding F: a raw one (see RawArguments in binding-support.h) as it is. */
template <auto F>
constexpr napi_callback CallbackOf() {
  if constexpr (std::is_same_v<decltype(F), napi_callback>) {
    return F;
  } else {
    return Adapted<F>;
  }
}

}  // namespace cumem

#define CUMEM_CONCAT_INNER(a, b) a##b
#define CUMEM_CONCAT(a, b) CUMEM_CONCAT_INNER(a, b)

// Registers the binding `...` (a function, or a template instance) as `name` of the binding object.
#define CUMEM_BINDING(name, ...) \
  const ::cumem::BindingEntry CUMEM_CONCAT(cumemBinding, __LINE__)(name, ::cumem::CallbackOf<__VA_ARGS__>())
