import {
  CudaStateError,
  Device,
  type Driver,
  Host,
  MemLocationType,
  MemRangeAttribute,
  NotSupportedError,
} from '@cumem/core-types';
import { download, withCountingDriver } from '@cumem/test-support';
import {
  countingDriver,
  createReferenceDriver,
  type DriverCallLog,
  describeEachDriver,
} from '@cumem/testing/vitest';
import { beforeAll, describe, expect, it } from 'vitest';
import { adapters } from '../../../test/adapters.js';
import { useDriver } from '../../runtime/driver-selection.js';
import { Stream } from '../../stream/stream.js';
import type { ManagedBuffer } from './managed-buffer.js';
import { ManagedMemoryResource } from './managed-memory-resource.js';

/** A reference driver that, like CUDA 13.0 on a one-NUMA-node machine, reads PreferredLocationType back as Invalid. */
function invalidTypeReadBack(inner: Driver): Driver {
  const driver = Object.create(inner) as Driver;
  driver.memRangeGetAttribute = (pointer, size, attribute) =>
    attribute === MemRangeAttribute.PreferredLocationType
      ? MemLocationType.Invalid
      : inner.memRangeGetAttribute(pointer, size, attribute);
  return driver;
}

describeEachDriver(adapters, 'ManagedBuffer', (entry) => {
  let mr: ManagedMemoryResource;
  beforeAll(() => {
    useDriver(entry.driver);
    mr = new ManagedMemoryResource();
  });

  it('readMostly asks the driver and advises it', () => {
    using buffer = mr.allocate(8192);
    expect(buffer.readMostly).toBe(false);
    buffer.readMostly = true;
    expect(buffer.readMostly).toBe(true);
    buffer.readMostly = false;
    expect(buffer.readMostly).toBe(false);
    expect(() => {
      buffer.readMostly = 1 as never;
    }).toThrow(TypeError);
  });

  it('preferredLocation round-trips devices and hosts, and null unsets it', () => {
    using buffer = mr.allocate(8192);
    expect(buffer.preferredLocation).toBeNull();
    buffer.preferredLocation = new Device(0);
    expect(buffer.preferredLocation).toBe(new Device(0));
    buffer.preferredLocation = new Host();
    expect(buffer.preferredLocation).toBe(new Host());
    buffer.preferredLocation = null;
    expect(buffer.preferredLocation).toBeNull();
    expect(() => {
      buffer.preferredLocation = 0 as never;
    }).toThrow(TypeError);
    expect(() => {
      buffer.preferredLocation = undefined as never;
    }).toThrow(TypeError);
  });

  it('preferredLocation keeps NUMA detail where the driver reports it', () => {
    using buffer = mr.allocate(4096);
    const numa = new Host({ numaId: Math.max(0, entry.driver.deviceGetAttribute(134, 0)) });
    if (!entry.driver.capabilities.hostNumaLocations) {
      expect(() => {
        buffer.preferredLocation = numa;
      }).toThrow(NotSupportedError);
      return;
    }
    // What the driver itself reads back decides how much detail the getter can keep: CUDA 13.0
    // on a one-node machine accepts HostNuma advice but reports the type as Invalid.
    const reportedType = () =>
      entry.driver.memRangeGetAttribute(buffer.handle, buffer.size, MemRangeAttribute.PreferredLocationType);
    buffer.preferredLocation = numa;
    expect(buffer.preferredLocation).toBe(reportedType() === MemLocationType.HostNuma ? numa : new Host());
    buffer.preferredLocation = Host.numaCurrent();
    const current = buffer.preferredLocation;
    const currentType = reportedType();
    if (currentType === MemLocationType.HostNumaCurrent) expect(current).toBe(Host.numaCurrent());
    // The driver may resolve "the calling thread's node" to the node itself.
    else if (currentType === MemLocationType.HostNuma)
      expect(Host.isInstance(current) && current.numaId !== null).toBe(true);
    else expect(current).toBe(new Host());
    buffer.preferredLocation = null;
    expect(buffer.preferredLocation).toBeNull();
  });

  describe('accessedBy', () => {
    /** Runs `body` with a counting driver in use and a buffer of it accessed by device 0. */
    function withAccessedByDevice0(body: (buffer: ManagedBuffer, log: DriverCallLog) => void): void {
      withCountingDriver(useDriver, entry.driver, (log) => {
        const counted = new ManagedMemoryResource();
        using buffer = counted.allocate(4096);
        buffer.accessedBy = [new Device(0)];
        body(buffer, log);
      });
    }

    it('is a live Set-like view', () => {
      using buffer = mr.allocate(4096);
      const view = buffer.accessedBy;
      expect(view.size).toBe(0);
      expect(view.add(new Device(0))).toBe(view);
      expect(view.has(new Device(0))).toBe(true);
      expect(buffer.accessedBy.has(new Device(0))).toBe(true);
      view.add(new Host());
      expect(view.size).toBe(2);
      expect([...view]).toEqual(expect.arrayContaining([new Device(0), new Host()]));
      const seen: unknown[] = [];
      view.forEach((value, key, set) => {
        expect(key).toBe(value);
        expect(set).toBe(view);
        seen.push(value);
      });
      expect(seen).toHaveLength(2);
      expect([...view.values()]).toHaveLength(2);
      expect([...view.keys()]).toHaveLength(2);
      expect(view.delete(new Host())).toBe(true);
      expect(view.delete(new Host())).toBe(false);
      expect(view.has(new Host())).toBe(false);
      view.clear();
      expect(view.size).toBe(0);
      expect(String(view)).toBe('[object AccessedByView]');
    });

    it('add of a non-location is a TypeError; delete and has of one are false', () => {
      using buffer = mr.allocate(4096);
      expect(() => buffer.accessedBy.add(0 as never)).toThrow(TypeError);
      expect(buffer.accessedBy.delete(0)).toBe(false);
      expect(buffer.accessedBy.has('Device(0)')).toBe(false);
    });

    it('assignment advises only the difference', () => {
      withAccessedByDevice0((buffer, log) => {
        expect([...buffer.accessedBy]).toEqual([new Device(0)]);
        log.reset();
        buffer.accessedBy = [new Device(0), new Host()];
        expect(log.calls.filter((call) => call === 'memAdvise')).toHaveLength(1);
        expect(buffer.accessedBy.size).toBe(2);
        log.reset();
        buffer.accessedBy = new Set([new Host()]);
        expect(log.calls.filter((call) => call === 'memAdvise')).toHaveLength(1);
        expect([...buffer.accessedBy]).toEqual([new Host()]);
        buffer.accessedBy = [];
        expect(buffer.accessedBy.size).toBe(0);
      });
    });

    it('a bad element throws before any driver call, leaving the advice unchanged', () => {
      withAccessedByDevice0((buffer, log) => {
        log.reset();
        expect(() => {
          buffer.accessedBy = [new Host(), 'Device(1)' as never];
        }).toThrow(TypeError);
        expect(() => {
          buffer.accessedBy = 42 as never;
        }).toThrow(TypeError);
        expect(() => {
          buffer.accessedBy = 'ab' as never;
        }).toThrow(TypeError);
        expect(log.calls).toEqual([]);
        expect([...buffer.accessedBy]).toEqual([new Device(0)]);
      });
    });
    it('a NUMA host is a TypeError before any driver call (accessed-by takes Device or Host only)', () => {
      withAccessedByDevice0((buffer, log) => {
        log.reset();
        for (const numa of [new Host({ numaId: 0 }), Host.numaCurrent()]) {
          expect(() => buffer.accessedBy.add(numa)).toThrow(/Device or new Host\(\)/);
          expect(() => {
            buffer.accessedBy = [new Host(), numa];
          }).toThrow(TypeError);
          expect(buffer.accessedBy.delete(numa)).toBe(false);
        }
        expect(log.calls.filter((call) => call === 'memAdvise')).toEqual([]);
        expect([...buffer.accessedBy]).toEqual([new Device(0)]);
      });
    });

    it('a driver failure midway through an assignment rolls back what was applied', () => {
      let advises = 0;
      let failAt = -1;
      // Defined, not assigned: the adapters' drivers are frozen.
      const failing = Object.create(entry.driver) as Driver;
      Object.defineProperty(failing, 'memAdvise', {
        value: (...args: Parameters<Driver['memAdvise']>) => {
          if (advises++ === failAt) throw new Error('injected memAdvise failure');
          entry.driver.memAdvise(...args);
        },
      });
      useDriver(failing);
      try {
        const own = new ManagedMemoryResource();
        using buffer = own.allocate(4096);
        buffer.accessedBy = [new Device(0)];
        advises = 0;
        failAt = 1; // unset Device(0) succeeds, set Host fails
        expect(() => {
          buffer.accessedBy = [new Host()];
        }).toThrow('injected memAdvise failure');
        failAt = -1;
        expect([...buffer.accessedBy]).toEqual([new Device(0)]);
      } finally {
        useDriver(entry.driver);
      }
    });
  });

  describe('prefetch and discard', () => {
    it('prefetches to a device and to the host, without and with a stream', () => {
      using buffer = mr.allocate(1 << 20);
      buffer.hostView().fill(3);
      buffer.prefetch(new Device(0));
      using stream = Stream.create();
      buffer.prefetch(new Host(), { stream });
      stream.sync();
      expect(buffer.hostView()[12345]).toBe(3);
      expect(() => buffer.prefetch(0 as never)).toThrow(TypeError);
    });

    it('discards, and discards then prefetches (CUDA 13 batch entry points)', () => {
      using buffer = mr.allocate(1 << 16);
      buffer.fill(1);
      if (!entry.driver.capabilities.batchPrefetchDiscard) {
        expect(() => buffer.discard()).toThrow(NotSupportedError);
        // Without the batch entry point discardPrefetch prefetches (the contents are undefined either way).
        buffer.discardPrefetch(new Device(0));
        buffer.fill(2);
        expect(download(buffer).every((byte) => byte === 2)).toBe(true);
        return;
      }
      buffer.discard();
      using stream = Stream.create();
      buffer.discard({ stream });
      buffer.discardPrefetch(new Device(0), { stream });
      stream.sync();
      buffer.discardPrefetch(new Host());
      buffer.fill(2);
      const bytes = new Uint8Array(1 << 16);
      buffer.copyTo(bytes);
      expect(bytes.every((byte) => byte === 2)).toBe(true);
    });

    it('slices of a managed buffer are managed buffers advising their own range', () => {
      using buffer = mr.allocate(1 << 16);
      const half = buffer.slice(0, 1 << 15) as ManagedBuffer;
      half.readMostly = true;
      expect(half.readMostly).toBe(true);
      half.prefetch(new Device(0));
      expect(half.owner).toBe(buffer);
    });
  });

  it('use after close is a CudaStateError naming ManagedBuffer', () => {
    const buffer = mr.allocate(64);
    const view = buffer.accessedBy;
    buffer.close();
    buffer.close();
    expect(() => buffer.readMostly).toThrow(/ManagedBuffer is closed/);
    expect(() => buffer.preferredLocation).toThrow(CudaStateError);
    expect(() => buffer.accessedBy).toThrow(CudaStateError);
    expect(() => view.size).toThrow(CudaStateError);
    expect(() => view.add(new Device(0))).toThrow(CudaStateError);
    expect(() => buffer.prefetch(new Device(0))).toThrow(CudaStateError);
    expect(() => buffer.discard()).toThrow(CudaStateError);
  });
});

