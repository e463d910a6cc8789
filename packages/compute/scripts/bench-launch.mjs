#!/usr/bin/env node
// Where a launch's time goes, per adapter, against testing/fake-libcuda (whose cuLaunchKernelEx
// does almost nothing), so what is timed is cumem's own cost: the adapter's launchKernelEx
// (the contract call, packed arguments given) and @cumem/compute's launch() of the fake's kernel
// (fill_f32: a Buffer, a float32 and a uint32; grid 1, block 1, the most the fake allows), the path of the GPU bench's
// compute.launchEmpty5Args row. `reference` is the same launch() over @cumem/testing's reference
// driver (its CPU kernel of one element included): @cumem/compute's own share with no adapter.
// Give other checkouts' roots (built: dist/ and the addon) to time them side by side in this
// process, e.g. the base branch before a change:
//   node packages/compute/scripts/bench-launch.mjs [--rounds 11] [--calls 50000] [<root> ...]
// Prints ns per call, CPU time, median of interleaved rounds (the machines are shared).
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { buildFakeLibcuda } from '@cumem/fake-libcuda';

const argument = (name, fallback) => {
  const index = process.argv.indexOf(name);
  return index >= 0 ? process.argv[index + 1] : fallback;
};
const rounds = Number(argument('--rounds', '11'));
const calls = Number(argument('--calls', '50000'));
const here = fileURLToPath(new URL('../../..', import.meta.url));
const extra = process.argv
  .slice(2)
  .filter((value, index, all) => !value.startsWith('--') && !all[index - 1]?.startsWith('--'));
const roots = [...extra.map((root) => resolve(root)), resolve(here)];

const library = buildFakeLibcuda();
delete process.env.FAKE_CUDA_LOG;
const load = (root, path) => import(pathToFileURL(join(root, 'packages', path)).href);

const bodies = {};
for (const [index, root] of roots.entries()) {
  const memory = await load(root, 'memory/dist/index.js');
  const compute = await load(root, 'compute/dist/index.js');
  const testing = await import(
    pathToFileURL(join(root, 'testing', 'driver-testing', 'dist', 'index.js')).href
  );
  const { referenceKernelsPTX } = testing;
  const adapters = {
    napi: (await load(root, 'driver-napi/dist/index.js')).createDriver,
    ffi: (await load(root, 'driver-ffi/dist/index.js')).createDriver,
    reference: testing.createReferenceDriver,
  };
  const tag = roots.length === 1 ? '' : index === roots.length - 1 ? ' (this)' : ` (${root})`;
  for (const [adapter, createDriver] of Object.entries(adapters)) {
    const driver = adapter === 'reference' ? createDriver() : createDriver({ libraryPath: library });
    memory.useDriver(driver);
    const stream = memory.Stream.create(new memory.Device(0), { nonBlocking: true });
    const buffer = new memory.DeviceMemoryResource(0).allocate(4096, { stream });
    const kernel = compute.ObjectCode.fromPTX(referenceKernelsPTX).getKernel('fill_f32');
    const config = new compute.LaunchConfig({ grid: 1, block: 1 });
    const fn = kernel.functionOn(0);
    const bytes = new Uint8Array(16);
    const offsets = Uint32Array.of(0, 8, 12);
    const handle = stream.handle;
    const select = () => memory.useDriver(driver);
    const n = compute.uint32(1);
    const x = compute.float32(1.5);
    bodies[`${adapter} driver.launchKernelEx${tag}`] = [
      select,
      () => driver.launchKernelEx(fn, config, bytes, offsets, handle),
    ];
    bodies[`${adapter} compute.launch${tag}`] = [
      select,
      () => compute.launch(stream, config, kernel, buffer, x, n),
    ];
    bodies[`${adapter} compute.launch, new scalars${tag}`] = [
      select,
      () => compute.launch(stream, config, kernel, buffer, compute.float32(1.5), compute.uint32(1)),
    ];
  }
}

const samples = {};
for (const [name, [select, body]] of Object.entries(bodies)) {
  select();
  for (let i = 0; i < 20_000; i++) body();
  samples[name] = [];
}
for (let round = 0; round < rounds; round++) {
  for (const [name, [select, body]] of Object.entries(bodies)) {
    select();
    const start = process.cpuUsage();
    for (let i = 0; i < calls; i++) body();
    const used = process.cpuUsage(start);
    samples[name].push(((used.user + used.system) * 1000) / calls);
  }
}
const median = (values) => values.sort((a, b) => a - b)[Math.floor(values.length / 2)];
for (const [name, values] of Object.entries(samples)) {
  console.log(`${name.padEnd(60)} ${median(values).toFixed(0).padStart(6)} ns`);
}
