// Every row of the API's error table, each refused before any driver call: the driver is
// wrapped by countingDriver and must have seen nothing when the error is thrown.
import {
  CudaError,
  CudaStateError,
  Device,
  DriverUnavailableError,
  Host,
  NotSupportedError,
} from '@cumem/core-types';
import { countingDriver, createReferenceDriver, type DriverCallLog } from '@cumem/testing';
import { beforeEach, describe, expect, it } from 'vitest';
import { Buffer } from './buffer/buffer.js';
import { IpcAllocationHandle } from './interop/ipc/ipc-allocation-handle.js';
import { DeviceMemoryResource } from './resources/device-memory-resource.js';
import { LegacyPinnedMemoryResource } from './resources/legacy-pinned-memory-resource.js';
import type { ManagedBuffer } from './resources/managed/managed-buffer.js';
import { ManagedMemoryResource } from './resources/managed/managed-memory-resource.js';
import { PinnedMemoryResource } from './resources/pinned-memory-resource.js';
import { deviceProperties, memoryInfo, setCurrentDevice } from './runtime/device-queries.js';
import { resolveDriver, useDriver } from './runtime/driver-selection.js';
import { Event } from './stream/event.js';
import { defaultStream, Stream } from './stream/stream.js';

type ErrorClass = abstract new (...args: never[]) => Error;

interface Fixture {
  log: DriverCallLog;
  device: Buffer;
  managed: ManagedBuffer;
  pool: DeviceMemoryResource;
  stream: Stream;
}

function setUp(legacy: boolean): Fixture {
  const { driver, log } = countingDriver(createReferenceDriver({ entryPoints: legacy ? 'legacy' : 'auto' }));
  useDriver(driver);
  const pool = new DeviceMemoryResource(0);
  const device = pool.allocate(64);
  const managed = new ManagedMemoryResource().allocate(64);
  const stream = Stream.create();
  // Warm the caches a first call fills (device count, properties), so only the call under test counts.
  deviceProperties(0);
  log.reset();
  return { log, device, managed, pool, stream };
}

/** Closes `object`, then returns the action to try on it. */
function closeThen(object: { close(): void }, action: () => unknown): () => unknown {
  object.close();
  return action;
}

function expectRefused(
  fixture: Fixture,
  errorClass: ErrorClass,
  action: () => unknown,
  message?: RegExp,
): void {
  let error: unknown;
  try {
    action();
  } catch (caught) {
    error = caught;
  }
  expect(error, 'expected an error').toBeInstanceOf(errorClass);
  if (message) expect((error as Error).message).toMatch(message);
  expect(fixture.log.calls).toEqual([]);
}

