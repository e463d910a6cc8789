// Options objects are the caller's: reading one runs its getters, which can close the object the
// call is on (or an argument) part-way through the call. Every public method of every memory
// object, called with an options object whose getters close the receiver, must then refuse
// (CudaStateError) or finish without the closed object's memory, pool or handle reaching the
// driver. Found by this sweep: every resource's `allocate` went on from a closed resource (a
// destroyed pool handed to the driver). `close` itself is left out (ending the object is its
// job); its re-entrant free is crash-suite case 88's, which found it.
import { CudaError, CudaStateError, NotSupportedError } from '@cumem/core-types';
import { createReferenceDriver } from '@cumem/testing/vitest';
import { expect, it } from 'vitest';
import * as memory from './index.js';

const driver = createReferenceDriver({ deviceCount: 2, totalMemory: 256 * 1024 * 1024 });

// Internal members (left out of the type declarations) and those whose job is to end the
// object or that take raw pointers (`deallocate`, unsafe by nature).
const skipped = new Set([
  'advise',
  'adviseAccessedBy',
  'anyLocation',
  'bindContext',
  'checkAdvisable',
  'checkOpen',
  'checkStream',
  'checkSameDriver',
  'checkWrapped',
  'close',
  'deallocate',
  'exportIpcBuffer',
  'fillRange',
  'finish',
  'holdChecked',
  'importIpcBuffer',
  'isDeviceOnly',
  'noteSlice',
  'open',
  'orderOn',
  'ownDefaultStream',
  'pointerInfo',
  'queryAccessedBy',
  'releaseHeld',
  'trimReserve',
  'typeName',
  'workDevice',
]);

type Closable = { close(): void; readonly isClosed: boolean } & Record<string, unknown>;

const makers: Record<string, () => Closable> = {
  Buffer: () => new memory.DeviceMemoryResource(0, {}).allocate(256) as never,
  ManagedBuffer: () => new memory.ManagedMemoryResource().allocate(256) as never,
  PinnedBuffer: () => new memory.PinnedMemoryResource().allocate(256) as never,
  LegacyPinnedBuffer: () => new memory.LegacyPinnedMemoryResource().allocate(256) as never,
  VirtualBuffer: () => new memory.VirtualMemoryResource(0).allocate(4096) as never,
  DeviceMemoryResource: () => new memory.DeviceMemoryResource(0, {}) as never,
  ManagedMemoryResource: () => new memory.ManagedMemoryResource() as never,
  PinnedMemoryResource: () => new memory.PinnedMemoryResource() as never,
  LegacyPinnedMemoryResource: () => new memory.LegacyPinnedMemoryResource() as never,
  VirtualMemoryResource: () => new memory.VirtualMemoryResource(0) as never,
  Stream: () => memory.Stream.create(0) as never,
  Event: () => memory.Stream.create(0).record() as never,
};

// The argument lists tried before the options: one per shape the public methods take.
const leading: Record<string, (receiver: Closable) => unknown[]> = {
  none: () => [],
  buffer: () => [new memory.DeviceMemoryResource(0, {}).allocate(256)],
  bytes: () => [new Uint8Array(256)],
  size: () => [256],
  offsetAndSize: () => [0, 64],
  device: () => [new memory.Device(0)],
  host: () => [new memory.Host()],
  stream: () => [memory.Stream.create(0)],
  event: () => [memory.Stream.create(0).record()],
  itselfAndSize: (receiver) => [receiver, 8192],
};

const optionNames = ['stream', 'device', 'timeout', 'blocking', 'priority', 'flags', 'enableTiming'];

function methodsOf(object: object): string[] {
  const names = new Set<string>();
  for (let proto = Object.getPrototypeOf(object); proto && proto !== Object.prototype; ) {
    for (const key of Object.getOwnPropertyNames(proto)) {
      if (
        key !== 'constructor' &&
        !skipped.has(key) &&
        typeof Object.getOwnPropertyDescriptor(proto, key)?.value === 'function'
      )
        names.add(key);
    }
    proto = Object.getPrototypeOf(proto);
  }
  return [...names];
}

it('no method goes on with an object that an options getter closed', async () => {
  memory.useDriver(driver);
  const failures: string[] = [];
  for (const [label, make] of Object.entries(makers)) {
    for (const method of methodsOf(make())) {
      for (const [shape, argumentsOf] of Object.entries(leading)) {
        const receiver = make();
        const stream = memory.Stream.create(0);
        const options = {};
        for (const name of optionNames) {
          Object.defineProperty(options, name, {
            enumerable: true,
            get() {
              receiver.close();
              return name === 'stream' ? stream : undefined;
            },
          });
        }
        const what = `${label}.${method}(${shape}, options)`;
        try {
          const result = (receiver[method] as (...args: unknown[]) => unknown)(
            ...argumentsOf(receiver),
            options,
          );
          if (result instanceof Promise) await result;
          if (receiver.isClosed) failures.push(`${what} went on after the getter closed ${label}`);
        } catch (error) {
          // A CudaError here is the reference driver refusing what reached it: freed memory, a
          // destroyed pool or stream.
          const refused =
            !CudaError.isInstance(error) &&
            (error instanceof TypeError ||
              error instanceof RangeError ||
              CudaStateError.isInstance(error) ||
              NotSupportedError.isInstance(error));
          if (!refused) failures.push(`${what}: ${String(error)}`);
        } finally {
          stream.close();
        }
      }
    }
  }
  expect(failures).toEqual([]);
});