describe('ManagedBuffer on a driver without NUMA locations or batch entry points', () => {
  it('refuses NUMA hosts and discards with NotSupportedError before touching the driver', () => {
    const { driver, log } = countingDriver(createReferenceDriver({ entryPoints: 'legacy' }));
    useDriver(driver);
    const mr = new ManagedMemoryResource();
    using buffer = mr.allocate(4096);
    buffer.preferredLocation = new Host();
    expect(buffer.preferredLocation).toBe(new Host());
    buffer.preferredLocation = new Device(0);
    expect(buffer.preferredLocation).toBe(new Device(0));
    log.reset();
    const numa = new Host({ numaId: 0 });
    expect(() => buffer.prefetch(numa)).toThrow(NotSupportedError);
    expect(() => buffer.prefetch(Host.numaCurrent())).toThrow(/CUDA 13\.0/);
    expect(() => {
      buffer.preferredLocation = numa;
    }).toThrow(NotSupportedError);
    // Accessed-by advice takes no NUMA host on any driver: a TypeError, whatever the driver.
    expect(() => buffer.accessedBy.add(numa)).toThrow(TypeError);
    expect(() => {
      buffer.accessedBy = [new Device(0), numa];
    }).toThrow(TypeError);
    expect(() => buffer.discard()).toThrow(/cuMemDiscardBatchAsync/);
    expect(() => buffer.discardPrefetch(numa)).toThrow(NotSupportedError);
    expect(log.calls).toEqual([]);
    buffer.discardPrefetch(new Device(0));
    expect(log.calls.filter((call) => call.startsWith('mem'))).toEqual(['memPrefetchAsync']);
    buffer.prefetch(new Host());
  });
});

describe('ManagedBuffer preferredLocation on a driver that reads the location type back as Invalid', () => {
  it('falls back to the legacy attribute: Host(), the device, or null', () => {
    const driver = invalidTypeReadBack(createReferenceDriver());
    useDriver(driver);
    const mr = new ManagedMemoryResource();
    using buffer = mr.allocate(4096);
    expect(buffer.preferredLocation).toBeNull();
    buffer.preferredLocation = new Host({ numaId: 0 });
    expect(buffer.preferredLocation).toBe(new Host());
    buffer.preferredLocation = new Device(0);
    expect(buffer.preferredLocation).toBe(new Device(0));
    buffer.preferredLocation = null;
    expect(buffer.preferredLocation).toBeNull();
  });
});
