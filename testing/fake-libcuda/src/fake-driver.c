/* Driver, devices, contexts, streams and events of the fake (CUDA 13.0 forms; cuda.h maps
 * each name to the versioned symbol the adapters bind, so the compiler checks every prototype). */
#include <cuda.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "fake-memory.h"
#include "fake-record.h"

#define env_int fake_env_int

static __thread CUcontext current_context;

CUresult CUDAAPI cuInit(unsigned int Flags) { return Flags == 0 ? (CUresult)env_int("FAKE_CUDA_INIT_RESULT", 0) : CUDA_ERROR_INVALID_VALUE; }
CUresult CUDAAPI cuDriverGetVersion(int *v) { *v = env_int("FAKE_CUDA_VERSION", 13000); return CUDA_SUCCESS; }

static const char *error_name(CUresult e) {
  switch (e) {
    case CUDA_SUCCESS: return "CUDA_SUCCESS";
    case CUDA_ERROR_INVALID_VALUE: return "CUDA_ERROR_INVALID_VALUE";
    case CUDA_ERROR_OUT_OF_MEMORY: return "CUDA_ERROR_OUT_OF_MEMORY";
    case CUDA_ERROR_NO_DEVICE: return "CUDA_ERROR_NO_DEVICE";
    case CUDA_ERROR_INVALID_DEVICE: return "CUDA_ERROR_INVALID_DEVICE";
    case CUDA_ERROR_INVALID_HANDLE: return "CUDA_ERROR_INVALID_HANDLE";
    case CUDA_ERROR_NOT_SUPPORTED: return "CUDA_ERROR_NOT_SUPPORTED";
    case CUDA_ERROR_NOT_READY: return "CUDA_ERROR_NOT_READY";
    case CUDA_ERROR_ILLEGAL_ADDRESS: return "CUDA_ERROR_ILLEGAL_ADDRESS";
    case CUDA_ERROR_INVALID_CONTEXT: return "CUDA_ERROR_INVALID_CONTEXT";
    case CUDA_ERROR_NOT_FOUND: return "CUDA_ERROR_NOT_FOUND";
    case CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED: return "CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED";
    case CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED: return "CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED";
    case CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED: return "CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED";
    case CUDA_ERROR_UNKNOWN: return "CUDA_ERROR_UNKNOWN";
    default: return NULL;
  }
}
CUresult CUDAAPI cuGetErrorName(CUresult e, const char **s) {
  *s = error_name(e);
  return *s ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}
CUresult CUDAAPI cuGetErrorString(CUresult e, const char **s) {
  if (!error_name(e)) { *s = NULL; return CUDA_ERROR_INVALID_VALUE; }
  *s = e == CUDA_ERROR_ILLEGAL_ADDRESS ? "an illegal memory access was encountered"
       : e == CUDA_ERROR_INVALID_VALUE ? "invalid argument"
       : "fake description";
  return CUDA_SUCCESS;
}

