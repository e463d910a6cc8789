/* A host-memory stand-in for libcuda, for tests of the ffi adapter on machines without a GPU.
 * Every entry point is defined against the real cuda.h prototypes, so the compiler checks that
 * the adapter's table and this file agree with NVIDIA's header. "Device" memory is malloc'd. */
#ifndef FAKE_STATE_H
#define FAKE_STATE_H
#include <stdint.h>

/* What the last advise/prefetch/batch call received, read by the tests through fake_last(). */
typedef struct FakeLast {
  int64_t call;      /* which entry point: see FAKE_CALL_* */
  int64_t pointer;
  int64_t size;
  int64_t advice;
  int64_t location_type;
  int64_t location_id;
  int64_t device;    /* the CUdevice argument of the CUDA 8.0 forms */
  int64_t count;
  int64_t extra;     /* numAttrs / numPrefetchLocs / fd / flags, per call */
} FakeLast;

enum {
  FAKE_CALL_ADVISE_V2 = 1, FAKE_CALL_ADVISE_V1, FAKE_CALL_PREFETCH_V2, FAKE_CALL_PREFETCH_V1,
  FAKE_CALL_PREFETCH_BATCH, FAKE_CALL_DISCARD_BATCH, FAKE_CALL_DISCARD_PREFETCH_BATCH,
  FAKE_CALL_MEMCPY_BATCH_V2, FAKE_CALL_MEMCPY_BATCH_V1, FAKE_CALL_POOL_IMPORT_FD, FAKE_CALL_POOL_CREATE,
  FAKE_CALL_ELAPSED_V2, FAKE_CALL_ELAPSED_V1, FAKE_CALL_POOL_ACCESS
};

extern FakeLast fake_last_call;
void fake_last(FakeLast *out);
#endif
