/* See fake-record.h. */
#include "fake-record.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;

int fake_env_int(const char *name, int fallback) {
  const char *value = getenv(name);
  return value ? atoi(value) : fallback;
}

/* The footprint's memory and size, set once (pthread_once: adapters call from several threads). */
static unsigned char *footprint;
static int footprint_bytes;
static pthread_once_t footprint_once = PTHREAD_ONCE_INIT;
static void footprint_init(void) {
  int kib = fake_env_int("FAKE_CUDA_FOOTPRINT_KIB", 0);
  footprint = kib > 0 ? calloc((size_t)kib, 1024) : NULL;
  footprint_bytes = footprint ? kib * 1024 : 0;
}
void fake_footprint(void) {
  pthread_once(&footprint_once, footprint_init);
  for (int i = 0; i < footprint_bytes; i += 64) footprint[i]++;
}

static void append(const char *line) {
  const char *path = getenv("FAKE_CUDA_LOG");
  if (!path || !path[0]) return;
  pthread_mutex_lock(&log_lock);
  FILE *file = fopen(path, "a");
  if (file) {
    fputs(line, file);
    fclose(file);
  }
  pthread_mutex_unlock(&log_lock);
}

void fake_record(const char *symbol, FakeRecord r) {
  /* No log: skip the formatting, so the microbenches over the fake time the adapters, not snprintf. */
  const char *path = getenv("FAKE_CUDA_LOG");
  if (!path || !path[0]) return;
  char line[384];
  snprintf(line, sizeof line, "call %s %lld %lld %lld %lld %lld %lld %lld %lld\n", symbol, (long long)r.pointer,
           (long long)r.size, (long long)r.advice, (long long)r.type, (long long)r.id, (long long)r.device,
           (long long)r.count, (long long)r.extra);
  append(line);
}

void fake_record_request(const char *name, int abi) {
  char line[192];
  snprintf(line, sizeof line, "%s %d\n", name, abi);
  append(line);
}

CUresult fake_injected(const char *symbol) {
  const char *list = getenv("FAKE_CUDA_FAIL");
  if (!list) return CUDA_SUCCESS;
  size_t length = strlen(symbol);
  for (const char *at = list; (at = strstr(at, symbol)) != NULL; at += length) {
    int starts = at == list || at[-1] == ',';
    if (starts && at[length] == '=') return (CUresult)atoi(at + length + 1);
  }
  return CUDA_SUCCESS;
}

/* Busy for FAKE_CUDA_BUSY_MS from the first query of a run of queries, then done (and ready for
 * the next run): the FFI adapter's non-blocking waits poll these queries. */
int fake_busy(int kind) {
  static __thread struct timespec since[2]; /* per thread: a terminated Worker leaves no run behind */
  long ms = fake_env_int("FAKE_CUDA_BUSY_MS", 0);
  if (ms <= 0) return 0;
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  struct timespec *start = &since[kind ? 1 : 0];
  if (start->tv_sec == 0 && start->tv_nsec == 0) *start = now;
  long elapsed = (now.tv_sec - start->tv_sec) * 1000 + (now.tv_nsec - start->tv_nsec) / 1000000;
  if (elapsed < ms) return 1;
  start->tv_sec = 0;
  start->tv_nsec = 0;
  return 0;
}
