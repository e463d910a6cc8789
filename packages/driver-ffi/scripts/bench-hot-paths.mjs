#!/usr/bin/env node
// Micro-benchmark of the FFI adapter's own cost per call against testing/fake-libcuda (whose entry
// points do almost nothing), next to koffi's bare cost for the same C functions called with number
// arguments: the floor the adapter can reach. The N-API adapter has the same script
// (packages/driver-napi/scripts/bench-hot-paths.mjs). A measurement, not a test: figures go to
// bench/README.md. Time is the process's CPU time, the best of interleaved rounds, because wall time
// on a shared machine swings more than the differences measured.
// It uses the built package (dist/, `npx tsc -b`).
// Usage: node scripts/bench-hot-paths.mjs [--rounds 15]
import { MemLocationType } from '@cumem/core-types';
import { buildFakeLibcuda } from '@cumem/fake-libcuda';

const argument = (name, fallback) => {
  const index = process.argv.indexOf(name);
  return index >= 0 ? process.argv[index + 1] : fallback;
};
const rounds = Number(argument('--rounds', '15'));
const calls = 40_000;

const { createDriver } = await import(new URL('../dist/index.js', import.meta.url).href);
const { loadKoffi } = await import(new URL('../dist/koffi-module.js', import.meta.url).href);

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

const bodies = {
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
};
const best = {};
for (const [name, body] of Object.entries(bodies)) {
  for (let i = 0; i < 20_000; i++) body();
  best[name] = Number.POSITIVE_INFINITY;
}
for (let round = 0; round < rounds; round++) {
  for (const [name, body] of Object.entries(bodies)) {
    const start = process.cpuUsage();
    for (let i = 0; i < calls; i++) body();
    const used = process.cpuUsage(start);
    best[name] = Math.min(best[name], ((used.user + used.system) * 1000) / calls);
  }
}
for (const [name, nanoseconds] of Object.entries(best))
  console.log(`${name.padEnd(20)} ${nanoseconds.toFixed(0)} ns`);
