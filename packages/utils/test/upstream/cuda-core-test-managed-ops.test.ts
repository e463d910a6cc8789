// cuda.core's tests of managed-memory operations (advice, prefetch, discard, their batches, the
// Host location), translated case by case.
//
// Upstream: NVIDIA/cuda-python, cuda_core/tests/memory/test_managed_ops.py at commit
// b0d1a216e3932468d3801da5d83449465b3f8faf. Each case's title starts with the upstream test name
// (class-scoped tests as `Class.test_name`).
//
// Counterparts: cuda.core's managed memory resource is cumem's ManagedMemoryResource, which uses
// cuMemAllocManaged instead of a managed pool (documented deviation: managed-pool memory refuses
// advice on CUDA 13.0); upstream's DummyUnifiedMemoryResource (an external cuMemAllocManaged
// allocation) is the driver's memAllocManaged wrapped by ManagedBuffer.fromHandle. The batch
// functions take the stream first (`prefetchBatch(stream, buffers, locations)`), and argument
// errors are cumem's kinds: RangeError for a length mismatch, TypeError for a wrong kind.
// discard needs CUDA 13.0's batch entry point: without it cumem throws NotSupportedError (where
// upstream skips), and discardPrefetch prefetches (documented: discarded contents are undefined).
//
// Not ported: none. Python's hash() has no counterpart, so TestHost.test_eq_hash checks identity
// (Host and Device are interned: equal locations are one object).
import {
  CU_DEVICE_CPU,
  Device,
  Host,
  locationToMemLocation,
  MemAttachFlags,
  MemLocationType,
  MemRangeAttribute,
  NotSupportedError,
} from '@cumem/core-types';
import {
  Buffer,
  DeviceMemoryResource,
  ManagedBuffer,
  ManagedMemoryResource,
  Stream,
  useDriver,
} from '@cumem/memory';
import { describeEachDriver } from '@cumem/testing/vitest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { discardBatch, discardPrefetchBatch, prefetch, prefetchBatch } from '../../src/index.js';
import { adapters, lastPrefetch, strictTypeError } from '../support.js';

// Upstream's allocation size.
const SIZE = 4096;

describe('cuda.core test_managed_ops.py: Host and location conversion (no driver)', () => {
  it('TestHost.test_default: the whole host has no NUMA id and is not numa-current', () => {
    const host = new Host();
    expect(host.numaId).toBe(null);
    expect(host.isNumaCurrent).toBe(false);
  });

  it('TestHost.test_numa: a NUMA host keeps its id', () => {
    const host = new Host({ numaId: 3 });
    expect(host.numaId).toBe(3);
    expect(host.isNumaCurrent).toBe(false);
  });

  it('TestHost.test_numa_current: Host.numaCurrent() is numa-current with no id', () => {
    const host = Host.numaCurrent();
    expect(host.isNumaCurrent).toBe(true);
    expect(host.numaId).toBe(null);
  });

  it('TestHost.test_invalid_numa_id: a negative NUMA id is a RangeError', () => {
    expect(() => new Host({ numaId: -1 })).toThrow(RangeError);
    expect(() => new Host({ numaId: -1 })).toThrow(/numaId must be >= 0/);
  });

  it('TestHost.test_numa_current_only_via_classmethod: an isNumaCurrent option makes no numa-current host (cumem ignores unknown option keys, where Python refuses the keyword)', () => {
    const host = new Host({ isNumaCurrent: true } as never);
    expect(host.isNumaCurrent).toBe(false);
    expect(host).toBe(new Host());
    expect(host).not.toBe(Host.numaCurrent());
  });

  it('TestHost.test_immutable: a Host is frozen', () => {
    const host = new Host({ numaId: 2 });
    expect(Object.isFrozen(host)).toBe(true);
    expect(() => {
      (host as { numaId: number | null }).numaId = 3;
    }).toThrow(TypeError);
    expect(host.numaId).toBe(2);
  });

  it('TestHost.test_eq_hash: equal hosts are one object (interned), different ones are not', () => {
    expect(new Host()).toBe(new Host());
    expect(new Host({ numaId: 1 })).toBe(new Host({ numaId: 1 }));
    expect(new Host()).not.toBe(new Host({ numaId: 0 }));
    expect(Host.numaCurrent()).not.toBe(new Host());
  });

  it('TestLocationCoerce.test_device_passthrough: a Device is a device location with its ordinal', () => {
    expect(locationToMemLocation(new Device(0))).toEqual({ type: MemLocationType.Device, id: 0 });
  });

  it('TestLocationCoerce.test_host_passthrough: Host() is the host location', () => {
    expect(locationToMemLocation(new Host()).type).toBe(MemLocationType.Host);
  });

  it('TestLocationCoerce.test_host_numa_passthrough: a NUMA host is a host-NUMA location with its id', () => {
    expect(locationToMemLocation(new Host({ numaId: 3 }))).toEqual({ type: MemLocationType.HostNuma, id: 3 });
  });

  it('TestLocationCoerce.test_host_numa_current_passthrough: Host.numaCurrent() is the numa-current location', () => {
    expect(locationToMemLocation(Host.numaCurrent()).type).toBe(MemLocationType.HostNumaCurrent);
  });
});

