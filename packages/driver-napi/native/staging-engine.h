// The staged-copy engine: copies between pageable host memory and device memory through
// page-locked chunks on native threads (see staging-engine.cc for the pipeline).
#pragma once

#include <cstddef>

#include "driver-state.h"

namespace cumem {

/** What a staged copy failed on: the first driver error any thread saw, and its entry point. */
struct StagingFailure {
  CUresult result = CUDA_SUCCESS;
  const char* call = nullptr;
};

/**
 * Copies `bytes` between `host` and `device` (`toDevice`: host to device) in the calling
 * thread's current context, after the work queued on `stream`. Uses up to `threads` threads
 * (the caller's among them), each with two pinned chunks of `chunkBytes`, kept in `state` for
 * the next copy. Returns when every byte has arrived, or with the first failure.
 */
StagingFailure StagedCopy(DriverState* state, char* host, CUdeviceptr device, size_t bytes, bool toDevice,
                          CUstream stream, size_t chunkBytes, size_t threads);

/**
 * Before a reference to `device`'s primary context is dropped: frees what the staging threads
 * of every driver keep in it, while it certainly lives. The last release resets the context
 * (its pinned memory freed) and the next retain returns the same handle, so chunks kept across
 * it would be used after they were freed. Does nothing unless some worker keeps resources.
 */
void ReleaseStagingBefore(DriverState* state, CUdevice device);

/** Frees the pinned chunks, streams and events `state` keeps (when the driver object goes). */
void FreeStaging(DriverState* state);

}  // namespace cumem
