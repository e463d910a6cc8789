// Diagnosis of the small-call rows' slow spells (not a bench row): where does an FFI process's
// allocate + close time go, and is the whole process slow or only its driver calls? Runs, in one
// process of the adapter named by --driver, repetitions of: the memory.deviceAllocateClose4KiB
// operation, the adapter's bare driver pair, and a pure-JS loop of the same length (no driver
// call at all), printing each repetition's ns per operation and the seconds since the process
// started; then the CPU time of each of the process's threads (/proc/self/task), which shows a
// thread that competes with the main one.
// Usage: node --expose-gc bench/js/diagnose-small-calls.mjs --driver ffi|napi|reference [--reps 15] [--load-koffi]
import { readdirSync, readFileSync } from 'node:fs';
import { Device } from '@cumem/core-types';
import { driverChoice, optionValue } from './harness.mjs';

const adapter = optionValue('--driver', 'ffi');
const reps = Number(optionValue('--reps', '15'));
// --load-koffi: load koffi and libcuda through it first, whatever the adapter (does koffi's mere
// presence slow an N-API process?).
if (process.argv.includes('--load-koffi')) {
  const { createRequire } = await import('node:module');
  const require = createRequire(createRequire(import.meta.url).resolve('@cumem/driver-ffi'));
  require('koffi').load('libcuda.so.1');
}
const memory = await import('@cumem/memory');
memory.useDriver(await driverChoice(adapter));
const device = new Device(0);
const stream = memory.Stream.create(device, { nonBlocking: true });
const resource = new memory.DeviceMemoryResource(device);
const driver = memory.currentDriver();
const on = { stream };
const pool = resource.handle;
const handle = stream.handle;
const iterations = 100_000;
const sink = [];
const batches = {
  whole: (n) => {
    for (let i = 0; i < n; i++) resource.allocate(4096, on).close(on);
    stream.sync();
  },
  driverPair: (n) => {
    for (let i = 0; i < n; i++) driver.memFreeAsync(driver.memAllocFromPoolAsync(4096, pool, handle), handle);
    driver.streamSynchronize(handle);
  },
  // JS work of about the same shape: an object and a bigint per operation, a Set add + delete.
  pureJs: (n) => {
    const set = new Set();
    for (let i = 0; i < n; i++) {
      const object = { pointer: BigInt(i) * 4096n, size: 4096, closed: false };
      set.add(i);
      object.closed = set.delete(i);
      if (i === n - 1) sink.push(object);
    }
  },
};
const rows = [];
for (let rep = 0; rep < reps; rep++) {
  const row = { rep, at: Number((performance.now() / 1000).toFixed(2)) };
  for (const [name, batch] of Object.entries(batches)) {
    const start = process.hrtime.bigint();
    batch(iterations);
    row[name] = Math.round(Number(process.hrtime.bigint() - start) / iterations);
  }
  rows.push(row);
}
const threads = readdirSync('/proc/self/task').map((id) => {
  const stat = readFileSync(`/proc/self/task/${id}/stat`, 'utf8');
  const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // utime, stime (clock ticks) are fields 14 and 15 of stat, 12 and 13 after the name; processor is 39 (37 after).
  return { id, name, cpuMs: (Number(fields[11]) + Number(fields[12])) * 10, cpu: Number(fields[36]) };
});
console.log(JSON.stringify({ adapter, rows, threads }));
