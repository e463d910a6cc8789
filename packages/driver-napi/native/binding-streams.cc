// Streams and events, and the non-blocking waits that run cuStreamSynchronize /
// cuEventSynchronize on a libuv worker thread and settle a Promise.
#include "binding-support.h"

namespace cumem {
namespace {

// Everything the worker needs is copied in, so it never touches the DriverState from
// another thread and does not care when the state is freed.
class WaitWorker : public Napi::AsyncWorker {
 public:
  WaitWorker(Napi::Env env, const DriverState* state, CUstream stream, CUevent event, CUcontext context)
      : Napi::AsyncWorker(env, event != nullptr ? "cumem:eventSynchronize" : "cumem:streamSynchronize"),
        deferred_(Napi::Promise::Deferred::New(env)),
        stream_(stream),
        event_(event),
        context_(context),
        streamSynchronize_(state->cu.cuStreamSynchronize),
        eventSynchronize_(state->cu.cuEventSynchronize),
        ctxGetCurrent_(state->cu.cuCtxGetCurrent),
        ctxSetCurrent_(state->cu.cuCtxSetCurrent),
        getErrorName_(state->cu.cuGetErrorName),
        getErrorString_(state->cu.cuGetErrorString) {}

  Napi::Promise Promise() const { return deferred_.Promise(); }

  void Execute() override {
    // The caller's context is made current on the worker thread (and the thread's own one
    // restored afterwards): the NULL stream, at least, is resolved through it.
    CUcontext previous = nullptr;
    bool switched = false;
    if (context_ != nullptr && ctxGetCurrent_(&previous) == CUDA_SUCCESS && previous != context_) {
      switched = ctxSetCurrent_(context_) == CUDA_SUCCESS;
    }
    result_ = event_ != nullptr ? eventSynchronize_(event_) : streamSynchronize_(stream_);
    if (switched) ctxSetCurrent_(previous);
  }

  void OnOK() override {
    Napi::Env env = Env();
    if (result_ == CUDA_SUCCESS) {
      deferred_.Resolve(env.Undefined());
      return;
    }
    const char* call = event_ != nullptr ? "cuEventSynchronize" : "cuStreamSynchronize";
    Napi::Value error = MakeCudaError(env, getErrorName_, getErrorString_, result_, call);
    if (env.IsExceptionPending()) {
      deferred_.Reject(env.GetAndClearPendingException().Value());
    } else {
      deferred_.Reject(error);
    }
  }

