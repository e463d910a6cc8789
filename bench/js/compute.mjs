// @cumem/compute rows: launch overhead and a memory-bound kernel through launch(), and NVRTC
// compiles through Program, with the adapter chosen through useDriver(), as a user would.
import { compileSource } from './compile-source.mjs';
import { bandwidthGBps, callsNs, driverChoice, parseArguments, result, Suite } from './harness.mjs';

// Operations per repetition: the same in bench/c/compute.c, bench/python/compute.py and rows.mjs.
const LAUNCH_ITERATIONS = 100_000;
const ADD_ELEMENTS = 64 * 1024 * 1024; // 256 MiB of floats per vector
const ADD_PER_REP = 10;
const ADD_REPS = 5;
const COMPILE_UNCACHED_ITERATIONS = 2;
const COMPILE_CACHED_ITERATIONS = 1000;

const options = parseArguments();
const suite = new Suite('compute', options);

let memory;
let compute;
let stream;
let code;
try {
  memory = await import('@cumem/memory');
  compute = await import('@cumem/compute');
  const { referenceKernelsPTX } = await import('@cumem/testing');
  memory.useDriver(await driverChoice(options.driver));
  stream = memory.Stream.create(0, { nonBlocking: true });
  code = compute.ObjectCode.fromPTX(referenceKernelsPTX);
  const driver = memory.currentDriver();
  suite.data.info = { ...suite.data.info, adapter: driver.name, driverVersion: driver.driverVersion };
  suite.save();
} catch (error) {
  suite.fatal(error);
  process.exit(2);
}

const { float32, LaunchConfig, launch, uint32 } = compute;

await suite.row('compute.launchEmpty5Args', 'ns', () => {
  const kernel = code.getKernel('empty5');
  const config = new LaunchConfig({ grid: 1, block: 32 });
  const resource = new memory.DeviceMemoryResource(0);
  const a = resource.allocate(256);
  const b = resource.allocate(256);
  // Scalars wrapped once, as a program launching in a loop would.
  const c = uint32(1);
  const d = uint32(2);
  const e = float32(3);
  const batch = (n) => {
    for (let i = 0; i < n; i++) launch(stream, config, kernel, a, b, c, d, e);
    stream.sync();
  };
  const { samples, protocol } = callsNs(batch, LAUNCH_ITERATIONS);
  a.close();
  b.close();
  return result(samples, 'ns', {
    protocol,
    via: `${options.driver}: launch(stream, config, kernel, 2 Buffers, 3 scalars)`,
  });
});

await suite.row('compute.vectorAdd256MiB', 'GB/s', () => {
  const kernel = code.getKernel('add_f32');
  const resource = new memory.DeviceMemoryResource(0);
  const bytes = ADD_ELEMENTS * 4;
  const [a, b, out] = [resource.allocate(bytes), resource.allocate(bytes), resource.allocate(bytes)];
  a.fill(1);
  b.fill(2);
  const config = new LaunchConfig({ grid: ADD_ELEMENTS / 256, block: 256 });
  const n = uint32(ADD_ELEMENTS);
  const batch = (count) => {
    for (let i = 0; i < count; i++) launch(stream, config, kernel, a, b, out, n);
    stream.sync();
  };
  const samples = bandwidthGBps(batch, 3 * bytes, { perRep: ADD_PER_REP, reps: ADD_REPS });
  for (const buffer of [a, b, out]) buffer.close();
  return result(samples, 'GB/s', { via: `${options.driver}: launch of add_f32 over 3 x 256 MiB` });
});

/** Compiles `compileSource` to PTX `n` times; `fresh` forgets the in-memory cache before each. */
function compileBatch(fresh) {
  return (n) => {
    for (let i = 0; i < n; i++) {
      if (fresh) compute.clearCompileCache();
      new compute.Program(compileSource, 'c++').compile('ptx').close();
    }
  };
}

await suite.row('compute.nvrtcCompileUncached', 'us', () => {
  const { samples, protocol } = callsNs(compileBatch(true), COMPILE_UNCACHED_ITERATIONS);
  return result(
    samples.map((ns) => ns / 1000),
    'us',
    { protocol, via: 'Program.compile(ptx), cache cleared' },
  );
});

await suite.row('compute.nvrtcCompileCached', 'us', () => {
  const { samples, protocol } = callsNs(compileBatch(false), COMPILE_CACHED_ITERATIONS);
  return result(
    samples.map((ns) => ns / 1000),
    'us',
    { protocol, via: 'Program.compile(ptx), cached (includes the cuLibraryLoadData)' },
  );
});

code.close();
stream.close();
