import {
  CudaError,
  CudaStateError,
  MemAccessFlags,
  MemLocationType,
  NotSupportedError,
} from '@cumem/core-types';
import { download, expectBytes, patternBytes, withCountingDriver } from '@cumem/test-support';
import { describeEachDriver } from '@cumem/testing/vitest';
import { beforeAll, expect, it } from 'vitest';
import { adapters } from '../../../test/adapters.js';
import { collectGarbage } from '../../../test/garbage.js';
import { Buffer } from '../../buffer/buffer.js';
import { flushDeferredReleases } from '../../buffer/buffer-release.js';
import { trackAllocations } from '../../diagnostics/allocation-tracker.js';
import { onOutOfMemory } from '../../diagnostics/out-of-memory.js';
import { useDriver } from '../../runtime/driver-selection.js';
import { DeviceMemoryResource } from '../device-memory-resource.js';
import { VirtualMemoryResource } from './virtual-memory-resource.js';

/** The first `size` bytes of `buffer` (all of it by default). */
function head(buffer: Buffer, size = buffer.size): Uint8Array {
  return download(buffer.slice(0, size));
}

function allocateAndDrop(mr: VirtualMemoryResource, size: number): bigint {
  return mr.allocate(size).handle;
}

describeEachDriver(adapters, 'VirtualMemoryResource', (entry) => {
  beforeAll(() => useDriver(entry.driver));

  it('allocate rounds the memory up to the granularity; the buffer works as any Buffer', () => {
    using mr = new VirtualMemoryResource(0);
    const g = mr.granularity;
    expect(g).toBeGreaterThan(0);
    expect(mr.deviceId).toBe(0);
    expect(mr.isDeviceAccessible).toBe(true);
    expect(mr.isHostAccessible).toBe(false);
    mr.enableStatistics();
    using buffer = mr.allocate(g + 100);
    expect(buffer).toBeInstanceOf(Buffer);
    expect(buffer.size).toBe(g + 100);
    expect(buffer.memoryResource).toBe(mr);
    expect(mr.statistics().bytes.current).toBe(2 * g);
    const data = patternBytes(g + 100, 7);
    buffer.copyFrom(data);
    expectBytes(head(buffer), data);
    // Across the chunk boundary, through a slice, a fill and a device-to-device copy.
    using slice = buffer.slice(g - 8, 16);
    slice.fill(0xab);
    data.fill(0xab, g - 8, g + 8);
    using other = new DeviceMemoryResource(0).allocate(g + 100);
    other.copyFrom(buffer);
    expectBytes(head(other), data);
    buffer.close();
    expect(mr.statistics().bytes.current).toBe(0);
  });

  it('grows in place within reserveSize: same handle, bytes intact, new bytes usable', () => {
    using mr = new VirtualMemoryResource(0, { reserveSize: 0 });
    const g = mr.granularity;
    using wide = new VirtualMemoryResource(0, { reserveSize: 8 * g });
    expect(wide.reserveSize).toBe(8 * g);
    const buffer = wide.allocate(g);
    const handle = buffer.handle;
    const data = patternBytes(g, 3);
    buffer.copyFrom(data);
    using early = buffer.slice(0, 64);
    for (const size of [2 * g, 5 * g, 8 * g]) {
      const result = wide.modifyAllocation(buffer, size);
      expect(result).toEqual({ buffer, moved: false });
      expect(buffer.handle).toBe(handle);
      expect(buffer.size).toBe(size);
      expectBytes(head(buffer, g), data);
    }
    expect(early.isClosed).toBe(false);
    expectBytes(head(early), data.subarray(0, 64));
    const tail = patternBytes(g, 9);
    buffer.slice(7 * g).copyFrom(tail);
    expectBytes(head(buffer).subarray(7 * g), tail);
    early.close();
    buffer.close();
    mr.close();
  });

  it('grows past the reserved range by extending it or remapping the chunks, bytes intact either way', () => {
    using mr = new VirtualMemoryResource(0);
    const g = mr.granularity;
    const buffer = mr.allocate(g);
    // A neighbour right after the range, so that extending in place is not always possible.
    using neighbour = mr.allocate(g);
    const data = patternBytes(g, 11);
    buffer.copyFrom(data);
    const slice = buffer.slice(0, 32);
    const { buffer: grown, moved } = mr.modifyAllocation(buffer, 3 * g);
    expect(grown.size).toBe(3 * g);
    expectBytes(head(grown, g), data);
    if (moved) {
      expect(grown).not.toBe(buffer);
      expect(buffer.isClosed).toBe(true);
      expect(slice.isClosed).toBe(true);
      expect(() => head(slice)).toThrow(CudaStateError);
      expect(() => mr.modifyAllocation(buffer, g)).toThrow(CudaStateError);
    } else {
      expect(grown).toBe(buffer);
      expect(slice.isClosed).toBe(false);
    }
    // The reference driver places the neighbour right after the range: this grow must move.
    if (entry.isReference) expect(moved).toBe(true);
    grown.slice(2 * g).fill(0x42);
    expect(
      head(grown)
        .subarray(2 * g)
        .every((byte) => byte === 0x42),
    ).toBe(true);
    grown.close();
    neighbour.close();
  });

  it('shrinks: refused below an open slice, then releases the chunks past the new size', () => {
    using mr = new VirtualMemoryResource(0, { reserveSize: 0 });
    const g = mr.granularity;
    mr.enableStatistics();
    const buffer = mr.allocate(4 * g);
    const data = patternBytes(g, 5);
    buffer.copyFrom(new Uint8Array(4 * g));
    buffer.slice(0, g).copyFrom(data);
    const late = buffer.slice(3 * g, 16);
    expect(() => mr.modifyAllocation(buffer, g)).toThrow(CudaStateError);
    expect(buffer.size).toBe(4 * g);
    late.close();
    const { buffer: same, moved } = mr.modifyAllocation(buffer, g + 1);
    expect(same).toBe(buffer);
    expect(moved).toBe(false);
    expect(buffer.size).toBe(g + 1);
    expectBytes(head(buffer, g), data);
    // The chunk of 4 granules is cut by the new end: it stays mapped whole.
    expect(mr.statistics().bytes.current).toBe(4 * g);
    buffer.close();
    expect(mr.statistics().bytes.current).toBe(0);
  });

  it('grows and shrinks chunk by chunk, releasing whole chunks', () => {
    using mr = new VirtualMemoryResource(0, { reserveSize: 0 });
    const g = mr.granularity;
    using wide = new VirtualMemoryResource(0, { reserveSize: 4 * g });
    wide.enableStatistics();
    const buffer = wide.allocate(g);
    wide.modifyAllocation(buffer, 2 * g);
    wide.modifyAllocation(buffer, 4 * g);
    expect(wide.statistics().bytes.current).toBe(4 * g);
    wide.modifyAllocation(buffer, g);
    expect(wide.statistics().bytes.current).toBe(g);
    expect(buffer.size).toBe(g);
    buffer.close();
    mr.close();
  });

  it('is transactional: a limit failing the chunk step undoes the reservation', () => {
    withCountingDriver(useDriver, entry.driver, (log) => {
      using mr = new VirtualMemoryResource(0);
      const g = mr.granularity;
      mr.limit = 2 * g;
      log.reset();
      expect(() => mr.allocate(3 * g)).toThrow(CudaError);
      expect(log.calls.filter((call) => call.startsWith('memAddress'))).toEqual([
        'memAddressReserve',
        'memAddressFree',
      ]);
      expect(log.calls).not.toContain('memCreate');
      expect(mr.statistics().failures).toBe(1);
      const buffer = mr.allocate(g);
      const data = patternBytes(g, 1);
      buffer.copyFrom(data);
      log.reset();
      expect(() => mr.modifyAllocation(buffer, 3 * g)).toThrow(CudaError);
      // Whatever address space the grow reserved was given back; no chunk was made.
      const reserved = log.calls.filter((call) => call === 'memAddressReserve').length;
      expect(log.calls.filter((call) => call === 'memAddressFree')).toHaveLength(reserved);
      expect(log.calls).not.toContain('memCreate');
      expect(buffer.size).toBe(g);
      expect(buffer.isClosed).toBe(false);
      expectBytes(head(buffer), data);
      expect(mr.statistics().bytes.current).toBe(g);
      buffer.close();
    });
  });

  it('asks the onOutOfMemory hooks, and retries after one frees memory', () => {
    using mr = new VirtualMemoryResource(0);
    const g = mr.granularity;
    mr.limit = 2 * g;
    const first = mr.allocate(g);
    const seen: number[] = [];
    const unhook = onOutOfMemory(
      (info) => {
        seen.push(info.size);
        first.close();
        return true;
      },
      { resource: mr },
    );
    try {
      const second = mr.allocate(2 * g);
      expect(seen).toEqual([2 * g]);
      expect(first.isClosed).toBe(true);
      second.close();
    } finally {
      unhook();
    }
  });

  it('a dropped buffer is released by the finalizer', async () => {
    using mr = new VirtualMemoryResource(0);
    using tracker = trackAllocations({ resource: mr });
    allocateAndDrop(mr, mr.granularity);
    flushDeferredReleases();
    await collectGarbage(50, () => tracker.releasedByFinalizer().length > 0);
    expect(tracker.releasedByFinalizerCount).toBe(1);
    expect(mr.statistics().bytes.current).toBe(0);
  });

  it('refuses hostile sizes and buffers with typed errors before any driver call', () => {
    withCountingDriver(useDriver, entry.driver, (log) => {
      const mr = new VirtualMemoryResource(0);
      using other = new VirtualMemoryResource(0);
      const buffer = mr.allocate(1);
      using pooled = new DeviceMemoryResource(0).allocate(64);
      const foreign = other.allocate(1);
      log.reset();
      expect(() => mr.allocate(0)).toThrow(RangeError);
      expect(() => mr.allocate(2 ** 53)).toThrow(RangeError);
      expect(() => mr.allocate(-1)).toThrow(RangeError);
      expect(() => mr.allocate(1.5)).toThrow(RangeError);
      expect(() => mr.allocate('1' as unknown as number)).toThrow(TypeError);
      expect(() => mr.allocate(entry.driver.deviceTotalMem(0) + 1)).toThrow(RangeError);
      expect(() => mr.modifyAllocation(buffer, 0)).toThrow(RangeError);
      expect(() => mr.modifyAllocation(buffer, 2 ** 53)).toThrow(RangeError);
      expect(() => mr.modifyAllocation(pooled, 128)).toThrow(TypeError);
      expect(() => mr.modifyAllocation(foreign, 128)).toThrow(TypeError);
      expect(() => mr.modifyAllocation(buffer.slice(0, 1), 128)).toThrow(TypeError);
      expect(() => mr.modifyAllocation({} as Buffer, 128)).toThrow(TypeError);
      expect(() => Buffer.fromHandle(buffer.handle, 1, { mr })).toThrow();
      expect(() => mr.deallocate(buffer.handle, 1)).toThrow(CudaStateError);
      const calls = log.calls.filter((call) => /^mem(Create|Map|AddressReserve|Unmap|Release)/.test(call));
      expect(calls).toEqual([]);
      // The log sees this resource's calls: the refusals above made none.
      mr.allocate(1).close();
      expect(log.calls).toContain('memCreate');
      buffer.close();
      expect(() => mr.modifyAllocation(buffer, 128)).toThrow(CudaStateError);
      foreign.close();
      mr.close();
      expect(() => mr.allocate(1)).toThrow(CudaStateError);
    });
  });

  it('refuses options it cannot honour, typed, and takes every supported one', () => {
    const refusals: [object, new (...args: never[]) => Error][] = [
      [{ allocationType: 'managed' }, NotSupportedError],
      [{ allocationType: 'fancy' }, TypeError],
      [{ locationType: 'host' }, NotSupportedError],
      [{ locationType: 'hostNuma', numaId: 0 }, NotSupportedError],
      [{ numaId: 0 }, NotSupportedError],
      [{ handleType: 'win32' }, NotSupportedError],
      [{ handleType: 'fabric' }, NotSupportedError],
      [{ handleType: 'posix' }, TypeError],
      [{ granularity: 'huge' }, TypeError],
      [{ gpuDirectRdma: 'yes' }, TypeError],
      [{ addressHint: -1 }, RangeError],
      [{ addressAlignment: 3 }, RangeError],
      [{ addressAlignment: 4096 }, RangeError],
      [{ selfAccess: 'none' }, TypeError],
      [{ peerAccess: 'write' }, TypeError],
      [{ peers: [entry.driver.deviceGetCount()] }, RangeError],
      [{ peers: 1 }, TypeError],
      [{ reserveSize: -1 }, RangeError],
    ];
    withCountingDriver(useDriver, entry.driver, (log) => {
      new VirtualMemoryResource(0).allocate(1).close();
      expect(log.calls).toContain('memCreate');
      log.reset();
      for (const [options, kind] of refusals) {
        expect(() => new VirtualMemoryResource(0, options as never), JSON.stringify(options)).toThrow(kind);
      }
      expect(log.calls.filter((call) => /^mem(Create|AddressReserve)/.test(call))).toEqual([]);
    });
    expect(() => new VirtualMemoryResource(undefined as never)).toThrow(TypeError);
    if (!entry.driver.capabilities.interprocess) {
      expect(() => new VirtualMemoryResource(0, { handleType: 'posixFd' })).toThrow(NotSupportedError);
    }
    const minimum = new VirtualMemoryResource(0, { granularity: 'minimum' });
    const recommended = new VirtualMemoryResource(0, { granularity: 'recommended' });
    expect(recommended.granularity % minimum.granularity).toBe(0);
    const g = recommended.granularity;
    const aligned = new VirtualMemoryResource(0, {
      allocationType: 'pinned',
      locationType: 'device',
      handleType: 'none',
      gpuDirectRdma: false,
      addressHint: 0n,
      addressAlignment: 2 * g,
      peers: [0],
      selfAccess: 'readWrite',
      peerAccess: 'read',
      reserveSize: g,
    });
    const buffer = aligned.allocate(1);
    expect(buffer.handle % BigInt(2 * g)).toBe(0n);
    const location = { type: MemLocationType.Device, id: 0 } as const;
    expect(entry.driver.memGetAccess(buffer.handle, location)).toBe(MemAccessFlags.ReadWrite);
    buffer.close();
    const readOnly = new VirtualMemoryResource(0, { selfAccess: 'read' });
    const ro = readOnly.allocate(1);
    expect(entry.driver.memGetAccess(ro.handle, location)).toBe(MemAccessFlags.Read);
    ro.close();
    for (const mr of [minimum, recommended, aligned, readOnly]) mr.close();
  });
});
