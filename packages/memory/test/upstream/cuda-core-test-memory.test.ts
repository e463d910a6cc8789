// cuda.core's buffer tests, translated case by case into cumem's API: upstream
// NVIDIA/cuda-python cuda_core/tests/test_memory.py, the newest revision the index holds (the one
// importing `cuda.core`, with PinnedMemoryResource and ManagedMemoryResource cases; the index
// names no commit for it), checked against commit 01c2c0e3141a22c45afd571f24a5ed327be2c017 (the
// same cases up to test_buffer_fill, which there takes a `width`). The dummy resources come from
// that file and cuda_core/tests/helpers/buffers.py. This file holds the Buffer cases in upstream
// order; the resource cases are in cuda-core-test-memory-resources.test.ts.
//
// Upstream's dummy resources are user subclasses of MemoryResource over raw driver allocations;
// here they are the same, over `currentDriver()` (cuMemAlloc, cuMemAllocManaged, cuMemAllocHost,
// JS memory for pageable host memory). The built-in resources that allocate the same kinds of
// memory run through the same cases beside them.
//
// Not ported:
// - test_owner_close: counts Python references to the owner; a JS heap has no reference counts
//   (a WeakRef/GC version would test the engine's collector timing, not close()).
// - test_buffer_dunder_dlpack, `dl_device` and `copy` arguments: planned for version 0.4
//   (API.md), not built; cumem's toDLPack takes `stream` and `maxVersion` only.
// - test_buffer_dlpack_failure_clean_up: its sentinel is a Python reference count; the case below
//   checks the clean-up cumem can show (the buffer stays usable and is freed once).
// - test_strided_memory_view_leak, test_strided_memory_view_refcnt: numpy and Python reference
//   counts; StridedMemoryView lives in @cumem/utils, outside this package.
// - test_graph_memory_resource_object: GraphMemoryResource is planned for version 0.4 (API.md).
// - Resource cases (pools, VMM, pinned and managed resources): see
//   cuda-core-test-memory-resources.test.ts, which lists what it does not port.

import { describeEachDriver, describeEachDriverWithDevices, type TestDriver } from '@cumem/testing/vitest';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import * as cumem from '../../src/index.js';
import {
  Buffer,
  currentDriver,
  DeviceMemoryResource,
  deviceCount,
  LegacyPinnedMemoryResource,
  ManagedMemoryResource,
  MemoryResource,
  PinnedMemoryResource,
  registerHostMemory,
  Stream,
  setCurrentDevice,
  useDriver,
} from '../../src/index.js';
import { adapters } from '../adapters.js';
import { DummyDeviceMemoryResource } from './dummy-resources.js';

/** cuda.h: CU_MEM_ATTACH_GLOBAL, memory any stream on any device may access. */
const memAttachGlobal = 1;

// dlpack.h: DLDeviceType values, and where DLDevice sits in the two structs a capsule points at
// (DLManagedTensorVersioned: version, manager_ctx, deleter, flags, then the DLTensor; the legacy
// DLManagedTensor starts with the DLTensor; in a DLTensor, DLDevice follows the data pointer).
const kDLCPU = 1;
const kDLCUDA = 2;
const kDLCUDAHost = 3;
const kDLCUDAManaged = 13;
const versionedDeviceOffset = 32 + 8;
const legacyDeviceOffset = 8;

class DummyHostMemoryResource extends MemoryResource {
  // The JS memory handed out, kept alive until deallocate (pageable host memory).
  readonly held = new Map<bigint, Uint8Array>();
  deallocations = 0;
  allocate(size: number): Buffer {
    const bytes = new Uint8Array(size);
    const pointer = currentDriver().addressOf(bytes);
    this.held.set(pointer, bytes);
    return Buffer.fromHandle(pointer, size, { mr: this });
  }
  deallocate(pointer: bigint | number): void {
    this.deallocations += 1;
    this.held.delete(BigInt(pointer));
  }
  get isDeviceAccessible(): boolean {
    return false;
  }
  get isHostAccessible(): boolean {
    return true;
  }
  // cuda.core's dummy raises here; cumem's MemoryResource.deviceId is -1 for host memory, and
  // cumem reads it (copies, exports), so the dummy keeps cumem's contract.
  get deviceId(): number {
    return -1;
  }
}

