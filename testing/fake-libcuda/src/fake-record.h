/* What the tests observe of the fake beyond return values, for both adapters alike (no FFI
 * needed to read it): with FAKE_CUDA_LOG=<file>, every cuGetProcAddress request appends
 * "<name> <abi>" and every recorded call appends "call <symbol> <pointer> <size> <advice>
 * <type> <id> <device> <count> <extra>" (the fields each entry point fills are in its comment).
 * Failure injection and slow waits are environment variables, read at each (non-hot) call:
 *   FAKE_CUDA_FAIL="cuStreamSynchronize=700,cuStreamQuery=600"  entry points that fail with a code
 *   FAKE_CUDA_BUSY_MS=<ms>   cuStreamQuery / cuEventQuery answer NOT_READY for this long from
 *                            the first query of a run (runs are per thread), then succeed (and a new run starts)
 *   FAKE_CUDA_SYNC_US=<us>   how long cuStreamSynchronize / cuEventSynchronize block (2000)
 *   FAKE_CUDA_FOOTPRINT_KIB=<KiB>  the small calls a bench times (cuMemAllocFromPoolAsync,
 *                            cuMemFreeAsync, cuMemAdvise) each read and write this much memory of
 *                            their own, one byte per cache line, as a real driver's call evicts the
 *                            caller's data from the CPU's caches (read once, at the first call; 0) */
#ifndef FAKE_RECORD_H
#define FAKE_RECORD_H
#include <cuda.h>
#include <stdint.h>

typedef struct FakeRecord {
  int64_t pointer, size, advice, type, id, device, count, extra;
} FakeRecord;

/* Appends a "call" line for `symbol` when FAKE_CUDA_LOG is set. */
void fake_record(const char *symbol, FakeRecord record);
/* Appends a cuGetProcAddress request line when FAKE_CUDA_LOG is set. */
void fake_record_request(const char *name, int abi);
/* The code FAKE_CUDA_FAIL injects for `symbol`, or CUDA_SUCCESS. */
CUresult fake_injected(const char *symbol);
/* Whether a query of this run (one per kind: 0 streams, 1 events) is still busy. */
int fake_busy(int kind);
int fake_env_int(const char *name, int fallback);
/* The cache footprint of a timed small call (FAKE_CUDA_FOOTPRINT_KIB); nothing when unset. */
void fake_footprint(void);
#endif
