// Module entry: `setErrorFactory(factory)` and `createBinding(libraryPath, legacy)`, which
// returns one object of functions per driver, all bound to one DriverState.
#include "binding-support.h"

namespace cumem {

void ReleaseState(DriverState* state) {
  if (--state->references == 0) delete state;
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
  for (Register area : {RegisterDevices, RegisterStreams, RegisterPools, RegisterMemory, RegisterCopies,
                        RegisterManaged}) {
    area(env, binding, state);
  }
  ReleaseState(state);
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
