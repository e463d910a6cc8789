// Issue 45, resizing under live exports: the export registry that modifyAllocation consults. A
// DLPack export holds bytes by address: a shrink past them and a grow that moves the buffer are
// refused while it is live (CudaStateError naming it), and allowed once it is released; a
// view's bytes are checked against the buffer's size now (checkLiveExtent), not as captured.
import { CudaStateError } from '@cumem/core-types';
import { describeEachDriver } from '@cumem/testing/vitest';
import { beforeAll, expect, it } from 'vitest';
import { adapters } from '../../test/adapters.js';
import { checkLiveExtent } from '../interop/live-extent.js';
import { DeviceMemoryResource } from '../resources/device-memory-resource.js';
import { VirtualMemoryResource } from '../resources/virtual/virtual-memory-resource.js';
import { currentDriver, useDriver } from '../runtime/driver-selection.js';
import { liveExportsOf, registerExport, registerExportAt } from './export-registry.js';

describeEachDriver(adapters, 'exports under resize', (entry) => {
  beforeAll(() => useDriver(entry.driver));

  it('a shrink past a live DLPack export is refused, one that keeps it is not; released, both go', () => {
    const mr = new VirtualMemoryResource(0, { reserveSize: 0 });
    const g = mr.granularity;
    const { buffer } = mr.modifyAllocation(mr.allocate(g), 4 * g);
    const slice = buffer.slice(0, 2 * g);
    const capsule = slice.toDLPack();
    expect(liveExportsOf(buffer)).toEqual([
      { what: 'a DLPack export', start: buffer.handle, end: buffer.handle + BigInt(2 * g) },
    ]);
    expect(() => mr.modifyAllocation(buffer, g)).toThrow(CudaStateError);
    expect(() => mr.modifyAllocation(buffer, g)).toThrow(
      new RegExp(`a DLPack export holds bytes 0 to ${2 * g} of the buffer, which end past the new size ${g}`),
    );
    expect(buffer.size).toBe(4 * g);
    slice.close();
    mr.modifyAllocation(buffer, 3 * g);
    expect(buffer.size).toBe(3 * g);
    capsule.close();
    expect(liveExportsOf(buffer)).toEqual([]);
    mr.modifyAllocation(buffer, g);
    expect(buffer.size).toBe(g);
    buffer.close();
    mr.close();
  });

  it('a grow that would move the buffer is refused under a live export; in place it is not', () => {
    const mr = new VirtualMemoryResource(0, { reserveSize: 0 });
    const g = mr.granularity;
    const buffer = mr.allocate(g);
    const end = registerExport(buffer, 'a test export', buffer.handle, buffer.handle + 8n);
    let result: ReturnType<VirtualMemoryResource['modifyAllocation']> | undefined;
    try {
      result = mr.modifyAllocation(buffer, 64 * g);
    } catch (error) {
      expect(error).toBeInstanceOf(CudaStateError);
      expect((error as Error).message).toMatch(
        /a test export holds bytes 0 to 8 of the buffer, which would move/,
      );
    }
    // Grown in place (the driver gave the address after the range) or refused: never moved.
    expect(result?.moved ?? false).toBe(false);
    end();
    end();
    const moved = mr.modifyAllocation(result?.buffer ?? buffer, 128 * g);
    moved.buffer.close();
    mr.close();
  });

  it('registerExport checks its arguments; a closed buffer is refused', () => {
    const buffer = new DeviceMemoryResource(0).allocate(64);
    expect(() => registerExport({} as never, 'x', 0n, 1n)).toThrow(TypeError);
    expect(() => registerExport(buffer, 1 as never, 0n, 1n)).toThrow(/what must be a string/);
    expect(() => registerExport(buffer, 'x', 2n, 1n)).toThrow(RangeError);
    buffer.close();
    expect(() => registerExport(buffer, 'x', 0n, 1n)).toThrow(CudaStateError);
  });

  it('a range registered by address (an array-interface import) refuses a shrink past it until released', () => {
    const mr = new VirtualMemoryResource(0, { reserveSize: 0 });
    const g = mr.granularity;
    const { buffer } = mr.modifyAllocation(mr.allocate(g), 4 * g);
    const start = buffer.handle + BigInt(g);
    const release = registerExportAt(currentDriver(), start, start + BigInt(2 * g), 'an interface import');
    expect(() => mr.modifyAllocation(buffer, 2 * g)).toThrow(
      new RegExp(
        `an interface import holds bytes ${g} to ${3 * g} of the buffer, which end past the new size ${2 * g}`,
      ),
    );
    expect(buffer.size).toBe(4 * g);
    // A shrink that keeps the registered bytes goes through.
    mr.modifyAllocation(buffer, 3 * g);
    expect(buffer.size).toBe(3 * g);
    release();
    release();
    mr.modifyAllocation(buffer, g);
    expect(buffer.size).toBe(g);
    buffer.close();
    mr.close();
  });

  it('registerExportAt checks its arguments; memory no VMM allocation holds records nothing', () => {
    const driver = currentDriver();
    expect(() => registerExportAt(driver, -1n as never, 1n, 'x')).toThrow(RangeError);
    expect(() => registerExportAt(driver, 0n, 1n, 1 as never)).toThrow(/what must be a string/);
    expect(() => registerExportAt(driver, 2n, 1n, 'x')).toThrow(RangeError);
    const buffer = new DeviceMemoryResource(0).allocate(64);
    const release = registerExportAt(driver, buffer.handle, buffer.handle + 64n, 'x');
    expect(liveExportsOf(buffer)).toEqual([]);
    release();
    buffer.close();
  });

  it("checkLiveExtent reads the buffer's size at each use", () => {
    const mr = new VirtualMemoryResource(0, { reserveSize: 0 });
    const g = mr.granularity;
    const { buffer } = mr.modifyAllocation(mr.allocate(g), 2 * g);
    checkLiveExtent(buffer, g, g, 'a view');
    mr.modifyAllocation(buffer, g);
    expect(() => checkLiveExtent(buffer, g, g, 'a view')).toThrow(
      new RegExp(`a view: bytes ${g} to ${2 * g} run past the end of the buffer, which has ${g} bytes now`),
    );
    checkLiveExtent(buffer, 0, g, 'a view');
    buffer.close();
    expect(() => checkLiveExtent(buffer, 0, 1, 'a view')).toThrow(CudaStateError);
    expect(() => checkLiveExtent({} as never, 0, 1, 'a view')).toThrow(TypeError);
    mr.close();
  });
});
