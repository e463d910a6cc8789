// Managed memory over the fake libcuda, the same claims for both adapters: CUmemLocation reaches
// the _v2 forms by value, every 64-bit pointer arrives exact, 'legacy' uses the CUDA 8.0 forms
// with a CUdevice (or emulates them with _v2 where the driver dropped them), and batches, range
// and pointer attributes keep their C widths.
import { MemAdvise, MemLocationType, NotSupportedError } from '@cumem/core-types';
import { expect, it } from 'vitest';
import { describeOverFake } from './fake-harness.js';

describeOverFake('managed memory and attributes', (fake) => {
  it('passes CUmemLocation by value to the _v2 forms in auto mode', () => {
    const driver = fake.driver();
    const managed = driver.memAllocManaged(8192, 1);
    const cases = [
      { type: MemLocationType.Device, id: 1 },
      { type: MemLocationType.Host, id: 0 },
      { type: MemLocationType.HostNuma, id: 3 },
      { type: MemLocationType.HostNumaCurrent, id: 0 },
      { type: MemLocationType.Device, id: 2 ** 24 },
    ];
    for (const location of cases) {
      driver.memAdvise(managed, 4096, 3, location);
      expect(fake.last()).toMatchObject({
        symbol: 'cuMemAdvise_v2',
        pointer: managed,
        size: 4096,
        advice: 3,
        ...location,
      });
      driver.memPrefetchAsync(managed, 8192, location, 0n);
      expect(fake.last()).toMatchObject({
        symbol: 'cuMemPrefetchAsync_v2',
        pointer: managed,
        size: 8192,
        extra: 0,
        ...location,
      });
    }
    // cuda.h: a Host location's id is ignored; both adapters pass 0 (driver-kit's driverLocationId).
    driver.memAdvise(managed, 4096, 3, { type: MemLocationType.Host, id: 9 });
    expect(fake.last()).toMatchObject({ symbol: 'cuMemAdvise_v2', type: MemLocationType.Host, id: 0 });
    driver.memPrefetchAsync(managed, 4096, { type: MemLocationType.Host, id: 9 }, 0n);
    expect(fake.last()).toMatchObject({ symbol: 'cuMemPrefetchAsync_v2', type: MemLocationType.Host, id: 0 });
    driver.memFree(managed);
  });

  // The FFI adapter's advice call has a one-call path for the pointer it advised last
  // (ffi-managed.ts): pointers and devices that alternate must each still arrive as given.
  it('advises the pointer and device each call names when they alternate', () => {
    const driver = fake.driver();
    const pointers = [driver.memAllocManaged(8192, 1), driver.memAllocManaged(8192, 1)];
    for (let round = 0; round < 3; round++) {
      for (const [p, id] of [
        [0, 0],
        [0, 0],
        [0, 1],
        [1, 1],
        [1, 0],
        [0, 0],
      ] as const) {
        const pointer = pointers[p] as bigint;
        driver.memAdvise(pointer, 4096, round + 1, { type: MemLocationType.Device, id });
        expect(fake.last()).toMatchObject({
          symbol: 'cuMemAdvise_v2',
          pointer,
          advice: round + 1,
          type: 1,
          id,
        });
      }
      driver.memAdvise(pointers[0] as bigint, 4096, 3, { type: MemLocationType.Host, id: 0 });
      expect(fake.last()).toMatchObject({
        symbol: 'cuMemAdvise_v2',
        pointer: pointers[0],
        type: MemLocationType.Host,
      });
    }
    for (const pointer of pointers) driver.memFree(pointer);
  });

  it('passes every 64-bit pointer exactly, as a number below 2**53 and as a bigint above', () => {
    const driver = fake.driver();
    const location = { type: MemLocationType.Device, id: 0 };
    for (const pointer of [0n, 0x7f0012345000n, 2n ** 53n - 1n, 2n ** 53n, 2n ** 53n + 1n, 2n ** 64n - 1n]) {
      // The fake records the pointer as an int64 (then refuses memory it did not allocate).
      const recorded = BigInt.asIntN(64, pointer);
      expect(() => driver.memAdvise(pointer, 64, 1, location)).toThrow(/cuMemAdvise/);
      expect(fake.last()).toMatchObject({ symbol: 'cuMemAdvise_v2', pointer: recorded });
      expect(() => driver.memPrefetchAsync(pointer, 64, location, 0n)).toThrow(/cuMemPrefetchAsync/);
      expect(fake.last()).toMatchObject({ symbol: 'cuMemPrefetchAsync_v2', pointer: recorded });
    }
  });

  // The FFI adapter remembers which driver takes the packed _v2 advice (the setters' hot path):
  // a driver of the other form, called in between, must still get its own form.
  it('keeps each driver on its own advice form when drivers of both forms alternate', () => {
    const auto = fake.driver();
    const legacy = fake.driver({ entryPoints: 'legacy' });
    const managed = auto.memAllocManaged(4096, 1);
    const device = { type: MemLocationType.Device, id: 1 };
    for (let round = 0; round < 3; round++) {
      auto.memAdvise(managed, 4096, MemAdvise.SetReadMostly, device);
      expect(fake.last()).toMatchObject({ symbol: 'cuMemAdvise_v2', pointer: managed, advice: 1, ...device });
      legacy.memAdvise(managed, 4096, MemAdvise.UnsetReadMostly, device);
      expect(fake.last()).toMatchObject({ symbol: 'cuMemAdvise', pointer: managed, advice: 2, device: 101 });
    }
    auto.memFree(managed);
  });

  it("'legacy' uses the CUDA 8.0 forms with a CUdevice, and refuses NUMA before any call", () => {
    const legacy = fake.driver({ entryPoints: 'legacy' });
    legacy.memAdvise(0x1000n, 64, 5, { type: MemLocationType.Device, id: 1 });
    // The CUDA 8.0 forms take a CUdevice: cuDeviceGet's handle for the ordinal (the fake's is 101).
    expect(fake.last()).toMatchObject({ symbol: 'cuMemAdvise', device: 101, advice: 5 });
    legacy.memPrefetchAsync(0x1000n, 64, { type: MemLocationType.Device, id: 1 }, 0n);
    expect(fake.last()).toMatchObject({ symbol: 'cuMemPrefetchAsync', device: 101 });
    // The handle is cached: no cuDeviceGet per call on this hot path.
    expect(fake.calls().filter((call) => call.symbol === 'cuDeviceGet')).toHaveLength(1);
    // A bad ordinal is cuDeviceGet's CUDA_ERROR_INVALID_DEVICE, under the entry point asked for.
    expect(() => legacy.memAdvise(0x1000n, 64, 5, { type: MemLocationType.Device, id: 7 })).toThrow(
      expect.objectContaining({ call: 'cuMemAdvise', code: 101 }),
    );
    legacy.memAdvise(0x1000n, 64, MemAdvise.SetPreferredLocation, { type: MemLocationType.Host, id: 0 });
    expect(fake.last()).toMatchObject({ symbol: 'cuMemAdvise', device: -1 });
    legacy.memPrefetchAsync(0x1000n, 64, { type: MemLocationType.Host, id: 9 }, 0n);
    expect(fake.last()).toMatchObject({ symbol: 'cuMemPrefetchAsync', device: -1 });
    const before = fake.calls().length;
    expect(() => legacy.memAdvise(0x1000n, 64, 3, { type: MemLocationType.HostNuma, id: 0 })).toThrow(
      NotSupportedError,
    );
    expect(() =>
      legacy.memPrefetchAsync(0x1000n, 64, { type: MemLocationType.HostNumaCurrent, id: 0 }, 0n),
    ).toThrow(/entryPoints: 'legacy'/);
    expect(fake.calls().length).toBe(before);
  });

  it("'legacy' emulates the CUDA 8.0 advice and prefetch with _v2 where the driver dropped them, Device and Host only", () => {
    const without = fake.driver({ variant: 'without-legacy', entryPoints: 'legacy' });
    expect(without.capabilities.memoryLocations).toBe(false);
    const managed = without.memAllocManaged(64, 1);
    // A Host location's id (ignored by the driver, not expressible in the CUDA 8.0 forms) goes as 0.
    without.memAdvise(managed, 64, 3, { type: MemLocationType.Host, id: 9 });
    expect(fake.last()).toMatchObject({ symbol: 'cuMemAdvise_v2', type: MemLocationType.Host, id: 0 });
    without.memPrefetchAsync(managed, 64, { type: MemLocationType.Host, id: 9 }, 0n);
    expect(fake.last()).toMatchObject({ symbol: 'cuMemPrefetchAsync_v2', type: MemLocationType.Host, id: 0 });
    without.memAdvise(managed, 64, MemAdvise.SetAccessedBy, { type: MemLocationType.Device, id: 1 });
    expect(fake.last()).toMatchObject({ symbol: 'cuMemAdvise_v2', type: MemLocationType.Device, id: 1 });
    without.memPrefetchAsync(managed, 64, { type: MemLocationType.Device, id: 1 }, 0n);
    expect(fake.last()).toMatchObject({
      symbol: 'cuMemPrefetchAsync_v2',
      type: MemLocationType.Device,
      id: 1,
    });
    expect(() => without.memAdvise(managed, 64, 3, { type: MemLocationType.HostNumaCurrent, id: 0 })).toThrow(
      NotSupportedError,
    );
    without.memFree(managed);
  });

  it('times events with cuEventElapsedTime_v2, or the original symbol in legacy mode and before 12.8', () => {
    const auto = fake.driver();
    const legacy = fake.driver({ entryPoints: 'legacy' });
    const cuda122 = fake.driver({ version: 12020 });
    const [a, b] = [auto.eventCreate(0), auto.eventCreate(0)];
    // The fake's _v2 form answers 1.5 ms, its CUDA 2.0 form 2.5 ms.
    expect(auto.eventElapsedTime(a, b)).toBe(1.5);
    expect(fake.last().symbol).toBe('cuEventElapsedTime_v2');
    expect(legacy.eventElapsedTime(a, b)).toBe(2.5);
    expect(fake.last().symbol).toBe('cuEventElapsedTime');
    // The library exports _v2, but a 12.2 driver does not have it (driver-kit's chooseEntryPoints).
    expect(cuda122.eventElapsedTime(a, b)).toBe(2.5);
    expect(fake.last().symbol).toBe('cuEventElapsedTime');
    for (const event of [a, b]) auto.eventDestroy(event);
  });

  it("'legacy' times events with _v2 where the driver dropped the CUDA 2.0 form", () => {
    const without = fake.driver({ variant: 'without-legacy-timing', entryPoints: 'legacy' });
    const [a, b] = [without.eventCreate(0), without.eventCreate(0)];
    expect(without.eventElapsedTime(a, b)).toBe(1.5);
    expect(fake.last().symbol).toBe('cuEventElapsedTime_v2');
    // A driver too old for _v2 has no stand-in: the load fails, naming the entry point.
    expect(() =>
      fake.driver({ variant: 'without-legacy-timing', entryPoints: 'legacy', version: 12020 }),
    ).toThrow(
      expect.objectContaining({
        reason: 'entry-point-missing',
        message: expect.stringContaining('cuEventElapsedTime'),
      }),
    );
    for (const event of [a, b]) without.eventDestroy(event);
  });

  it('batches prefetch and discard with locations and their starts', () => {
    const driver = fake.driver();
    const legacy = fake.driver({ entryPoints: 'legacy' });
    const pointers = new BigUint64Array([0x1000n, 0x2000n, 0x3000n]);
    const sizes = new BigUint64Array([1n, 2n, 4n]);
    const locations = [
      { type: MemLocationType.Device, id: 0 },
      { type: MemLocationType.HostNuma, id: 2 },
    ];
    driver.memPrefetchBatchAsync(pointers, sizes, 3, locations, [0, 2], 0n);
    expect(fake.last()).toMatchObject({
      symbol: 'cuMemPrefetchBatchAsync',
      pointer: 0x3000n,
      size: 7,
      advice: 2,
      type: 3,
      id: 2,
      count: 3,
      extra: 2,
    });
    driver.memDiscardAndPrefetchBatchAsync(pointers, sizes, 2, locations.slice(0, 1), [0], 0n);
    expect(fake.last()).toMatchObject({
      symbol: 'cuMemDiscardAndPrefetchBatchAsync',
      count: 2,
      size: 3,
      type: 1,
      id: 0,
    });
    driver.memPrefetchBatchAsync(
      pointers,
      sizes,
      2,
      [locations[0]!, { type: MemLocationType.Host, id: 9 }],
      [0, 1],
      0n,
    );
    expect(fake.last()).toMatchObject({
      symbol: 'cuMemPrefetchBatchAsync',
      type: MemLocationType.Host,
      id: 0,
    });
    driver.memDiscardBatchAsync(pointers, sizes, 1, 0n);
    expect(fake.last()).toMatchObject({ symbol: 'cuMemDiscardBatchAsync', count: 1, size: 1 });
    expect(() => legacy.memDiscardBatchAsync(pointers, sizes, 1, 0n)).toThrow(NotSupportedError);
  });

  it('asks for ACCESSED_BY with one slot per device plus the CPU, and drops CU_DEVICE_INVALID', () => {
    const driver = fake.driver();
    const managed = driver.memAllocManaged(4096, 1);
    for (const location of [
      { type: MemLocationType.Host, id: 0 },
      { type: MemLocationType.Device, id: 0 },
      { type: MemLocationType.Device, id: 1 },
    ]) {
      driver.memAdvise(managed, 4096, MemAdvise.SetAccessedBy, location);
    }
    // The CPU and both devices: the array must have room for device count + 1 entries.
    expect(driver.memRangeGetAccessedBy(managed, 64)).toEqual([-1, 0, 1]);
    expect(fake.last()).toMatchObject({
      symbol: 'cuMemRangeGetAttribute',
      pointer: managed,
      size: 64,
      extra: 12,
    });
    driver.memAdvise(managed, 4096, MemAdvise.UnsetAccessedBy, { type: MemLocationType.Device, id: 0 });
    expect(driver.memRangeGetAccessedBy(managed, 64)).toEqual([-1, 1]);
    expect(driver.memRangeGetAttribute(managed, 64, 1)).toBe(0); // read mostly: one int
    expect(fake.last()).toMatchObject({ advice: 1, extra: 4 });
    driver.memFree(managed);
  });

  it('reads pointer attributes at their C widths', () => {
    const driver = fake.driver();
    driver.contextSetCurrent(driver.primaryContextRetain(1));
    const large = driver.memAlloc(5 * 2 ** 32); // reserved pages: costs nothing until touched
    expect(driver.pointerGetAttribute(large + 12345n, 12)).toBe(5 * 2 ** 32); // RANGE_SIZE: size_t
    expect(driver.pointerGetHandleAttribute(large + 12345n, 11)).toBe(large); // RANGE_START_ADDR
    expect(driver.pointerGetAttribute(large, 9)).toBe(1); // DEVICE_ORDINAL: int
    expect(driver.pointerGetAttribute(large, 8)).toBe(0); // IS_MANAGED: bool
    expect(driver.pointerGetAttribute(large, 2)).toBe(2); // MEMORY_TYPE: device
    const managed = driver.memAllocManaged(64, 1);
    expect(driver.pointerGetAttribute(managed, 8)).toBe(1);
    const pool = driver.deviceGetDefaultMemPool(1);
    const pooled = driver.memAllocFromPoolAsync(64, pool, 0n);
    expect(driver.pointerGetHandleAttribute(pooled, 17)).toBe(pool); // MEMPOOL_HANDLE
    driver.memFreeAsync(pooled, 0n);
    driver.memFree(managed);
    driver.memFree(large);
  });
});