describeEachDriver(adapters, 'cuda.core test_managed_ops.py', (entry) => {
  let mr: ManagedMemoryResource;
  let stream: Stream;
  const device = new Device(0);
  const host = new Host();
  const cleanup: (() => void)[] = [];

  beforeAll(() => {
    useDriver(entry.driver);
    mr = new ManagedMemoryResource();
    stream = Stream.create(0);
  });

  afterAll(() => {
    stream.sync();
    for (const release of cleanup.reverse()) release();
    stream.close();
  });

  /** A managed buffer of the resource, closed after the file's cases. */
  function managed(): ManagedBuffer {
    const buffer = mr.allocate(SIZE);
    cleanup.push(() => buffer.close());
    return buffer;
  }

  /** Upstream's DummyUnifiedMemoryResource: cuMemAllocManaged memory cumem did not allocate. */
  function external(): ManagedBuffer {
    const pointer = entry.driver.memAllocManaged(SIZE, MemAttachFlags.Global);
    const buffer = ManagedBuffer.fromHandle(pointer, SIZE);
    cleanup.push(() => {
      buffer.close();
      entry.driver.memFree(pointer);
    });
    return buffer;
  }

  const rangeAttribute = (buffer: ManagedBuffer, attribute: MemRangeAttribute) =>
    entry.driver.memRangeGetAttribute(buffer.handle, buffer.size, attribute);

  /** Whether this driver has the CUDA 13.0 discard entry points. */
  const hasDiscard = () => entry.driver.capabilities.batchPrefetchDiscard;

  it('test_managed_memory_prefetch_supports_managed_pool_allocations: host, then device, read back as the last prefetch location', () => {
    const buffer = managed();
    buffer.prefetch(host, { stream });
    stream.sync();
    expect(rangeAttribute(buffer, MemRangeAttribute.LastPrefetchLocation)).toBe(CU_DEVICE_CPU);
    buffer.prefetch(device, { stream });
    stream.sync();
    expect(rangeAttribute(buffer, MemRangeAttribute.LastPrefetchLocation)).toBe(device.ordinal);
  });

  it('test_managed_memory_advise_supports_external_managed_allocations: read-mostly and host preference reach the driver', () => {
    const buffer = external();
    buffer.readMostly = true;
    expect(rangeAttribute(buffer, MemRangeAttribute.ReadMostly)).toBe(1);
    buffer.preferredLocation = host;
    expect(rangeAttribute(buffer, MemRangeAttribute.PreferredLocation)).toBe(CU_DEVICE_CPU);
  });

  it('test_managed_memory_prefetch_supports_external_managed_allocations: a prefetch to the device is recorded', () => {
    const buffer = external();
    buffer.prefetch(device, { stream });
    stream.sync();
    expect(rangeAttribute(buffer, MemRangeAttribute.LastPrefetchLocation)).toBe(device.ordinal);
  });

  it('test_managed_memory_discard_prefetch_supports_managed_pool_allocations: discard-prefetch to the device after a host prefetch', () => {
    const buffer = managed();
    buffer.prefetch(host, { stream });
    stream.sync();
    buffer.discardPrefetch(device, { stream });
    stream.sync();
    expect(rangeAttribute(buffer, MemRangeAttribute.LastPrefetchLocation)).toBe(device.ordinal);
  });

  it('test_managed_memory_discard_prefetch_supports_external_managed_allocations: the same on external managed memory', () => {
    const buffer = external();
    buffer.prefetch(host, { stream });
    stream.sync();
    buffer.discardPrefetch(device, { stream });
    stream.sync();
    expect(rangeAttribute(buffer, MemRangeAttribute.LastPrefetchLocation)).toBe(device.ordinal);
  });

  it('test_managed_memory_operations_reject_non_managed_allocations: refused at wrapping (cumem checks earlier than cuda.core), and by the free functions', () => {
    const deviceMemory = new DeviceMemoryResource(0).allocate(SIZE);
    cleanup.push(() => deviceMemory.close());
    expect(() => ManagedBuffer.fromHandle(deviceMemory.handle, SIZE)).toThrow(/needs managed memory/);
    expect(() => ManagedBuffer.fromHandle(deviceMemory.handle, SIZE)).toThrow(strictTypeError);
    const plain = Buffer.fromHandle(deviceMemory.handle, SIZE);
    cleanup.push(() => plain.close());
    expect(() => prefetch(plain as never, device, { stream })).toThrow(strictTypeError);
    expect(() => prefetchBatch(stream, [plain] as never, device)).toThrow(strictTypeError);
    expect(() => discardPrefetchBatch(stream, [plain] as never, device)).toThrow(strictTypeError);
  });

  it('test_managed_memory_operation_validation: a missing location and a NUMA accessor are TypeErrors', () => {
    const buffer = managed();
    expect(() => buffer.prefetch(undefined as never, { stream })).toThrow(strictTypeError);
    expect(() => buffer.prefetch(null as never, { stream })).toThrow(strictTypeError);
    expect(() => buffer.accessedBy.add(new Host({ numaId: 0 }))).toThrow(strictTypeError);
  });

  it('test_managed_memory_advise_location_validation: what each advice takes', () => {
    const buffer = external();
    buffer.readMostly = true;
    buffer.preferredLocation = device;
    buffer.preferredLocation = host;
    expect(() => buffer.accessedBy.add(new Host({ numaId: 0 }))).toThrow(strictTypeError);
    expect(() => buffer.accessedBy.add(Host.numaCurrent())).toThrow(strictTypeError);
    buffer.preferredLocation = host;
    buffer.preferredLocation = new Device(0);
    expect(buffer.preferredLocation).toBe(device);
  });

  it('TestLocationCoerce.test_none_when_disallowed: a prefetch without a location is a TypeError', () => {
    expect(() => prefetch(managed(), null as never, { stream })).toThrow(strictTypeError);
  });

  it('TestLocationCoerce.test_none_when_allowed: preferredLocation = null removes the preference', () => {
    const buffer = external();
    buffer.preferredLocation = device;
    buffer.preferredLocation = null;
    expect(buffer.preferredLocation).toBe(null);
  });

  it('TestLocationCoerce.test_int_rejected: a device ordinal is no location', () => {
    expect(() => prefetch(managed(), 0 as never, { stream })).toThrow(strictTypeError);
  });

  it('TestLocationCoerce.test_bad_type: a string is no location', () => {
    expect(() => prefetch(managed(), 'device' as never, { stream })).toThrow(strictTypeError);
  });

  it('TestPrefetchBatch.test_same_location: three buffers to one device', () => {
    const buffers = [managed(), managed(), managed()];
    prefetchBatch(stream, buffers, device);
    stream.sync();
    for (const buffer of buffers) expect(lastPrefetch(entry.driver, buffer)).toBe('device:0');
  });

  it('TestPrefetchBatch.test_per_buffer_location: locations paired by index', () => {
    const buffers = [managed(), managed()];
    prefetchBatch(stream, buffers, [host, device]);
    stream.sync();
    expect(lastPrefetch(entry.driver, buffers[0]!)).toBe('host');
    expect(lastPrefetch(entry.driver, buffers[1]!)).toBe('device:0');
  });

  it('TestPrefetchBatch.test_length_mismatch: a RangeError naming the lengths', () => {
    expect(() => prefetchBatch(stream, [managed(), managed()], [host])).toThrow(RangeError);
  });

  it('TestPrefetchBatch.test_rejects_single_buffer: a lone buffer is a TypeError', () => {
    expect(() => prefetchBatch(stream, managed() as never, host)).toThrow(/single Buffer/);
    expect(() => prefetchBatch(stream, managed() as never, host)).toThrow(strictTypeError);
  });

  it('TestDiscardBatch.test_basic: prefetch then discard three buffers (NotSupportedError without CUDA 13.0)', () => {
    const buffers = [managed(), managed(), managed()];
    prefetchBatch(stream, buffers, device);
    stream.sync();
    if (hasDiscard()) {
      discardBatch(stream, buffers);
      stream.sync();
      // Discarded pages hold anything; written again they hold what was written.
      buffers[0]!.fill(7, { stream });
      const bytes = new Uint8Array(SIZE);
      buffers[0]!.copyTo(bytes, { stream });
      stream.sync();
      expect(bytes.every((byte) => byte === 7)).toBe(true);
    } else {
      expect(() => discardBatch(stream, buffers)).toThrow(NotSupportedError);
    }
  });

  it('TestDiscardBatch.test_rejects_single_buffer: a lone buffer is a TypeError', () => {
    expect(() => discardBatch(stream, managed() as never)).toThrow(strictTypeError);
  });

  it('TestDiscardPrefetchBatch.test_same_location: host, then discard-prefetch to the device', () => {
    const buffers = [managed(), managed()];
    prefetchBatch(stream, buffers, host);
    stream.sync();
    discardPrefetchBatch(stream, buffers, device);
    stream.sync();
    for (const buffer of buffers) expect(lastPrefetch(entry.driver, buffer)).toBe('device:0');
  });

  it('TestDiscardPrefetchBatch.test_length_mismatch: a RangeError', () => {
    expect(() => discardPrefetchBatch(stream, [managed(), managed()], [host])).toThrow(RangeError);
  });

  it('TestDiscardPrefetchBatch.test_rejects_single_buffer: a lone buffer is a TypeError', () => {
    expect(() => discardPrefetchBatch(stream, managed() as never, host)).toThrow(strictTypeError);
  });

  it('TestManagedBuffer.test_allocate_returns_managed_buffer: the resource hands out ManagedBuffers', () => {
    const buffer = managed();
    expect(buffer).toBeInstanceOf(ManagedBuffer);
  });

  it('TestManagedBuffer.test_from_handle: external managed memory wraps as a ManagedBuffer (a Buffer) of its size', () => {
    const buffer = external();
    expect(buffer).toBeInstanceOf(ManagedBuffer);
    expect(buffer).toBeInstanceOf(Buffer);
    expect(buffer.size).toBe(SIZE);
  });

  it('TestManagedBuffer.test_read_mostly_roundtrip: false, true, false', () => {
    const buffer = external();
    expect(buffer.readMostly).toBe(false);
    buffer.readMostly = true;
    expect(buffer.readMostly).toBe(true);
    buffer.readMostly = false;
    expect(buffer.readMostly).toBe(false);
  });

  it('TestManagedBuffer.test_preferred_location_roundtrip: device, host, none', () => {
    const buffer = external();
    buffer.preferredLocation = device;
    const got = buffer.preferredLocation;
    expect(Device.isInstance(got)).toBe(true);
    expect((got as Device).ordinal).toBe(device.ordinal);
    buffer.preferredLocation = host;
    expect(buffer.preferredLocation).toBe(new Host());
    buffer.preferredLocation = null;
    expect(buffer.preferredLocation).toBe(null);
  });

  it('TestManagedBuffer.test_preferred_location_roundtrip_host_numa: NUMA node 0 reads back where the driver reports it (NotSupportedError without NUMA locations)', () => {
    const buffer = external();
    const numa0 = new Host({ numaId: 0 });
    if (entry.driver.capabilities.hostNumaLocations) {
      buffer.preferredLocation = numa0;
      // Upstream skips where the driver collapses the node to the host; cumem then reads back
      // Host(), as the driver reports it.
      const reported = rangeAttribute(buffer, MemRangeAttribute.PreferredLocationType);
      expect(buffer.preferredLocation).toBe(reported === MemLocationType.HostNuma ? numa0 : host);
    } else {
      expect(() => {
        buffer.preferredLocation = numa0;
      }).toThrow(NotSupportedError);
    }
  });

  it('TestManagedBuffer.test_accessed_by_add_discard: add, then delete (JS Set naming)', () => {
    const buffer = external();
    expect(buffer.accessedBy.has(device)).toBe(false);
    buffer.accessedBy.add(device);
    expect(buffer.accessedBy.has(device)).toBe(true);
    expect(buffer.accessedBy.delete(device)).toBe(true);
    expect(buffer.accessedBy.has(device)).toBe(false);
  });

  it('TestManagedBuffer.test_accessed_by_read_methods: size, iteration and description', () => {
    const buffer = external();
    expect(buffer.accessedBy.size).toBe(0);
    expect([...buffer.accessedBy]).toEqual([]);
    expect(Object.prototype.toString.call(buffer.accessedBy)).toContain('AccessedByView');
    buffer.accessedBy.add(device);
    expect(buffer.accessedBy.size).toBe(1);
    expect([...buffer.accessedBy]).toEqual([device]);
    expect(new Set(buffer.accessedBy)).toEqual(new Set([device]));
    expect(buffer.accessedBy.size).not.toBe(0);
    // Two reads of the view agree (each asks the driver).
    expect([...buffer.accessedBy]).toEqual([...buffer.accessedBy]);
  });

  it('TestManagedBuffer.test_accessed_by_set_assignment: assigning a set advises exactly it', () => {
    const buffer = external();
    buffer.accessedBy = new Set([device]);
    expect(buffer.accessedBy.has(device)).toBe(true);
    buffer.accessedBy = new Set();
    expect(buffer.accessedBy.has(device)).toBe(false);
  });

  it('TestManagedBuffer.test_instance_prefetch: a prefetch to the device is recorded', () => {
    const buffer = managed();
    buffer.prefetch(device, { stream });
    stream.sync();
    expect(lastPrefetch(entry.driver, buffer)).toBe('device:0');
  });

  it('TestManagedBuffer.test_instance_discard: discard after a prefetch (NotSupportedError without CUDA 13.0)', () => {
    const buffer = managed();
    buffer.prefetch(device, { stream });
    stream.sync();
    if (hasDiscard()) {
      buffer.discard({ stream });
      stream.sync();
      expect(buffer.isClosed).toBe(false);
    } else {
      expect(() => buffer.discard({ stream })).toThrow(NotSupportedError);
    }
  });

  it('TestManagedBuffer.test_instance_discard_prefetch: host, then discard-prefetch to the device', () => {
    const buffer = managed();
    buffer.prefetch(host, { stream });
    stream.sync();
    buffer.discardPrefetch(device, { stream });
    stream.sync();
    expect(lastPrefetch(entry.driver, buffer)).toBe('device:0');
  });
});
