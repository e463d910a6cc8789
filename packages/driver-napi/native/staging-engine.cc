// The staged-copy engine. The driver's own copy from pageable memory stages through a pinned
// buffer on one thread; here `threads` threads each take a contiguous slice and keep two pinned
// chunks busy: while DMA moves one chunk, the CPU copies the other (memcpy into it for host to
// device, out of it for device to host). Copying out on several threads also spreads the
// first-touch page faults of never-touched destination memory over them. The chunks, streams
// and events are made once per driver and context and kept, so a copy allocates nothing.
#include "staging-engine.h"

#include <pthread.h>

#include <algorithm>
#include <cstring>
#include <mutex>
#include <vector>

namespace cumem {

namespace {

// One thread's resources: a non-blocking stream and two chunks with an event each.
struct StagingWorker {
  CUcontext context = nullptr;
  size_t chunkBytes = 0;
  CUstream stream = nullptr;
  void* chunk[2] = {nullptr, nullptr};
  CUevent done[2] = {nullptr, nullptr};
};

struct Job {
  const EntryPoints* cu = nullptr;
  StagingWorker* worker = nullptr;
  CUcontext context = nullptr;
  char* host = nullptr;
  CUdeviceptr device = 0;
  size_t begin = 0;
  size_t end = 0;
  size_t chunkBytes = 0;
  bool toDevice = true;
  StagingFailure failure;
};

}  // namespace

struct StagingCache {
  std::mutex mutex;
  std::vector<StagingWorker> workers;
  const EntryPoints* cu = nullptr;  // its driver's, to free the workers' resources
};

namespace {

// Every live cache of the process: a primary context is shared by all drivers, so a release
// through one must free what the others keep in it (ReleaseStagingBefore).
std::mutex registryMutex;
std::vector<StagingCache*> registry;

void Release(const EntryPoints& cu, StagingWorker* worker) {
  for (int k = 0; k < 2; k++) {
    if (worker->done[k] != nullptr) cu.cuEventDestroy(worker->done[k]);
    if (worker->chunk[k] != nullptr) cu.cuMemFreeHost(worker->chunk[k]);
    worker->done[k] = nullptr;
    worker->chunk[k] = nullptr;
  }
  if (worker->stream != nullptr) cu.cuStreamDestroy(worker->stream);
  worker->stream = nullptr;
  worker->context = nullptr;
  worker->chunkBytes = 0;
}

// Makes `worker` fit `context` and `chunkBytes`, reusing what it has. Runs on the worker's
// thread with `context` current.
bool Prepare(const EntryPoints& cu, StagingWorker* worker, CUcontext context, size_t chunkBytes, StagingFailure* out) {
  if (worker->stream != nullptr && worker->context == context && worker->chunkBytes == chunkBytes) return true;
  Release(cu, worker);
  CUresult result = cu.cuStreamCreateWithPriority(&worker->stream, CU_STREAM_NON_BLOCKING, 0);
  if (result != CUDA_SUCCESS) {
    worker->stream = nullptr;
    *out = {result, "cuStreamCreateWithPriority"};
    return false;
  }
  for (int k = 0; k < 2; k++) {
    result = cu.cuMemHostAlloc(&worker->chunk[k], chunkBytes, 0);
    if (result != CUDA_SUCCESS) {
      worker->chunk[k] = nullptr;
      *out = {result, "cuMemHostAlloc"};
      Release(cu, worker);
      return false;
    }
    result = cu.cuEventCreate(&worker->done[k], CU_EVENT_DISABLE_TIMING);
    if (result != CUDA_SUCCESS) {
      worker->done[k] = nullptr;
      *out = {result, "cuEventCreate"};
      Release(cu, worker);
      return false;
    }
  }
  worker->context = context;
  worker->chunkBytes = chunkBytes;
  return true;
}

#define STAGE(expression, name)                  \
  do {                                           \
    CUresult stage_result_ = (expression);       \
    if (stage_result_ != CUDA_SUCCESS) {         \
      job->failure = {stage_result_, name};      \
      return;                                    \
    }                                            \
  } while (0)

// Host to device: wait until chunk k's last DMA is done, fill it, queue its DMA.
void ToDevice(Job* job) {
  const EntryPoints& cu = *job->cu;
  StagingWorker* w = job->worker;
  bool pending[2] = {false, false};
  int k = 0;
  for (size_t offset = job->begin; offset < job->end; offset += job->chunkBytes, k ^= 1) {
    const size_t n = std::min(job->chunkBytes, job->end - offset);
    if (pending[k]) STAGE(cu.cuEventSynchronize(w->done[k]), "cuEventSynchronize");
    std::memcpy(w->chunk[k], job->host + offset, n);
    STAGE(cu.cuMemcpyHtoDAsync(job->device + offset, w->chunk[k], n, w->stream), "cuMemcpyHtoDAsync");
    STAGE(cu.cuEventRecord(w->done[k], w->stream), "cuEventRecord");
    pending[k] = true;
  }
}

// Device to host: queue chunk k's DMA, then copy out the other chunk, whose DMA was queued one
// step earlier, so one DMA is always in flight while the CPU copies.
void ToHost(Job* job) {
  const EntryPoints& cu = *job->cu;
  StagingWorker* w = job->worker;
  size_t offsets[2] = {0, 0};
  size_t sizes[2] = {0, 0};
  int k = 0;
  for (size_t offset = job->begin; offset < job->end; offset += job->chunkBytes, k ^= 1) {
    const size_t n = std::min(job->chunkBytes, job->end - offset);
    STAGE(cu.cuMemcpyDtoHAsync(w->chunk[k], job->device + offset, n, w->stream), "cuMemcpyDtoHAsync");
    STAGE(cu.cuEventRecord(w->done[k], w->stream), "cuEventRecord");
    offsets[k] = offset;
    sizes[k] = n;
    const int p = k ^ 1;
    if (sizes[p] != 0) {
      STAGE(cu.cuEventSynchronize(w->done[p]), "cuEventSynchronize");
      std::memcpy(job->host + offsets[p], w->chunk[p], sizes[p]);
      sizes[p] = 0;
    }
  }
  // The last chunk queued is the one before k now.
  for (int p : {k, k ^ 1}) {
    if (sizes[p] == 0) continue;
    STAGE(cu.cuEventSynchronize(w->done[p]), "cuEventSynchronize");
    std::memcpy(job->host + offsets[p], w->chunk[p], sizes[p]);
  }
}

void RunJob(Job* job) {
  const EntryPoints& cu = *job->cu;
  CUresult result = cu.cuCtxSetCurrent(job->context);
  if (result != CUDA_SUCCESS) {
    job->failure = {result, "cuCtxSetCurrent"};
    return;
  }
  if (!Prepare(cu, job->worker, job->context, job->chunkBytes, &job->failure)) return;
  if (job->toDevice) ToDevice(job);
  else ToHost(job);
  // Even after a failure, nothing may stay in flight on the chunks or the caller's memory.
  result = cu.cuStreamSynchronize(job->worker->stream);
  if (result != CUDA_SUCCESS && job->failure.result == CUDA_SUCCESS) job->failure = {result, "cuStreamSynchronize"};
}

void* ThreadMain(void* argument) {
  RunJob(static_cast<Job*>(argument));
  return nullptr;
}

}  // namespace

StagingFailure StagedCopy(DriverState* state, char* host, CUdeviceptr device, size_t bytes, bool toDevice,
                          CUstream stream, size_t chunkBytes, size_t threads) {
  const EntryPoints& cu = state->cu;
  if (bytes == 0) return {};
  CUcontext context = nullptr;
  CUresult result = cu.cuCtxGetCurrent(&context);
  if (result != CUDA_SUCCESS) return {result, "cuCtxGetCurrent"};
  if (context == nullptr) return {CUDA_ERROR_INVALID_CONTEXT, "cuCtxGetCurrent"};
  // Work queued before the copy (a kernel writing the source, a fill) finishes first.
  result = cu.cuStreamSynchronize(stream);
  if (result != CUDA_SUCCESS) return {result, "cuStreamSynchronize"};

  if (state->staging == nullptr) {
    state->staging = new StagingCache();
    state->staging->cu = &cu;
    std::lock_guard<std::mutex> registryLock(registryMutex);
    registry.push_back(state->staging);
  }
  std::lock_guard<std::mutex> lock(state->staging->mutex);
  std::vector<StagingWorker>& workers = state->staging->workers;
  // Slices of whole chunks, dealt as evenly as they go (as stagedCopySlices in @cumem/core-types).
  const size_t chunks = (bytes + chunkBytes - 1) / chunkBytes;
  const size_t used = std::min(threads, chunks);
  if (workers.size() < used) workers.resize(used);
  std::vector<Job> jobs(used);
  size_t begin = 0;
  for (size_t index = 0; index < used; index++) {
    const size_t count = chunks / used + (index < chunks % used ? 1 : 0);
    const size_t end = std::min(bytes, begin + count * chunkBytes);
    jobs[index] = Job{&cu, &workers[index], context, host, device, begin, end, chunkBytes, toDevice, {}};
    begin = end;
  }
  // The caller's thread runs slice 0; a thread that cannot be started runs its slice here too.
  std::vector<pthread_t> handles(used);
  std::vector<bool> started(used, false);
  for (size_t index = 1; index < used; index++) {
    started[index] = pthread_create(&handles[index], nullptr, ThreadMain, &jobs[index]) == 0;
  }
  RunJob(&jobs[0]);
  for (size_t index = 1; index < used; index++) {
    if (started[index]) pthread_join(handles[index], nullptr);
    else RunJob(&jobs[index]);
  }
  for (const Job& job : jobs) {
    if (job.failure.result != CUDA_SUCCESS) return job.failure;
  }
  return {};
}

void ReleaseStagingBefore(DriverState* state, CUdevice device) {
  std::lock_guard<std::mutex> registryLock(registryMutex);
  bool held = false;
  for (StagingCache* cache : registry) {
    std::lock_guard<std::mutex> lock(cache->mutex);
    for (const StagingWorker& worker : cache->workers) held = held || worker.context != nullptr;
  }
  if (!held) return;
  const EntryPoints& cu = state->cu;
  CUcontext context = nullptr;
  CUcontext previous = nullptr;
  // A reference of our own keeps the context alive while its chunks are freed.
  if (cu.cuDevicePrimaryCtxRetain(&context, device) != CUDA_SUCCESS) return;
  if (cu.cuCtxGetCurrent(&previous) == CUDA_SUCCESS && cu.cuCtxSetCurrent(context) == CUDA_SUCCESS) {
    for (StagingCache* cache : registry) {
      std::lock_guard<std::mutex> lock(cache->mutex);
      for (StagingWorker& worker : cache->workers) {
        if (worker.context == context) Release(*cache->cu, &worker);
      }
    }
    cu.cuCtxSetCurrent(previous);
  }
  cu.cuDevicePrimaryCtxRelease(device);
}

void FreeStaging(DriverState* state) {
  if (state->staging == nullptr) return;
  {
    std::lock_guard<std::mutex> registryLock(registryMutex);
    registry.erase(std::remove(registry.begin(), registry.end(), state->staging), registry.end());
  }
  const EntryPoints& cu = state->cu;
  CUcontext previous = nullptr;
  if (state->status == LoadStatus::Ready && cu.cuCtxGetCurrent(&previous) == CUDA_SUCCESS) {
    for (StagingWorker& worker : state->staging->workers) {
      if (worker.context == nullptr) continue;
      // The pinned chunks belong to the worker's context: free them with it current.
      if (cu.cuCtxSetCurrent(worker.context) == CUDA_SUCCESS) Release(cu, &worker);
    }
    cu.cuCtxSetCurrent(previous);
  }
  delete state->staging;
  state->staging = nullptr;
}

}  // namespace cumem
