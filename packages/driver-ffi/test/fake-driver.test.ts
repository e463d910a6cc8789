// The adapter end to end against test/fake-libcuda: a host-memory libcuda compiled from cuda.h's
// own prototypes. It checks what a GPU run cannot show cheaply: which symbol each mode calls and
// that every struct, out-parameter and by-value argument reaches C intact.
import {
  CudaError,
  type Driver,
  DriverUnavailableError,
  MemAllocationType,
  MemLocationType,
  NotSupportedError,
} from '@cumem/core-types';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createDriver } from '../src/index.js';
import { loadKoffi } from '../src/koffi-module.js';
import { buildFakeLibcuda, fakeUnavailable } from './fake-libcuda.js';

const suite = fakeUnavailable ? describe.skip : describe;
const title = fakeUnavailable
  ? `ffi adapter on a fake libcuda — skipped: ${fakeUnavailable}`
  : 'ffi adapter on a fake libcuda';

/** Fields of FakeLast in fake-state.h. */
const Call = {
  AdviseV2: 1,
  AdviseV1: 2,
  PrefetchV2: 3,
  PrefetchV1: 4,
  PrefetchBatch: 5,
  DiscardBatch: 6,
  DiscardPrefetchBatch: 7,
  MemcpyBatchV2: 8,
  PoolImportFd: 10,
  PoolCreate: 11,
  ElapsedV2: 12,
  ElapsedV1: 13,
  PoolAccess: 14,
};

/** Reads the FakeLast record of the fake library at `path` (each build has its own). */
function recorder(path: string) {
  const fn = loadKoffi().load(path).func('fake_last', 'void', ['void *']);
  const record = new BigInt64Array(9);
  return () => {
    fn(record);
    const n = (i: number) => Number(record[i]);
    return {
      call: n(0),
      pointer: record[1]!,
      size: n(2),
      advice: n(3),
      type: n(4),
      id: n(5),
      device: n(6),
      count: n(7),
      extra: n(8),
    };
  };
}

