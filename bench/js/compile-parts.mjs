// Why compute.nvrtcCompileUncached / Cached (bench/rows-compute.mjs) ran slower in the N-API
// process than in the FFI one on 2x H100 (16.95 vs 13.75 ms, 39.8 vs 30.8 us at ecc5014), though
// both reach NVRTC through @cumem/compute's koffi binding and load the PTX with the same driver
// call. Times, side by side in one process (rotating order, as harness.mjs's sideBySideNs), the
// row's operation and its parts, with work that involves neither adapter nor the driver as a
// control:
// - `compileUncached`: Program.compile('ptx') with the cache cleared (NVRTC + load + close);
// - `compileCached`: the same from the in-memory cache (the key's hash + load + close);
// - `loadPtx`: ObjectCode.fromPTX(...).close() of @cumem/testing's reference kernels (the
//   driver's PTX JIT path);
// - `sha256`, `jsLoop`: 1 MiB through node:crypto, and a loop of JS arithmetic.
// When the N-API process is slower at the controls too, the process (where it runs, its mode)
// is the cause, not a call path. Not a bench row: a diagnosis, printed as one JSON line. What it
// found (results/*7900ed7.compile-probe.txt): two modes per process, with either adapter.
//
// Usage (after `pnpm build`; a GPU and NVRTC):
//   node bench/js/compile-parts.mjs --driver ffi|napi [--reps 7]
import { createHash } from 'node:crypto';
import { compileSource } from './compile-source.mjs';
import { driverChoice, median } from './harness.mjs';

const argument = (name, fallback) => {
  const index = process.argv.indexOf(name);
  return index >= 0 ? process.argv[index + 1] : fallback;
};
const adapter = argument('--driver', 'napi');
const reps = Number(argument('--reps', '7'));

const memory = await import('@cumem/memory');
const compute = await import('@cumem/compute');
const { referenceKernelsPTX } = await import('@cumem/testing');
memory.useDriver(await driverChoice(adapter));

const bytes = new Uint8Array(1 << 20).fill(7);
const sink = [];
// Each part with its calls per repetition: 2 uncached compiles (as the row), the rest about as long.
const parts = {
  compileUncached: [
    2,
    () => {
      compute.clearCompileCache();
      new compute.Program(compileSource, 'c++').compile('ptx').close();
    },
  ],
  compileCached: [200, () => new compute.Program(compileSource, 'c++').compile('ptx').close()],
  loadPtx: [200, () => compute.ObjectCode.fromPTX(referenceKernelsPTX).close()],
  sha256: [20, () => sink.push(createHash('sha256').update(bytes).digest()[0])],
  jsLoop: [
    5,
    () => {
      let x = 0;
      for (let i = 0; i < 1_000_000; i++) x = (x + i * 31) % 1_000_003;
      sink.push(x);
    },
  ],
};

// As harness.mjs's sideBySideNs (one untimed round, then repetitions in a rotating order), with
// each part's own count of calls.
const names = Object.keys(parts);
const samples = Object.fromEntries(names.map((name) => [name, []]));
const runPart = (name) => {
  const [calls, call] = parts[name];
  const start = process.hrtime.bigint();
  for (let i = 0; i < calls; i++) call();
  return Number(process.hrtime.bigint() - start) / calls / 1000;
};
for (const name of names) runPart(name);
for (let rep = 0; rep < reps; rep++) {
  for (let k = 0; k < names.length; k++) {
    const name = names[(rep + k) % names.length];
    samples[name].push(runPart(name));
  }
}
console.log(
  JSON.stringify({
    adapter,
    us: Object.fromEntries(names.map((name) => [name, Number(median(samples[name]).toFixed(2))])),
  }),
);
