// CUmemLocation rules shared by pools and managed memory: which location types the loaded
// driver (or the 'legacy' mode) accepts, and the CUDA 12.0 ordinal form of a location.
#pragma once

#include <string>

#include "binding-support.h"
#include "device-handles.h"

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
 * The CUdevice argument of the CUDA 12.0 forms of cuMemAdvise / cuMemPrefetchAsync: the handle
 * cuDeviceGet gives for a Device location's ordinal, CU_DEVICE_CPU for the host,
 * CU_DEVICE_INVALID for "no location". Returns cuDeviceGet's result (a bad ordinal).
 */
inline CUresult LegacyDevice(DriverState* state, int type, int id, CUdevice* out) {
  if (type == CU_MEM_LOCATION_TYPE_DEVICE) return DeviceOf(state, id, out);
  *out = type == CU_MEM_LOCATION_TYPE_HOST ? CU_DEVICE_CPU : CU_DEVICE_INVALID;
  return CUDA_SUCCESS;
}

/**
 * The id cumem passes in a CUmemLocation: 0 for Host, whose id cuda.h documents as ignored (and
 * the CUDA 8.0 forms this emulates in 'legacy' mode cannot name), else the id as given. Word for
 * word driver-kit's driverLocationId (packages/driver-kit/src/location-forms.ts).
 */
inline int DriverLocationId(int type, int id) { return type == CU_MEM_LOCATION_TYPE_HOST ? 0 : id; }

/** The CUmemLocation (type, id), as given. */
inline CUmemLocation LocationOf(int type, int id) {
  CUmemLocation location;
  location.type = static_cast<CUmemLocationType>(type);
  location.id = id;
  return location;
}

/** The CUmemLocation cumem passes to advise and prefetch: (type, DriverLocationId(type, id)). */
inline CUmemLocation DriverLocation(int type, int id) { return LocationOf(type, DriverLocationId(type, id)); }

}  // namespace cumem

// Arguments `index` and `index + 1` (locationType, locationId) as the CUmemLocation `variable`,
// after CheckLocation's refusal of what the driver lacks (reported under `call`).
#define CUMEM_LOCATION(variable, index, call)                                       \
  CUMEM_INT(locationType, index);                                                   \
  CUMEM_INT(locationId, (index) + 1);                                               \
  if (!::cumem::CheckLocation(env, state, locationType, call)) return Napi::Value(); \
  CUmemLocation variable = ::cumem::LocationOf(locationType, locationId)