class DummyUnifiedMemoryResource extends MemoryResource {
  allocate(size: number): Buffer {
    return Buffer.fromHandle(currentDriver().memAllocManaged(size, memAttachGlobal), size, { mr: this });
  }
  deallocate(pointer: bigint | number): void {
    currentDriver().memFree(BigInt(pointer));
  }
  get isDeviceAccessible(): boolean {
    return true;
  }
  get isHostAccessible(): boolean {
    return true;
  }
  get deviceId(): number {
    return 0;
  }
}

class DummyPinnedMemoryResource extends MemoryResource {
  allocate(size: number): Buffer {
    return Buffer.fromHandle(currentDriver().memHostAlloc(size, 0), size, { mr: this });
  }
  deallocate(pointer: bigint | number): void {
    currentDriver().memFreeHost(BigInt(pointer));
  }
  get isDeviceAccessible(): boolean {
    return true;
  }
  get isHostAccessible(): boolean {
    return true;
  }
  // cuda.core's dummy raises here; cumem's MemoryResource.deviceId is -1 for host memory, and
  // cumem reads it (copies, exports), so the dummy keeps cumem's contract.
  get deviceId(): number {
    return -1;
  }
}

/** Memory that neither a device nor the host can access, as upstream's NullMemoryResource says of its own. */
class NullMemoryResource extends DummyHostMemoryResource {
  override get isHostAccessible(): boolean {
    return false;
  }
}

/** A resource to run a case on; `make` returns why instead when the driver cannot give one. */
interface ResourceCase {
  readonly name: string;
  readonly make: (driver: TestDriver) => MemoryResource | string;
}

// The dummies upstream uses, then cumem's built-in resources for the same kinds of memory. A
// built-in that the driver cannot give returns why, and the case skips with it.
const copyResources: readonly ResourceCase[] = [
  { name: 'DummyDeviceMemoryResource', make: () => new DummyDeviceMemoryResource() },
  { name: 'DummyUnifiedMemoryResource', make: () => new DummyUnifiedMemoryResource() },
  { name: 'DummyPinnedMemoryResource', make: () => new DummyPinnedMemoryResource() },
  { name: 'DeviceMemoryResource', make: () => new DeviceMemoryResource(0) },
  { name: 'ManagedMemoryResource', make: () => new ManagedMemoryResource() },
  { name: 'LegacyPinnedMemoryResource', make: () => new LegacyPinnedMemoryResource() },
  {
    name: 'PinnedMemoryResource',
    make: (entry) =>
      entry.driver.capabilities.hostMemoryPools
        ? new PinnedMemoryResource()
        : 'not applicable: the driver has no host memory pools',
  },
];

const initializationResources: readonly ResourceCase[] = [
  copyResources[0] as ResourceCase,
  { name: 'DummyHostMemoryResource', make: () => new DummyHostMemoryResource() },
  ...copyResources.slice(1),
];

/** Bytes 0, 1, 2, ... 255, 0, 1, ... as upstream writes them (`c_byte(i)`). */
function counting(size: number): Uint8Array {
  return Uint8Array.from({ length: size }, (_, index) => index & 0xff);
}

function read(buffer: Buffer): Uint8Array {
  const bytes = new Uint8Array(buffer.size);
  buffer.copyTo(bytes);
  return bytes;
}

function makeOrSkip(
  resource: ResourceCase,
  entry: TestDriver,
  skip: (note: string) => never,
): MemoryResource {
  const made = resource.make(entry);
  if (typeof made === 'string') skip(made);
  return made as MemoryResource;
}

const fillSize = 64;

/** One row of upstream's fill table: the value, the buffer size, and the error class or null. */
interface FillCase {
  readonly id: string;
  readonly value: unknown;
  readonly size: number;
  readonly error: (new (...args: never[]) => Error) | null;
}

