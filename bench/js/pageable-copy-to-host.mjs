// Row pageable.copyToHostNew256MiB (issue 14): device to host into memory cumem allocates.
// CudaBuffer.copyToHost() without `buf` returns new page-locked memory from the pinned pool and
// copies at page-locked speed; the C floor is malloc + cuMemcpyDtoH into never-touched memory
// (the same as pageable.dtohNew256MiB's), the target twice that.

import { cappedReps } from '../repetitions.mjs';
import { collectGarbage, result } from './harness.mjs';

const REPS = 7;

/**
 * Untimed, between two copies: a collection and an event-loop turn, as a program that copies
 * once per request has between requests. The FFI adapter cannot detach a view, so the pinned
 * memory of a closed result goes back to the pool only once its array is collected and the
 * finalizers have run (a task after the collection): in a synchronous loop every copy would get
 * new page-locked memory from a growing pool instead.
 */
async function betweenCopies() {
  collectGarbage();
  await new Promise((resolve) => setTimeout(resolve, 5));
}

/** Measures the row on `suite`: `onDevice` (a memory Buffer) holds a copy of `source`. */
export async function copyToHostRow(suite, arrow, onDevice, source) {
  const bytes = source.byteLength;
  await suite.row('pageable.copyToHostNew256MiB', 'GB/s', async () => {
    const buffer = arrow.CudaBuffer.fromMemoryBuffer(onDevice);
    // The allocation is timed (as malloc is in C); each result is closed untimed, so its pinned
    // memory goes back to the pool and the next copy reuses it (the steady state of a loop).
    const samples = [];
    for (let rep = -1; rep < cappedReps(REPS); rep++) {
      await betweenCopies();
      const start = process.hrtime.bigint();
      const fresh = buffer.copyToHost();
      const elapsed = Number(process.hrtime.bigint() - start);
      if (fresh.byteLength !== bytes || fresh[12345] !== source[12345])
        throw new Error('the copy into new pinned memory differs');
      if (rep >= 0) samples.push(bytes / elapsed);
      // Untimed: back to the pool now, as `close()` does (a finalizer would wait for a GC turn).
      arrow.hostBufferOf(fresh).close();
    }
    return result(samples, 'GB/s', {
      via: 'CudaBuffer.copyToHost() (new pinned memory from the pool)',
      variants: await pinnedOverPageable(arrow, buffer),
    });
  });
}

/**
 * Where new page-locked output starts to pay (PINNED_OUTPUT_MIN_BYTES, 1 MiB): for each size,
 * the median over repetitions of (time of copyToHost({ output: 'pageable' }) / time of
 * copyToHost({ output: 'pinned' })), the two timed back to back in alternating order, allocation
 * included; above 1 the pinned output is faster. Keyed `pinnedOverPageable<bytes>`.
 */
async function pinnedOverPageable(arrow, buffer) {
  const ratios = {};
  for (let size = 16 * 1024; size <= 16 * 1024 * 1024; size *= 4) {
    const time = (output) => {
      const start = process.hrtime.bigint();
      const fresh = buffer.copyToHost({ nbytes: size, output });
      const elapsed = Number(process.hrtime.bigint() - start);
      if (output === 'pinned') arrow.hostBufferOf(fresh).close();
      return elapsed;
    };
    const samples = [];
    for (let rep = -1; rep < 15; rep++) {
      await betweenCopies();
      const pinnedFirst = rep % 2 === 0;
      const first = time(pinnedFirst ? 'pinned' : 'pageable');
      const second = time(pinnedFirst ? 'pageable' : 'pinned');
      if (rep >= 0) samples.push(pinnedFirst ? second / first : first / second);
    }
    samples.sort((a, b) => a - b);
    ratios[`pinnedOverPageable${size}`] = Number(samples[samples.length >> 1].toFixed(3));
  }
  return ratios;
}
