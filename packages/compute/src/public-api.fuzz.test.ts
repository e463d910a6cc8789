// Fuzzing of @cumem/compute's public surface against the reference driver (which loads and runs
// the reference kernels' PTX): every exported function, constructor, static method, and instance
// method/getter/setter, called with arbitrary JS values, returns or throws a typed error: never a
// crash, a hang, a plain Error or an engine TypeError. Launches included: a fuzzed launch reaches
// the reference kernels only with arguments the layout checks accepted.
import { DeviceMemoryResource, Stream, useDriver } from '@cumem/memory';
import {
  argumentLists,
  closedInstances,
  fuzzEntryPoints,
  specialValues,
  trailingNullLists,
} from '@cumem/test-support';
import { createReferenceDriver, entryPointsOf, referenceKernelsPTX } from '@cumem/testing/vitest';
import fc from 'fast-check';
import { afterAll, describe } from 'vitest';
import * as compute from './index.js';

const driver = createReferenceDriver({ deviceCount: 2, totalMemory: 256 * 1024 * 1024 });
// Before the surface is listed: listing makes instances, which need a driver.
useDriver(driver);
// One loaded image for the kernels (fuzzed ObjectCode members get a fresh one each: `close`).
const code = compute.ObjectCode.fromPTX(referenceKernelsPTX);
const pool = new DeviceMemoryResource(0);

const instances: Record<string, () => object> = {
  ObjectCode: () => compute.ObjectCode.fromPTX(referenceKernelsPTX),
  Kernel: () => code.getKernel('fill_f32'),
  LaunchConfig: () => new compute.LaunchConfig({ grid: 1, block: 32 }),
  // PTX needs no NVRTC until `compile`, which CI's machines lack: that must be a typed error too.
  Program: () => new compute.Program(referenceKernelsPTX, 'ptx'),
};

// Not public API though JavaScript reaches them (the sources' @internal and private members, and
// internal constructors).
const internal = new Set([
  'ordinalOf',
  'readParameters',
  'new ObjectCode',
  'new Kernel',
  'fromCompiled',
  'create',
  'layout',
  'functionOn',
  'launchFunctionOn',
]);

const special = specialValues(
  32,
  256,
  'fill_f32',
  'add_f32',
  'ptx',
  'c++',
  'cubin',
  'sm_90',
  [1, 1, 1],
  { grid: 1, block: 32 },
  { grid: [1, 2], block: [32, 2] },
  { arch: 'sm_90' },
  { options: ['-lineinfo'] },
  new ArrayBuffer(8),
  new Float32Array(4),
);
const valid = fc
  .constantFrom<() => unknown>(
    ...Object.values(instances),
    () => Stream.create(0),
    () => pool.allocate(256),
    () => compute.float32(2.5),
    () => compute.uint32(8),
    () => compute.int64(-1n),
  )
  .map((make) => make());
const argumentList = argumentLists(
  special,
  valid,
  closedInstances([...Object.values(instances), () => Stream.create(0), () => pool.allocate(256)]),
);
const examples = trailingNullLists(
  [
    ...Object.values(instances),
    () => Stream.create(0),
    () => pool.allocate(256),
    () => 32,
    () => 'fill_f32',
    () => new ArrayBuffer(8),
  ],
  [instances.LaunchConfig as () => object, instances.Kernel as () => object, () => 32],
);

describe('fuzz: @cumem/compute public entry points (reference driver)', () => {
  afterAll(() => code.close());

  const entries = entryPointsOf(compute as unknown as Record<string, unknown>, instances, internal);
  fuzzEntryPoints(entries, { minimum: 25, argumentList, examples, restore: () => useDriver(driver) });
});
