// Fuzzing of @cumem/interop-arrow's public surface against the reference driver: every exported
// function, constructor, static method, and instance method/getter/setter, called with
// arbitrary JS values, returns or throws a typed error: never a crash, a hang, a plain Error or
// an engine TypeError. Also serialised IPC handle bytes (IpcMemHandle.fromBuffer).
import { useDriver } from '@cumem/memory';
import {
  argumentLists,
  closedInstances,
  fuzzEntryPoints,
  specialValues,
  trailingNullLists,
} from '@cumem/test-support';
import { createReferenceDriver, entryPointsOf, expectOnlyTypedErrors } from '@cumem/testing/vitest';
import { tableFromArrays } from 'apache-arrow';
import fc from 'fast-check';
import { describe, it } from 'vitest';
import * as arrow from './index.js';

const driver = createReferenceDriver({ deviceCount: 2, totalMemory: 256 * 1024 * 1024 });
// Before the surface is listed: listing makes instances, which need a driver.
useDriver(driver);
const context = new arrow.Context(0);
const table = () => tableFromArrays({ a: Int32Array.from([1, 2, 3]), b: Float64Array.from([0.5, 1, 2]) });

const instances: Record<string, () => object> = {
  Context: () => context,
  CudaBuffer: () => context.bufferFromData(Uint8Array.from([1, 2, 3, 4, 5, 6, 7, 8])),
  HostBuffer: () => arrow.newHostBuffer(16),
  BufferReader: () => new arrow.BufferReader(context.bufferFromData(new Uint8Array(16))),
  BufferWriter: () => new arrow.BufferWriter(context.deviceBuffer(16)),
  DeviceTable: () => arrow.tableToDevice(table(), context),
  DeviceMessage: () => {
    const batch = table().batches[0];
    if (!batch) throw new Error('no batch');
    const message = arrow.readMessage(arrow.serializeRecordBatch(batch, context));
    if (!message) throw new Error('no message');
    return message;
  },
  IpcMemHandle: () => arrow.IpcMemHandle.fromBuffer(new Uint8Array(8)),
};

// `Context.prototype.foreignBuffer` is unsafe by nature (any address), as is `close()` of the
// shared Context; neither is fuzzed.
const internal = new Set(['new CudaBuffer', 'new HostBuffer', 'new IpcMemHandle', 'foreignBuffer']);

const special = specialValues(
  8,
  16,
  'pinned',
  'pageable',
  'auto',
  new ArrayBuffer(8),
  new Float32Array(4),
  { staging: 'pinned' },
  { output: 'pageable' },
  { position: 4 },
  { nbytes: 2 ** 40 },
);
const valid = fc.constantFrom(...Object.keys(instances), 'Table', 'Schema', 'RecordBatch').map((name) => {
  if (name === 'Table') return table();
  if (name === 'Schema') return table().schema;
  if (name === 'RecordBatch') return table().batches[0];
  return (instances[name] as () => object)();
});
const argumentList = argumentLists(
  special,
  valid,
  closedInstances(Object.values(instances).filter((make) => make !== instances.Context)),
);
const examples = trailingNullLists(
  [
    ...Object.values(instances),
    table,
    () => table().schema,
    () => table().batches[0],
    () => 16,
    () => new ArrayBuffer(16),
    () => new Uint8Array(16),
  ],
  [() => 16, instances.Context as () => object, () => new Uint8Array(16)],
);

describe('fuzz: @cumem/interop-arrow public entry points (reference driver)', () => {
  const entries = entryPointsOf(arrow as unknown as Record<string, unknown>, instances, internal).filter(
    (entry) => entry.name !== 'Context.prototype.close',
  );

  fuzzEntryPoints(entries, { minimum: 61, argumentList, examples, restore: () => useDriver(driver) });
});

describe('fuzz: serialised IPC handle bytes', () => {
  it('IpcMemHandle.fromBuffer gives a handle that serialises back, or a typed error', async () => {
    const bytes = fc.oneof(
      fc.uint8Array({ maxLength: 96 }),
      fc
        .tuple(fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }), fc.uint8Array({ maxLength: 80 }))
        .map(([size, rest]) => {
          const out = new Uint8Array(8 + rest.byteLength);
          new DataView(out.buffer).setBigInt64(0, size, true);
          out.set(rest, 8);
          return out;
        }),
    );
    await fc.assert(
      fc.asyncProperty(fc.oneof(bytes, fc.anything()), async (value) => {
        await expectOnlyTypedErrors('IpcMemHandle.fromBuffer', () => {
          const handle = arrow.IpcMemHandle.fromBuffer(value as Uint8Array);
          const back = handle.serialize();
          if (!Number.isSafeInteger(handle.size) || handle.size < 0) throw new Error(`size ${handle.size}`);
          if (back.byteLength !== (handle.size === 0 ? 8 : 72)) throw new Error(`${back.byteLength} bytes`);
          // openIpcBuffer on the reference driver: NotSupportedError (no IPC), or a view for size 0.
          context.openIpcBuffer(handle).close();
        });
      }),
      { numRuns: 500 },
    );
  });
});
