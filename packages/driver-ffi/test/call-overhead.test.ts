// Measures the adapter's own cost per call against the fake libcuda (whose functions do almost
// nothing), next to koffi's bare cost for the same C function. Printed for the README's table;
// the bound is loose because test machines are shared.
import { MemLocationType } from '@cumem/core-types';
import { describe, expect, it } from 'vitest';
import { createDriver } from '../src/index.js';
import { loadKoffi } from '../src/koffi-module.js';
import { buildFakeLibcuda, fakeUnavailable } from './fake-libcuda.js';

const suite = fakeUnavailable ? describe.skip : describe;

function nanosecondsPerCall(body: () => void, calls = 200_000): number {
  for (let i = 0; i < 20_000; i++) body();
  let best = Number.POSITIVE_INFINITY;
  for (let round = 0; round < 3; round++) {
    const start = process.hrtime.bigint();
    for (let i = 0; i < calls; i++) body();
    best = Math.min(best, Number(process.hrtime.bigint() - start) / calls);
  }
  return best;
}

suite(
  fakeUnavailable ? `call overhead — skipped: ${fakeUnavailable}` : 'call overhead (fake libcuda)',
  () => {
    it('stays close to a bare koffi call', () => {
      const path = buildFakeLibcuda();
      const driver = createDriver({ libraryPath: path });
      driver.contextSetCurrent(driver.primaryContextRetain(0));
      const bare = loadKoffi().load(path).func('cuCtxGetDevice', 'int', ['uintptr_t']);
      const slot = Number(loadKoffi().address(loadKoffi().alloc('int', 1)));
      const results = {
        bareCtxGetDevice: nanosecondsPerCall(() => bare(slot)),
        contextGetDevice: nanosecondsPerCall(() => driver.contextGetDevice()),
        poolAllocFree4KiB: nanosecondsPerCall(() =>
          driver.memFreeAsync(driver.memAllocFromPoolAsync(4096, 1n, 0n), 0n),
        ),
        memAdvise: nanosecondsPerCall(() =>
          driver.memAdvise(0x1000n, 4096, 3, { type: MemLocationType.Device, id: 0 }),
        ),
        memcpyDtoH8: (() => {
          const source = driver.memAlloc(8);
          const target = new Uint8Array(8);
          return nanosecondsPerCall(() => driver.memcpyDtoH(target, source));
        })(),
      };
      console.log(
        'ns per call:',
        JSON.stringify(results, (_, v) => (typeof v === 'number' ? Math.round(v) : v)),
      );
      expect(results.contextGetDevice).toBeLessThan(results.bareCtxGetDevice + 5000);
    }, 60_000);
  },
);
