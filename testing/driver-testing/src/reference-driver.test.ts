import {
  CudaError,
  type Driver,
  EventFlags,
  MemAdvise,
  MemAllocationType,
  MemAttachFlags,
  MemHandleType,
  MemLocationType,
  MemPoolAttribute,
  PointerAttribute,
  PointerHandleAttribute,
} from '@cumem/core-types';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { driverConformanceSuite } from './conformance/index.js';
import { probeDriver } from './driver-gate.js';
import { createReferenceDriver } from './reference-driver.js';

driverConformanceSuite('reference', createReferenceDriver);
driverConformanceSuite('reference, 2 devices', (options) =>
  createReferenceDriver({ ...options, deviceCount: 2 }),
);
driverConformanceSuite(
  'reference, legacy entry points',
  (options) => createReferenceDriver({ ...options, entryPoints: 'legacy' }),
  { entryPoints: 'legacy' },
);

// --- Behaviour specific to the reference driver (what the conformance suite cannot pin on a GPU) ---

function codeOf(action: () => unknown): string {
  try {
    action();
  } catch (error) {
    if (CudaError.isInstance(error)) return `${error.call}: ${error.codeName}`;
    throw error;
  }
  throw new Error('expected a CudaError');
}

describe('reference driver', () => {
  let driver: Driver;
  beforeEach(() => {
    driver = createReferenceDriver({ deviceCount: 2, totalMemory: 64 * 1024 * 1024 });
    driver.contextSetCurrent(driver.primaryContextRetain(0));
  });
  afterEach(() => {
    driver.primaryContextRelease(0);
  });

  it('has the options it was made with: devices, memory and name', () => {
    expect(driver.name).toBe('reference');
    expect(driver.deviceGetCount()).toBe(2);
    expect(driver.deviceGetName(1)).toBe('cumem reference device');
    expect(driver.deviceTotalMem(1)).toBe(64 * 1024 * 1024);
    expect(driver.capabilities.interprocess).toBe(false);
    expect(() => createReferenceDriver({ deviceCount: 0 })).toThrow(RangeError);
  });

  it('counts memory: memGetInfo falls by what memAlloc takes, and running out gives CUDA_ERROR_OUT_OF_MEMORY', () => {
    const before = driver.memGetInfo().free;
    const pointer = driver.memAlloc(40 * 1024 * 1024);
    expect(driver.memGetInfo().free).toBe(before - 40 * 1024 * 1024);
    expect(codeOf(() => driver.memAlloc(40 * 1024 * 1024))).toBe('cuMemAlloc: CUDA_ERROR_OUT_OF_MEMORY');
    driver.memFree(pointer);
    expect(driver.memGetInfo().free).toBe(before);
  });

  it('never reuses an address, and a freed allocation is unreachable: use-after-free is detectable', () => {
    const first = driver.memHostAlloc(4096, 0);
    const view = driver.hostView(first, 4096);
    driver.memFreeHost(first);
    const second = driver.memHostAlloc(4096, 0);
    expect(second).not.toBe(first);
    // Old views are detached, and the address no longer resolves.
    expect(view.length).toBe(0);
    expect(() => driver.hostView(first, 16)).toThrow(RangeError);
    expect(codeOf(() => driver.memcpyDtoH(new Uint8Array(16), first))).toBe(
      'cuMemcpyDtoH: CUDA_ERROR_INVALID_VALUE',
    );
    expect(codeOf(() => driver.memFreeHost(first))).toBe('cuMemFreeHost: CUDA_ERROR_INVALID_VALUE');
    driver.memFreeHost(second);
  });

  it('allocations are separated by a gap: a copy past the end fails instead of touching a neighbour', () => {
    const a = driver.memAlloc(1000);
    const b = driver.memAlloc(1000);
    expect(b - a).toBeGreaterThan(1000n);
    expect(codeOf(() => driver.memcpyHtoD(a + 900n, new Uint8Array(200)))).toBe(
      'cuMemcpyHtoD: CUDA_ERROR_INVALID_VALUE',
    );
    driver.memFree(a);
    driver.memFree(b);
  });

  it('hostView refuses device memory, which the host cannot reach', () => {
    const pointer = driver.memAlloc(64);
    expect(() => driver.hostView(pointer, 64)).toThrow(TypeError);
    driver.memFree(pointer);
  });

  it('addressOf memory of a buffer that was collected or never seen does not resolve', () => {
    const stranger = driver.addressOf(new Uint8Array(64)) + 0x100_0000n;
    expect(codeOf(() => driver.memcpyAsync(driver.memAlloc(8), stranger, 8, 0n))).toBe(
      'cuMemcpyAsync: CUDA_ERROR_INVALID_VALUE',
    );
  });

  it('streamSynchronizeAsync resolves only after a macrotask, and rejects with the CudaError', async () => {
    const stream = driver.streamCreate(0, 0);
    let resolved = false;
    const waiting = driver.streamSynchronizeAsync(stream).then(() => {
      resolved = true;
    });
    await Promise.resolve();
    expect(resolved).toBe(false);
    await waiting;
    expect(resolved).toBe(true);
    driver.streamDestroy(stream);
    await expect(driver.streamSynchronizeAsync(stream)).rejects.toSatisfy(
      (error) => CudaError.isInstance(error) && error.codeName === 'CUDA_ERROR_INVALID_HANDLE',
    );
  });

  it('destroyed streams, events and pools are invalid handles', () => {
    const stream = driver.streamCreate(0, 0);
    driver.streamDestroy(stream);
    expect(codeOf(() => driver.streamQuery(stream))).toBe('cuStreamQuery: CUDA_ERROR_INVALID_HANDLE');
    const event = driver.eventCreate(0);
    driver.eventDestroy(event);
    expect(codeOf(() => driver.eventRecord(event, 0n))).toBe('cuEventRecord: CUDA_ERROR_INVALID_HANDLE');
    const pool = driver.memPoolCreate({
      allocationType: MemAllocationType.Pinned,
      location: { type: MemLocationType.Device, id: 1 },
      handleTypes: 0,
      maxSize: 0,
    });
    driver.memPoolDestroy(pool);
    expect(codeOf(() => driver.memPoolGetAttribute(pool, MemPoolAttribute.UsedMemCurrent))).toBe(
      'cuMemPoolGetAttribute: CUDA_ERROR_INVALID_VALUE',
    );
    expect(codeOf(() => driver.memPoolDestroy(driver.deviceGetDefaultMemPool(0)))).toBe(
      'cuMemPoolDestroy: CUDA_ERROR_INVALID_VALUE',
    );
  });

  it('releasing a primary context to zero destroys its memory; calls then fail with CUDA_ERROR_INVALID_CONTEXT', () => {
    const context = driver.primaryContextRetain(1);
    driver.contextSetCurrent(context);
    const pointer = driver.memAlloc(4096);
    expect(driver.pointerGetHandleAttribute(pointer, PointerHandleAttribute.Context)).toBe(context);
    expect(driver.pointerGetAttribute(pointer, PointerAttribute.DeviceOrdinal)).toBe(1);
    driver.primaryContextRelease(1);
    expect(codeOf(() => driver.pointerGetAttribute(pointer, PointerAttribute.MemoryType))).toBe(
      'cuPointerGetAttribute: CUDA_ERROR_INVALID_VALUE',
    );
    expect(codeOf(() => driver.memAlloc(16))).toBe('cuMemAlloc: CUDA_ERROR_INVALID_CONTEXT');
    expect(codeOf(() => driver.primaryContextRelease(1))).toBe(
      'cuDevicePrimaryCtxRelease: CUDA_ERROR_INVALID_CONTEXT',
    );
    driver.contextSetCurrent(driver.primaryContextRetain(0));
    driver.primaryContextRelease(0);
  });

  it('memAdvise on managed-pool memory is CUDA_ERROR_NOT_SUPPORTED, as on the CUDA 13.0 driver', () => {
    const pool = driver.memPoolCreate({
      allocationType: MemAllocationType.Managed,
      location: { type: MemLocationType.Invalid, id: 0 },
      handleTypes: 0,
      maxSize: 0,
    });
    const pointer = driver.memAllocFromPoolAsync(8192, pool, 0n);
    expect(codeOf(() => driver.memAdvise(pointer, 8192, MemAdvise.SetReadMostly, { type: 1, id: 0 }))).toBe(
      'cuMemAdvise: CUDA_ERROR_NOT_SUPPORTED',
    );
    driver.memFreeAsync(pointer, 0n);
    driver.memPoolDestroy(pool);
  });

  it('every interprocess entry point is CUDA_ERROR_NOT_SUPPORTED, and IPC pools cannot be made', () => {
    const pointer = driver.memAlloc(64);
    const event = driver.eventCreate(EventFlags.Interprocess | EventFlags.DisableTiming);
    const calls: Array<[() => unknown, string]> = [
      [
        () => driver.memPoolExportToFileDescriptor(driver.deviceGetDefaultMemPool(0)),
        'cuMemPoolExportToShareableHandle',
      ],
      [() => driver.memPoolImportFromFileDescriptor(0), 'cuMemPoolImportFromShareableHandle'],
      [() => driver.memPoolExportPointer(pointer), 'cuMemPoolExportPointer'],
      [() => driver.memPoolImportPointer(1n, new Uint8Array(64)), 'cuMemPoolImportPointer'],
      [() => driver.ipcGetMemHandle(pointer), 'cuIpcGetMemHandle'],
      [() => driver.ipcOpenMemHandle(new Uint8Array(64), 1), 'cuIpcOpenMemHandle'],
      [() => driver.ipcCloseMemHandle(pointer), 'cuIpcCloseMemHandle'],
      [() => driver.ipcGetEventHandle(event), 'cuIpcGetEventHandle'],
      [() => driver.ipcOpenEventHandle(new Uint8Array(64)), 'cuIpcOpenEventHandle'],
    ];
    for (const [call, name] of calls) expect(codeOf(call)).toBe(`${name}: CUDA_ERROR_NOT_SUPPORTED`);
    const ipcPool = {
      allocationType: MemAllocationType.Pinned,
      location: { type: MemLocationType.Device, id: 0 },
      handleTypes: MemHandleType.PosixFileDescriptor,
      maxSize: 0,
    };
    expect(codeOf(() => driver.memPoolCreate(ipcPool))).toBe('cuMemPoolCreate: CUDA_ERROR_NOT_SUPPORTED');
    driver.eventDestroy(event);
    driver.memFree(pointer);
  });

  it('pool accounting: reserved grows in 2 MiB chunks and falls to the release threshold at a synchronize', () => {
    const pool = driver.deviceGetDefaultMemPool(0);
    const attribute = (which: number) => driver.memPoolGetAttribute(pool, which);
    const pointer = driver.memAllocFromPoolAsync(3 * 1024 * 1024, pool, 0n);
    expect(attribute(MemPoolAttribute.ReservedMemCurrent)).toBe(4 * 1024 * 1024);
    expect(driver.pointerGetHandleAttribute(pointer, PointerHandleAttribute.MempoolHandle)).toBe(pool);
    driver.memFreeAsync(pointer, 0n);
    expect(attribute(MemPoolAttribute.ReservedMemCurrent)).toBe(4 * 1024 * 1024);
    driver.contextSynchronize();
    expect(attribute(MemPoolAttribute.ReservedMemCurrent)).toBe(0);
    expect(attribute(MemPoolAttribute.ReservedMemHigh)).toBe(4 * 1024 * 1024);
  });

  it('host-pool memory is refused by memcpyHtoD*/DtoH* (as the CUDA 13.0 driver does) and reached by memcpyAsync', () => {
    const stream = driver.streamCreate(0, 0);
    const data = new Uint8Array(64).map((_, index) => index + 1);
    for (const location of [
      { type: MemLocationType.Host, id: 0 },
      { type: MemLocationType.HostNuma, id: 0 },
    ]) {
      const pool = driver.memPoolCreate({
        allocationType: MemAllocationType.Pinned,
        location,
        handleTypes: MemHandleType.None,
        maxSize: 0,
      });
      const pointer = driver.memAllocFromPoolAsync(64, pool, stream);
      const back = new Uint8Array(64);
      expect(codeOf(() => driver.memcpyHtoDAsync(pointer, data, stream))).toBe(
        'cuMemcpyHtoDAsync: CUDA_ERROR_INVALID_VALUE',
      );
      expect(codeOf(() => driver.memcpyDtoHAsync(back, pointer + 8n, stream))).toBe(
        'cuMemcpyDtoHAsync: CUDA_ERROR_INVALID_VALUE',
      );
      expect(codeOf(() => driver.memcpyHtoD(pointer, data))).toBe('cuMemcpyHtoD: CUDA_ERROR_INVALID_VALUE');
      expect(codeOf(() => driver.memcpyDtoH(back, pointer))).toBe('cuMemcpyDtoH: CUDA_ERROR_INVALID_VALUE');
      expect(back.every((byte) => byte === 0)).toBe(true);
      driver.memcpyAsync(pointer, driver.addressOf(data), 64, stream);
      driver.memcpyAsync(driver.addressOf(back), pointer, 64, stream);
      expect(back).toEqual(data);
      driver.memFreeAsync(pointer, stream);
      driver.memPoolDestroy(pool);
    }
    // Device-pool, page-locked (memHostAlloc) and managed-pool memory still take them.
    const managedPool = driver.memPoolCreate({
      allocationType: MemAllocationType.Managed,
      location: { type: MemLocationType.Device, id: 0 },
      handleTypes: MemHandleType.None,
      maxSize: 0,
    });
    const others = [
      driver.memAllocFromPoolAsync(64, driver.deviceGetDefaultMemPool(0), stream),
      driver.memHostAlloc(64, 0),
      driver.memAllocFromPoolAsync(64, managedPool, stream),
    ];
    for (const pointer of others) {
      const back = new Uint8Array(64);
      driver.memcpyHtoDAsync(pointer, data, stream);
      driver.memcpyDtoHAsync(back, pointer, stream);
      expect(back).toEqual(data);
    }
    driver.memFreeAsync(others[0] as bigint, stream);
    driver.memFreeHost(others[1] as bigint);
    driver.memFreeAsync(others[2] as bigint, stream);
    driver.memPoolDestroy(managedPool);
    driver.streamDestroy(stream);
  });

  it('memsetD16/D32 refuse a misaligned pointer; batch copies refuse the legacy NULL stream', () => {
    const pointer = driver.memAlloc(64);
    expect(codeOf(() => driver.memsetD32Async(pointer + 2n, 1, 4, 0n))).toBe(
      'cuMemsetD32Async: CUDA_ERROR_INVALID_VALUE',
    );
    expect(codeOf(() => driver.memsetD16Async(pointer + 1n, 1, 4, 0n))).toBe(
      'cuMemsetD16Async: CUDA_ERROR_INVALID_VALUE',
    );
    const one = BigUint64Array.of(pointer);
    expect(codeOf(() => driver.memcpyBatchAsync(one, one, BigUint64Array.of(8n), 1, 0n))).toBe(
      'cuMemcpyBatchAsync: CUDA_ERROR_INVALID_VALUE',
    );
    driver.memFree(pointer);
  });

  it('advice on a sub-page range applies to the whole CPU page, as the driver rounds it', () => {
    const pointer = driver.memAllocManaged(8192, MemAttachFlags.Global);
    driver.memAdvise(pointer + 10n, 20, MemAdvise.SetReadMostly, { type: MemLocationType.Device, id: 0 });
    expect(driver.memRangeGetAttribute(pointer, 4096, 1)).toBe(1);
    expect(driver.memRangeGetAttribute(pointer + 4096n, 4096, 1)).toBe(0);
    driver.memFree(pointer);
  });
});

describe('driver gating', () => {
  it('a factory that throws or finds no device gives a skip reason instead of an error', () => {
    const failing = probeDriver('broken', () => {
      throw new Error('libcuda.so.1: cannot open shared object file\nmore');
    });
    expect(failing.skipReason).toBe('no usable GPU driver: libcuda.so.1: cannot open shared object file');
    expect(() => failing.driver).toThrow(/no usable GPU driver/);
    expect(probeDriver('absent', undefined).skipReason).toBe(
      'the absent adapter is not passed to this suite',
    );
    expect(probeDriver('reference', createReferenceDriver, true).skipReason).toBeUndefined();
  });
});
