// Errors are built in JS by a factory registered at load time, so they are the real classes
// of @cumem/core-types (same fields, same message) and C++ pays nothing until a call fails.
#include "binding-support.h"

namespace cumem {
namespace {

struct AddonData {
  Napi::FunctionReference errorFactory;
};

AddonData* DataOf(Napi::Env env) {
  AddonData* data = env.GetInstanceData<AddonData>();
  if (data == nullptr) {
    data = new AddonData();
    env.SetInstanceData(data);
  }
  return data;
}

void ThrowValue(Napi::Env env, Napi::Value error) {
  if (env.IsExceptionPending() || error.IsEmpty()) return;
  napi_throw(env, error);
}

// Without a registered factory (only when the addon is used without src/load-addon.ts) the
// errors are plain Errors with the same message.
Napi::Value CallFactory(Napi::Env env, std::initializer_list<napi_value> args, const std::string& fallback) {
  AddonData* data = DataOf(env);
  if (data->errorFactory.IsEmpty()) return Napi::Error::New(env, fallback).Value();
  return data->errorFactory.Value().Call(args);
}

}  // namespace

void SetErrorFactory(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (!info[0].IsFunction()) {
    Napi::TypeError::New(env, "setErrorFactory expects a function").ThrowAsJavaScriptException();
    return;
  }
  DataOf(env)->errorFactory = Napi::Persistent(info[0].As<Napi::Function>());
}

Napi::Value MakeCudaError(Napi::Env env, PFN_cuGetErrorName_v6000 getName, PFN_cuGetErrorString_v6000 getString,
                          CUresult result, const char* call) {
  const char* name = nullptr;
  const char* text = nullptr;
  if (getName == nullptr || getName(result, &name) != CUDA_SUCCESS) name = nullptr;
  if (getString == nullptr || getString(result, &text) != CUDA_SUCCESS) text = nullptr;
  Napi::Value codeName = name != nullptr ? Napi::String::New(env, name) : env.Null();
  Napi::Value description = text != nullptr ? Napi::String::New(env, text) : env.Null();
  std::string fallback = std::string(call) + " failed: " + (name != nullptr ? name : "CUresult") + " (" +
                         std::to_string(static_cast<int>(result)) + ")";
  return CallFactory(env,
                     {Napi::String::New(env, "cuda"), Napi::Number::New(env, static_cast<double>(result)), codeName,
                      Napi::String::New(env, call), description},
                     fallback);
}

bool MakeCudaErrorValue(napi_env env, PFN_cuGetErrorName_v6000 getName, PFN_cuGetErrorString_v6000 getString,
                        CUresult result, const char* call, napi_value* out) {
  const char* name = nullptr;
  const char* text = nullptr;
  if (getName == nullptr || getName(result, &name) != CUDA_SUCCESS) name = nullptr;
  if (getString == nullptr || getString(result, &text) != CUDA_SUCCESS) text = nullptr;
  void* raw = nullptr;
  if (napi_get_instance_data(env, &raw) != napi_ok) return false;
  auto* data = static_cast<AddonData*>(raw);
  if (data == nullptr || data->errorFactory.IsEmpty()) {
    // No factory (the addon used without src/load-addon.ts): a plain Error, as CallFactory makes.
    std::string fallback = std::string(call) + " failed: " + (name != nullptr ? name : "CUresult") + " (" +
                           std::to_string(static_cast<int>(result)) + ")";
    napi_value message;
    return napi_create_string_utf8(env, fallback.c_str(), NAPI_AUTO_LENGTH, &message) == napi_ok &&
           napi_create_error(env, nullptr, message, out) == napi_ok;
  }
  napi_value factory;
  napi_value receiver;
  napi_value args[5];
  if (napi_get_reference_value(env, static_cast<napi_ref>(data->errorFactory), &factory) != napi_ok ||
      factory == nullptr || napi_get_undefined(env, &receiver) != napi_ok ||
      napi_create_string_utf8(env, "cuda", NAPI_AUTO_LENGTH, &args[0]) != napi_ok ||
      napi_create_double(env, static_cast<double>(result), &args[1]) != napi_ok ||
      (name != nullptr ? napi_create_string_utf8(env, name, NAPI_AUTO_LENGTH, &args[2]) : napi_get_null(env, &args[2])) !=
          napi_ok ||
      napi_create_string_utf8(env, call, NAPI_AUTO_LENGTH, &args[3]) != napi_ok ||
      (text != nullptr ? napi_create_string_utf8(env, text, NAPI_AUTO_LENGTH, &args[4]) : napi_get_null(env, &args[4])) !=
          napi_ok) {
    return false;
  }
  if (napi_call_function(env, receiver, factory, 5, args, out) == napi_ok) return true;
  // The factory threw (the error becomes the rejection) or JS cannot run any more (nothing to do).
  bool pending = false;
  return napi_is_exception_pending(env, &pending) == napi_ok && pending &&
         napi_get_and_clear_last_exception(env, out) == napi_ok;
}

void ThrowCudaError(Napi::Env env, const DriverState* state, CUresult result, const char* call) {
  ThrowValue(env, MakeCudaError(env, state->cu.cuGetErrorName, state->cu.cuGetErrorString, result, call));
}

void ThrowUnavailable(Napi::Env env, const DriverState* state) {
  Napi::Value error = CallFactory(
      env,
      {Napi::String::New(env, "unavailable"), Napi::String::New(env, state->failureReason),
       Napi::String::New(env, state->failureDetail), Napi::String::New(env, state->libraryPath),
       Napi::Number::New(env, state->driverVersion)},
      "CUDA driver unavailable (" + state->failureReason + "): " + state->failureDetail);
  ThrowValue(env, error);
}

void ThrowNotSupported(Napi::Env env, const std::string& message) {
  ThrowValue(env, CallFactory(env, {Napi::String::New(env, "notSupported"), Napi::String::New(env, message)}, message));
}

}  // namespace cumem
