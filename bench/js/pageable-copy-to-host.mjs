// Row pageable.copyToHostNew256MiB (issue 14): device to host into memory cumem allocates.
// CudaBuffer.copyToHost() without `buf` returns new page-locked memory from the pinned pool and
// copies at page-locked speed; the C floor is malloc + cuMemcpyDtoH into never-touched memory
// (the same as pageable.dtohNew256MiB's), the target twice that.
import { collectGarbage, result } from './harness.mjs';

const REPS = 7;

/** Measures the row on `suite`: `onDevice` (a memory Buffer) holds a copy of `source`. */
export async function copyToHostRow(suite, arrow, onDevice, source) {
  const bytes = source.byteLength;
  await suite.row('pageable.copyToHostNew256MiB', 'GB/s', () => {
    const buffer = arrow.CudaBuffer.fromMemoryBuffer(onDevice);
    // The allocation is timed (as malloc is in C); each result is closed untimed, so its pinned
    // memory goes back to the pool and the next copy reuses it (the steady state of a loop).
    const samples = [];
    for (let rep = -1; rep < REPS; rep++) {
      collectGarbage();
      const start = process.hrtime.bigint();
      const fresh = buffer.copyToHost();
      const elapsed = Number(process.hrtime.bigint() - start);
      if (fresh.byteLength !== bytes || fresh[12345] !== source[12345])
        throw new Error('the copy into new pinned memory differs');
      if (rep >= 0) samples.push(bytes / elapsed);
      // Untimed: back to the pool now, as `close()` does (a finalizer would wait for a GC turn).
      arrow.hostBufferOf(fresh).close();
    }
    return result(samples, 'GB/s', { via: 'CudaBuffer.copyToHost() (new pinned memory from the pool)' });
  });
}