// Upstream's table. Its bytes patterns are Uint8Arrays here and its numpy scalars one-element
// typed arrays. Values out of a byte's range are RangeError in cumem (OverflowError upstream),
// and a bad pattern length or a size it does not divide RangeError (ValueError upstream).
const fillCases: readonly FillCase[] = [
  { id: 'int-0x42', value: 0x42, size: fillSize, error: null },
  { id: 'int-neg', value: -1, size: fillSize, error: RangeError },
  { id: 'int-256', value: 256, size: fillSize, error: RangeError },
  { id: 'int-1000', value: 1000, size: fillSize, error: RangeError },
  { id: 'bad-type-str', value: 'invalid', size: fillSize, error: TypeError },
  { id: 'bytes-1', value: Uint8Array.of(0x7f), size: fillSize, error: null },
  { id: 'bytes-2', value: Uint8Array.of(0x34, 0x12), size: fillSize, error: null },
  { id: 'bytes-4', value: Uint8Array.of(0xef, 0xbe, 0xad, 0xde), size: fillSize, error: null },
  { id: 'bytes-2-bad-size', value: Uint8Array.of(0x34, 0x12), size: fillSize + 1, error: RangeError },
  {
    id: 'bytes-4-bad-size',
    value: Uint8Array.of(0xef, 0xbe, 0xad, 0xde),
    size: fillSize + 2,
    error: RangeError,
  },
  { id: 'bytes-0', value: new Uint8Array(0), size: fillSize, error: RangeError },
  { id: 'bytes-3', value: Uint8Array.of(1, 2, 3), size: fillSize, error: RangeError },
  { id: 'np-uint8-0', value: Uint8Array.of(0), size: fillSize, error: null },
  { id: 'np-uint8-255', value: Uint8Array.of(255), size: fillSize, error: null },
  { id: 'np-int8--1', value: Int8Array.of(-1), size: fillSize, error: null },
  { id: 'np-int8-127', value: Int8Array.of(127), size: fillSize, error: null },
  { id: 'np-int8--128', value: Int8Array.of(-128), size: fillSize, error: null },
  { id: 'np-uint16-0x1234', value: Uint16Array.of(0x1234), size: fillSize, error: null },
  { id: 'np-uint16-0xFFFF', value: Uint16Array.of(0xffff), size: fillSize, error: null },
  { id: 'np-int16--1', value: Int16Array.of(-1), size: fillSize, error: null },
  { id: 'np-int16-max', value: Int16Array.of(32767), size: fillSize, error: null },
  { id: 'np-int16-min', value: Int16Array.of(-32768), size: fillSize, error: null },
  { id: 'np-uint16-bad-size', value: Uint16Array.of(0x1234), size: fillSize + 1, error: RangeError },
  { id: 'np-uint32-0xDEADBEEF', value: Uint32Array.of(0xdeadbeef), size: fillSize, error: null },
  { id: 'np-uint32-0xFFFFFFFF', value: Uint32Array.of(0xffffffff), size: fillSize, error: null },
  { id: 'np-int32--1', value: Int32Array.of(-1), size: fillSize, error: null },
  { id: 'np-int32-max', value: Int32Array.of(2147483647), size: fillSize, error: null },
  { id: 'np-int32-min', value: Int32Array.of(-2147483648), size: fillSize, error: null },
  { id: 'np-uint32-bad-size', value: Uint32Array.of(0xdeadbeef), size: fillSize + 2, error: RangeError },
  { id: 'np-float32-1.0', value: Float32Array.of(1), size: fillSize, error: null },
  { id: 'np-uint64-err', value: BigUint64Array.of(0n), size: fillSize, error: RangeError },
  { id: 'np-int64-err', value: BigInt64Array.of(0n), size: fillSize, error: RangeError },
  { id: 'np-float64-err', value: Float64Array.of(0), size: fillSize, error: RangeError },
];

/** The bytes of `value` as a fill pattern (a byte, or the view's bytes). */
function patternOf(value: unknown): Uint8Array {
  if (typeof value === 'number') return Uint8Array.of(value);
  const view = value as ArrayBufferView;
  return new Uint8Array(view.buffer, view.byteOffset, view.byteLength);
}

/** Upstream's test_buffer_fill body for one row: the error, or every byte as the pattern repeats. */
function runFillCase(mr: MemoryResource, fill: FillCase): void {
  using stream = Stream.create();
  const buffer = mr.allocate(fill.size);
  try {
    if (fill.error !== null) {
      expect(() => buffer.fill(fill.value as number, { stream }), fill.id).toThrow(fill.error);
    } else {
      buffer.fill(fill.value as number, { stream });
      stream.sync();
      const pattern = patternOf(fill.value);
      const expected = Uint8Array.from(
        { length: fill.size },
        (_, index) => pattern[index % pattern.length] as number,
      );
      expect(read(buffer), fill.id).toEqual(expected);
    }
  } finally {
    buffer.close();
  }
}

