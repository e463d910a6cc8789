// CUmemLocation rules shared by pools and managed memory: which location types the loaded
// driver (or the 'legacy' mode) accepts, and the CUDA 12.0 ordinal form of a location.
#pragma once

#include <string>

#include "binding-support.h"

namespace cumem {

// Numeric values of cuda.h >= 12.2, spelled out so older headers compile too.
constexpr int kHostNuma = 3;         // CU_MEM_LOCATION_TYPE_HOST_NUMA
constexpr int kHostNumaCurrent = 4;  // CU_MEM_LOCATION_TYPE_HOST_NUMA_CURRENT
constexpr int kManagedAllocation = 2;  // CU_MEM_ALLOCATION_TYPE_MANAGED (CUDA 13)

/**
 * "(capabilities.<flag> is false: ...)" — the tail of every NotSupportedError message, word for
 * word driver-kit's capabilityNote (packages/driver-kit/src/refusals.ts): both adapters refuse
 * alike, and the N-API adapter's tests compare the two.
 */
inline std::string ModeNote(const DriverState* state, const char* flag) {
  std::string note = std::string("(capabilities.") + flag + " is false: ";
  if (state->legacy) return note + "createDriver({ entryPoints: 'legacy' }) uses the CUDA 12.0 entry points)";
  return note + "the loaded driver is " + std::to_string(state->driverVersion / 1000) + "." +
         std::to_string((state->driverVersion % 1000) / 10) + ")";
}

/** Refuses host NUMA location types when the driver (or mode) lacks them, before any driver call. */
inline bool CheckLocation(napi_env env, const DriverState* state, int type, const char* call) {
  if ((type == kHostNuma || type == kHostNumaCurrent) && !state->capabilities.hostNumaLocations) {
    ThrowNotSupported(Napi::Env(env), std::string(call) +
                                          ": a host NUMA location (HostNuma, HostNumaCurrent) needs a CUDA 13.0 "
                                          "driver " +
                                          ModeNote(state, "hostNumaLocations"));
    return false;
  }
  return true;
}

/**
 * The CUdevice argument of the CUDA 12.0 forms of cuMemAdvise / cuMemPrefetchAsync:
 * a device ordinal, CU_DEVICE_CPU for the host, CU_DEVICE_INVALID for "no location".
 */
inline CUdevice LegacyDevice(int type, int id) {
  if (type == CU_MEM_LOCATION_TYPE_DEVICE) return id;
  if (type == CU_MEM_LOCATION_TYPE_HOST) return CU_DEVICE_CPU;
  return CU_DEVICE_INVALID;
}

}  // namespace cumem
