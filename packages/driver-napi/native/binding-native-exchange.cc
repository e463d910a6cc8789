// Exchanging memory with native code (DLPack): the release function of exported structs (the
// driver's cuDriverGetVersion, the same function the FFI adapter uses, so both adapters behave
// alike: any thread may call it, it writes 4 bytes at its argument and needs no JS), a read of
// native memory that reports EFAULT instead of faulting, and a call of a producer's deleter.
#include <sys/uio.h>
#include <unistd.h>

#include <cerrno>
#include <string>

#include "binding-support.h"

namespace cumem {
namespace {

constexpr size_t kMaxNativeRead = size_t{1} << 20;

Napi::Value NativeReleaseFunction(const Napi::CallbackInfo& info) {
  CUMEM_PROLOGUE(info);
  return BigIntValue(env, reinterpret_cast<uint64_t>(state->cu.cuDriverGetVersion));
}
CUMEM_BINDING("nativeReleaseFunction", NativeReleaseFunction);

Napi::Value ReadNativeMemory(const Napi::CallbackInfo& info) {
  napi_env env = info.Env();
  CUMEM_ADDRESS(address, 0);
  CUMEM_SIZE(size, 1);
  if (size > kMaxNativeRead) {
    napi_throw_range_error(env, nullptr, "readNativeMemory: size must be an integer from 0 to 1 MiB");
    return Napi::Value();
  }
  void* data = nullptr;
  napi_value buffer;
  napi_value view;
  if (napi_create_arraybuffer(env, size, &data, &buffer) != napi_ok ||
      napi_create_typedarray(env, napi_uint8_array, size, buffer, 0, &view) != napi_ok) {
    return Napi::Value();
  }
  if (size == 0) return Napi::Value(env, view);
  struct iovec local = {data, size};
  struct iovec remote = {reinterpret_cast<void*>(address), size};
  ssize_t copied = process_vm_readv(getpid(), &local, 1, &remote, 1, 0);
  if (copied != static_cast<ssize_t>(size)) {
    int error = copied < 0 ? errno : 0;
    char hex[32];
    snprintf(hex, sizeof hex, "0x%llx", static_cast<unsigned long long>(address));
    std::string message = "readNativeMemory: " + std::to_string(size) + " bytes at " + hex +
                          " cannot be read (" +
                          (copied < 0 ? "errno " + std::to_string(error) : "only " + std::to_string(copied) + " readable") +
                          ": not mapped)";
    napi_throw_range_error(env, nullptr, message.c_str());
    return Napi::Value();
  }
  return Napi::Value(env, view);
}
CUMEM_BINDING("readNativeMemory", ReadNativeMemory);

Napi::Value CallNativeFunction(const Napi::CallbackInfo& info) {
  napi_env env = info.Env();
  CUMEM_ADDRESS(fn, 0);
  CUMEM_ADDRESS(arg, 1);
  // Unsafe by contract: `fn` is a producer's `void deleter(void *)`.
  reinterpret_cast<void (*)(void*)>(fn)(reinterpret_cast<void*>(arg));
  return Undefined(env);
}
CUMEM_BINDING("callNativeFunction", CallNativeFunction);

}  // namespace
}  // namespace cumem
