// Modules, kernels and launches: cuLibrary*, cuKernelGetFunction, cuFunc*, cuLaunchKernelEx and
// cuOccupancy*. The entry points are optional at load (driver-loader.cc): a member whose entry
// point the library lacks refuses with NotSupportedError. Arguments are checked in JS
// (@cumem/compute) before these are called; here only their kinds are.
#include <string>
#include <vector>

#include "binding-calls.h"
#include "binding-support.h"

namespace cumem {
namespace {

#define CUMEM_HAVE(name) \
  if (!Have(env, state->cu.name, #name)) return Napi::Value()

// [first, second]: the answer of the members that return two numbers.
Napi::Value Pair(napi_env env, Napi::Value first, Napi::Value second) {
  Napi::Array pair = Napi::Array::New(env, 2);
  pair.Set(uint32_t{0}, first);
  pair.Set(uint32_t{1}, second);
  return pair;
}

Napi::Value LibraryLoadData(const Napi::CallbackInfo& info) {
  CUMEM_PROLOGUE(info);
  CUMEM_HAVE(cuLibraryLoadData);
  CUMEM_VIEW(image, bytes, 0);
  CUlibrary library = nullptr;
  CUMEM_CHECK(state->cu.cuLibraryLoadData(&library, image, nullptr, nullptr, 0, nullptr, nullptr, 0),
              "cuLibraryLoadData");
  return HandleValue(env, library);
}
CUMEM_BINDING("libraryLoadData", LibraryLoadData);

CUMEM_OPTIONAL_CALL_BINDING("libraryUnload", LibraryUnload, cuLibraryUnload, "library");

Napi::Value LibraryGetKernel(const Napi::CallbackInfo& info) {
  CUMEM_PROLOGUE(info);
  CUMEM_HAVE(cuLibraryGetKernel);
  CUMEM_ADDRESS(library, 0);
  if (!info[1].IsString()) {
    Napi::TypeError::New(env, "name must be a string").ThrowAsJavaScriptException();
    return Napi::Value();
  }
  const std::string name = info[1].As<Napi::String>().Utf8Value();
  CUkernel kernel = nullptr;
  CUMEM_CHECK(state->cu.cuLibraryGetKernel(&kernel, reinterpret_cast<CUlibrary>(library), name.c_str()),
              "cuLibraryGetKernel");
  return HandleValue(env, kernel);
}
CUMEM_BINDING("libraryGetKernel", LibraryGetKernel);

CUMEM_OPTIONAL_QUERY_BINDING("kernelGetFunction", KernelGetFunction, cuKernelGetFunction, "kernel");

CUMEM_OPTIONAL_QUERY_BINDING("funcGetAttribute", FuncGetAttribute, cuFuncGetAttribute, "attribute", "function");

Napi::Value FuncSetAttribute(const Napi::CallbackInfo& info) {
  CUMEM_PROLOGUE(info);
  CUMEM_HAVE(cuFuncSetAttribute);
  CUMEM_INT(attribute, 0);
  CUMEM_ADDRESS(function, 1);
  CUMEM_INT(value, 2);
  CUMEM_CHECK(state->cu.cuFuncSetAttribute(reinterpret_cast<CUfunction>(function),
                                           static_cast<CUfunction_attribute>(attribute), value),
              "cuFuncSetAttribute");
  return Undefined(env);
}
CUMEM_BINDING("funcSetAttribute", FuncSetAttribute);

// funcGetParamInfo(function, index) -> [offset, size] | null past the last parameter.
Napi::Value FuncGetParamInfo(const Napi::CallbackInfo& info) {
  CUMEM_PROLOGUE(info);
  if (!state->capabilities.kernelParameterInfo || state->cu.cuFuncGetParamInfo == nullptr) {
    ThrowNotSupported(env, "funcGetParamInfo needs a CUDA 12.4 driver (cuFuncGetParamInfo)");
    return Napi::Value();
  }
  CUMEM_ADDRESS(function, 0);
  CUMEM_SIZE(index, 1);
  size_t offset = 0;
  size_t size = 0;
  CUresult result = state->cu.cuFuncGetParamInfo(reinterpret_cast<CUfunction>(function), index, &offset, &size);
  if (result == CUDA_ERROR_INVALID_VALUE) return info.Env().Null();
  CUMEM_CHECK(result, "cuFuncGetParamInfo");
  return Pair(env, NumberValue(env, static_cast<double>(offset)), NumberValue(env, static_cast<double>(size)));
}
CUMEM_BINDING("funcGetParamInfo", FuncGetParamInfo);

// The launch itself, shared by both forms below: `dims` is the 10-word geometry (gridX, gridY,
// gridZ, blockX, blockY, blockZ, sharedMemBytes, clusterX, clusterY, clusterZ; cluster 0: none),
// `count` parameters at `offsets` into the `byteLength` packed bytes. False with an exception
// pending on failure.
bool Launch(napi_env env, const DriverState* state, uint64_t function, const uint32_t* dims, const void* bytes,
            size_t byteLength, const uint32_t* offsets, size_t count, uint64_t stream) {
  // One pointer per parameter into the packed bytes; none may point past them.
  void* small[32];
  std::vector<void*> large;
  void** parameters = small;
  if (count > 32) {
    large.resize(count);
    parameters = large.data();
  }
  for (size_t index = 0; index < count; index++) {
    if (offsets[index] >= byteLength) {
      napi_throw_range_error(env, nullptr, "launchKernelEx: an argument offset is past argumentBytes");
      return false;
    }
    parameters[index] = const_cast<char*>(static_cast<const char*>(bytes)) + offsets[index];
  }
  CUlaunchAttribute attribute{};
  attribute.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
  attribute.value.clusterDim.x = dims[7];
  attribute.value.clusterDim.y = dims[8];
  attribute.value.clusterDim.z = dims[9];
  CUlaunchConfig config{};
  config.gridDimX = dims[0];
  config.gridDimY = dims[1];
  config.gridDimZ = dims[2];
  config.blockDimX = dims[3];
  config.blockDimY = dims[4];
  config.blockDimZ = dims[5];
  config.sharedMemBytes = dims[6];
  config.hStream = reinterpret_cast<CUstream>(stream);
  config.attrs = &attribute;
  config.numAttrs = dims[7] == 0 ? 0 : 1;
  return Succeeded(env, state,
                   state->cu.cuLaunchKernelEx(&config, reinterpret_cast<CUfunction>(function),
                                              count == 0 ? nullptr : parameters, nullptr),
                   "cuLaunchKernelEx");
}

// launchKernelEx(function, geometry, argumentBytes, argumentOffsets, stream): geometry is a
// Uint32Array of 10 words (see Launch). The general form, for launches the area does not fit.
Napi::Value LaunchKernelEx(const Napi::CallbackInfo& info) {
  CUMEM_PROLOGUE(info);
  CUMEM_HAVE(cuLaunchKernelEx);
  CUMEM_ADDRESS(function, 0);
  uint32_t dims[10];
  if (!ReadOpaqueRecord(env, info[1], dims, sizeof dims, "geometry", "launchKernelEx: geometry must be 10 32-bit words")) {
    return Napi::Value();
  }
  CUMEM_VIEW(argumentBytes, byteLength, 2);
  CUMEM_VIEW(argumentOffsets, offsetBytes, 3);
  CUMEM_ADDRESS(stream, 4);
  Launch(env, state, function, dims, argumentBytes, byteLength, static_cast<const uint32_t*>(argumentOffsets),
         offsetBytes / sizeof(uint32_t), stream);
  return Napi::Value();
}
CUMEM_BINDING("launchKernelEx", LaunchKernelEx);

// launchKernelArea(function, stream, area): the hot form, a raw callback reading one ArrayBuffer
// the adapter reuses for every launch (compute-members.ts writes it): 32-bit words 0-9 the
// geometry, word 10 the parameter count (<= kAreaParameters), word 11 the packed bytes' length
// (<= kAreaBytes), the offsets from byte kAreaOffsets, the packed bytes from kAreaData. Three
// N-API reads instead of a Napi::CallbackInfo and four view lookups.
constexpr size_t kAreaParameters = 64;
constexpr size_t kAreaBytes = 4096;
constexpr size_t kAreaOffsets = 48;
constexpr size_t kAreaData = kAreaOffsets + 4 * kAreaParameters;
constexpr size_t kAreaSize = kAreaData + kAreaBytes;

napi_value LaunchKernelArea(napi_env env, napi_callback_info info) {
  napi_value argv[3];
  DriverState* state = RawArguments(env, info, argv);
  if (state == nullptr) return nullptr;
  if (!Have(Napi::Env(env), state->cu.cuLaunchKernelEx, "cuLaunchKernelEx")) return nullptr;
  uint64_t function = 0;
  uint64_t stream = 0;
  if (!ReadAddressFast(env, argv[0], &function, "function") || !ReadAddressFast(env, argv[1], &stream, "stream")) {
    return nullptr;
  }
  void* data = nullptr;
  size_t length = 0;
  if (napi_get_arraybuffer_info(env, argv[2], &data, &length) != napi_ok || length != kAreaSize) {
    napi_throw_type_error(env, nullptr, "launchKernelArea: area must be the adapter's launch ArrayBuffer");
    return nullptr;
  }
  const auto* words = static_cast<const uint32_t*>(data);
  const size_t count = words[10];
  const size_t byteLength = words[11];
  if (count > kAreaParameters || byteLength > kAreaBytes) {
    napi_throw_range_error(env, nullptr, "launchKernelArea: more parameters or bytes than the area holds");
    return nullptr;
  }
  Launch(env, state, function, words, static_cast<const char*>(data) + kAreaData, byteLength,
         reinterpret_cast<const uint32_t*>(static_cast<const char*>(data) + kAreaOffsets), count, stream);
  return nullptr;
}
CUMEM_BINDING("launchKernelArea", LaunchKernelArea);

CUMEM_OPTIONAL_QUERY_BINDING("occupancyMaxActiveBlocksPerMultiprocessor", OccupancyMaxActiveBlocks,
                             cuOccupancyMaxActiveBlocksPerMultiprocessor, "function", "blockSize", "sharedBytes");

// occupancyMaxPotentialBlockSize(function, sharedBytes, blockSizeLimit) -> [minGridSize, blockSize]
Napi::Value OccupancyMaxPotentialBlockSize(const Napi::CallbackInfo& info) {
  CUMEM_PROLOGUE(info);
  CUMEM_HAVE(cuOccupancyMaxPotentialBlockSize);
  CUMEM_ADDRESS(function, 0);
  CUMEM_SIZE(sharedBytes, 1);
  CUMEM_INT(limit, 2);
  int minGridSize = 0;
  int blockSize = 0;
  // No callback: the dynamic shared memory is the same for every block size.
  CUMEM_CHECK(state->cu.cuOccupancyMaxPotentialBlockSize(&minGridSize, &blockSize, reinterpret_cast<CUfunction>(function),
                                                         nullptr, sharedBytes, limit),
              "cuOccupancyMaxPotentialBlockSize");
  return Pair(env, IntValue(env, minGridSize), IntValue(env, blockSize));
}
CUMEM_BINDING("occupancyMaxPotentialBlockSize", OccupancyMaxPotentialBlockSize);

}  // namespace
}  // namespace cumem
