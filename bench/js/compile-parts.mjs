// Why compute.nvrtcCompileUncached / Cached (bench/rows-compute.mjs) ran slower in the N-API
// process than in the FFI one on 2x H100 (16.95 vs 13.75 ms, 39.8 vs 30.8 us at ecc5014), though
// both reach NVRTC through @cumem/compute's koffi binding and load the PTX with the same driver
// call. Times, side by side in one process (harness.mjs's sideBySideNs, rotating order), the
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
import { driverChoice, optionValue, sideBySideNs } from './harness.mjs';

const adapter = optionValue('--driver', 'napi');
const reps = Number(optionValue('--reps', '7'));

const memory = await import('@cumem/memory');
const compute = await import('@cumem/compute');
const { referenceKernelsPTX } = await import('@cumem/testing');
memory.useDriver(await driverChoice(adapter));

const bytes = new Uint8Array(1 << 20).fill(7);
const sink = [];
const repeat = (call) => (n) => {
  for (let i = 0; i < n; i++) call();
};
// Calls per repetition: 2 uncached compiles (as the row), the rest about as long.
const ns = sideBySideNs(
  {
    compileUncached: repeat(() => {
      compute.clearCompileCache();
      new compute.Program(compileSource, 'c++').compile('ptx').close();
    }),
    compileCached: repeat(() => new compute.Program(compileSource, 'c++').compile('ptx').close()),
    loadPtx: repeat(() => compute.ObjectCode.fromPTX(referenceKernelsPTX).close()),
    sha256: repeat(() => sink.push(createHash('sha256').update(bytes).digest()[0])),
    jsLoop: repeat(() => {
      let x = 0;
      for (let i = 0; i < 1_000_000; i++) x = (x + i * 31) % 1_000_003;
      sink.push(x);
    }),
  },
  { compileUncached: 2, compileCached: 200, loadPtx: 200, sha256: 20, jsLoop: 5 },
  reps,
);
console.log(
  JSON.stringify({
    adapter,
    us: Object.fromEntries(
      Object.entries(ns).map(([name, value]) => [name, Number((value / 1000).toFixed(2))]),
    ),
  }),
);
