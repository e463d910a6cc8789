/* The fake's memory: every allocation is its own mapping, so the fake can make freed memory
 * fault. With FAKE_CUDA_HOSTILE=1, a free makes the pages PROT_NONE at once and the next
 * allocation of the same page-rounded size reuses that address (fresh zeroed pages), so a
 * use-after-free through a stale host view SIGSEGVs, or lands in another allocation's bytes.
 * Without it, memory comes from calloc/free, which AddressSanitizer watches when preloaded. */
#ifndef FAKE_MEMORY_H
#define FAKE_MEMORY_H
#include <cuda.h>
#include <stddef.h>
#include <stdint.h>

enum FakeKind { FAKE_DEVICE = 1, FAKE_HOST = 2, FAKE_MANAGED = 3 };

typedef struct FakePool {
  int location_type; /* CUmemLocationType */
  int location_id;
  int handle_types;
  int is_default;
  int64_t attributes[16];
} FakePool;

typedef struct FakeAllocation {
  uintptr_t base;
  size_t size;      /* what the caller asked for */
  size_t mapped;    /* page-rounded */
  int kind;
  int device;       /* -1 for host */
  FakePool *pool;   /* NULL outside pools */
  int pages;        /* mmap'd pages (hostile mode, or FAKE_LARGE_ALLOCATION and over), else calloc */
} FakeAllocation;

#define FAKE_LARGE_ALLOCATION ((size_t)1 << 30)

int fake_hostile(void);
/* Allocates and records; returns 0 on failure. */
uintptr_t fake_allocate(size_t size, int kind, int device, FakePool *pool);
/* Frees a recorded allocation; CUDA_ERROR_INVALID_VALUE when `base` is not one. */
CUresult fake_release(uintptr_t base, int kind);
/* Frees every live allocation of `kind` (a primary context reset frees its pinned memory). */
void fake_release_all(int kind);
/* The live allocation containing `address`, or NULL. */
const FakeAllocation *fake_find(uintptr_t address);
/* A small handle object (stream, event, pool) that faults once destroyed in hostile mode. */
void *fake_object(size_t size);
void fake_object_free(void *object, size_t size);
/* CUdevice handles are ordinal + 100, to prove the adapters map ordinals with cuDeviceGet. */
#define FAKE_DEVICES 2
#define FAKE_DEVICE_BASE 100
#endif
