// Streams and events, and the non-blocking waits that run cuStreamSynchronize /
// cuEventSynchronize on a libuv thread-pool thread and settle a Promise.
#include "binding-calls.h"
#include "binding-support.h"

namespace cumem {
namespace {

// The wait is plain N-API async work, not Napi::AsyncWorker: node-addon-api turns a failed
// napi_resolve_deferred / napi_reject_deferred into a JS exception, and when that cannot be
// thrown either (a worker_threads Worker terminated while the wait ran: its environment no longer
// runs JS) into Napi::Error::Fatal, which aborted the whole process. Here every N-API status is
// checked, and a wait that completes into an environment that is going away only frees itself.
//
// Teardown order (Node's Environment::RunCleanup): in-flight thread-pool work is waited for and
// completed first, with JS already stopped, so resolve/reject fail there and are ignored; then
// the environment's cleanup hooks run, and ours marks the thread's environment as closing, so
// that nothing completing after that touches it at all.
constexpr uint64_t kStreamPerThread = 2;  // CU_STREAM_PER_THREAD
constexpr unsigned int kEventDisableTiming = 2;  // CU_EVENT_DISABLE_TIMING
thread_local bool environmentClosing = false;
thread_local bool closingHookAdded = false;

void MarkEnvironmentClosing(void*) { environmentClosing = true; }

// Everything the thread-pool thread needs is copied in, so it never touches the DriverState
// (the library is never unloaded, so the entry points stay valid).
struct Wait {
  napi_async_work work = nullptr;
  napi_deferred deferred = nullptr;
  CUstream stream = nullptr;
  CUevent event = nullptr;
  // An event the wait recorded itself (CU_STREAM_PER_THREAD), destroyed on the pool thread after.
  bool ownsEvent = false;
  bool recorded = false;
  CUcontext context = nullptr;
  PFN_cuStreamSynchronize_v2000 streamSynchronize = nullptr;
  PFN_cuEventSynchronize_v2000 eventSynchronize = nullptr;
  PFN_cuEventDestroy_v4000 eventDestroy = nullptr;
  PFN_cuCtxGetCurrent_v4000 ctxGetCurrent = nullptr;
  PFN_cuCtxSetCurrent_v4000 ctxSetCurrent = nullptr;
  PFN_cuGetErrorName_v6000 getErrorName = nullptr;
  PFN_cuGetErrorString_v6000 getErrorString = nullptr;
  CUresult result = CUDA_SUCCESS;
};

void ExecuteWait(napi_env, void* data) {
  auto* wait = static_cast<Wait*>(data);
  // The caller's context is made current on the pool thread (and the thread's own one restored
  // afterwards): the NULL stream, at least, is resolved through it.
  CUcontext previous = nullptr;
  bool switched = false;
  if (wait->context != nullptr && wait->ctxGetCurrent(&previous) == CUDA_SUCCESS && previous != wait->context) {
    switched = wait->ctxSetCurrent(wait->context) == CUDA_SUCCESS;
  }
  wait->result = wait->event != nullptr ? wait->eventSynchronize(wait->event) : wait->streamSynchronize(wait->stream);
  if (wait->ownsEvent) {
    wait->eventDestroy(wait->event);
    wait->ownsEvent = false;
  }
  if (switched) wait->ctxSetCurrent(previous);
}

void ClearPendingException(napi_env env) {
  bool pending = false;
  napi_value ignored;
  if (napi_is_exception_pending(env, &pending) == napi_ok && pending) napi_get_and_clear_last_exception(env, &ignored);
}

void CompleteWait(napi_env env, napi_status status, void* data) {
  auto* wait = static_cast<Wait*>(data);
  napi_delete_async_work(env, wait->work);
  // Cancelled before ExecuteWait ran: the event the wait recorded is still its to destroy.
  if (wait->ownsEvent) wait->eventDestroy(wait->event);
  // Cancelled (teardown before the pool started it) or torn down: nothing to settle into.
  if (status == napi_ok && !environmentClosing) {
    if (wait->result == CUDA_SUCCESS) {
      napi_value undefined;
      if (napi_get_undefined(env, &undefined) == napi_ok) napi_resolve_deferred(env, wait->deferred, undefined);
    } else {
      const char* call = wait->event != nullptr && !wait->recorded ? "cuEventSynchronize" : "cuStreamSynchronize";
      napi_value error;
      if (MakeCudaErrorValue(env, wait->getErrorName, wait->getErrorString, wait->result, call, &error)) {
        napi_reject_deferred(env, wait->deferred, error);
      }
    }
    ClearPendingException(env);
  }
  delete wait;
}

Napi::Value ThrowWaitNotStarted(napi_env env) {
  bool pending = false;
  if (napi_is_exception_pending(env, &pending) == napi_ok && !pending) {
    napi_throw_error(env, nullptr, "cumem: the asynchronous wait could not be started");
  }
  return Napi::Value();
}

Napi::Value StartWait(const Napi::CallbackInfo& info, bool isEvent) {
  CUMEM_PROLOGUE(info);
  CUMEM_ADDRESS(handle, 0);
  if (!closingHookAdded) {
    if (napi_add_env_cleanup_hook(env, MarkEnvironmentClosing, nullptr) != napi_ok) {
      napi_throw_error(env, nullptr, "cumem: could not register the environment cleanup hook");
      return Napi::Value();
    }
    closingHookAdded = true;
  }
  // CU_STREAM_PER_THREAD is the calling thread's stream, which a pool thread cannot name: an event
  // recorded on it here (an action in that stream, after all of its earlier work) is waited for.
  CUevent recorded = nullptr;
  if (!isEvent && handle == kStreamPerThread) {
    CUMEM_CHECK(state->cu.cuEventCreate(&recorded, kEventDisableTiming), "cuEventCreate");
    CUresult result = state->cu.cuEventRecord(recorded, reinterpret_cast<CUstream>(handle));
    if (result != CUDA_SUCCESS) {
      state->cu.cuEventDestroy(recorded);
      CUMEM_CHECK(result, "cuEventRecord");
    }
  }
  auto* wait = new Wait();
  if (isEvent) wait->event = reinterpret_cast<CUevent>(handle);
  else if (recorded != nullptr) {
    wait->event = recorded;
    wait->ownsEvent = true;
    wait->recorded = true;
  }
  else wait->stream = reinterpret_cast<CUstream>(handle);
  wait->eventDestroy = state->cu.cuEventDestroy;
  if (state->cu.cuCtxGetCurrent(&wait->context) != CUDA_SUCCESS) wait->context = nullptr;
  wait->streamSynchronize = state->cu.cuStreamSynchronize;
  wait->eventSynchronize = state->cu.cuEventSynchronize;
  wait->ctxGetCurrent = state->cu.cuCtxGetCurrent;
  wait->ctxSetCurrent = state->cu.cuCtxSetCurrent;
  wait->getErrorName = state->cu.cuGetErrorName;
  wait->getErrorString = state->cu.cuGetErrorString;
  napi_value promise;
  napi_value name;
  const char* resource = isEvent ? "cumem:eventSynchronize" : "cumem:streamSynchronize";
  if (napi_create_promise(env, &wait->deferred, &promise) != napi_ok ||
      napi_create_string_utf8(env, resource, NAPI_AUTO_LENGTH, &name) != napi_ok ||
      napi_create_async_work(env, nullptr, name, ExecuteWait, CompleteWait, wait, &wait->work) != napi_ok) {
    // A promise made here stays pending and is collected with its deferred.
    if (wait->work != nullptr) napi_delete_async_work(env, wait->work);
    if (wait->ownsEvent) wait->eventDestroy(wait->event);
    delete wait;
    return ThrowWaitNotStarted(env);
  }
  if (napi_queue_async_work(env, wait->work) != napi_ok) {
    napi_delete_async_work(env, wait->work);
    if (wait->ownsEvent) wait->eventDestroy(wait->event);
    delete wait;
    return ThrowWaitNotStarted(env);
  }
  return Napi::Value(env, promise);
}

CUMEM_QUERY_BINDING("streamCreate", StreamCreate, cuStreamCreateWithPriority, "flags", "priority");

CUMEM_CALL_BINDING("streamDestroy", StreamDestroy, cuStreamDestroy, "stream");

CUMEM_CALL_BINDING("streamSynchronize", StreamSynchronize, cuStreamSynchronize, "stream");

Napi::Value StreamSynchronizeAsync(const Napi::CallbackInfo& info) { return StartWait(info, false); }
CUMEM_BINDING("streamSynchronizeAsync", StreamSynchronizeAsync);

CUMEM_READY_BINDING("streamQuery", StreamQuery, cuStreamQuery, "stream");

CUMEM_CALL_BINDING("streamWaitEvent", StreamWaitEvent, cuStreamWaitEvent, "stream", "event");

CUMEM_QUERY_BINDING("eventCreate", EventCreate, cuEventCreate, "flags");

CUMEM_CALL_BINDING("eventDestroy", EventDestroy, cuEventDestroy, "event");

CUMEM_CALL_BINDING("eventRecord", EventRecord, cuEventRecord, "event", "stream");

CUMEM_CALL_BINDING("eventSynchronize", EventSynchronize, cuEventSynchronize, "event");

Napi::Value EventSynchronizeAsync(const Napi::CallbackInfo& info) { return StartWait(info, true); }
CUMEM_BINDING("eventSynchronizeAsync", EventSynchronizeAsync);

CUMEM_READY_BINDING("eventQuery", EventQuery, cuEventQuery, "event");

CUMEM_QUERY_BINDING("eventElapsedTime", EventElapsedTime, cuEventElapsedTime, "start", "end");

}  // namespace
}  // namespace cumem
