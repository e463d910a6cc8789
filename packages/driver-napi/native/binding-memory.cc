// Classic allocation, legacy IPC handles, pointer attributes, and the non-driver helpers
// (hostView, addressOf, detachView) that move between JS memory and addresses, and
// duplicateFileDescriptor.
#include <fcntl.h>

#include <cerrno>
#include <cstring>

#include "binding-calls.h"
#include "binding-support.h"

namespace cumem {

// The IPC handles the open bindings take, as the get bindings gave them.
template <>
struct RecordSizeError<CUipcMemHandle> {
  static constexpr const char* kMessage = "handle must be the 64 bytes of ipcGetMemHandle";
};
template <>
struct RecordSizeError<CUipcEventHandle> {
  static constexpr const char* kMessage = "handle must be the 64 bytes of ipcGetEventHandle";
};

namespace {

CUMEM_QUERY_BINDING("memAlloc", MemAlloc, cuMemAlloc, "size");

CUMEM_CALL_BINDING("memFree", MemFree, cuMemFree, "pointer");

CUMEM_QUERY_BINDING("memHostAlloc", MemHostAlloc, cuMemHostAlloc, "size", "flags");

CUMEM_CALL_BINDING("memFreeHost", MemFreeHost, cuMemFreeHost, "pointer");

CUMEM_QUERY_BINDING("memAllocManaged", MemAllocManaged, cuMemAllocManaged, "size", "flags");

CUMEM_RECORD_BINDING("ipcGetMemHandle", IpcGetMemHandle, cuIpcGetMemHandle, CUipcMemHandle, CUdeviceptr, pointer);

CUMEM_QUERY_BINDING("ipcOpenMemHandle", IpcOpenMemHandle, cuIpcOpenMemHandle, "handle", "flags");

CUMEM_CALL_BINDING("ipcCloseMemHandle", IpcCloseMemHandle, cuIpcCloseMemHandle, "pointer");

CUMEM_RECORD_BINDING("ipcGetEventHandle", IpcGetEventHandle, cuIpcGetEventHandle, CUipcEventHandle, CUevent, event);

CUMEM_QUERY_BINDING("ipcOpenEventHandle", IpcOpenEventHandle, cuIpcOpenEventHandle, "handle");

bool IsWideAttribute(int attribute) {
  // size_t / unsigned long long answers; all others are 4 bytes or a 1-byte boolean.
  return attribute == CU_POINTER_ATTRIBUTE_BUFFER_ID || attribute == CU_POINTER_ATTRIBUTE_RANGE_SIZE ||
         attribute == CU_POINTER_ATTRIBUTE_ALLOWED_HANDLE_TYPES || attribute == CU_POINTER_ATTRIBUTE_MAPPING_SIZE ||
         attribute == CU_POINTER_ATTRIBUTE_MEMORY_BLOCK_ID;
}

// pointerGetAttribute(pointer, attribute) as a number, or as a bigint (`handle`: the attributes
// that hold an address or a handle).
Napi::Value PointerAttribute(const Napi::CallbackInfo& info, bool handle) {
  CUMEM_PROLOGUE(info);
  CUMEM_ADDRESS(pointer, 0);
  CUMEM_INT(attribute, 1);
  // Zeroed 8 bytes, so booleans (1 byte) and ints (4 bytes) read back exactly (little-endian).
  uint64_t value = 0;
  CUMEM_CHECK(state->cu.cuPointerGetAttribute(&value, static_cast<CUpointer_attribute>(attribute), pointer),
              "cuPointerGetAttribute");
  if (handle) return BigIntValue(env, value);
  if (IsWideAttribute(attribute)) return NumberValue(env, static_cast<double>(value));
  if (attribute == CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL) return IntValue(env, static_cast<int32_t>(value));
  return NumberValue(env, static_cast<double>(static_cast<uint32_t>(value)));
}

Napi::Value PointerGetAttribute(const Napi::CallbackInfo& info) { return PointerAttribute(info, false); }
CUMEM_BINDING("pointerGetAttribute", PointerGetAttribute);

Napi::Value PointerGetHandleAttribute(const Napi::CallbackInfo& info) { return PointerAttribute(info, true); }
CUMEM_BINDING("pointerGetHandleAttribute", PointerGetHandleAttribute);

// Not driver calls: these never load libcuda.
constexpr size_t kLargestHostView = size_t{1} << 32;

Napi::Value HostView(const Napi::CallbackInfo& info) {
  napi_env env = info.Env();
  uint64_t pointer;
  if (!ReadAddress(env, info[0], &pointer, "pointer")) return Napi::Value();
  size_t size;
  if (!ReadSize(env, info[1], &size, "size")) return Napi::Value();
  if (pointer == 0 && size > 0) {
    napi_throw_range_error(env, nullptr, "hostView: pointer is 0 (null) but size is not");
    return Napi::Value();
  }
  // One limit for both adapters: koffi aborts the process on a view over 4 GiB, and Node 20
  // makes no Uint8Array longer than 2**32. Same message as the FFI adapter (host-memory.ts).
  if (size > kLargestHostView) {
    std::string message = "hostView: " + std::to_string(size) +
                          " bytes are more than one view can show (at most 4294967296 bytes, 4 GiB)";
    napi_throw_range_error(env, nullptr, message.c_str());
    return Napi::Value();
  }
  // External memory with no finalizer: the view never owns (or frees) what it shows.
  napi_value buffer;
  if (napi_create_external_arraybuffer(env, reinterpret_cast<void*>(pointer), size, nullptr, nullptr, &buffer) !=
      napi_ok) {
    if (!info.Env().IsExceptionPending()) {
      napi_throw_error(env, nullptr, "hostView: this runtime does not allow external ArrayBuffers");
    }
    return Napi::Value();
  }
  napi_value view;
  if (napi_create_typedarray(env, napi_uint8_array, size, buffer, 0, &view) != napi_ok) {
    if (!info.Env().IsExceptionPending()) napi_throw_error(env, nullptr, "hostView: the Uint8Array could not be made");
    return Napi::Value();
  }
  return Napi::Value(env, view);
}
CUMEM_BINDING("hostView", HostView);

Napi::Value AddressOf(const Napi::CallbackInfo& info) {
  napi_env env = info.Env();
  CUMEM_MEMORY(view, bytes, 0);
  return HandleValue(env, view);
}
CUMEM_BINDING("addressOf", AddressOf);

// Detaching an external ArrayBuffer from hostView only drops the engine's reference to the memory (no
// finalizer was given), so views over it read as length 0 and the memory stays the driver's.
Napi::Value DetachView(const Napi::CallbackInfo& info) {
  napi_env env = info.Env();
  bool isArrayBuffer = false;
  if (info.Length() < 1 || napi_is_arraybuffer(env, info[0], &isArrayBuffer) != napi_ok || !isArrayBuffer) {
    napi_throw_type_error(env, nullptr, "detachView: expected an ArrayBuffer");
    return Napi::Value();
  }
  bool detached = napi_detach_arraybuffer(env, info[0]) == napi_ok;
  if (!detached && info.Env().IsExceptionPending()) info.Env().GetAndClearPendingException();
  return Napi::Boolean::New(env, detached);
}
CUMEM_BINDING("detachView", DetachView);

// POSIX dup with close-on-exec (Node has no dup). Returns the new descriptor, or -errno; the
// TS side checks the argument first and turns -errno into the shared error.
Napi::Value DuplicateFileDescriptor(const Napi::CallbackInfo& info) {
  napi_env env = info.Env();
  int32_t fd = 0;
  if (napi_get_value_int32(env, info[0], &fd) != napi_ok) {
    napi_throw_type_error(env, nullptr, "duplicateFileDescriptor: fd must be a number");
    return Napi::Value();
  }
  int duplicate = fcntl(fd, F_DUPFD_CLOEXEC, 0);
  return NumberValue(env, static_cast<double>(duplicate < 0 ? -errno : duplicate));
}
CUMEM_BINDING("duplicateFileDescriptor", DuplicateFileDescriptor);

}  // namespace
}  // namespace cumem
