#!/usr/bin/env node
// Micro-benchmark of the adapter's own cost on the hot paths, against testing/fake-libcuda (@cumem/fake-libcuda)
// (whose entry points do almost nothing), so what it times is the whole path from the Driver
// member to the C call and back:
//   contextGetDevice                      (the contract's "trivial call")
//   memAllocFromPoolAsync + memFreeAsync  (4 KiB; bigint handles in, a 48-bit bigint pointer out)
//   memAdvise                             (through the Driver's one-line location forward)
// It uses the built package (dist/, `npx tsc -p tsconfig.json`) and build/Release/cumem_napi.node.
// Usage: node scripts/bench-hot-paths.mjs [--rounds 15] [--package-root <a copy with dist/ and build/>]
// Prints ns per call (median of the rounds, wall and CPU time) and calls per second. The CPU time
// leaves out time spent waiting for a core; on a shared machine compare it, over several runs.
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { buildFakeLibcuda } from '@cumem/fake-libcuda';

const argument = (name, fallback) => {
  const index = process.argv.indexOf(name);
  return index >= 0 ? process.argv[index + 1] : fallback;
};
const rounds = Number(argument('--rounds', '15'));
const packageRoot = resolve(argument('--package-root', fileURLToPath(new URL('..', import.meta.url))));

const library = buildFakeLibcuda();
delete process.env.FAKE_CUDA_LOG;

const { createDriverFrom } = await import(pathToFileURL(join(packageRoot, 'dist', 'napi-driver.js')).href);
const { loadAddon } = await import(pathToFileURL(join(packageRoot, 'dist', 'load-addon.js')).href);
const loaded = loadAddon({ packageRoot });
if (loaded.addon === undefined) throw loaded.error;
const driver = createDriverFrom(loaded, { libraryPath: library });
driver.deviceGetCount(); // loads the fake now, outside the timed loops

// Real handles of the fake (heap addresses above 2**32), as bigints.
driver.contextSetCurrent(driver.primaryContextRetain(0));
const pool = driver.deviceGetDefaultMemPool(0);
const stream = driver.streamCreate(0, 0);
const managed = driver.memAllocManaged(1 << 20, 1);
const location = { type: 1, id: 0 };

const cases = {
  contextGetDevice: {
    perRound: 2_000_000,
    run(n) {
      let sum = 0;
      for (let i = 0; i < n; i++) sum += driver.contextGetDevice();
      return sum;
    },
  },
  'memAllocFromPoolAsync + memFreeAsync (pair)': {
    perRound: 1_000_000,
    run(n) {
      for (let i = 0; i < n; i++) {
        const pointer = driver.memAllocFromPoolAsync(4096, pool, stream);
        driver.memFreeAsync(pointer, stream);
      }
      return 0;
    },
  },
  memAdvise: {
    perRound: 1_000_000,
    run(n) {
      for (let i = 0; i < n; i++) driver.memAdvise(managed, 65536, 3, location);
      return 0;
    },
  },
};

const results = {};
for (const [name, { perRound, run }] of Object.entries(cases)) {
  run(perRound); // warm-up: let the JIT compile the loop before it is timed
  const samples = [];
  const cpuSamples = [];
  for (let round = 0; round < rounds; round++) {
    const start = process.hrtime.bigint();
    const cpuStart = process.cpuUsage();
    run(perRound);
    const cpu = process.cpuUsage(cpuStart);
    samples.push(Number(process.hrtime.bigint() - start) / perRound);
    // CPU time (all threads, µs): on a loaded machine it leaves out the time the process waited
    // for a core, which wall time does not.
    cpuSamples.push(((cpu.user + cpu.system) * 1e3) / perRound);
  }
  const median = (values) => values.sort((x, y) => x - y)[Math.floor(values.length / 2)];
  const wall = median(samples);
  const cpu = median(cpuSamples);
  results[name] = {
    medianNs: +wall.toFixed(1),
    bestNs: +samples[0].toFixed(1),
    cpuMedianNs: +cpu.toFixed(1),
  };
  console.log(
    `${name.padEnd(44)} wall median ${wall.toFixed(1).padStart(6)} ns  best ${samples[0].toFixed(1).padStart(6)} ns  ` +
      `cpu median ${cpu.toFixed(1).padStart(6)} ns  ${(1e3 / wall).toFixed(2)} M calls/s`,
  );
}
console.log(JSON.stringify({ node: process.version, addon: loaded.path, rounds, results }));
