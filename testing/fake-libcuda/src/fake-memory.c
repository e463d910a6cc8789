/* See fake-memory.h. Not thread-safe beyond one lock: the adapters call from the main thread
 * and from libuv workers (synchronisation), which never allocate. */
#include "fake-memory.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define MAX_ALLOCATIONS 65536
#define MAX_FREED 4096

static FakeAllocation table[MAX_ALLOCATIONS];
static size_t live;
static struct { uintptr_t base; size_t mapped; } freed[MAX_FREED];
static size_t freed_count;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

int fake_hostile(void) {
  static int value = -1;
  if (value < 0) {
    const char *text = getenv("FAKE_CUDA_HOSTILE");
    value = text != NULL && text[0] == '1';
  }
  return value;
}

static size_t page_round(size_t size) {
  size_t page = (size_t)sysconf(_SC_PAGESIZE);
  return ((size ? size : 1) + page - 1) / page * page;
}

/* A freed range of exactly this size, made usable again (zeroed by MADV_DONTNEED), or 0. */
static uintptr_t reuse(size_t mapped) {
  for (size_t i = freed_count; i-- > 0;) {
    if (freed[i].mapped != mapped) continue;
    uintptr_t base = freed[i].base;
    freed[i] = freed[--freed_count];
    if (mprotect((void *)base, mapped, PROT_READ | PROT_WRITE) != 0) return 0;
    return base;
  }
  return 0;
}

static uintptr_t map_pages(size_t size) {
  size_t mapped = page_round(size);
  uintptr_t base = reuse(mapped);
  if (base) return base;
  void *pages = mmap(NULL, mapped, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  return pages == MAP_FAILED ? 0 : (uintptr_t)pages;
}

/* Freed pages keep their address reserved (so reuse never lands on someone else's mapping)
 * but fault on any access until reused. */
static void unmap_pages(uintptr_t base, size_t mapped) {
  madvise((void *)base, mapped, MADV_DONTNEED);
  mprotect((void *)base, mapped, PROT_NONE);
  if (freed_count < MAX_FREED) {
    freed[freed_count].base = base;
    freed[freed_count].mapped = mapped;
    freed_count++;
  }
}

uintptr_t fake_allocate(size_t size, int kind, int device, FakePool *pool) {
  pthread_mutex_lock(&lock);
  uintptr_t base = 0;
  if (live < MAX_ALLOCATIONS) {
    /* Large allocations are reserved pages in both modes, so a 20 GiB "device" allocation costs
     * nothing until touched (and tests can see 64-bit sizes). */
    int pages = fake_hostile() || size >= FAKE_LARGE_ALLOCATION;
    base = pages ? map_pages(size) : (uintptr_t)calloc(1, size ? size : 1);
    if (base) table[live++] = (FakeAllocation){ base, size, page_round(size), kind, device, pool, pages };
  }
  pthread_mutex_unlock(&lock);
  return base;
}

CUresult fake_release(uintptr_t base, int kind) {
  pthread_mutex_lock(&lock);
  CUresult result = CUDA_ERROR_INVALID_VALUE;
  for (size_t i = 0; i < live; i++) {
    if (table[i].base != base) continue;
    if (kind && table[i].kind != kind) break;
    FakeAllocation entry = table[i];
    table[i] = table[--live];
    if (fake_hostile()) unmap_pages(entry.base, entry.mapped);
    else if (entry.pages) munmap((void *)entry.base, entry.mapped);
    else free((void *)entry.base);
    result = CUDA_SUCCESS;
    break;
  }
  pthread_mutex_unlock(&lock);
  return result;
}

void fake_release_all(int kind) {
  for (;;) {
    uintptr_t base = 0;
    pthread_mutex_lock(&lock);
    for (size_t i = 0; i < live && !base; i++) if (table[i].kind == kind) base = table[i].base;
    pthread_mutex_unlock(&lock);
    if (!base) return;
    fake_release(base, kind);
  }
}

const FakeAllocation *fake_find(uintptr_t address) {
  const FakeAllocation *found = NULL;
  pthread_mutex_lock(&lock);
  for (size_t i = 0; i < live; i++) {
    if (address >= table[i].base && address < table[i].base + (table[i].size ? table[i].size : 1)) {
      found = &table[i];
      break;
    }
  }
  pthread_mutex_unlock(&lock);
  return found;
}

void *fake_object(size_t size) {
  if (!fake_hostile()) return calloc(1, size);
  pthread_mutex_lock(&lock);
  void *object = (void *)map_pages(size);
  pthread_mutex_unlock(&lock);
  return object;
}

void fake_object_free(void *object, size_t size) {
  if (!fake_hostile()) {
    free(object);
    return;
  }
  pthread_mutex_lock(&lock);
  unmap_pages((uintptr_t)object, page_round(size));
  pthread_mutex_unlock(&lock);
}