 private:
  Napi::Promise::Deferred deferred_;
  CUstream stream_;
  CUevent event_;
  CUcontext context_;
  PFN_cuStreamSynchronize_v2000 streamSynchronize_;
  PFN_cuEventSynchronize_v2000 eventSynchronize_;
  PFN_cuCtxGetCurrent_v4000 ctxGetCurrent_;
  PFN_cuCtxSetCurrent_v4000 ctxSetCurrent_;
  PFN_cuGetErrorName_v6000 getErrorName_;
  PFN_cuGetErrorString_v6000 getErrorString_;
  CUresult result_ = CUDA_SUCCESS;
};

Napi::Value StartWait(const Napi::CallbackInfo& info, bool isEvent) {
  CUMEM_PROLOGUE(info);
  CUMEM_ADDRESS(handle, 0);
  CUcontext context = nullptr;
  if (state->cu.cuCtxGetCurrent(&context) != CUDA_SUCCESS) context = nullptr;
  auto* worker = isEvent ? new WaitWorker(info.Env(), state, nullptr, reinterpret_cast<CUevent>(handle), context)
                         : new WaitWorker(info.Env(), state, reinterpret_cast<CUstream>(handle), nullptr, context);
  Napi::Promise promise = worker->Promise();
  worker->Queue();  // AsyncWorker deletes itself after OnOK.
  return promise;
}

Napi::Value StreamCreate(const Napi::CallbackInfo& info) {
  CUMEM_PROLOGUE(info);
  CUMEM_INT(flags, 0);
  CUMEM_INT(priority, 1);
  CUstream stream = nullptr;
  CUMEM_CHECK(state->cu.cuStreamCreateWithPriority(&stream, static_cast<unsigned int>(flags), priority),
              "cuStreamCreateWithPriority");
  return BigIntValue(env, reinterpret_cast<uint64_t>(stream));
}

Napi::Value StreamDestroy(const Napi::CallbackInfo& info) {
  CUMEM_PROLOGUE(info);
  CUMEM_ADDRESS(stream, 0);
  CUMEM_CHECK(state->cu.cuStreamDestroy(reinterpret_cast<CUstream>(stream)), "cuStreamDestroy");
  return Undefined(env);
}

Napi::Value StreamSynchronize(const Napi::CallbackInfo& info) {
  CUMEM_PROLOGUE(info);
  CUMEM_ADDRESS(stream, 0);
  CUMEM_CHECK(state->cu.cuStreamSynchronize(reinterpret_cast<CUstream>(stream)), "cuStreamSynchronize");
  return Undefined(env);
}

Napi::Value StreamSynchronizeAsync(const Napi::CallbackInfo& info) { return StartWait(info, false); }

Napi::Value StreamQuery(const Napi::CallbackInfo& info) {
  CUMEM_PROLOGUE(info);
  CUMEM_ADDRESS(stream, 0);
  CUresult result = state->cu.cuStreamQuery(reinterpret_cast<CUstream>(stream));
  if (result == CUDA_ERROR_NOT_READY) return BoolValue(env, false);
  CUMEM_CHECK(result, "cuStreamQuery");
  return BoolValue(env, true);
}

Napi::Value StreamWaitEvent(const Napi::CallbackInfo& info) {
  CUMEM_PROLOGUE(info);
  CUMEM_ADDRESS(stream, 0);
  CUMEM_ADDRESS(event, 1);
  CUMEM_CHECK(state->cu.cuStreamWaitEvent(reinterpret_cast<CUstream>(stream), reinterpret_cast<CUevent>(event), 0),
              "cuStreamWaitEvent");
  return Undefined(env);
}

Napi::Value EventCreate(const Napi::CallbackInfo& info) {
  CUMEM_PROLOGUE(info);
  CUMEM_INT(flags, 0);
  CUevent event = nullptr;
  CUMEM_CHECK(state->cu.cuEventCreate(&event, static_cast<unsigned int>(flags)), "cuEventCreate");
  return BigIntValue(env, reinterpret_cast<uint64_t>(event));
}

Napi::Value EventDestroy(const Napi::CallbackInfo& info) {
  CUMEM_PROLOGUE(info);
  CUMEM_ADDRESS(event, 0);
  CUMEM_CHECK(state->cu.cuEventDestroy(reinterpret_cast<CUevent>(event)), "cuEventDestroy");
  return Undefined(env);
}

Napi::Value EventRecord(const Napi::CallbackInfo& info) {
  CUMEM_PROLOGUE(info);
  CUMEM_ADDRESS(event, 0);
  CUMEM_ADDRESS(stream, 1);
  CUMEM_CHECK(state->cu.cuEventRecord(reinterpret_cast<CUevent>(event), reinterpret_cast<CUstream>(stream)),
              "cuEventRecord");
  return Undefined(env);
}

Napi::Value EventSynchronize(const Napi::CallbackInfo& info) {
  CUMEM_PROLOGUE(info);
  CUMEM_ADDRESS(event, 0);
  CUMEM_CHECK(state->cu.cuEventSynchronize(reinterpret_cast<CUevent>(event)), "cuEventSynchronize");
  return Undefined(env);
}

Napi::Value EventSynchronizeAsync(const Napi::CallbackInfo& info) { return StartWait(info, true); }

Napi::Value EventQuery(const Napi::CallbackInfo& info) {
  CUMEM_PROLOGUE(info);
  CUMEM_ADDRESS(event, 0);
  CUresult result = state->cu.cuEventQuery(reinterpret_cast<CUevent>(event));
  if (result == CUDA_ERROR_NOT_READY) return BoolValue(env, false);
  CUMEM_CHECK(result, "cuEventQuery");
  return BoolValue(env, true);
}

Napi::Value EventElapsedTime(const Napi::CallbackInfo& info) {
  CUMEM_PROLOGUE(info);
  CUMEM_ADDRESS(start, 0);
  CUMEM_ADDRESS(end, 1);
  float milliseconds = 0;
  CUMEM_CHECK(state->cu.cuEventElapsedTime(&milliseconds, reinterpret_cast<CUevent>(start),
                                           reinterpret_cast<CUevent>(end)),
              "cuEventElapsedTime");
  return NumberValue(env, milliseconds);
}

}  // namespace

void RegisterStreams(Napi::Env env, Napi::Object target, DriverState* state) {
  Method<StreamCreate>(env, target, "streamCreate", state);
  Method<StreamDestroy>(env, target, "streamDestroy", state);
  Method<StreamSynchronize>(env, target, "streamSynchronize", state);
  Method<StreamSynchronizeAsync>(env, target, "streamSynchronizeAsync", state);
  Method<StreamQuery>(env, target, "streamQuery", state);
  Method<StreamWaitEvent>(env, target, "streamWaitEvent", state);
  Method<EventCreate>(env, target, "eventCreate", state);
  Method<EventDestroy>(env, target, "eventDestroy", state);
  Method<EventRecord>(env, target, "eventRecord", state);
  Method<EventSynchronize>(env, target, "eventSynchronize", state);
  Method<EventSynchronizeAsync>(env, target, "eventSynchronizeAsync", state);
  Method<EventQuery>(env, target, "eventQuery", state);
  Method<EventElapsedTime>(env, target, "eventElapsedTime", state);
}

}  // namespace cumem
