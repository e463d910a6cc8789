// Fuzzing of @cumem/memory's public surface against the reference driver: every exported
// function, constructor, static method, and instance method/getter/setter, called with
// arbitrary JS values, returns or throws a typed error (TypeError/RangeError from cumem's own
// checks, or a cumem error class): never a crash, a hang, a plain Error or an engine TypeError.
// Also IPC descriptor bytes (Buffer.fromIpcDescriptor, readIpcDescriptor).

import {
  argumentLists,
  closedInstances,
  fuzzEntryPoints,
  specialValues,
  trailingNullLists,
} from '@cumem/test-support';
import { createReferenceDriver, entryPointsOf, expectOnlyTypedErrors } from '@cumem/testing/vitest';
import fc from 'fast-check';
import { beforeAll, describe, it } from 'vitest';
import { Buffer } from './buffer/buffer.js';
import * as memory from './index.js';
import { readIpcDescriptor } from './interop/ipc/ipc-descriptor.js';
import { DeviceMemoryResource } from './resources/device-memory-resource.js';
import { ManagedMemoryResource } from './resources/managed/managed-memory-resource.js';
import { Stream } from './stream/stream.js';

const driver = createReferenceDriver({ deviceCount: 2, totalMemory: 256 * 1024 * 1024 });
// Before the surface is listed: listing makes instances, which need a driver.
memory.useDriver(driver);

const instances: Record<string, () => object> = {
  Device: () => new memory.Device(0),
  Host: () => new memory.Host(),
  DeviceMemoryResource: () => new memory.DeviceMemoryResource(0),
  PinnedMemoryResource: () => new memory.PinnedMemoryResource(),
  ManagedMemoryResource: () => new memory.ManagedMemoryResource(),
  LegacyPinnedMemoryResource: () => new memory.LegacyPinnedMemoryResource(),
  VirtualMemoryResource: () => new memory.VirtualMemoryResource(0),
  Buffer: () => new memory.DeviceMemoryResource(0).allocate(256),
  ManagedBuffer: () => new memory.ManagedMemoryResource().allocate(4096),
  AccessedByView: () => new memory.ManagedMemoryResource().allocate(4096).accessedBy,
  Stream: () => memory.Stream.create(0),
  Event: () => memory.Stream.create(0).record(),
};

// Not public API though JavaScript reaches them: TypeScript private/protected/@internal members
// and internal constructors (from the sources' modifiers and @internal tags).
const internal = new Set([
  // Unsafe by nature (raw ranges to the driver, documented so): the per-range managed-memory calls
  // exported for @cumem/utils (managed-range.ts), which checks their arguments against open buffers.
  'adviseRange',
  'prefetchRange',
  'discardRange',
  'discardPrefetchRange',
  'checkDiscardSupported',
  // Unsafe by nature too (raw addresses, documented so): the copy calls issued for @cumem/utils'
  // copyBatch and strided copies (copy-internals.ts), which check them against open buffers first.
  'copyDeviceRanges',
  'issueCopy',
  'exportIpcBuffer',
  'importIpcBuffer',
  'checkOpen',
  'checkStream',
  'checkSameDriver',
  'checkWrapped',
  'isDeviceOnly',
  'pointerInfo',
  'typeName',
  'workDevice',
  'open',
  'advise',
  'adviseAccessedBy',
  'anyLocation',
  'bindContext',
  'checkAdvisable',
  'checkBatch',
  'fillRange',
  'finish',
  'orderOn',
  'queryAccessedBy',
  'ownDefaultStream',
  'holdChecked',
  'releaseHeld',
  'new PoolMemoryResource',
  'noteSlice',
]);

const special = specialValues(
  8,
  64,
  4096,
  2n,
  '0',
  [0, 1],
  new ArrayBuffer(8),
  new Float32Array(4),
  () => 1,
  { stream: 1 },
  { stream: null },
  { size: -1 },
  { data: '', size: 0 },
);
const valid = fc.constantFrom(...Object.keys(instances)).map((name) => (instances[name] as () => object)());
const argumentList = argumentLists(special, valid, closedInstances(Object.values(instances)));
const examples = trailingNullLists(
  [...Object.values(instances), () => 64, () => new ArrayBuffer(64), () => new Uint8Array(64)],
  [() => 64, () => new ArrayBuffer(64), instances.Stream as () => object],
);

describe('fuzz: @cumem/memory public entry points (reference driver)', () => {
  beforeAll(() => {
    memory.useDriver(driver);
  });

  const entries = entryPointsOf(memory as unknown as Record<string, unknown>, instances, internal);
  fuzzEntryPoints(entries, { minimum: 80, argumentList, examples, restore: () => memory.useDriver(driver) });
});

describe('fuzz: IPC descriptor bytes', () => {
  beforeAll(() => {
    memory.useDriver(driver);
  });

  const descriptor = fc.record(
    {
      data: fc.oneof(fc.base64String(), fc.string(), fc.uint8Array({ maxLength: 80 }), fc.anything()),
      size: fc.oneof(fc.integer(), fc.double(), fc.bigInt(), fc.anything()),
      uuid: fc.oneof(fc.uuid(), fc.constant(null), fc.anything()),
    },
    { requiredKeys: [] },
  );

  it('readIpcDescriptor gives 64 bytes and a size, or a typed error', async () => {
    await fc.assert(
      fc.asyncProperty(fc.oneof(descriptor, fc.anything()), async (value) => {
        await expectOnlyTypedErrors('readIpcDescriptor', () => {
          const { bytes, size } = readIpcDescriptor(value);
          if (bytes.byteLength !== 64 || !Number.isSafeInteger(size) || size < 0) {
            throw new Error(`readIpcDescriptor accepted ${bytes.byteLength} bytes and size ${size}`);
          }
        });
      }),
      { numRuns: 500 },
    );
  });

  it('Buffer.fromIpcDescriptor with arbitrary descriptors, resources and options', async () => {
    const resources = [
      () => new DeviceMemoryResource(0),
      () => new DeviceMemoryResource(0, { ipcEnabled: false }),
      () => new ManagedMemoryResource(),
    ];
    await fc.assert(
      fc.asyncProperty(
        fc.nat(resources.length - 1),
        fc.oneof(descriptor, fc.anything()),
        fc.oneof(fc.constant(undefined), fc.anything(), fc.constant({ stream: Stream.create(0) })),
        async (which, value, options) => {
          const mr = (resources[which] as () => unknown)();
          await expectOnlyTypedErrors('Buffer.fromIpcDescriptor', () =>
            Buffer.fromIpcDescriptor(mr as DeviceMemoryResource, value as never, options as never),
          );
        },
      ),
      { numRuns: 300 },
    );
  });
});
