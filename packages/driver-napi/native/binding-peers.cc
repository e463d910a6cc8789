// Several devices: peer queries, context peer access, peer copies, and pool access for many
// locations in one driver call.
#include <cstring>
#include <vector>

#include "binding-calls.h"
#include "binding-support.h"
#include "device-handles.h"
#include "location-support.h"

namespace cumem {
namespace {

// deviceCanAccessPeer(ordinal, peerOrdinal)
Napi::Value DeviceCanAccessPeer(const Napi::CallbackInfo& info) {
  CUMEM_PROLOGUE(info);
  CUMEM_DEVICE(device, 0, "cuDeviceCanAccessPeer");
  CUMEM_DEVICE(peer, 1, "cuDeviceCanAccessPeer");
  int can = 0;
  CUMEM_CHECK(state->cu.cuDeviceCanAccessPeer(&can, device, peer), "cuDeviceCanAccessPeer");
  return Napi::Boolean::New(env, can != 0);
}
CUMEM_BINDING("deviceCanAccessPeer", DeviceCanAccessPeer);

// deviceGetP2PAttribute(attribute, srcOrdinal, dstOrdinal)
Napi::Value DeviceGetP2PAttribute(const Napi::CallbackInfo& info) {
  CUMEM_PROLOGUE(info);
  CUMEM_INT(attribute, 0);
  CUMEM_DEVICE(src, 1, "cuDeviceGetP2PAttribute");
  CUMEM_DEVICE(dst, 2, "cuDeviceGetP2PAttribute");
  int value = 0;
  CUMEM_CHECK(state->cu.cuDeviceGetP2PAttribute(&value, static_cast<CUdevice_P2PAttribute>(attribute), src, dst),
              "cuDeviceGetP2PAttribute");
  return IntValue(env, value);
}
CUMEM_BINDING("deviceGetP2PAttribute", DeviceGetP2PAttribute);

// contextEnablePeerAccess(peerContext): CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED counts as success.
Napi::Value ContextEnablePeerAccess(const Napi::CallbackInfo& info) {
  CUMEM_PROLOGUE(info);
  CUMEM_ADDRESS(peer, 0);
  CUresult result = state->cu.cuCtxEnablePeerAccess(reinterpret_cast<CUcontext>(peer), 0);
  if (result != CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED) CUMEM_CHECK(result, "cuCtxEnablePeerAccess");
  return Undefined(env);
}
CUMEM_BINDING("contextEnablePeerAccess", ContextEnablePeerAccess);

// memcpyPeerAsync(dst, dstContext, src, srcContext, size, stream)
CUMEM_CALL_BINDING("memcpyPeerAsync", MemcpyPeerAsync, cuMemcpyPeerAsync, "dst", "dstContext", "src", "srcContext", "size",
                   "stream");

// memPoolSetAccessMany(pool, packed): packed is an Int32Array of (type, id, flags) triples.
Napi::Value MemPoolSetAccessMany(const Napi::CallbackInfo& info) {
  CUMEM_PROLOGUE(info);
  CUMEM_ADDRESS(pool, 0);
  std::vector<CUmemAccessDesc> access;
  if (!ReadAccessDescriptors(env, state, info[1], &access, "cuMemPoolSetAccess")) return Napi::Value();
  const size_t count = access.size();
  if (count == 0) return Undefined(env);
  CUMEM_CHECK(state->cu.cuMemPoolSetAccess(reinterpret_cast<CUmemoryPool>(pool), access.data(), count),
              "cuMemPoolSetAccess");
  return Undefined(env);
}
CUMEM_BINDING("memPoolSetAccessMany", MemPoolSetAccessMany);

}  // namespace
}  // namespace cumem