describeEachDriver(adapters, 'cuda.core test_memory.py: Buffer', (entry) => {
  beforeAll(() => {
    useDriver(entry.driver);
    setCurrentDevice(0);
  });

  it('test_package_contents: the package exports the memory classes cuda.core has (GraphMemoryResource: planned; the *Options are types)', () => {
    const expected = [
      'Buffer',
      'MemoryResource',
      'DeviceMemoryResource',
      'IpcAllocationHandle',
      'LegacyPinnedMemoryResource',
      'ManagedMemoryResource',
      'PinnedMemoryResource',
      'VirtualMemoryResource',
    ];
    for (const name of expected)
      expect(typeof (cumem as Record<string, unknown>)[name], name).toBe('function');
  });

  describe('test_buffer_initialization', () => {
    for (const resource of initializationResources) {
      it(`test_buffer_initialization: ${resource.name}`, (context) => {
        const mr = makeOrSkip(resource, entry, (note) => context.skip(note));
        const buffer = mr.allocate(1024);
        expect(buffer.handle).not.toBe(0n);
        expect(buffer.size).toBe(1024);
        expect(buffer.memoryResource).toBe(mr);
        expect(buffer.isDeviceAccessible).toBe(mr.isDeviceAccessible);
        expect(buffer.isHostAccessible).toBe(mr.isHostAccessible);
        expect(buffer.isMapped).toBe(false);
        buffer.close();
      });
    }
  });

  for (const direction of ['test_buffer_copy_to', 'test_buffer_copy_from'] as const) {
    describe(direction, () => {
      for (const resource of copyResources) {
        // Upstream reads the bytes back for its pinned dummy only (through a pointer); cumem
        // reads every kind back through a copy, and host-accessible ones through a host view too.
        it(`${direction}: ${resource.name}, on a stream, bytes checked`, (context) => {
          const mr = makeOrSkip(resource, entry, (note) => context.skip(note));
          const source = mr.allocate(1024);
          const target = mr.allocate(1024);
          using stream = Stream.create();
          const data = counting(1024);
          if (source.isHostAccessible) source.hostView().set(data);
          else source.copyFrom(data);
          if (direction === 'test_buffer_copy_to') source.copyTo(target, { stream });
          else target.copyFrom(source, { stream });
          stream.sync();
          expect(read(target)).toEqual(data);
          if (target.isHostAccessible)
            expect(target.hostView().subarray(0, 10)).toEqual(data.subarray(0, 10));
          target.close();
          source.close();
        });
      }
    });
  }

  describe('test_buffer_fill', () => {
    // Upstream's fill_env: its three dummies, one case per value; cumem's built-in resources run
    // the whole table in one case each.
    const fillEnv = copyResources.slice(0, 3);
    for (const resource of fillEnv) {
      for (const fill of fillCases) {
        it(`test_buffer_fill[${resource.name}-${fill.id}]`, () => {
          runFillCase(resource.make(entry) as MemoryResource, fill);
        });
      }
    }
    for (const resource of copyResources.slice(3)) {
      it(`test_buffer_fill[${resource.name}-every value]: cumem's resource, upstream's table`, (context) => {
        const mr = makeOrSkip(resource, entry, (note) => context.skip(note));
        for (const fill of fillCases) runFillCase(mr, fill);
      });
    }
  });

  describe('test_buffer_close', () => {
    for (const resource of initializationResources) {
      it(`test_buffer_close: ${resource.name}: a closed buffer says so and refuses work`, (context) => {
        const mr = makeOrSkip(resource, entry, (note) => context.skip(note));
        const buffer = mr.allocate(1024);
        buffer.close();
        // cuda.core zeroes `handle` and drops `memory_resource`; cumem keeps both readable and
        // marks the buffer closed instead (API.md: a closed object refuses use with CudaStateError).
        expect(buffer.isClosed).toBe(true);
        expect(() => buffer.fill(0)).toThrow(cumem.CudaStateError);
        expect(() => buffer.copyTo(new Uint8Array(1024))).toThrow(cumem.CudaStateError);
        buffer.close();
      });
    }
  });

  it('test_buffer_external_host: pageable JS memory wrapped with an owner is host memory only', () => {
    const bytes = new Uint8Array(20);
    const buffer = Buffer.fromHandle(currentDriver().addressOf(bytes), 20, { owner: bytes });
    expect(buffer.isDeviceAccessible).toBe(false);
    expect(buffer.isHostAccessible).toBe(true);
    expect(buffer.deviceId).toBe(-1);
    buffer.close();
  });

  it('test_memory_resource_and_owner_disallowed: mr and owner together are refused', () => {
    const bytes = new Uint8Array(20);
    const pointer = currentDriver().addressOf(bytes);
    const mr = new DummyDeviceMemoryResource();
    expect(() => Buffer.fromHandle(pointer, 20, { mr, owner: bytes })).toThrow(TypeError);
    expect(() => Buffer.fromHandle(pointer, 20, { mr, owner: bytes })).toThrow(/mr or owner, not both/);
  });

  describe('test_buffer_dunder_dlpack', () => {
    it('test_buffer_dunder_dlpack: exports a versioned capsule, a [1, 0] one, and refuses a bad maxVersion', () => {
      const mr = new DummyDeviceMemoryResource();
      const buffer = mr.allocate(1024);
      const capsule = buffer.toDLPack();
      expect(capsule.version).toEqual([1, 0]);
      expect(capsule.pointer).not.toBe(0n);
      capsule.close();
      const versioned = buffer.toDLPack({ maxVersion: [1, 0] });
      expect(versioned.version).toEqual([1, 0]);
      versioned.close();
      expect(() => buffer.toDLPack({ maxVersion: [] as unknown as [number, number] })).toThrow(
        /maxVersion must be \[major, minor\]/,
      );
      expect(() => buffer.toDLPack({ maxVersion: [9, 8, 7] as unknown as [number, number] })).toThrow(
        TypeError,
      );
      buffer.close();
    });

    const devices: readonly [string, () => MemoryResource, number][] = [
      ['DummyDeviceMemoryResource', () => new DummyDeviceMemoryResource(), kDLCUDA],
      ['DummyHostMemoryResource', () => new DummyHostMemoryResource(), kDLCPU],
      // The dummy does not say its memory is managed (MemoryResource.isManaged stays false), so
      // it exports as memory both sides reach, as upstream expects.
      ['DummyUnifiedMemoryResource', () => new DummyUnifiedMemoryResource(), kDLCUDAHost],
      ['DummyPinnedMemoryResource', () => new DummyPinnedMemoryResource(), kDLCUDAHost],
      // cumem's own resources beside them; its managed buffers are kDLCUDAManaged (dlpack.h's type
      // for managed memory).
      ['DeviceMemoryResource', () => new DeviceMemoryResource(0), kDLCUDA],
      ['ManagedMemoryResource', () => new ManagedMemoryResource(), kDLCUDAManaged],
      ['LegacyPinnedMemoryResource', () => new LegacyPinnedMemoryResource(), kDLCUDAHost],
    ];
    for (const [name, make, expectedType] of devices) {
      it(`test_buffer_dunder_dlpack_device_success: ${name} exports device type ${expectedType}, id 0`, () => {
        const buffer = make().allocate(1024);
        for (const [maxVersion, offset] of [
          [[1, 0], versionedDeviceOffset],
          [[0, 8], legacyDeviceOffset],
        ] as const) {
          const capsule = buffer.toDLPack({ maxVersion });
          const struct = entry.driver.readNativeMemory(capsule.pointer, offset + 8);
          const view = new DataView(struct.buffer, struct.byteOffset, struct.byteLength);
          expect([view.getInt32(offset, true), view.getInt32(offset + 4, true)]).toEqual([expectedType, 0]);
          capsule.close();
        }
        buffer.close();
      });
    }

    it('test_buffer_dunder_dlpack_device_failure: memory neither a device nor the host can access is refused', () => {
      const buffer = new NullMemoryResource().allocate(1024);
      expect(() => buffer.toDLPack()).toThrow(TypeError);
      expect(() => buffer.toDLPack()).toThrow(/no device and no host can access this memory/);
      buffer.close();
    });

    it('test_buffer_dlpack_failure_clean_up: a refused export leaves the buffer usable and freed once', () => {
      const mr = new NullMemoryResource();
      const buffer = mr.allocate(1024);
      expect(() => buffer.toDLPack()).toThrow(/no device and no host can access/);
      expect(buffer.isClosed).toBe(false);
      expect(buffer.size).toBe(1024);
      buffer.close();
      buffer.close();
      expect(mr.deallocations).toBe(1);
      expect(mr.held.size).toBe(0);
    });
  });
});