describe('error table: refused before any driver call', () => {
  let fixture: Fixture;
  beforeEach(() => {
    fixture = setUp(false);
  });

  const typeErrors: [string, (f: Fixture) => unknown][] = [
    ['allocate("4")', (f) => f.pool.allocate('4' as never)],
    ['allocate(true)', (f) => f.pool.allocate(true as never)],
    ['allocate with options not an object', (f) => f.pool.allocate(4, 5 as never)],
    ['allocate with a stream that is not a Stream', (f) => f.pool.allocate(4, { stream: 1n as never })],
    ['copyFrom(42)', (f) => f.device.copyFrom(42 as never)],
    ['copyTo("x")', (f) => f.device.copyTo('x' as never)],
    ['fill(1.5)', (f) => f.device.fill(1.5)],
    ['fill("1")', (f) => f.device.fill('1' as never)],
    ['fill(ArrayBuffer)', (f) => f.device.fill(new ArrayBuffer(1) as never)],
    ['hostView() of device memory', (f) => f.device.hostView()],
    ['fromHandle with mr and owner', (f) => Buffer.fromHandle(f.device.handle, 8, { mr: f.pool, owner: {} })],
    ['fromHandle("0x1")', () => Buffer.fromHandle('0x1' as never, 8)],
    ['fromIpcDescriptor(not a resource)', () => Buffer.fromIpcDescriptor({} as never, {} as never)],
    ['fromIpcDescriptor(bad descriptor)', (f) => Buffer.fromIpcDescriptor(f.pool, 'descriptor' as never)],
    ['ipcDescriptor of a pool without IPC', (f) => f.device.ipcDescriptor],
    ['getAllocationHandle without IPC', (f) => f.pool.getAllocationHandle()],
    ['accessedBy.add(0)', (f) => f.managed.accessedBy.add(0 as never)],
    ['accessedBy = [Host, "x"]', (f) => Object.assign(f.managed, { accessedBy: [new Host(), 'x'] })],
    ['preferredLocation = 0', (f) => Object.assign(f.managed, { preferredLocation: 0 })],
    ['readMostly = "yes"', (f) => Object.assign(f.managed, { readMostly: 'yes' })],
    ['prefetch(0)', (f) => f.managed.prefetch(0 as never)],
    ['discardPrefetch("Host")', (f) => f.managed.discardPrefetch('Host' as never)],
    ['Stream.create("0")', () => Stream.create('0' as never)],
    ['Stream.create(0, { priority: 0.5 })', () => Stream.create(0, { priority: 0.5 })],
    ['stream.wait(42)', (f) => f.stream.wait(42 as never)],
    ['stream.record({})', (f) => f.stream.record({} as never)],
    ['Event.create(0, { enableTiming: 1 })', () => Event.create(0, { enableTiming: 1 as never })],
    ['new DeviceMemoryResource("0")', () => new DeviceMemoryResource('0' as never)],
    [
      'new DeviceMemoryResource(0, { ipcEnabled: "yes" })',
      () => new DeviceMemoryResource(0, { ipcEnabled: 'yes' as never }),
    ],
    ['new PinnedMemoryResource({ numaId: 0.5 })', () => new PinnedMemoryResource({ numaId: 0.5 })],
    [
      'new ManagedMemoryResource({ preferredLocation: 0 })',
      () => new ManagedMemoryResource({ preferredLocation: 0 as never }),
    ],
    [
      'DeviceMemoryResource.fromAllocationHandle(0, "fd")',
      () => DeviceMemoryResource.fromAllocationHandle(0, 'fd' as never),
    ],
    [
      'IpcAllocationHandle.fromFileDescriptor("3")',
      () => IpcAllocationHandle.fromFileDescriptor('3' as never),
    ],
    ['deviceProperties("0")', () => deviceProperties('0' as never)],
    ['memoryInfo(null)', () => memoryInfo(null as never)],
    ['setCurrentDevice({})', () => setCurrentDevice({} as never)],
    ['defaultStream(true)', () => defaultStream(true as never)],
    ['register(42)', (f) => f.pool.register(42 as never)],
    ['useDriver(42)', () => useDriver(42 as never)],
  ];
  for (const [name, action] of typeErrors) {
    it(`TypeError: ${name}`, () => expectRefused(fixture, TypeError, () => action(fixture)));
  }

  const rangeErrors: [string, (f: Fixture) => unknown][] = [
    ['allocate(-1)', (f) => f.pool.allocate(-1)],
    ['allocate(1.5)', (f) => f.pool.allocate(1.5)],
    ['allocate(NaN)', (f) => f.pool.allocate(Number.NaN)],
    ['allocate(2**53)', (f) => f.pool.allocate(2 ** 53)],
    ['deallocate(-1n, 8)', (f) => f.pool.deallocate(-1n, 8)],
    ['slice past the end', (f) => f.device.slice(65)],
    ['slice longer than the buffer', (f) => f.device.slice(8, 57)],
    ['copyFrom of a larger array', (f) => f.device.copyFrom(new Uint8Array(65))],
    ['copyTo a smaller array', (f) => f.device.copyTo(new Uint8Array(63))],
    ['fill(256)', (f) => f.device.fill(256)],
    ['fill(-1)', (f) => f.device.fill(-1)],
    ['fill with a 3-byte pattern', (f) => f.device.fill(new Uint8Array(3))],
    ['fill of a size not divisible by the pattern', (f) => f.device.slice(0, 6).fill(new Uint8Array(4))],
    ['new PinnedMemoryResource({ numaId: -2 })', () => new PinnedMemoryResource({ numaId: -2 })],
    ['new DeviceMemoryResource(0, { maxSize: -1 })', () => new DeviceMemoryResource(0, { maxSize: -1 })],
    ['new DeviceMemoryResource(7) on a one-device driver', () => new DeviceMemoryResource(7)],
    ['Stream.create(-1)', () => Stream.create(-1)],
    [
      'fromIpcDescriptor with data of 3 bytes',
      (f) => Buffer.fromIpcDescriptor(f.pool, { data: 'AAAA', size: 8, uuid: null }),
    ],
    ['fromHandle(2**64)', () => Buffer.fromHandle(2n ** 64n, 8)],
  ];
  for (const [name, action] of rangeErrors) {
    it(`RangeError: ${name}`, () => expectRefused(fixture, RangeError, () => action(fixture)));
  }

  const closedObjects: [string, (f: Fixture) => () => unknown, RegExp][] = [
    ['Buffer', (f) => closeThen(f.device, () => f.device.fill(0)), /Buffer is closed/],
    [
      'slice of a closed Buffer',
      (f) => {
        const view = f.device.slice(8, 8);
        f.device.close();
        return () => view.copyFrom(new Uint8Array(8));
      },
      /Buffer is closed/,
    ],
    [
      'ManagedBuffer',
      (f) => closeThen(f.managed, () => f.managed.prefetch(new Device(0))),
      /ManagedBuffer is closed/,
    ],
    ['Stream', (f) => closeThen(f.stream, () => f.stream.record()), /Stream is closed/],
    [
      'Stream passed as an option',
      (f) => closeThen(f.stream, () => f.pool.allocate(8, { stream: f.stream })),
      /Stream is closed/,
    ],
    [
      'Event',
      (f) => {
        const event = f.stream.record();
        event.close();
        return () => event.sync();
      },
      /Event is closed/,
    ],
    [
      'DeviceMemoryResource',
      (f) => closeThen(f.pool, () => f.pool.allocate(8)),
      /DeviceMemoryResource is closed/,
    ],
    [
      'PinnedMemoryResource',
      () => {
        const pinned = new PinnedMemoryResource();
        pinned.close();
        return () => pinned.allocate(8);
      },
      /PinnedMemoryResource is closed/,
    ],
    [
      'LegacyPinnedMemoryResource',
      () => {
        const legacy = new LegacyPinnedMemoryResource();
        legacy.close();
        return () => legacy.allocate(8);
      },
      /LegacyPinnedMemoryResource is closed/,
    ],
    [
      'ManagedMemoryResource',
      () => {
        const managed = new ManagedMemoryResource();
        managed.close();
        return () => managed.allocate(8);
      },
      /ManagedMemoryResource is closed/,
    ],
  ];
  for (const [name, prepare, message] of closedObjects) {
    it(`CudaStateError: ${name} used after close`, () => {
      const action = prepare(fixture);
      fixture.log.reset();
      expectRefused(fixture, CudaStateError, action, message);
    });
  }

  it("CudaStateError: deallocate of a pointer an open buffer owns (it stays the buffer's)", () => {
    expectRefused(
      fixture,
      CudaStateError,
      () => fixture.pool.deallocate(fixture.device.handle, 64),
      /close the Buffer instead/,
    );
    expect(fixture.device.isClosed).toBe(false);
  });

  it('NotSupportedError: IPC on a driver without interprocess sharing', () => {
    expectRefused(
      fixture,
      NotSupportedError,
      () => new DeviceMemoryResource(0, { ipcEnabled: true }),
      /interprocess/,
    );
    expectRefused(
      fixture,
      NotSupportedError,
      () => new PinnedMemoryResource({ ipcEnabled: true }),
      /interprocess/,
    );
  });

  it('CudaError: what the driver returned, with code, name and entry point', () => {
    const small = new DeviceMemoryResource(0, { maxSize: 2 * 1024 * 1024 });
    let error: unknown;
    try {
      small.allocate(64 * 1024 * 1024);
    } catch (caught) {
      error = caught;
    }
    expect(CudaError.isInstance(error)).toBe(true);
    const cudaError = error as CudaError;
    expect(cudaError.code).toBe(2);
    expect(cudaError.codeName).toBe('CUDA_ERROR_OUT_OF_MEMORY');
    expect(cudaError.call).toBe('cuMemAllocFromPoolAsync');
    expect(cudaError.message).toMatch(/cuMemAllocFromPoolAsync.*CUDA_ERROR_OUT_OF_MEMORY \(2\)/);
  });

  it('DriverUnavailableError: no adapter can be loaded', () => {
    const missing = () => {
      throw Object.assign(new Error('Cannot find module'), { code: 'MODULE_NOT_FOUND' });
    };
    expect(() => resolveDriver(missing, {})).toThrow(DriverUnavailableError);
    expect(() => resolveDriver(missing, {})).toThrow(/Tried:\n- napi: .*\n- ffi: /);
  });
});

describe('error table on a driver without CUDA 13 features', () => {
  let fixture: Fixture;
  beforeEach(() => {
    fixture = setUp(true);
  });

  it('NotSupportedError: NUMA host locations, named with the version needed', () => {
    const numa = new Host({ numaId: 0 });
    expectRefused(fixture, NotSupportedError, () => fixture.managed.prefetch(numa), /CUDA 13\.0/);
    // accessedBy never takes a NUMA host (cuda.h: DEVICE or HOST only), whatever the driver.
    expectRefused(fixture, TypeError, () => fixture.managed.accessedBy.add(Host.numaCurrent()));
    expectRefused(fixture, NotSupportedError, () =>
      Object.assign(fixture.managed, { preferredLocation: numa }),
    );
    expectRefused(fixture, NotSupportedError, () => new ManagedMemoryResource({ preferredLocation: numa }));
    expectRefused(fixture, NotSupportedError, () => new PinnedMemoryResource({ numaId: 0 }));
  });

  it('NotSupportedError: discard without the batch entry points, named with CUDA 13.0', () => {
    expectRefused(fixture, NotSupportedError, () => fixture.managed.discard(), /CUDA 13\.0/);
  });
});