static int device_ok(CUdevice d) { return d >= FAKE_DEVICE_BASE && d < FAKE_DEVICE_BASE + FAKE_DEVICES; }
/* Recorded (id = the ordinal, device = the handle) so the tests can see the adapters cache it. */
CUresult CUDAAPI cuDeviceGet(CUdevice *d, int ordinal) {
  fake_record("cuDeviceGet", (FakeRecord){ .id = ordinal, .device = FAKE_DEVICE_BASE + ordinal });
  if (ordinal < 0 || ordinal >= FAKE_DEVICES) return CUDA_ERROR_INVALID_DEVICE;
  *d = FAKE_DEVICE_BASE + ordinal; return CUDA_SUCCESS;
}
CUresult CUDAAPI cuDeviceGetCount(int *count) { *count = FAKE_DEVICES; return CUDA_SUCCESS; }
CUresult CUDAAPI cuDeviceGetName(char *name, int len, CUdevice d) {
  if (!device_ok(d) || len <= 0) return CUDA_ERROR_INVALID_VALUE;
  snprintf(name, (size_t)len, "Fake GPU %d", d - FAKE_DEVICE_BASE);
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuDeviceGetUuid(CUuuid *uuid, CUdevice d) {
  if (!device_ok(d)) return CUDA_ERROR_INVALID_DEVICE;
  for (int i = 0; i < 16; i++) uuid->bytes[i] = (char)(i * 16 + d - FAKE_DEVICE_BASE);
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuDeviceTotalMem(size_t *bytes, CUdevice d) { if (!device_ok(d)) return CUDA_ERROR_INVALID_DEVICE; *bytes = (size_t)80 << 30; return CUDA_SUCCESS; }
/* A Hopper-like device: what @cumem/memory asks about (pools, managed memory, IPC) is supported. */
CUresult CUDAAPI cuDeviceGetAttribute(int *pi, CUdevice_attribute a, CUdevice d) {
  if (!device_ok(d)) return CUDA_ERROR_INVALID_DEVICE;
  switch (a) {
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR: *pi = 9; break;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR: *pi = 0; break;
    case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT: *pi = 132; break;
    case CU_DEVICE_ATTRIBUTE_WARP_SIZE: *pi = 32; break;
    case CU_DEVICE_ATTRIBUTE_PCI_BUS_ID: *pi = d - FAKE_DEVICE_BASE + 1; break;
    case CU_DEVICE_ATTRIBUTE_HOST_NUMA_ID: *pi = 0; break;
    default: *pi = 1; break;
  }
  return CUDA_SUCCESS;
}

/* With FAKE_CUDA_PRIMARY_RESET=1, the last release resets the primary context as CUDA does:
 * its pinned memory is freed (all of it: the fake does not record which context made it), while
 * the next retain returns the same handle, as CUDA's does. */
static int primary_retains[FAKE_DEVICES];
CUresult CUDAAPI cuDevicePrimaryCtxRetain(CUcontext *c, CUdevice d) { if (!device_ok(d)) return CUDA_ERROR_INVALID_DEVICE; primary_retains[d - FAKE_DEVICE_BASE]++; *c = (CUcontext)(uintptr_t)(0xC000 + d); return CUDA_SUCCESS; }
CUresult CUDAAPI cuDevicePrimaryCtxRelease(CUdevice d) {
  if (!device_ok(d)) return CUDA_ERROR_INVALID_DEVICE;
  const char *reset = getenv("FAKE_CUDA_PRIMARY_RESET");
  if (primary_retains[d - FAKE_DEVICE_BASE] > 0 && --primary_retains[d - FAKE_DEVICE_BASE] == 0 && reset && reset[0] == '1') fake_release_all(FAKE_HOST);
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuCtxSetCurrent(CUcontext c) { current_context = c; return CUDA_SUCCESS; }
CUresult CUDAAPI cuCtxGetCurrent(CUcontext *c) { *c = current_context; return CUDA_SUCCESS; }
CUresult CUDAAPI cuCtxGetDevice(CUdevice *d) {
  if (!current_context) return CUDA_ERROR_INVALID_CONTEXT;
  *d = (CUdevice)((uintptr_t)current_context - 0xC000); return CUDA_SUCCESS;
}
/* The device ordinal of the current context, for allocations. */
int fake_current_ordinal(void);
int fake_current_ordinal(void) { return current_context ? (int)((uintptr_t)current_context - 0xC000) - FAKE_DEVICE_BASE : 0; }
CUresult CUDAAPI cuCtxSynchronize(void) { return CUDA_SUCCESS; }
CUresult CUDAAPI cuMemGetInfo(size_t *f, size_t *t) { *f = (size_t)3 << 30; *t = (size_t)80 << 30; return CUDA_SUCCESS; }
CUresult CUDAAPI cuCtxGetStreamPriorityRange(int *least, int *greatest) { *least = 0; *greatest = -5; return CUDA_SUCCESS; }

/* Streams and events are small objects that fault once destroyed in hostile mode: every call
 * reads the object first, so a call on a destroyed handle crashes as a use-after-free would. */
typedef struct FakeStream { int64_t flags; int64_t priority; } FakeStream;
typedef struct FakeEvent { int64_t flags; int64_t recorded; int64_t per_thread; } FakeEvent;
/* 0, CU_STREAM_LEGACY (1) and CU_STREAM_PER_THREAD (2) are special handles, not objects. */
static void touch_stream(CUstream s) { if ((uintptr_t)s > 2) { volatile int64_t f = ((FakeStream *)s)->flags; (void)f; } }
static void touch_event(CUevent e) { volatile int64_t f = ((FakeEvent *)e)->flags; (void)f; }
/* Work on CU_STREAM_PER_THREAD is recorded with the calling thread (id), the one stream whose
 * meaning depends on it: the tests check that a wait on it concerns the waiting thread. */
static void record_per_thread(const char *symbol, CUstream s, CUevent e) {
  if ((uintptr_t)s != 2) return;
  fake_record(symbol, (FakeRecord){ .pointer = (int64_t)(uintptr_t)e, .size = 2, .id = (int64_t)syscall(SYS_gettid) });
}

CUresult CUDAAPI cuStreamCreateWithPriority(CUstream *s, unsigned int flags, int priority) {
  FakeStream *stream = fake_object(sizeof *stream);
  if (!stream) return CUDA_ERROR_OUT_OF_MEMORY;
  stream->flags = flags; stream->priority = priority; *s = (CUstream)stream; return CUDA_SUCCESS;
}
CUresult CUDAAPI cuStreamCreate(CUstream *s, unsigned int flags) { return cuStreamCreateWithPriority(s, flags, 0); }
CUresult CUDAAPI cuStreamDestroy(CUstream s) { if (!s) return CUDA_ERROR_INVALID_HANDLE; touch_stream(s); fake_object_free(s, sizeof(FakeStream)); return CUDA_SUCCESS; }
CUresult CUDAAPI cuStreamSynchronize(CUstream s) {
  touch_stream(s);
  record_per_thread("cuStreamSynchronize", s, NULL);
  usleep((useconds_t)env_int("FAKE_CUDA_SYNC_US", 2000)); /* long enough for the event loop to run */
  touch_stream(s);
  return fake_injected("cuStreamSynchronize");
}
CUresult CUDAAPI cuStreamQuery(CUstream s) {
  touch_stream(s);
  record_per_thread("cuStreamQuery", s, NULL);
  CUresult injected = fake_injected("cuStreamQuery");
  if (injected) return injected;
  return fake_busy(0) ? CUDA_ERROR_NOT_READY : CUDA_SUCCESS;
}
/* Events alive now (created, not destroyed), for leak checks: `int fake_live_events(void)`. */
static int live_events;
int fake_live_events(void);
int fake_live_events(void) { return __atomic_load_n(&live_events, __ATOMIC_SEQ_CST); }

CUresult CUDAAPI cuStreamWaitEvent(CUstream s, CUevent e, unsigned int f) { touch_stream(s); touch_event(e); return f == 0 ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE; }
CUresult CUDAAPI cuEventCreate(CUevent *e, unsigned int flags) {
  FakeEvent *event = fake_object(sizeof *event);
  if (!event) return CUDA_ERROR_OUT_OF_MEMORY;
  event->flags = flags; *e = (CUevent)event;
  __atomic_add_fetch(&live_events, 1, __ATOMIC_SEQ_CST);
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuEventDestroy(CUevent e) {
  if (!e) return CUDA_ERROR_INVALID_HANDLE;
  touch_event(e);
  if (((FakeEvent *)e)->per_thread) fake_record("cuEventDestroy", (FakeRecord){ .pointer = (int64_t)(uintptr_t)e });
  fake_object_free(e, sizeof(FakeEvent));
  __atomic_sub_fetch(&live_events, 1, __ATOMIC_SEQ_CST);
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuEventRecord(CUevent e, CUstream s) {
  touch_stream(s);
  ((FakeEvent *)e)->recorded++;
  if ((uintptr_t)s == 2) ((FakeEvent *)e)->per_thread = 1;
  record_per_thread("cuEventRecord", s, e);
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuEventSynchronize(CUevent e) {
  touch_event(e);
  usleep((useconds_t)env_int("FAKE_CUDA_SYNC_US", 2000));
  touch_event(e);
  return fake_injected("cuEventSynchronize");
}
CUresult CUDAAPI cuEventQuery(CUevent e) {
  touch_event(e);
  CUresult injected = fake_injected("cuEventQuery");
  if (injected) return injected;
  return fake_busy(1) ? CUDA_ERROR_NOT_READY : CUDA_SUCCESS;
}
CUresult CUDAAPI cuEventElapsedTime(float *ms, CUevent a, CUevent b) {
  touch_event(a); touch_event(b);
  fake_record("cuEventElapsedTime_v2", (FakeRecord){ 0 });
  *ms = 1.5f; return CUDA_SUCCESS;
}

/* The adapters fall back to each entry point's exported, versioned symbol when this finds
 * nothing, so the fake answers "not found" and keeps one definition per ABI. The request (name
 * and ABI version) is logged: which ABI the N-API adapter asks each entry point at is its test. */
CUresult CUDAAPI cuGetProcAddress(const char *symbol, void **pfn, int version, cuuint64_t flags,
                                  CUdriverProcAddressQueryResult *status) {
  (void)flags;
  fake_record_request(symbol, version);
  *pfn = NULL;
  if (status) *status = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
  return CUDA_ERROR_NOT_FOUND;
}

/* Peers: every fake device reaches every other one (all memory is host memory). Attribute
 * queries are recorded (advice: attribute, device: source ordinal, id: destination ordinal);
 * enabling a peer twice answers ALREADY_ENABLED, as the driver does. */
static int peer_enabled[FAKE_DEVICES][FAKE_DEVICES];
CUresult CUDAAPI cuDeviceCanAccessPeer(int *can, CUdevice d, CUdevice peer) {
  if (!device_ok(d) || !device_ok(peer)) return CUDA_ERROR_INVALID_DEVICE;
  *can = d != peer; return CUDA_SUCCESS;
}
CUresult CUDAAPI cuDeviceGetP2PAttribute(int *value, CUdevice_P2PAttribute a, CUdevice src, CUdevice dst) {
  (void)a;
  if (!device_ok(src) || !device_ok(dst) || src == dst) return CUDA_ERROR_INVALID_DEVICE;
  fake_record("cuDeviceGetP2PAttribute", (FakeRecord){ .advice = a, .device = src - FAKE_DEVICE_BASE, .id = dst - FAKE_DEVICE_BASE });
  *value = 1; return CUDA_SUCCESS;
}
CUresult CUDAAPI cuCtxEnablePeerAccess(CUcontext peer, unsigned int flags) {
  if (!current_context) return CUDA_ERROR_INVALID_CONTEXT;
  int self = fake_current_ordinal(), other = (int)((uintptr_t)peer - 0xC000) - FAKE_DEVICE_BASE;
  if (flags || self < 0 || self >= FAKE_DEVICES || other < 0 || other >= FAKE_DEVICES || other == self) return CUDA_ERROR_INVALID_VALUE;
  if (peer_enabled[self][other]) return CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED;
  peer_enabled[self][other] = 1; return CUDA_SUCCESS;
}
