// Module entry: `setErrorFactory(factory)` and `createBinding(libraryPath, legacy)`, which
// returns one object of functions per driver, all bound to one DriverState.
#include "binding-support.h"
#include "staging-engine.h"

namespace cumem {

void ReleaseState(napi_env env, DriverState* state) {
  if (--state->references > 0) return;
  if (state->pointerResultBuffer != nullptr) napi_delete_reference(env, state->pointerResultBuffer);
  FreeStaging(state);
  if (state->deriveCapabilities != nullptr) napi_delete_reference(env, state->deriveCapabilities);
  delete state;
}

namespace {
// The registered bindings, in registration order. Zero-initialized before any BindingEntry's
// constructor runs (static initialization), so the order of files does not matter.
const BindingEntry* firstBinding = nullptr;
BindingEntry* lastBinding = nullptr;
}  // namespace

BindingEntry::BindingEntry(const char* name, napi_callback callback) noexcept : name(name), callback(callback) {
  if (lastBinding == nullptr) {
    firstBinding = this;
  } else {
    lastBinding->next = this;
  }
  lastBinding = this;
}

void AddBindings(Napi::Env env, Napi::Object target, DriverState* state) {
  for (const BindingEntry* entry = firstBinding; entry != nullptr; entry = entry->next) {
    napi_value function;
    NAPI_THROW_IF_FAILED_VOID(env,
                              napi_create_function(env, entry->name, NAPI_AUTO_LENGTH, entry->callback, state, &function));
    // The functions, not the binding object, are what the JS Driver keeps, so each holds a
    // reference to the state.
    state->references++;
    Napi::Function(env, function).AddFinalizer([](Napi::Env env, DriverState* data) { ReleaseState(env, data); },
                                               state);
    target.Set(entry->name, function);
  }
}

bool ApplyCapabilities(Napi::Env env, DriverState* state) {
  napi_value derive;
  if (state->deriveCapabilities == nullptr ||
      napi_get_reference_value(env, state->deriveCapabilities, &derive) != napi_ok) {
    Napi::Error::New(env, "cumem: the binding was made without deriveCapabilities").ThrowAsJavaScriptException();
    return false;
  }
  const std::vector<const char*> names = ResolvedOptionalSymbols(state);
  Napi::Array resolved = Napi::Array::New(env, names.size());
  for (uint32_t i = 0; i < names.size(); i++) resolved.Set(i, names[i]);
  Napi::Value result = Napi::Function(env, derive).Call(
      {Napi::Number::New(env, state->driverVersion), resolved, Napi::Boolean::New(env, state->legacy)});
  if (env.IsExceptionPending() || !result.IsObject()) return false;
  Napi::Object flags = result.As<Napi::Object>();
  Capabilities& caps = state->capabilities;
  caps.memoryLocations = flags.Get("memoryLocations").ToBoolean();
  caps.hostNumaLocations = flags.Get("hostNumaLocations").ToBoolean();
  caps.batchPrefetchDiscard = flags.Get("batchPrefetchDiscard").ToBoolean();
  caps.batchMemcpy = flags.Get("batchMemcpy").ToBoolean();
  caps.hostMemoryPools = flags.Get("hostMemoryPools").ToBoolean();
  caps.managedMemoryPools = flags.Get("managedMemoryPools").ToBoolean();
  caps.interprocess = flags.Get("interprocess").ToBoolean();
  caps.memoryPoolQueries = flags.Get("memoryPoolQueries").ToBoolean();
  caps.kernelParameterInfo = flags.Get("kernelParameterInfo").ToBoolean();
  if (env.IsExceptionPending()) return false;
  state->status = LoadStatus::Ready;
  return true;
}

namespace {

Napi::Value CreateBinding(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (!info[0].IsString() || !info[1].IsBoolean() || !info[2].IsFunction()) {
    Napi::TypeError::New(env, "createBinding(libraryPath: string, legacy: boolean, deriveCapabilities: function)")
        .ThrowAsJavaScriptException();
    return Napi::Value();
  }
  auto* state = new DriverState();
  state->libraryPath = info[0].As<Napi::String>().Utf8Value();
  state->legacy = info[1].As<Napi::Boolean>().Value();
  if (napi_create_reference(env, info[2], 1, &state->deriveCapabilities) != napi_ok) {
    delete state;
    return Napi::Value();
  }
  // Held while the functions are being made, so an early GC cannot free the state.
  state->references = 1;
  Napi::Object binding = Napi::Object::New(env);
  // A JS-owned ArrayBuffer (not an external one, which a sandboxed JS engine refuses), kept alive by the state.
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
  AddBindings(env, binding, state);
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
