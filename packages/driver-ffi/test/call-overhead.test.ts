// Measures the adapter's own cost per call against the fake libcuda (whose functions do almost
// nothing), next to koffi's bare cost for the same C functions called with number arguments (the
// floor the adapter can reach). Printed for the README's table; the bound is loose because test
// machines are shared. Time is the process's CPU time, the best of interleaved rounds: wall time on
// a shared 2-core machine swung 2x between runs, CPU time by a few percent.
import { MemLocationType } from '@cumem/core-types';
import { buildFakeLibcuda, fakeUnavailable as unavailable } from '@cumem/fake-libcuda';
import { describe, expect, it } from 'vitest';
import { createDriver } from '../src/index.js';
import { loadKoffi } from '../src/koffi-module.js';

const fakeUnavailable = unavailable();
const suite = fakeUnavailable ? describe.skip : describe;

function nanosecondsPerCall(bodies: Record<string, () => void>, calls = 40_000, rounds = 15) {
  const best: Record<string, number> = {};
  for (const [name, body] of Object.entries(bodies)) {
    for (let i = 0; i < 20_000; i++) body();
    best[name] = Number.POSITIVE_INFINITY;
  }
  for (let round = 0; round < rounds; round++) {
    for (const [name, body] of Object.entries(bodies)) {
      const start = process.cpuUsage();
      for (let i = 0; i < calls; i++) body();
      const used = process.cpuUsage(start);
      best[name] = Math.min(best[name]!, ((used.user + used.system) * 1000) / calls);
    }
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
      const koffi = loadKoffi();
      const library = koffi.load(path);
      const bareGet = library.func('cuCtxGetDevice', 'int', ['uintptr_t']);
      const bareAlloc = library.func('cuMemAllocFromPoolAsync', 'int', [
        'uintptr_t',
        'size_t',
        'uint64_t',
        'uint64_t',
      ]);
      const bareFree = library.func('cuMemFreeAsync', 'int', ['uint64_t', 'uint64_t']);
      const bareAdvise = library.func('cuMemAdvise_v2', 'int', ['uint64_t', 'size_t', 'int', 'uint64_t']);
      const slotPointer = koffi.alloc('uint64_t', 1);
      const slot = Number(koffi.address(slotPointer));
      const slotView = new BigUint64Array(koffi.view(slotPointer, 8));
      const managed = driver.memAllocManaged(4096, 1);
      const pool = driver.deviceGetDefaultMemPool(0);
      const source = driver.memAlloc(8);
      const target = new Uint8Array(8);
      const results = nanosecondsPerCall({
        bareCtxGetDevice: () => bareGet(slot),
        contextGetDevice: () => driver.contextGetDevice(),
        barePoolAllocFree: () => {
          bareAlloc(slot, 4096, Number(pool), 0);
          bareFree(Number(slotView[0]), 0);
        },
        poolAllocFree4KiB: () => driver.memFreeAsync(driver.memAllocFromPoolAsync(4096, pool, 0n), 0n),
        bareMemAdvise: () => bareAdvise(Number(managed), 4096, 3, 1),
        memAdvise: () => driver.memAdvise(managed, 4096, 3, { type: MemLocationType.Device, id: 0 }),
        memcpyDtoH8: () => driver.memcpyDtoH(target, source),
      });
      console.log(
        'gpu-report: ffi ns per call:',
        JSON.stringify(results, (_, v) => (typeof v === 'number' ? Math.round(v) : v)),
      );
      expect(results.contextGetDevice).toBeLessThan(results.bareCtxGetDevice! + 5000);
      expect(results.poolAllocFree4KiB).toBeLessThan(results.barePoolAllocFree! + 5000);
      expect(results.memAdvise).toBeLessThan(results.bareMemAdvise! + 5000);
    }, 60_000);
  },
);
