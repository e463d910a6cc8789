// Probe: where VirtualMemoryResource.allocate(2 MiB) + close() loses to C's seven calls.
// In one process, interleaved by repetition (rotating order), 50 pairs each:
//   bareC:    the adapter's seven calls as bench/c/vmm.c makes them (alignment 0, no query);
//   bareMem:  the same calls as @cumem/memory makes them (alignment = granularity, + cuStreamQuery);
//   memory:   mr.allocate(2 MiB).close();
//   cLoop:    with VMM_PAIR_LIB, C's loop of the seven calls in this process (vmm-pair-lib.c);
// and prints per variant the median of repetitions 5.. and the first / last five, to show whether
// the cost drifts over the process's life. Run: node --expose-gc bench/probes/vmm-memory-vs-bare.mjs napi|ffi
import { createRequire } from 'node:module';
import { Device } from '@cumem/core-types';
import { driverChoice, median } from '../js/harness.mjs';
import { vmmPairs } from '../js/process-mode.mjs';

const PAIRS = 50;
const REPS = Number(process.env.PROBE_REPS ?? 40);
const BYTES = 2 * 1024 * 1024;
const memory = await import('@cumem/memory');
memory.useDriver(await driverChoice(process.argv[2] ?? 'napi'));
const driver = memory.currentDriver();
const device = new Device(0);
const mr = new memory.VirtualMemoryResource(device);
const stream = memory.Stream.create(device, { nonBlocking: true });
const granularity = mr.granularity;
const sh = stream.handle;

// VMM_PAIR_LIB=path/to/vmm-pair-lib.so adds `cLoop`: bench/probes/vmm-pair-lib.c, C's own loop
// of the seven calls, called once per 50 pairs through koffi in this process.
function cInProcess() {
  const path = process.env.VMM_PAIR_LIB;
  if (!path) return {};
  const require = createRequire(createRequire(import.meta.url).resolve('@cumem/driver-ffi'));
  const koffi = require('koffi');
  const cPairs = koffi.load(path).func('int vmm_pairs(int n, int device, unsigned long long size)');
  return {
    cLoop: () => {
      const status = cPairs(PAIRS, 0, BYTES);
      if (status !== 0) throw new Error(`vmm_pairs: CUresult ${status}`);
    },
  };
}

const bareC = vmmPairs(driver, BYTES);
const bareMem = vmmPairs(driver, BYTES, { alignment: granularity, between: () => driver.streamQuery(sh) });
const variants = {
  bareC: () => bareC(PAIRS),
  ...cInProcess(),
  bareMem: () => bareMem(PAIRS),
  memory: () => {
    for (let i = 0; i < PAIRS; i++) mr.allocate(BYTES).close();
  },
};
const names = Object.keys(variants);
const samples = Object.fromEntries(names.map((n) => [n, []]));
for (const n of names) variants[n]();
for (let rep = 0; rep < REPS; rep++) {
  for (let k = 0; k < names.length; k++) {
    const name = names[(rep + k) % names.length];
    const t = process.hrtime.bigint();
    variants[name]();
    samples[name].push(Number(process.hrtime.bigint() - t) / 1e3 / PAIRS);
  }
}
const r = (x) => Number(x.toFixed(1));
const out = { adapter: driver.name, granularity, pairs: PAIRS, reps: REPS };
for (const n of names) {
  const s = samples[n];
  out[n] = { median: r(median(s.slice(5))), first5: s.slice(0, 5).map(r), last5: s.slice(-5).map(r) };
}
console.log(JSON.stringify(out));
mr.close();
