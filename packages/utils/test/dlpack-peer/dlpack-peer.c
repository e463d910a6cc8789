/*
 * A DLPack peer that is not cumem, for packages/utils/test/dlpack-peer.test.ts: built by that
 * test on the GPU machine against the dlpack.h PyTorch or CuPy ships (so the struct layout is
 * the ecosystem's), linked with the CUDA driver, and loaded with koffi.
 *
 *  - peer_consume takes ownership of a DLManagedTensorVersioned, reports its fields, reads its
 *    bytes with cuMemcpyDtoH, and calls its deleter from another thread (joined).
 *  - peer_produce makes a DLManagedTensorVersioned over device memory; its deleter counts its
 *    calls (peer_deleter_calls).
 */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <stddef.h>
#include <string.h>

#include "dlpack.h"

/* The driver entry points used, declared here so no cuda.h is needed (cuda.h's ABI). */
typedef unsigned long long CUdeviceptr_peer;
extern int cuMemcpyDtoH_v2(void *dst, CUdeviceptr_peer src, size_t bytes);
extern int cuPointerGetAttribute(void *data, int attribute, CUdeviceptr_peer pointer);
#define PEER_POINTER_ATTRIBUTE_DEVICE_ORDINAL 9

static void *call_deleter(void *arg) {
  DLManagedTensorVersioned *tensor = (DLManagedTensorVersioned *)arg;
  tensor->deleter(tensor);
  return NULL;
}

/*
 * info: version major, minor, flags (low 32 bits), device type, device id, ndim, dtype code,
 * bits, lanes. shape/strides: ndim entries each (at most 8). bytes: the first `count` bytes at
 * data + byte_offset. Returns 0, or a negative step number that failed.
 */
int peer_consume(DLManagedTensorVersioned *tensor, int64_t *info, int64_t *shape, int64_t *strides,
                 uint8_t *bytes, size_t count) {
  if (tensor == NULL) return -1;
  const DLTensor *t = &tensor->dl_tensor;
  info[0] = tensor->version.major;
  info[1] = tensor->version.minor;
  info[2] = (int64_t)(tensor->flags & 0xffffffffu);
  info[3] = t->device.device_type;
  info[4] = t->device.device_id;
  info[5] = t->ndim;
  info[6] = t->dtype.code;
  info[7] = t->dtype.bits;
  info[8] = t->dtype.lanes;
  if (t->ndim > 8) return -2;
  for (int axis = 0; axis < t->ndim; axis++) {
    shape[axis] = t->shape[axis];
    strides[axis] = t->strides == NULL ? 0 : t->strides[axis];
  }
  CUdeviceptr_peer start = (CUdeviceptr_peer)(uintptr_t)t->data + t->byte_offset;
  if (count > 0 && cuMemcpyDtoH_v2(bytes, start, count) != 0) return -3;
  if (tensor->deleter == NULL) return 0;
  pthread_t thread;
  if (pthread_create(&thread, NULL, call_deleter, tensor) != 0) return -4;
  if (pthread_join(thread, NULL) != 0) return -5;
  return 0;
}

static int deleter_calls = 0;

typedef struct {
  DLManagedTensorVersioned tensor;
  int64_t shape[2];
  int64_t strides[2];
} PeerTensor;

static void peer_deleter(DLManagedTensorVersioned *self) {
  __atomic_add_fetch(&deleter_calls, 1, __ATOMIC_SEQ_CST);
  free(self->manager_ctx);
}

/* A read-only rows x cols float32 tensor in Fortran order over `data`; NULL on failure. */
DLManagedTensorVersioned *peer_produce(CUdeviceptr_peer data, int64_t rows, int64_t cols) {
  int ordinal = -1;
  if (cuPointerGetAttribute(&ordinal, PEER_POINTER_ATTRIBUTE_DEVICE_ORDINAL, data) != 0) return NULL;
  PeerTensor *peer = (PeerTensor *)calloc(1, sizeof(PeerTensor));
  if (peer == NULL) return NULL;
  peer->shape[0] = rows;
  peer->shape[1] = cols;
  peer->strides[0] = 1;
  peer->strides[1] = rows;
  DLManagedTensorVersioned *t = &peer->tensor;
  t->version.major = DLPACK_MAJOR_VERSION;
  t->version.minor = DLPACK_MINOR_VERSION;
  t->manager_ctx = peer;
  t->deleter = peer_deleter;
  t->flags = DLPACK_FLAG_BITMASK_READ_ONLY;
  t->dl_tensor.data = (void *)(uintptr_t)data;
  t->dl_tensor.device.device_type = kDLCUDA;
  t->dl_tensor.device.device_id = ordinal;
  t->dl_tensor.ndim = 2;
  t->dl_tensor.dtype.code = kDLFloat;
  t->dl_tensor.dtype.bits = 32;
  t->dl_tensor.dtype.lanes = 1;
  t->dl_tensor.shape = peer->shape;
  t->dl_tensor.strides = peer->strides;
  t->dl_tensor.byte_offset = 0;
  return t;
}

int peer_deleter_calls(void) { return __atomic_load_n(&deleter_calls, __ATOMIC_SEQ_CST); }

/* sizeof and offsets as this dlpack.h lays them out, for the test to compare with cumem's. */
void peer_layout(int64_t *out) {
  out[0] = (int64_t)sizeof(DLManagedTensorVersioned);
  out[1] = (int64_t)offsetof(DLManagedTensorVersioned, deleter);
  out[2] = (int64_t)offsetof(DLManagedTensorVersioned, flags);
  out[3] = (int64_t)offsetof(DLManagedTensorVersioned, dl_tensor);
  out[4] = (int64_t)offsetof(DLTensor, byte_offset);
  out[5] = (int64_t)sizeof(DLManagedTensor);
}
