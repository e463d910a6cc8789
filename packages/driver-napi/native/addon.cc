// Module entry: `setErrorFactory(factory)` and `createBinding(libraryPath, legacy)`, which
// returns one object of functions per driver, all bound to one DriverState.
#include "binding-support.h"
#include "staging-engine.h"

namespace cumem {

void ReleaseState(napi_env env, DriverState* state) {
  if (--state->references > 0) return;
  if (state->pointerResultBuffer != nullptr) napi_delete_reference(env, state->pointerResultBuffer);
  FreeStaging(state);
  delete state;
}

void RawMethod(Napi::Env env, Napi::Object target, const char* name, RawCallback callback, DriverState* state) {
  napi_value function;
  NAPI_THROW_IF_FAILED_VOID(env, napi_create_function(env, name, NAPI_AUTO_LENGTH, callback, state, &function));
  state->references++;
  Napi::Function(env, function).AddFinalizer([](Napi::Env env, DriverState* data) { ReleaseState(env, data); }, state);
  target.Set(name, function);
}

namespace {

Napi::Value CreateBinding(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (!info[0].IsString() || !info[1].IsBoolean()) {
    Napi::TypeError::New(env, "createBinding(libraryPath: string, legacy: boolean)").ThrowAsJavaScriptException();
    return Napi::Value();
  }
  auto* state = new DriverState();
  state->libraryPath = info[0].As<Napi::String>().Utf8Value();
  state->legacy = info[1].As<Napi::Boolean>().Value();
  // Held while the functions are being made, so an early GC cannot free the state.
  state->references = 1;
  Napi::Object binding = Napi::Object::New(env);
  // A JS-owned ArrayBuffer (not an external one, which V8's sandbox refuses), kept alive by the state.
  void* slot = nullptr;
  napi_value buffer;
  napi_value pointerResult;
  if (napi_create_arraybuffer(env, sizeof(uint64_t), &slot, &buffer) != napi_ok ||
      napi_create_typedarray(env, napi_biguint64_array, 1, buffer, 0, &pointerResult) != napi_ok ||
      napi_create_reference(env, buffer, 1, &state->pointerResultBuffer) != napi_ok) {
    ReleaseState(env, state);
    return Napi::Value();
  }
  state->pointerResult = static_cast<uint64_t*>(slot);
  binding.Set("pointerResult", pointerResult);
  for (Register area : {RegisterDevices, RegisterStreams, RegisterPools, RegisterMemory, RegisterCopies,
                        RegisterManaged, RegisterPeers, RegisterStaging}) {
    area(env, binding, state);
  }
  ReleaseState(env, state);
  return binding;
}

}  // namespace

Napi::Object Init(Napi::Env env, Napi::Object exports) {
  exports.Set("setErrorFactory", Napi::Function::New<SetErrorFactory>(env, "setErrorFactory"));
  exports.Set("createBinding", Napi::Function::New<CreateBinding>(env, "createBinding"));
  exports.Set("cudaHeaderVersion", Napi::Number::New(env, CUDA_VERSION));
  return exports;
}

}  // namespace cumem

static Napi::Object InitCumem(Napi::Env env, Napi::Object exports) { return cumem::Init(env, exports); }

NODE_API_MODULE(cumem_napi, InitCumem)
