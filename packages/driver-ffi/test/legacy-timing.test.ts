// What only the FFI adapter does over the fake libcuda (the shared claims are in
// testing/fake-adapter-suite): in 'legacy' mode it times events with cuEventElapsedTime_v2 where
// the driver no longer exports the CUDA 2.0 form (the N-API adapter requires that form there).
import { buildFakeLibcuda, fakeUnavailable as unavailable } from '@cumem/fake-libcuda';
import { describe, expect, it } from 'vitest';
import { createDriver } from '../src/index.js';

const fakeUnavailable = unavailable();

describe.skipIf(fakeUnavailable !== undefined)(
  `ffi 'legacy' timing on a fake libcuda without cuEventElapsedTime${fakeUnavailable ? ` — skipped: not applicable: ${fakeUnavailable}` : ''}`,
  () => {
    it('emulates the legacy cuEventElapsedTime with _v2 when the driver no longer exports it', () => {
      const without = createDriver({
        libraryPath: buildFakeLibcuda({ variant: 'without-legacy-timing' }),
        entryPoints: 'legacy',
      });
      const auto = createDriver({ libraryPath: buildFakeLibcuda(), entryPoints: 'legacy' });
      const [a, b] = [without.eventCreate(0), without.eventCreate(0)];
      // The fake's _v2 form answers 1.5 ms, its CUDA 2.0 form 2.5 ms.
      expect(without.eventElapsedTime(a, b)).toBe(1.5);
      const [c, d] = [auto.eventCreate(0), auto.eventCreate(0)];
      expect(auto.eventElapsedTime(c, d)).toBe(2.5);
      for (const event of [a, b]) without.eventDestroy(event);
      for (const event of [c, d]) auto.eventDestroy(event);
    });
  },
);
