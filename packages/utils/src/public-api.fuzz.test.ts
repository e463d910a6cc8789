// Fuzzing of @cumem/utils' public surface against the reference driver: every exported
// function, constructor, static method, and instance method/getter/setter, called with
// arbitrary JS values (and cudaArrayInterface objects with arbitrary fields), returns or throws
// a typed error: never a crash, a hang, a plain Error or an engine TypeError.
import { DeviceMemoryResource, ManagedMemoryResource, Stream, useDriver } from '@cumem/memory';
import {
  argumentLists,
  closedInstances,
  fuzzEntryPoints,
  specialValues,
  trailingNullLists,
} from '@cumem/test-support';
import { createReferenceDriver, entryPointsOf, expectOnlyTypedErrors } from '@cumem/testing/vitest';
import fc from 'fast-check';
import { describe, it } from 'vitest';
import * as utils from './index.js';

const driver = createReferenceDriver({ deviceCount: 2, totalMemory: 256 * 1024 * 1024 });
// Before the surface is listed: listing makes instances, which need a driver.
useDriver(driver);
const device = new DeviceMemoryResource(0);
const managed = new ManagedMemoryResource();

const instances: Record<string, () => object> = {
  StridedLayout: () => utils.StridedLayout.dense([4, 3], 4),
  StridedMemoryView: () =>
    utils.StridedMemoryView.fromBuffer(device.allocate(48), utils.StridedLayout.dense([4, 3], 4), {
      dtype: 'float32',
    }),
};

// Not public API though JavaScript reaches them (private/@internal members, internal constructor).
const internal = new Set(['contiguousIn', 'strideOrder', 'asCopyable', 'checkLive', 'new StridedMemoryView']);

const special = specialValues(
  4,
  48,
  2n,
  'C',
  'F',
  'float32',
  'int8',
  '<f4',
  [0, 1],
  [4, 3],
  [[0, 2]],
  new Float32Array(12),
  { stream: 1 },
  { stream: null },
  { blocking: false },
  { dtype: 'float64' },
);
const view = () => (instances.StridedMemoryView as () => object)();
const valid = fc
  .constantFrom(
    () => device.allocate(64),
    () => managed.allocate(4096),
    () => Stream.create(0),
    view,
    () => utils.StridedLayout.dense([2, 2], 4),
    () => ({ cudaArrayInterface: (view() as utils.StridedMemoryView).cudaArrayInterface }),
  )
  .map((make) => make());
const arrayInterface = fc
  .record(
    {
      shape: fc.oneof(fc.array(fc.integer({ min: -2, max: 64 }), { maxLength: 3 }), fc.anything()),
      typestr: fc.oneof(fc.constantFrom('<f4', '<i4', '|u1', '<f8', '>f4', '<c8'), fc.anything()),
      data: fc.oneof(
        fc.tuple(
          fc.oneof(
            fc.bigInt({ min: -1n, max: 2n ** 64n }),
            fc.constant(() => device.allocate(64).handle),
          ),
          fc.boolean(),
        ),
        fc.anything(),
      ),
      strides: fc.oneof(
        fc.constant(null),
        fc.array(fc.integer({ min: -64, max: 64 }), { maxLength: 3 }),
        fc.anything(),
      ),
      version: fc.oneof(fc.constant(3), fc.anything()),
      stream: fc.oneof(fc.constantFrom(undefined, null, 0, 1, 2, 3, 0xdeadbeefn), fc.anything()),
    },
    { requiredKeys: [] },
  )
  .map((fields) => {
    const data = fields.data as unknown;
    if (Array.isArray(data) && typeof data[0] === 'function')
      return { ...fields, data: [data[0](), data[1]] };
    return fields;
  })
  .map((cudaArrayInterface) => ({ cudaArrayInterface }));
const argumentList = argumentLists(
  special,
  valid,
  arrayInterface,
  closedInstances([
    ...Object.values(instances),
    () => device.allocate(64),
    () => managed.allocate(4096),
    () => Stream.create(0),
  ]),
);
const stream = () => Stream.create(0);
const examples = trailingNullLists(
  [
    ...Object.values(instances),
    () => device.allocate(64),
    () => managed.allocate(4096),
    stream,
    () => 64,
    () => new Uint8Array(64),
    () => ({ cudaArrayInterface: (view() as utils.StridedMemoryView).cudaArrayInterface }),
  ],
  [() => 64, () => device.allocate(64), stream],
);

describe('fuzz: @cumem/utils public entry points (reference driver)', () => {
  const entries = entryPointsOf(utils as unknown as Record<string, unknown>, instances, internal);

  fuzzEntryPoints(entries, { minimum: 30, argumentList, examples, restore: () => useDriver(driver) });

  it('StridedMemoryView.from gives a view or a typed error for arbitrary cudaArrayInterface objects', async () => {
    await fc.assert(
      fc.asyncProperty(
        arrayInterface,
        fc.oneof(fc.constant(undefined), fc.anything()),
        async (owner, options) => {
          await expectOnlyTypedErrors('StridedMemoryView.from', () =>
            utils.StridedMemoryView.from(owner, options as never),
          );
        },
      ),
      { numRuns: 400 },
    );
  });
});
