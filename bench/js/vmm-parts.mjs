// Where the time of vmm.allocateFree2MiB goes, per adapter: VirtualMemoryResource.allocate(2 MiB)
// + close, with every driver call timed on its way through (a timing copy of the adapter's driver).
//   node --expose-gc bench/js/vmm-parts.mjs [napi|ffi|reference]
// Prints one JSON line: microseconds per pair for the whole pair, for each driver entry point
// it called (total per pair and calls per pair), and the rest: everything outside the timed calls
// (@cumem/memory's JS, the wrapper's, and any time the process loses between calls). The wrapper
// adds a little to every call, so `whole` reads a bit above the bench row.
import { Device } from '@cumem/core-types';
import { driverChoice } from './harness.mjs';

const PAIRS = Number(process.env.VMM_PARTS_PAIRS ?? 2000);
const BYTES = 2 * 1024 * 1024;
const memory = await import('@cumem/memory');
const adapter = await driverChoice(process.argv[2] ?? 'napi');
memory.useDriver(adapter);
const driver = memory.currentDriver();
const spent = new Map();
// A plain object in the driver's shape (the adapters' drivers are frozen, so no Proxy): every
// method times itself and calls the adapter's; every other member is copied.
const timed = {};
const names = new Set();
for (let object = driver; object && object !== Object.prototype; object = Object.getPrototypeOf(object))
  for (const name of Object.getOwnPropertyNames(object)) if (name !== 'constructor') names.add(name);
for (const name of names) {
  const value = driver[name];
  if (typeof value !== 'function') {
    timed[name] = value;
    continue;
  }
  timed[name] = (...args) => {
    const start = process.hrtime.bigint();
    try {
      return Reflect.apply(value, driver, args);
    } finally {
      const entry = spent.get(name) ?? { ns: 0, calls: 0 };
      entry.ns += Number(process.hrtime.bigint() - start);
      entry.calls++;
      spent.set(name, entry);
    }
  };
}
memory.useDriver(timed);
const mr = new memory.VirtualMemoryResource(new Device(0));
for (let i = 0; i < 200; i++) mr.allocate(BYTES).close();
spent.clear();
globalThis.gc?.();
const start = process.hrtime.bigint();
for (let i = 0; i < PAIRS; i++) mr.allocate(BYTES).close();
const whole = Number(process.hrtime.bigint() - start) / 1e3 / PAIRS;
mr.close();
const calls = {};
let inDriver = 0;
for (const [name, { ns, calls: count }] of [...spent].sort((a, b) => b[1].ns - a[1].ns)) {
  calls[name] = { us: Number((ns / 1e3 / PAIRS).toFixed(2)), perPair: count / PAIRS };
  inDriver += ns / 1e3 / PAIRS;
}
console.log(
  JSON.stringify({
    adapter: driver.name,
    pairs: PAIRS,
    wholeUs: Number(whole.toFixed(2)),
    driverUs: Number(inDriver.toFixed(2)),
    restUs: Number((whole - inDriver).toFixed(2)),
    calls,
  }),
);
