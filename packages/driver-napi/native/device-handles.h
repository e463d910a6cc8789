// Ordinals and CUdevice handles. The contract speaks ordinals; the driver's device arguments and
// cuCtxGetDevice's answer are CUdevice handles, which only cuDeviceGet maps an ordinal to (they
// coincide on NVIDIA's drivers so far, but nothing promises it). Cached per driver, so that the hot
// paths that need a handle (the 'legacy' advice and prefetch, contextGetDevice) make no extra
// driver call after the first; the FFI adapter keeps the same cache (src/ffi-devices.ts).
#pragma once

#include <climits>

#include "driver-state.h"

namespace cumem {

constexpr CUdevice kUnknownDevice = INT_MIN;
// Ordinals from here on are looked up every time (no real system has that many devices).
constexpr int kCachedOrdinals = 4096;

/** The CUdevice of `ordinal`: cuDeviceGet once, then the cache. Returns cuDeviceGet's result. */
inline CUresult DeviceOf(DriverState* state, int ordinal, CUdevice* out) {
  const bool cacheable = ordinal >= 0 && ordinal < kCachedOrdinals;
  if (cacheable && static_cast<size_t>(ordinal) < state->devices.size() &&
      state->devices[static_cast<size_t>(ordinal)] != kUnknownDevice) {
    *out = state->devices[static_cast<size_t>(ordinal)];
    return CUDA_SUCCESS;
  }
  const CUresult result = state->cu.cuDeviceGet(out, ordinal);
  if (result == CUDA_SUCCESS && cacheable) {
    if (state->devices.size() <= static_cast<size_t>(ordinal)) {
      state->devices.resize(static_cast<size_t>(ordinal) + 1, kUnknownDevice);
    }
    state->devices[static_cast<size_t>(ordinal)] = *out;
  }
  return result;
}

/**
 * The ordinal of `device`: its index among the handles cuDeviceGet gave. A handle not seen yet makes
 * the addon ask cuDeviceGet for every ordinal once; one no ordinal maps to is returned as it is.
 */
inline int OrdinalOf(DriverState* state, CUdevice device) {
  for (int pass = 0; pass < 2; pass++) {
    for (size_t i = 0; i < state->devices.size(); i++) {
      if (state->devices[i] == device) return static_cast<int>(i);
    }
    if (pass == 1) break;
    int count = 0;
    if (state->cu.cuDeviceGetCount(&count) != CUDA_SUCCESS) break;
    for (int ordinal = 0; ordinal < count && ordinal < kCachedOrdinals; ordinal++) {
      CUdevice ignored;
      DeviceOf(state, ordinal, &ignored);
    }
  }
  return device;
}

// The ordinal -> CUdevice step of every binding that takes a device ordinal (cuDeviceGet, cached;
// CUMEM_INT / CUMEM_CHECK come from binding-support.h). A bad ordinal is reported under `call`, the
// entry point the caller asked for, as the FFI adapter does: cuDeviceGet is this adapter's detail,
// and each of those entry points documents the same CUDA_ERROR_INVALID_DEVICE.
#define CUMEM_DEVICE(variable, index, call) \
  CUMEM_INT(variable##Ordinal, index);      \
  CUdevice variable;                        \
  CUMEM_CHECK(DeviceOf(state, variable##Ordinal, &variable), call)

}  // namespace cumem
