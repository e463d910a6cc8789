// Copies and fills: 1D copies in both directions, 2D/3D pitched copies, batched copies and memsets.
#include <cstring>
#include <type_traits>

#include "binding-calls.h"
#include "binding-support.h"
#include "location-support.h"

namespace cumem {
namespace {

CUMEM_CALL_BINDING("memcpyAsync", MemcpyAsync, cuMemcpyAsync, "dst", "src", "size", "stream");

Napi::Value MemcpyHtoDAsync(const Napi::CallbackInfo& info) {
  CUMEM_PROLOGUE(info);
  CUMEM_ADDRESS(dst, 0);
  CUMEM_VIEW(src, bytes, 1);
  CUMEM_ADDRESS(stream, 2);
  CUMEM_CHECK(state->cu.cuMemcpyHtoDAsync(dst, src, bytes, reinterpret_cast<CUstream>(stream)), "cuMemcpyHtoDAsync");
  return Undefined(env);
}
CUMEM_BINDING("memcpyHtoDAsync", MemcpyHtoDAsync);

Napi::Value MemcpyDtoHAsync(const Napi::CallbackInfo& info) {
  CUMEM_PROLOGUE(info);
  CUMEM_VIEW(dst, bytes, 0);
  CUMEM_ADDRESS(src, 1);
  CUMEM_ADDRESS(stream, 2);
  CUMEM_CHECK(state->cu.cuMemcpyDtoHAsync(dst, src, bytes, reinterpret_cast<CUstream>(stream)), "cuMemcpyDtoHAsync");
  return Undefined(env);
}
CUMEM_BINDING("memcpyDtoHAsync", MemcpyDtoHAsync);

// Hot path (benchmarked with 8 bytes): one N-API call for the view, one for the address.
Napi::Value MemcpyHtoD(const Napi::CallbackInfo& info) {
  CUMEM_PROLOGUE(info);
  CUMEM_ADDRESS(dst, 0);
  CUMEM_VIEW(src, bytes, 1);
  CUMEM_CHECK(state->cu.cuMemcpyHtoD(dst, src, bytes), "cuMemcpyHtoD");
  return Undefined(env);
}
CUMEM_BINDING("memcpyHtoD", MemcpyHtoD);

Napi::Value MemcpyDtoH(const Napi::CallbackInfo& info) {
  CUMEM_PROLOGUE(info);
  CUMEM_VIEW(dst, bytes, 0);
  CUMEM_ADDRESS(src, 1);
  CUMEM_CHECK(state->cu.cuMemcpyDtoH(dst, src, bytes), "cuMemcpyDtoH");
  return Undefined(env);
}
CUMEM_BINDING("memcpyDtoH", MemcpyDtoH);

// One end of a pitched copy: a unified address, or JS memory (with its length, to refuse a
// copy that would run past it).
struct Endpoint {
  CUmemorytype type = CU_MEMORYTYPE_UNIFIED;
  void* host = nullptr;
  CUdeviceptr device = 0;
  size_t hostBytes = 0;
};

bool ReadEndpoint(napi_env env, Napi::Object copy, const char* key, Endpoint* out) {
  Napi::Value value = copy.Get(key);
  if (value.IsEmpty()) return false;
  if (value.IsBigInt() || value.IsNumber()) {
    out->type = CU_MEMORYTYPE_UNIFIED;
    uint64_t address = 0;
    if (!ReadAddress(env, value, &address, key)) return false;
    out->device = address;
    return true;
  }
  out->type = CU_MEMORYTYPE_HOST;
  return ReadView(env, value, &out->host, &out->hostBytes, key);
}

bool ReadField(napi_env env, Napi::Object copy, const char* key, size_t* out) {
  Napi::Value value = copy.Get(key);
  return !value.IsEmpty() && ReadSize(env, value, out, key);
}

// Decimal digits of a 128-bit count (std::to_string has no overload for it), so the message
// names the exact extent as the FFI adapter's BigInt does.
std::string Decimal(unsigned __int128 value) {
  std::string digits;
  do {
    digits.insert(digits.begin(), static_cast<char>('0' + static_cast<int>(value % 10)));
    value /= 10;
  } while (value != 0);
  return digits;
}

// Bytes a host endpoint must hold: the last row of the last slice ends at
// ((depth - 1) * rowsPerSlice + (height - 1)) * pitch + width.
bool FitsHost(napi_env env, const char* call, const Endpoint& end, const char* key, size_t pitch, size_t rowsPerSlice, size_t width,
              size_t height, size_t depth) {
  if (end.type != CU_MEMORYTYPE_HOST || width == 0 || height == 0 || depth == 0) return true;
  unsigned __int128 rows = static_cast<unsigned __int128>(depth - 1) * rowsPerSlice + (height - 1);
  // Safe integers keep rows below 2**107, but rows * pitch can pass 2**128: never let it wrap.
  const unsigned __int128 largest = ~static_cast<unsigned __int128>(0);
  const bool overflows = pitch != 0 && rows > (largest - width) / pitch;
  unsigned __int128 needed = overflows ? largest : rows * pitch + width;
  if (needed <= end.hostBytes) return true;
  std::string message = std::string(call) + ": " + key + " holds " + std::to_string(end.hostBytes) +
                        " bytes, fewer than the copy reaches (" + (overflows ? "over " : "") + Decimal(needed) + ")";
  napi_throw_range_error(env, nullptr, message.c_str());
  return false;
}

// What a Memcpy2D or Memcpy3D object says; a 2D copy is one slice (rows per slice = height).
struct PitchedCopy {
  Endpoint src, dst;
  size_t srcPitch = 0, dstPitch = 0, srcHeight = 0, dstHeight = 0, width = 0, height = 0, depth = 1;
};

// Reads argument 0 as a Memcpy2D (`slices` false) or Memcpy3D object, field by field in the
// order the object's type lists them; false with an exception pending.
bool ReadPitchedCopy(napi_env env, const Napi::CallbackInfo& info, bool slices, PitchedCopy* out) {
  if (!info[0].IsObject()) {
    napi_throw_type_error(env, nullptr, slices ? "copy must be a Memcpy3D object" : "copy must be a Memcpy2D object");
    return false;
  }
  Napi::Object copy = info[0].As<Napi::Object>();
  if (!ReadEndpoint(env, copy, "src", &out->src) || !ReadEndpoint(env, copy, "dst", &out->dst) ||
      !ReadField(env, copy, "srcPitch", &out->srcPitch) || !ReadField(env, copy, "dstPitch", &out->dstPitch)) {
    return false;
  }
  if (slices && (!ReadField(env, copy, "srcHeight", &out->srcHeight) ||
                 !ReadField(env, copy, "dstHeight", &out->dstHeight))) {
    return false;
  }
  if (!ReadField(env, copy, "widthInBytes", &out->width) || !ReadField(env, copy, "height", &out->height)) {
    return false;
  }
  if (!slices) {
    out->srcHeight = out->height;
    out->dstHeight = out->height;
    return true;
  }
  return ReadField(env, copy, "depth", &out->depth);
}

// Both host endpoints hold what the copy reaches.
bool FitsHosts(napi_env env, const char* call, const PitchedCopy& copy) {
  return FitsHost(env, call, copy.src, "src", copy.srcPitch, copy.srcHeight, copy.width, copy.height, copy.depth) &&
         FitsHost(env, call, copy.dst, "dst", copy.dstPitch, copy.dstHeight, copy.width, copy.height, copy.depth);
}

// memcpy2DAsync(copy, stream) and memcpy3DAsync(copy, stream): Params is CUDA_MEMCPY2D or
// CUDA_MEMCPY3D, filled from the copy object once its host ends are known to hold what it reaches.
template <typename Params, auto Entry>
Napi::Value PitchedCopyAsync(const Napi::CallbackInfo& info, const char* member, const char* call) {
  constexpr bool kSlices = std::is_same_v<Params, CUDA_MEMCPY3D>;
  CUMEM_PROLOGUE(info);
  PitchedCopy copy;
  if (!ReadPitchedCopy(env, info, kSlices, &copy)) return Napi::Value();
  CUMEM_ADDRESS(stream, 1);
  if (!FitsHosts(env, member, copy)) return Napi::Value();
  Params params;
  std::memset(&params, 0, sizeof(params));
  params.srcMemoryType = copy.src.type;
  params.srcHost = copy.src.host;
  params.srcDevice = copy.src.device;
  params.srcPitch = copy.srcPitch;
  params.dstMemoryType = copy.dst.type;
  params.dstHost = copy.dst.host;
  params.dstDevice = copy.dst.device;
  params.dstPitch = copy.dstPitch;
  params.WidthInBytes = copy.width;
  params.Height = copy.height;
  if constexpr (kSlices) {
    params.srcHeight = copy.srcHeight;
    params.dstHeight = copy.dstHeight;
    params.Depth = copy.depth;
  }
  CUMEM_CHECK((state->cu.*Entry)(&params, reinterpret_cast<CUstream>(stream)), call);
  return Undefined(env);
}

Napi::Value Memcpy2DAsync(const Napi::CallbackInfo& info) {
  return PitchedCopyAsync<CUDA_MEMCPY2D, &EntryPoints::cuMemcpy2DAsync>(info, "memcpy2DAsync", "cuMemcpy2DAsync");
}
CUMEM_BINDING("memcpy2DAsync", Memcpy2DAsync);

Napi::Value Memcpy3DAsync(const Napi::CallbackInfo& info) {
  return PitchedCopyAsync<CUDA_MEMCPY3D, &EntryPoints::cuMemcpy3DAsync>(info, "memcpy3DAsync", "cuMemcpy3DAsync");
}
CUMEM_BINDING("memcpy3DAsync", Memcpy3DAsync);

// memcpyBatchAsync(dsts, srcs, sizes, count, stream): the arrays are read in place.
Napi::Value MemcpyBatchAsync(const Napi::CallbackInfo& info) {
  CUMEM_PROLOGUE(info);
  if (!state->capabilities.batchMemcpy) {
    ThrowNotSupported(env, "cuMemcpyBatchAsync needs a CUDA 12.8 driver " +
                               ModeNote(state, "batchMemcpy"));
    return Napi::Value();
  }
  uint64_t* dsts = nullptr;
  uint64_t* srcs = nullptr;
  uint64_t* sizes = nullptr;
  size_t dstCount = 0, srcCount = 0, sizeCount = 0;
  if (!ReadBigUint64Array(env, info[0], &dsts, &dstCount, "dsts") ||
      !ReadBigUint64Array(env, info[1], &srcs, &srcCount, "srcs") ||
      !ReadBigUint64Array(env, info[2], &sizes, &sizeCount, "sizes")) {
    return Napi::Value();
  }
  CUMEM_SIZE(count, 3);
  CUMEM_ADDRESS(stream, 4);
  if (count > dstCount || count > srcCount || count > sizeCount) {
    napi_throw_range_error(env, nullptr, "memcpyBatchAsync: count is larger than dsts, srcs or sizes");
    return Napi::Value();
  }
  // The driver requires numAttrs <= count, so an empty batch cannot be described: it does nothing.
  if (count == 0) return Undefined(env);
#if CUDA_VERSION >= 12080
  // One attribute for every copy: the source is read in stream order, like cuMemcpyAsync.
  CUmemcpyAttributes attributes;
  std::memset(&attributes, 0, sizeof(attributes));
  attributes.srcAccessOrder = CU_MEMCPY_SRC_ACCESS_ORDER_STREAM;
  size_t attributeIndex = 0;
  auto* d = reinterpret_cast<CUdeviceptr*>(dsts);
  auto* s = reinterpret_cast<CUdeviceptr*>(srcs);
  auto* n = reinterpret_cast<size_t*>(sizes);
  CUstream hStream = reinterpret_cast<CUstream>(stream);
#if CUDA_VERSION >= 13000
  if (state->cu.cuMemcpyBatchAsync_v13000 != nullptr) {
    CUMEM_CHECK(state->cu.cuMemcpyBatchAsync_v13000(d, s, n, count, &attributes, &attributeIndex, 1, hStream),
                "cuMemcpyBatchAsync");
    return Undefined(env);
  }
#endif
#if CUDA_VERSION >= 12080
  size_t failIndex = SIZE_MAX;
  CUMEM_CHECK(state->cu.cuMemcpyBatchAsync_v12080(d, s, n, count, &attributes, &attributeIndex, 1, &failIndex, hStream),
              "cuMemcpyBatchAsync");
#endif
#endif
  return Undefined(env);
}
CUMEM_BINDING("memcpyBatchAsync", MemcpyBatchAsync);

// cuMemsetD8Async, cuMemsetD16Async and cuMemsetD32Async differ only in the width of `value`,
// which each takes as its entry point's parameter type.
CUMEM_CALL_BINDING("memsetD8Async", MemsetD8Async, cuMemsetD8Async, "pointer", "value", "count", "stream");
CUMEM_CALL_BINDING("memsetD16Async", MemsetD16Async, cuMemsetD16Async, "pointer", "value", "count", "stream");
CUMEM_CALL_BINDING("memsetD32Async", MemsetD32Async, cuMemsetD32Async, "pointer", "value", "count", "stream");

}  // namespace
}  // namespace cumem
