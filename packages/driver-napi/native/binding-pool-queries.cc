// The pool queries of CUDA 13.0: cuMemGetMemPool / cuMemGetDefaultMemPool name the pool a
// location (the host's, a device's) uses now or by default, without creating one.
#include "binding-support.h"
#include "location-support.h"

namespace cumem {
namespace {

#if CUDA_VERSION >= 13000
// query(locationType, locationId, allocationType) -> pool handle. The entry point is read after
// the prologue: the driver loads (and its entry points resolve) on first use.
Napi::Value QueryPool(const Napi::CallbackInfo& info, bool current) {
  CUMEM_PROLOGUE(info);
  const char* call = current ? "cuMemGetMemPool" : "cuMemGetDefaultMemPool";
  PFN_cuMemGetMemPool_v13000 query = current ? state->cu.cuMemGetMemPool : state->cu.cuMemGetDefaultMemPool;
  CUMEM_INT(locationType, 0);
  CUMEM_INT(locationId, 1);
  CUMEM_INT(allocationType, 2);
  if (!state->capabilities.memoryPoolQueries || query == nullptr) {
    ThrowNotSupported(env, std::string(call) + " needs a CUDA 13.0 driver " + ModeNote(state, "memoryPoolQueries"));
    return Napi::Value();
  }
  if (!CheckLocation(env, state, locationType, call)) return Napi::Value();
  CUmemLocation location = LocationOf(locationType, locationId);
  CUmemoryPool pool = nullptr;
  CUMEM_CHECK(query(&pool, &location, static_cast<CUmemAllocationType>(allocationType)), call);
  return HandleValue(env, pool);
}

Napi::Value MemGetMemPool(const Napi::CallbackInfo& info) { return QueryPool(info, true); }
Napi::Value MemGetDefaultMemPool(const Napi::CallbackInfo& info) { return QueryPool(info, false); }
#else
Napi::Value Unsupported(const Napi::CallbackInfo& info) {
  ThrowNotSupported(info.Env(),
                    "cuMemGetMemPool / cuMemGetDefaultMemPool: this addon was built without CUDA 13.0 declarations");
  return Napi::Value();
}
Napi::Value MemGetMemPool(const Napi::CallbackInfo& info) { return Unsupported(info); }
Napi::Value MemGetDefaultMemPool(const Napi::CallbackInfo& info) { return Unsupported(info); }
#endif
CUMEM_BINDING("memGetMemPool", MemGetMemPool);
CUMEM_BINDING("memGetDefaultMemPool", MemGetDefaultMemPool);

}  // namespace
}  // namespace cumem
