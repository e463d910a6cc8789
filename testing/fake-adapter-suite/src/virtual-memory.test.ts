// Virtual memory management over the fake libcuda, the same claims for both adapters: the
// CUmemAllocationProp and CUmemAccessDesc each adapter builds reach C with cuda.h's layout, the
// out-parameters come back, and POSIX-fd export gives a descriptor the caller owns.
import { closeSync, fstatSync } from 'node:fs';
import {
  MemAccessFlags,
  type MemAllocationProperties,
  MemHandleType,
  MemLocationType,
} from '@cumem/core-types';
import { expect, it } from 'vitest';
import { describeOverFake } from './fake-harness.js';

const granularity = 2 * 1024 * 1024;

function properties(handleTypes: number, rdma = false): MemAllocationProperties {
  return {
    allocationType: 1,
    requestedHandleTypes: handleTypes,
    location: { type: MemLocationType.Device, id: 1 },
    gpuDirectRdmaCapable: rdma,
    usage: 0,
  };
}

describeOverFake('virtual memory', (fake) => {
  it('reserves, creates, maps, sets access, unmaps, releases and frees with the values given', () => {
    const driver = fake.driver();
    expect(driver.memGetAllocationGranularity(properties(0), 1)).toBe(granularity);
    const base = driver.memAddressReserve(2 * granularity, granularity, 0n);
    expect(base).not.toBe(0n);
    const handle = driver.memCreate(2 * granularity, properties(MemHandleType.PosixFileDescriptor, true));
    expect(fake.last()).toMatchObject({
      symbol: 'cuMemCreate',
      size: 2 * granularity,
      type: MemLocationType.Device,
      id: 1,
      extra: MemHandleType.PosixFileDescriptor,
      advice: 1,
    });
    driver.memMap(base + BigInt(granularity), granularity, granularity, handle);
    expect(fake.last()).toMatchObject({
      symbol: 'cuMemMap',
      pointer: base + BigInt(granularity),
      extra: granularity,
    });
    const location = { type: MemLocationType.Device, id: 1 } as const;
    driver.memSetAccess(base + BigInt(granularity), granularity, [
      { location: { type: MemLocationType.Device, id: 0 }, flags: MemAccessFlags.ReadWrite },
      { location, flags: MemAccessFlags.Read },
    ]);
    expect(fake.last()).toMatchObject({
      symbol: 'cuMemSetAccess',
      count: 2,
      id: 1,
      extra: MemAccessFlags.Read,
    });
    expect(driver.memGetAccess(base + BigInt(granularity), location)).toBe(MemAccessFlags.ReadWrite);
    const read = driver.memGetAllocationPropertiesFromHandle(handle);
    expect(read).toEqual(properties(MemHandleType.PosixFileDescriptor, true));
    const fd = driver.memExportToFileDescriptor(handle);
    expect(fstatSync(fd).isCharacterDevice()).toBe(true);
    const imported = driver.memImportFromFileDescriptor(fd);
    expect(fake.last()).toMatchObject({ symbol: 'cuMemImportFromShareableHandle', extra: fd });
    closeSync(fd);
    driver.memRelease(imported);
    driver.memUnmap(base + BigInt(granularity), granularity);
    driver.memRelease(handle);
    driver.memAddressFree(base, 2 * granularity);
    expect(fake.last()).toMatchObject({ symbol: 'cuMemAddressFree', pointer: base, size: 2 * granularity });
  });

  it('turns the driver refusals into CudaErrors naming the entry point', () => {
    const driver = fake.driver();
    expect(() => driver.memCreate(granularity + 1, properties(0))).toThrow(/cuMemCreate/);
    expect(() => driver.memAddressReserve(granularity + 1, 0, 0n)).toThrow(/cuMemAddressReserve/);
    const handle = driver.memCreate(granularity, properties(0));
    expect(() => driver.memExportToFileDescriptor(handle)).toThrow(/cuMemExportToShareableHandle/);
    expect(() => driver.memMap(0x1000n, granularity, 0, handle)).toThrow(/cuMemMap/);
    driver.memRelease(handle);
    // An empty access list makes no driver call.
    fake.clearLog();
    driver.memSetAccess(0n, granularity, []);
    expect(fake.calls()).toEqual([]);
  });
});