/**
 * Upstream's external-memory cases: memory allocated on the last device, wrapped by
 * Buffer.fromHandle after (`changeDevice`) device 0 was made current, still reports its device.
 */
function externalMemoryCases(entry: TestDriver): void {
  beforeAll(() => useDriver(entry.driver));
  afterEach(() => setCurrentDevice(0));

  for (const changeDevice of [true, false]) {
    const variant = `change_device=${changeDevice}`;

    it(`test_buffer_external_device[${variant}]: device memory reports its device`, () => {
      const last = deviceCount() - 1;
      setCurrentDevice(last);
      const allocation = new DeviceMemoryResource(last).allocate(32);
      if (changeDevice) setCurrentDevice(0);
      const buffer = Buffer.fromHandle(allocation.handle, 32);
      expect(buffer.isDeviceAccessible).toBe(true);
      expect(buffer.isHostAccessible).toBe(false);
      expect(buffer.deviceId).toBe(last);
      buffer.close();
      allocation.close();
    });

    it(`test_buffer_external_pinned_alloc[${variant}]: cuMemAllocHost memory is host memory both sides reach`, () => {
      const last = deviceCount() - 1;
      setCurrentDevice(last);
      const pointer = currentDriver().memHostAlloc(32, 0);
      try {
        if (changeDevice) setCurrentDevice(0);
        const buffer = Buffer.fromHandle(pointer, 32);
        expect(buffer.isDeviceAccessible).toBe(true);
        expect(buffer.isHostAccessible).toBe(true);
        // cuda.core reports the device that was current at allocation; cumem reports page-locked
        // host memory as host memory, -1 (Buffer.deviceId: "or -1 for host memory").
        expect(buffer.deviceId).toBe(-1);
        buffer.close();
      } finally {
        currentDriver().memFreeHost(pointer);
      }
    });

    it(`test_buffer_external_pinned_registered[${variant}]: registered JS memory becomes reachable by the device`, () => {
      const last = deviceCount() - 1;
      setCurrentDevice(last);
      const bytes = new Uint8Array(4096);
      const pointer = currentDriver().addressOf(bytes);
      const pageable = Buffer.fromHandle(pointer, bytes.byteLength, { owner: bytes });
      expect(pageable.isDeviceAccessible).toBe(false);
      expect(pageable.isHostAccessible).toBe(true);
      expect(pageable.deviceId).toBe(-1);
      pageable.close();

      const registration = registerHostMemory(bytes);
      try {
        if (changeDevice) setCurrentDevice(0);
        const buffer = Buffer.fromHandle(pointer, bytes.byteLength, { owner: bytes });
        expect(buffer.isDeviceAccessible).toBe(true);
        expect(buffer.isHostAccessible).toBe(true);
        // As above: cumem reports page-locked host memory as -1, not the registering device.
        expect(buffer.deviceId).toBe(-1);
        buffer.close();
      } finally {
        registration.close();
      }
    });

    it(`test_buffer_external_managed[${variant}]: managed memory reports the device it was allocated on`, () => {
      const last = deviceCount() - 1;
      setCurrentDevice(last);
      const pointer = currentDriver().memAllocManaged(32, memAttachGlobal);
      try {
        if (changeDevice) setCurrentDevice(0);
        const buffer = Buffer.fromHandle(pointer, 32);
        expect(buffer.isDeviceAccessible).toBe(true);
        expect(buffer.isHostAccessible).toBe(true);
        expect(buffer.deviceId).toBe(last);
        buffer.close();
      } finally {
        currentDriver().memFree(pointer);
        setCurrentDevice(0);
      }
    });
  }
}

describeEachDriver(adapters, 'cuda.core test_memory.py: external memory', externalMemoryCases);
// With two devices the last one is not device 0, so change_device=True really changes it.
describeEachDriverWithDevices(adapters, 2, 'cuda.core test_memory.py: external memory', externalMemoryCases);
