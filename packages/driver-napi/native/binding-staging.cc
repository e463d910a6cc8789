// Pageable host memory: cuMemHostRegister / cuMemHostUnregister, and the staged copies of
// staging-engine.cc. The options are checked in JS (napi-driver.ts) before these are called.
#include "binding-calls.h"
#include "binding-support.h"
#include "staging-engine.h"

namespace cumem {
namespace {

Napi::Value MemHostRegister(const Napi::CallbackInfo& info) {
  CUMEM_PROLOGUE(info);
  CUMEM_MEMORY(view, bytes, 0);
  CUMEM_INT(flags, 1);
  CUMEM_CHECK(state->cu.cuMemHostRegister(view, bytes, static_cast<unsigned int>(flags)), "cuMemHostRegister");
  return HandleValue(env, view);
}
CUMEM_BINDING("memHostRegister", MemHostRegister);

CUMEM_CALL_BINDING("memHostUnregister", MemHostUnregister, cuMemHostUnregister, "pointer");

// stagedCopy(toDevice, device, view, stream, chunkBytes, threads)
Napi::Value StagedCopyBinding(const Napi::CallbackInfo& info) {
  CUMEM_PROLOGUE(info);
  const bool toDevice = info[0].ToBoolean().Value();
  CUMEM_ADDRESS(device, 1);
  void* host = nullptr;
  size_t bytes = 0;
  if (!ReadView(env, info[2], &host, &bytes, toDevice ? "src" : "dst")) return Napi::Value();
  CUMEM_ADDRESS(stream, 3);
  CUMEM_SIZE(chunkBytes, 4);
  CUMEM_SIZE(threads, 5);
  if (chunkBytes == 0 || threads == 0) {
    Napi::RangeError::New(env, "stagedCopy: chunkBytes and threads must be positive").ThrowAsJavaScriptException();
    return Napi::Value();
  }
  StagingFailure failure = StagedCopy(state, static_cast<char*>(host), device, bytes, toDevice,
                                      reinterpret_cast<CUstream>(stream), chunkBytes, threads);
  if (failure.result != CUDA_SUCCESS) {
    ThrowCudaError(env, state, failure.result, failure.call);
    return Napi::Value();
  }
  return Undefined(env);
}
CUMEM_BINDING("stagedCopy", StagedCopyBinding);

}  // namespace
}  // namespace cumem