suite(title, () => {
  let path = '';
  let last: ReturnType<typeof recorder>;
  let auto: Driver;
  let legacy: Driver;

  beforeAll(() => {
    path = buildFakeLibcuda();
    last = recorder(path);
    auto = createDriver({ libraryPath: path });
    legacy = createDriver({ libraryPath: path, entryPoints: 'legacy' });
  });

  afterEach(() => {
    delete process.env.FAKE_CUDA_INIT_RESULT;
    delete process.env.FAKE_CUDA_VERSION;
  });

  it('reports the version and capabilities of each mode', () => {
    expect(auto.driverVersion).toBe(13000);
    expect(auto.capabilities).toEqual({
      memoryLocations: true,
      hostNumaLocations: true,
      batchPrefetchDiscard: true,
      batchMemcpy: true,
      hostMemoryPools: true,
      managedMemoryPools: true,
      interprocess: true,
    });
    expect(legacy.capabilities).toEqual({
      memoryLocations: false,
      hostNumaLocations: false,
      batchPrefetchDiscard: false,
      batchMemcpy: false,
      hostMemoryPools: false,
      managedMemoryPools: false,
      interprocess: true,
    });
  });

  it('maps ordinals through cuDeviceGet (the fake numbers devices from 100)', () => {
    expect(auto.deviceGetCount()).toBe(2);
    expect(auto.deviceGetName(1)).toBe('Fake GPU 1');
    expect([...auto.deviceGetUuid(1)]).toEqual(Array.from({ length: 16 }, (_, i) => i * 16 + 1));
    expect(auto.deviceTotalMem(0)).toBe(80 * 2 ** 30);
    expect(auto.deviceGetAttribute(16, 1)).toBe(16 * 1000 + 101);
    expect(auto.deviceGetDefaultMemPool(1)).toBe(BigInt(0xd000 + 101));
    expect(auto.deviceGetMemPool(0)).toBe(BigInt(0xe000 + 100));
    const context = auto.primaryContextRetain(1);
    expect(context).toBe(BigInt(0xc000 + 101));
    auto.contextSetCurrent(context);
    expect(auto.contextGetCurrent()).toBe(context);
    expect(auto.contextGetDevice()).toBe(1);
    auto.primaryContextRelease(1);
    expect(auto.memGetInfo()).toEqual({ free: 3 * 2 ** 30, total: 80 * 2 ** 30 });
    expect(auto.contextGetStreamPriorityRange()).toEqual({ least: 0, greatest: -5 });
    auto.contextSynchronize();
  });

  it('turns a failing call into a CudaError with name, entry point and description', () => {
    let caught: unknown;
    try {
      auto.deviceGetName(7);
    } catch (error) {
      caught = error;
    }
    expect(CudaError.isInstance(caught)).toBe(true);
    expect(caught).toMatchObject({
      code: 101,
      codeName: 'CUDA_ERROR_INVALID_DEVICE',
      call: 'cuDeviceGetName',
      description: 'fake description',
    });
    auto.contextSetCurrent(0n);
    expect(() => auto.contextGetDevice()).toThrow(
      /cuCtxGetDevice failed: CUDA_ERROR_INVALID_CONTEXT \(201\)/,
    );
    expect(() => auto.memPoolSetAttribute(1n, 99, 1)).toThrow(/cuMemPoolSetAttribute failed/);
  });

  it('copies between JS memory and "device" memory, and views it', () => {
    const pointer = auto.memAlloc(64);
    auto.memcpyHtoD(
      pointer,
      Uint8Array.from({ length: 64 }, (_, i) => i),
    );
    const back = new Uint8Array(64);
    auto.memcpyDtoH(back, pointer);
    expect(back[63]).toBe(63);
    auto.memsetD8Async(pointer, 0x1ff, 4, 0n);
    auto.memsetD16Async(pointer + 4n, 0xabcd, 2, 0n);
    auto.memsetD32Async(pointer + 8n, -1, 1, 0n);
    const view = auto.hostView(pointer, 16);
    expect([...view.subarray(0, 12)]).toEqual([
      255, 255, 255, 255, 0xcd, 0xab, 0xcd, 0xab, 255, 255, 255, 255,
    ]);
    const other = auto.memAlloc(16);
    auto.memcpyAsync(other, pointer, 16, 0n);
    const words = new Uint16Array(8);
    auto.memcpyDtoHAsync(new DataView(words.buffer), other, 0n);
    expect(words[2]).toBe(0xabcd);
    auto.memcpyHtoDAsync(other, new Float64Array([1.5, 2.5]), 0n);
    expect(new Float64Array(auto.hostView(other, 16).slice().buffer)).toEqual(new Float64Array([1.5, 2.5]));
    auto.memFree(pointer);
    auto.memFree(other);
  });

  it('builds CUDA_MEMCPY2D and CUDA_MEMCPY3D with host and unified endpoints', () => {
    const source = Uint8Array.from({ length: 4 * 8 }, (_, i) => i); // 4 rows, pitch 8
    const device = auto.memAlloc(4 * 16);
    auto.memcpy2DAsync(
      { src: source, srcPitch: 8, dst: device, dstPitch: 16, widthInBytes: 5, height: 4 },
      0n,
    );
    const rows = auto.hostView(device, 64);
    expect([...rows.subarray(16, 21)]).toEqual([8, 9, 10, 11, 12]);
    expect(rows[21]).toBe(0);
    const out = new Uint8Array(4 * 5);
    auto.memcpy2DAsync(
      { src: device, srcPitch: 16, dst: out.subarray(0), dstPitch: 5, widthInBytes: 5, height: 4 },
      0n,
    );
    expect([...out.subarray(15, 20)]).toEqual([24, 25, 26, 27, 28]);

    const volume = Uint8Array.from({ length: 2 * 3 * 4 }, (_, i) => i); // depth 2, height 3, pitch 4
    const target = new Uint8Array(2 * 4 * 8); // depth 2, dstHeight 4, pitch 8
    auto.memcpy3DAsync(
      {
        src: volume,
        srcPitch: 4,
        srcHeight: 3,
        dst: target,
        dstPitch: 8,
        dstHeight: 4,
        widthInBytes: 4,
        height: 3,
        depth: 2,
      },
      0n,
    );
    expect([...target.subarray(32 + 16, 32 + 20)]).toEqual([20, 21, 22, 23]);
    auto.memFree(device);
  });

  it('batches copies through cuMemcpyBatchAsync_v2 with one stream-ordered attribute', () => {
    const a = auto.memAlloc(8);
    const b = auto.memAlloc(8);
    auto.memcpyHtoD(a, new Uint8Array([1, 2, 3, 4, 5, 6, 7, 8]));
    auto.memcpyBatchAsync(
      new BigUint64Array([b, b + 4n]),
      new BigUint64Array([a + 4n, a]),
      new BigUint64Array([4n, 4n]),
      2,
      0x5n,
    );
    expect([...auto.hostView(b, 8)]).toEqual([5, 6, 7, 8, 1, 2, 3, 4]);
    expect(last()).toMatchObject({ call: Call.MemcpyBatchV2, count: 2, extra: 1, type: 0, id: 0 });
    expect(() =>
      auto.memcpyBatchAsync(new BigUint64Array(1), new BigUint64Array(1), new BigUint64Array(1), 2, 5n),
    ).toThrow(RangeError);
    expect(() =>
      legacy.memcpyBatchAsync(new BigUint64Array(1), new BigUint64Array(1), new BigUint64Array(1), 1, 5n),
    ).toThrow(NotSupportedError);
  });

  it('passes CUmemLocation by value to the _v2 forms in auto mode', () => {
    const cases = [
      { type: MemLocationType.Device, id: 1 },
      { type: MemLocationType.Host, id: 0 },
      { type: MemLocationType.HostNuma, id: 3 },
      { type: MemLocationType.HostNumaCurrent, id: 0 },
      { type: MemLocationType.Device, id: 2 ** 24 },
    ];
    for (const location of cases) {
      auto.memAdvise(0x1000n, 4096, 3, location);
      expect(last()).toMatchObject({
        call: Call.AdviseV2,
        pointer: 0x1000n,
        size: 4096,
        advice: 3,
        ...location,
      });
      auto.memPrefetchAsync(0x2000n, 8192, location, 7n);
      expect(last()).toMatchObject({
        call: Call.PrefetchV2,
        pointer: 0x2000n,
        size: 8192,
        extra: 0,
        ...location,
      });
    }
  });

  it('passes every 64-bit pointer exactly, as a number below 2**53 and as a bigint above', () => {
    const location = { type: MemLocationType.Device, id: 0 };
    for (const pointer of [0n, 0x7f0012345000n, 2n ** 53n - 1n, 2n ** 53n, 2n ** 53n + 1n, 2n ** 64n - 1n]) {
      // The fake records the pointer as an int64: compare its 64 bits.
      const recorded = BigInt.asIntN(64, pointer);
      auto.memAdvise(pointer, 64, 1, location);
      expect(last()).toMatchObject({ call: Call.AdviseV2, pointer: recorded });
      auto.memPrefetchAsync(pointer, 64, location, 2n ** 64n - 2n);
      expect(last()).toMatchObject({ call: Call.PrefetchV2, pointer: recorded });
    }
  });

  it('uses the CUDA 8.0 forms with a CUdevice in legacy mode, and refuses NUMA before any call', () => {
    legacy.memAdvise(0x1000n, 64, 5, { type: MemLocationType.Device, id: 1 });
    expect(last()).toMatchObject({ call: Call.AdviseV1, device: 101, advice: 5 });
    legacy.memPrefetchAsync(0x1000n, 64, { type: MemLocationType.Host, id: 0 }, 0n);
    expect(last()).toMatchObject({ call: Call.PrefetchV1, device: -1 });
    auto.memAdvise(0n, 1, 1, { type: MemLocationType.Device, id: 0 }); // marks the record
    expect(() => legacy.memAdvise(0x1000n, 64, 3, { type: MemLocationType.HostNuma, id: 0 })).toThrow(
      NotSupportedError,
    );
    expect(() =>
      legacy.memPrefetchAsync(0x1000n, 64, { type: MemLocationType.HostNumaCurrent, id: 0 }, 0n),
    ).toThrow(/entryPoints: 'legacy'/);
    expect(last().call).toBe(Call.AdviseV2);
  });

  it('emulates the legacy forms with _v2 when the driver no longer exports them', () => {
    const withoutPath = buildFakeLibcuda(['FAKE_WITHOUT_LEGACY']);
    const without = createDriver({ libraryPath: withoutPath, entryPoints: 'legacy' });
    const last = recorder(withoutPath);
    without.memAdvise(0x1000n, 64, 3, { type: MemLocationType.Host, id: 0 });
    expect(last()).toMatchObject({ call: Call.AdviseV2, type: MemLocationType.Host });
    without.memPrefetchAsync(0x1000n, 64, { type: MemLocationType.Device, id: 1 }, 0n);
    expect(last()).toMatchObject({ call: Call.PrefetchV2, type: MemLocationType.Device, id: 1 });
    expect(without.eventElapsedTime(1n, 2n)).toBe(1.5);
  });

  it('times events with cuEventElapsedTime_v2, or the original symbol in legacy mode', () => {
    expect(auto.eventElapsedTime(1n, 2n)).toBe(1.5);
    expect(last().call).toBe(Call.ElapsedV2);
    expect(legacy.eventElapsedTime(1n, 2n)).toBe(2.5);
    expect(last().call).toBe(Call.ElapsedV1);
  });

  it('batches prefetch and discard with locations and their starts', () => {
    const pointers = new BigUint64Array([0x1000n, 0x2000n, 0x3000n]);
    const sizes = new BigUint64Array([1n, 2n, 4n]);
    const locations = [
      { type: MemLocationType.Device, id: 0 },
      { type: MemLocationType.HostNuma, id: 2 },
    ];
    auto.memPrefetchBatchAsync(pointers, sizes, 3, locations, [0, 2], 5n);
    expect(last()).toMatchObject({
      call: Call.PrefetchBatch,
      pointer: 0x3000n,
      size: 7,
      advice: 2,
      type: 3,
      id: 2,
      count: 3,
      extra: 2,
    });
    auto.memDiscardAndPrefetchBatchAsync(pointers, sizes, 2, locations.slice(0, 1), [0], 5n);
    expect(last()).toMatchObject({ call: Call.DiscardPrefetchBatch, count: 2, size: 3, type: 1, id: 0 });
    auto.memDiscardBatchAsync(pointers, sizes, 1, 5n);
    expect(last()).toMatchObject({ call: Call.DiscardBatch, count: 1, size: 1 });
    expect(() => legacy.memDiscardBatchAsync(pointers, sizes, 1, 5n)).toThrow(NotSupportedError);
  });

  it('reads range and pointer attributes at their C widths', () => {
    expect(auto.memRangeGetAttribute(0x1000n, 64, 7)).toBe(71);
    // The CPU and both devices: the array must have room for device count + 1 entries.
    expect(auto.memRangeGetAccessedBy(0x1000n, 64)).toEqual([-1, 1, 0]);
    expect(auto.pointerGetAttribute(0x1000n, 12)).toBe(5 * 2 ** 32);
    expect(auto.pointerGetAttribute(0x1000n, 9)).toBe(-1);
    expect(auto.pointerGetAttribute(0x1000n, 8)).toBe(1);
    expect(auto.pointerGetAttribute(0x1000n, 2)).toBe(2);
    expect(auto.pointerGetHandleAttribute(0x12345n, 11)).toBe(0x12000n);
    expect(auto.pointerGetHandleAttribute(0x12345n, 17)).toBe(0xfeedfacecafen);
  });

  it('creates pools with zeroed reserved bytes and sets attributes of both widths', () => {
    const pool = auto.memPoolCreate({
      allocationType: MemAllocationType.Pinned,
      location: { type: MemLocationType.HostNuma, id: 1 },
      handleTypes: 1,
      maxSize: 2 ** 33,
    });
    expect(last()).toMatchObject({
      call: Call.PoolCreate,
      advice: 1,
      type: 3,
      id: 1,
      extra: 1,
      size: 2 ** 33,
    });
    auto.memPoolSetAttribute(pool, 2, 1);
    auto.memPoolSetAttribute(pool, 4, 2 ** 40);
    expect(auto.memPoolGetAttribute(pool, 2)).toBe(1);
    expect(auto.memPoolGetAttribute(pool, 4)).toBe(2 ** 40);
    auto.memPoolSetAccess(pool, { type: MemLocationType.Device, id: 1 }, 3);
    expect(last()).toMatchObject({ call: Call.PoolAccess, advice: 3, type: 1, id: 1, count: 1 });
    expect(auto.memPoolGetAccess(pool, { type: MemLocationType.Device, id: 1 })).toBe(11);
    auto.memPoolTrimTo(pool, 0);
    const pointer = auto.memAllocFromPoolAsync(4096, pool, 0n);
    expect(pointer).not.toBe(0n);
    auto.memFreeAsync(pointer, 0n);
    auto.memPoolDestroy(pool);
    const managed = {
      allocationType: MemAllocationType.Managed,
      location: { type: 0, id: 0 },
      handleTypes: 0,
      maxSize: 0,
    } as const;
    expect(() => legacy.memPoolCreate(managed)).toThrow(NotSupportedError);
    expect(() =>
      legacy.memPoolCreate({
        ...managed,
        allocationType: MemAllocationType.Pinned,
        location: { type: MemLocationType.Host, id: 0 },
      }),
    ).toThrow(/host memory/);
  });

  it('shares pools and allocations: descriptors, export data and IPC handles', async () => {
    const { closeSync } = await import('node:fs');
    const fd = auto.memPoolExportToFileDescriptor(1n);
    expect(fd).toBeGreaterThan(2);
    closeSync(fd);
    expect(auto.memPoolImportFromFileDescriptor(17)).toBe(BigInt(0xf000 + 17));
    expect(last()).toMatchObject({ call: Call.PoolImportFd, extra: 17 });
    const data = auto.memPoolExportPointer(0x123456789n);
    expect(data.byteLength).toBe(64);
    expect(auto.memPoolImportPointer(1n, data)).toBe(0x123456789n);
    expect(() => auto.memPoolImportPointer(1n, new Uint8Array(8))).toThrow(RangeError);
    const handle = auto.ipcGetMemHandle(0xabcdef00n);
    expect(auto.ipcOpenMemHandle(handle, 1)).toBe(0xabcdef01n);
    auto.ipcCloseMemHandle(0xabcdef01n);
    // The event handle travels by value like the memory handle: the fake echoes the event back.
    const eventHandle = auto.ipcGetEventHandle(0xe7e47n);
    expect(eventHandle.byteLength).toBe(64);
    expect(auto.ipcOpenEventHandle(eventHandle)).toBe(0xe7e47n);
    expect(() => auto.ipcOpenEventHandle(new Uint8Array(63))).toThrow(RangeError);
    const host = auto.memHostAlloc(32, 0);
    auto.memFreeHost(host);
    auto.memFree(auto.memAllocManaged(32, 1));
  });

  it('queries, creates and destroys streams and events', () => {
    const stream = auto.streamCreate(1, -2);
    expect(auto.streamQuery(stream)).toBe(true);
    expect(auto.streamQuery(0xb05n)).toBe(false);
    const event = auto.eventCreate(2);
    auto.eventRecord(event, stream);
    auto.streamWaitEvent(stream, event);
    expect(auto.eventQuery(event)).toBe(true);
    expect(auto.eventQuery(0xe05n)).toBe(false);
    auto.eventSynchronize(event);
    auto.eventDestroy(event);
    auto.streamDestroy(stream);
  });

  it('waits by polling without blocking the event loop, and rejects with CudaError', async () => {
    let ticks = 0;
    const timer = setInterval(() => ticks++, 5);
    const started = performance.now();
    await auto.streamSynchronizeAsync(0x5n); // the fake's stream is busy for 100 ms
    // Polls on 1-2 ms timers past 10 ms: done within a few ms of the stream (loaded CI: 60 ms).
    expect(performance.now() - started).toBeGreaterThanOrEqual(99);
    expect(performance.now() - started).toBeLessThan(160);
    clearInterval(timer);
    expect(ticks).toBeGreaterThan(3);
    await auto.streamSynchronizeAsync(0n);
    await auto.eventSynchronizeAsync(0x77n);
    await expect(auto.streamSynchronizeAsync(0xbadn)).rejects.toMatchObject({
      codeName: 'CUDA_ERROR_ILLEGAL_ADDRESS',
      call: 'cuStreamSynchronize',
      description: 'an illegal memory access was encountered',
    });
  });

  it('maps cuInit failures and old drivers to DriverUnavailableError reasons', () => {
    const reasons: Record<string, string> = {
      '100': 'no-device',
      '34': 'library-missing',
      '999': 'init-failed',
    };
    for (const [code, reason] of Object.entries(reasons)) {
      process.env.FAKE_CUDA_INIT_RESULT = code;
      const driver = createDriver({ libraryPath: path });
      for (let attempt = 0; attempt < 2; attempt++) {
        const error = (() => {
          try {
            driver.deviceGetCount();
          } catch (e) {
            return e as DriverUnavailableError;
          }
        })();
        expect(DriverUnavailableError.isInstance(error), code).toBe(true);
        expect(error?.reason).toBe(reason);
      }
    }
    delete process.env.FAKE_CUDA_INIT_RESULT;
    process.env.FAKE_CUDA_VERSION = '11080';
    expect(() => createDriver({ libraryPath: path }).capabilities).toThrow(/CUDA 11\.8.*12\.0 or newer/);
    process.env.FAKE_CUDA_VERSION = '12020';
    const cuda122 = createDriver({ libraryPath: path });
    expect(cuda122.capabilities).toMatchObject({
      memoryLocations: true,
      hostNumaLocations: false,
      batchPrefetchDiscard: false,
    });
    expect(() => cuda122.memAdvise(1n, 1, 1, { type: MemLocationType.HostNuma, id: 0 })).toThrow(
      /CUDA 13\.0.*driver is 12\.2/,
    );
  });
});
