// Pools, sharing, streams, waits and peers over the fake libcuda, the same claims for both
// adapters: pool properties and access descriptors reach C as cuda.h lays them out, exported
// data round-trips, waits never block the event loop and reject with CudaError, and an
// already-enabled peer access counts as success.
import { closeSync } from 'node:fs';
import {
  CudaError,
  DriverUnavailableError,
  MemAllocationType,
  MemLocationType,
  NotSupportedError,
  P2PAttribute,
} from '@cumem/core-types';
import { adapters } from '@cumem/test-support';
import { expect, it } from 'vitest';
import { describeOverFake } from './fake-harness.js';

describeOverFake('pools, streams and peers', (fake) => {
  it('creates pools with zeroed reserved bytes and sets attributes of both widths', () => {
    const driver = fake.driver();
    const legacy = fake.driver({ entryPoints: 'legacy' });
    const pool = driver.memPoolCreate({
      allocationType: MemAllocationType.Pinned,
      location: { type: MemLocationType.HostNuma, id: 1 },
      handleTypes: 1,
      maxSize: 2 ** 33,
    });
    expect(fake.last()).toMatchObject({
      symbol: 'cuMemPoolCreate',
      advice: 1,
      type: 3,
      id: 1,
      extra: 1,
      size: 2 ** 33,
    });
    driver.memPoolSetAttribute(pool, 2, 1);
    driver.memPoolSetAttribute(pool, 4, 2 ** 40);
    expect(driver.memPoolGetAttribute(pool, 2)).toBe(1);
    expect(driver.memPoolGetAttribute(pool, 4)).toBe(2 ** 40);
    driver.memPoolSetAccess(pool, { type: MemLocationType.Device, id: 1 }, 3);
    expect(fake.last()).toMatchObject({
      symbol: 'cuMemPoolSetAccess',
      advice: 3,
      type: 1,
      id: 1,
      count: 1,
      extra: 113,
    });
    expect(driver.memPoolGetAccess(pool, { type: MemLocationType.Device, id: 1 })).toBe(3);
    expect(fake.last()).toMatchObject({ symbol: 'cuMemPoolGetAccess', type: 1, id: 1 });
    driver.memPoolTrimTo(pool, 0);
    const pointer = driver.memAllocFromPoolAsync(4096, pool, 0n);
    expect(pointer).not.toBe(0n);
    driver.memFreeAsync(pointer, 0n);
    driver.memPoolDestroy(pool);
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

  // The FFI adapter remembers the last pool and stream it converted, for all its drivers: one
  // that cannot load must not take that shortcut past loading.
  it('refuses the pool pair on a driver that cannot load, before its arguments, after another used them', () => {
    const driver = fake.driver();
    const pool = driver.deviceGetDefaultMemPool(0);
    const stream = driver.streamCreate(0, 0);
    driver.memFreeAsync(driver.memAllocFromPoolAsync(4096, pool, stream), stream);
    const missing = adapters[fake.adapter]({ libraryPath: '/nonexistent/libcuda.so.1' });
    for (let attempt = 0; attempt < 2; attempt++) {
      expect(() => missing.memAllocFromPoolAsync(4096, pool, stream)).toThrow(DriverUnavailableError);
      expect(() => missing.memFreeAsync(0x1000n, stream)).toThrow(DriverUnavailableError);
      expect(() => missing.memAllocFromPoolAsync(-1, 'pool' as never, stream)).toThrow(
        DriverUnavailableError,
      );
      expect(() => missing.memFreeAsync('0x1000' as never, null as never)).toThrow(DriverUnavailableError);
    }
    const pointer = driver.memAllocFromPoolAsync(4096, pool, stream);
    expect(driver.pointerGetHandleAttribute(pointer, 17)).toBe(pool);
    driver.memFreeAsync(pointer, stream);
  });

  it('returns each pool allocation as its own bigint, and fails without a stale result', () => {
    const driver = fake.driver();
    const pool = driver.deviceGetDefaultMemPool(0);
    const stream = driver.streamCreate(0, 0);
    const first = driver.memAllocFromPoolAsync(4096, pool, stream);
    const second = driver.memAllocFromPoolAsync(4096, pool, stream);
    expect(typeof first).toBe('bigint');
    expect(second).not.toBe(first);
    expect(driver.pointerGetHandleAttribute(second, 11)).toBe(second); // the exact address came back
    driver.memFreeAsync(first, stream);
    expect(() => driver.memAllocFromPoolAsync(0, pool, stream)).toThrow(
      expect.objectContaining({ call: 'cuMemAllocFromPoolAsync', code: 1 }),
    );
    // The contract's argument rules (core-types checkSize / checkAddress) before any driver call.
    fake.clearLog();
    expect(() => driver.memAllocFromPoolAsync(4096, 'pool' as never, stream)).toThrow(TypeError);
    expect(() => driver.memAllocFromPoolAsync(4096, pool, null as never)).toThrow(TypeError);
    expect(() => driver.memAllocFromPoolAsync('64' as never, pool, stream)).toThrow(TypeError);
    expect(() => driver.memAllocFromPoolAsync(-1, pool, stream)).toThrow(RangeError);
    expect(() => driver.memAllocFromPoolAsync(1.5, pool, stream)).toThrow(RangeError);
    expect(() => driver.memAllocFromPoolAsync(64, -1n, stream)).toThrow(RangeError);
    expect(() => driver.memAllocFromPoolAsync(64, pool, 2n ** 64n)).toThrow(RangeError);
    expect(() => driver.memFreeAsync(-1n, stream)).toThrow(RangeError);
    expect(() => driver.memFreeAsync(-(2n ** 64n) + 5n, stream)).toThrow(RangeError);
    expect(() => driver.memFreeAsync(second, -1 as never)).toThrow(RangeError);
    expect(() => driver.memFreeAsync('0x1000' as never, stream)).toThrow(TypeError);
    expect(fake.calls()).toEqual([]);
    // Number handles (non-negative safe integers) are accepted as well as bigints.
    const third = driver.memAllocFromPoolAsync(512, Number(pool) as never, 0 as never);
    expect(driver.pointerGetHandleAttribute(third, 17)).toBe(pool);
    driver.memFreeAsync(Number(third) as never, 0n);
    driver.memFreeAsync(second, stream);
    driver.streamDestroy(stream);
  });

  // The FFI adapter remembers the last pool and stream arguments (ffi-pools.ts): a call with another
  // handle in between must still reach its own pool, and a refused handle must not stick.
  it('allocates from the pool each call names when pools alternate, bigint or number', () => {
    const driver = fake.driver();
    const devicePool = {
      allocationType: MemAllocationType.Pinned,
      location: { type: MemLocationType.Device, id: 0 },
      handleTypes: 0,
      maxSize: 0,
    } as const;
    const pools = [driver.deviceGetDefaultMemPool(0), driver.memPoolCreate(devicePool)];
    const stream = driver.streamCreate(0, 0);
    for (let round = 0; round < 3; round++) {
      for (const pool of [pools[0], pools[1], pools[1], pools[0]] as bigint[]) {
        const handle = round === 1 ? (Number(pool) as never) : pool;
        const pointer = driver.memAllocFromPoolAsync(256, handle, stream);
        expect(driver.pointerGetHandleAttribute(pointer, 17)).toBe(pool);
        driver.memFreeAsync(pointer, round === 2 ? 0n : stream);
        expect(() => driver.memAllocFromPoolAsync(256, -1n, stream)).toThrow(RangeError);
        expect(() => driver.memFreeAsync(pointer, -1n)).toThrow(RangeError);
      }
    }
    driver.streamDestroy(stream);
    driver.memPoolDestroy(pools[1] as bigint);
  });

  it('shares pools and allocations: descriptors, export data and IPC handles', () => {
    const driver = fake.driver();
    const pool = driver.memPoolCreate({
      allocationType: MemAllocationType.Pinned,
      location: { type: MemLocationType.Device, id: 0 },
      handleTypes: 1,
      maxSize: 0,
    });
    const fd = driver.memPoolExportToFileDescriptor(pool);
    expect(fd).toBeGreaterThan(2);
    closeSync(fd);
    const imported = driver.memPoolImportFromFileDescriptor(17);
    expect(fake.last()).toMatchObject({ symbol: 'cuMemPoolImportFromShareableHandle', extra: 17 });
    const pointer = driver.memAllocFromPoolAsync(256, pool, 0n);
    const data = driver.memPoolExportPointer(pointer);
    expect(data.byteLength).toBe(64);
    expect(driver.memPoolImportPointer(imported, data)).toBe(pointer);
    expect(() => driver.memPoolImportPointer(imported, new Uint8Array(8))).toThrow(RangeError);
    const handle = driver.ipcGetMemHandle(pointer);
    expect(driver.ipcOpenMemHandle(handle, 1)).toBe(pointer);
    expect(fake.last()).toMatchObject({ symbol: 'cuIpcOpenMemHandle', pointer, extra: 1 });
    driver.ipcCloseMemHandle(pointer);
    // The event handle travels by value like the memory handle: the fake echoes the event back.
    const event = driver.eventCreate(2 | 4);
    const eventHandle = driver.ipcGetEventHandle(event);
    expect(eventHandle.byteLength).toBe(64);
    expect(driver.ipcOpenEventHandle(eventHandle)).toBe(event);
    expect(() => driver.ipcOpenEventHandle(new Uint8Array(63))).toThrow(RangeError);
    driver.eventDestroy(event);
    driver.memFreeAsync(pointer, 0n);
    driver.memFreeHost(driver.memHostAlloc(32, 0));
    driver.memFree(driver.memAllocManaged(32, 1));
  });

  it('queries, creates and destroys streams and events', () => {
    const driver = fake.driver();
    const stream = driver.streamCreate(1, -2);
    expect(driver.streamQuery(stream)).toBe(true);
    const event = driver.eventCreate(2);
    driver.eventRecord(event, stream);
    driver.streamWaitEvent(stream, event);
    expect(driver.eventQuery(event)).toBe(true);
    process.env.FAKE_CUDA_FAIL = 'cuStreamQuery=600,cuEventQuery=600'; // CUDA_ERROR_NOT_READY
    expect(driver.streamQuery(stream)).toBe(false);
    expect(driver.eventQuery(event)).toBe(false);
    delete process.env.FAKE_CUDA_FAIL;
    driver.eventSynchronize(event);
    driver.eventDestroy(event);
    driver.streamDestroy(stream);
  });

  it('waits without blocking the event loop, and rejects with CudaError', async () => {
    const driver = fake.driver();
    const stream = driver.streamCreate(0, 0);
    const event = driver.eventCreate(0);
    // The stream is busy for 100 ms, whether the adapter polls cuStreamQuery or blocks a thread.
    process.env.FAKE_CUDA_BUSY_MS = '100';
    process.env.FAKE_CUDA_SYNC_US = '100000';
    // Order, not a tick count: on a loaded 2-core CI machine an interval timer may get only a
    // couple of turns in 100 ms, but a 20 ms timer still fires before a wait that does not
    // block the event loop settles, and after one that does.
    const order: string[] = [];
    const timer = setTimeout(() => order.push('timer'), 20);
    const started = performance.now();
    await driver.streamSynchronizeAsync(stream).then(() => order.push('wait'));
    // Not before the stream is done; no upper bound, which load alone can break (issue 21): the
    // order above shows the wait did not block the event loop.
    expect(performance.now() - started).toBeGreaterThanOrEqual(99);
    clearTimeout(timer);
    expect(order).toEqual(['timer', 'wait']);
    await driver.streamSynchronizeAsync(0n);
    await driver.eventSynchronizeAsync(event);
    process.env.FAKE_CUDA_FAIL = 'cuStreamSynchronize=700,cuStreamQuery=700'; // ILLEGAL_ADDRESS
    await expect(driver.streamSynchronizeAsync(stream)).rejects.toMatchObject({
      codeName: 'CUDA_ERROR_ILLEGAL_ADDRESS',
      call: 'cuStreamSynchronize',
      description: 'an illegal memory access was encountered',
    });
    delete process.env.FAKE_CUDA_FAIL;
    driver.eventDestroy(event);
    driver.streamDestroy(stream);
  });

  it("waits for the calling thread's per-thread stream (2n), and frees what the wait made", async () => {
    const driver = fake.driver();
    expect(driver.streamQuery(2n)).toBe(true); // a call of this thread on its per-thread stream
    const [mine] = fake.calls();
    expect(mine).toMatchObject({ symbol: 'cuStreamQuery', size: 2 });
    fake.clearLog();
    await driver.streamSynchronizeAsync(2n);
    const calls = fake.calls();
    // Whichever way the adapter waits (polls on this thread, or an event recorded here and waited
    // for elsewhere), what names stream 2 runs on this thread: on another one it is that thread's.
    const onStream = calls.filter((call) => call.symbol !== 'cuEventDestroy');
    expect(onStream.length).toBeGreaterThan(0);
    for (const call of onStream) expect(call, call.symbol).toMatchObject({ size: 2, id: mine!.id });
    const recorded = calls.filter((call) => call.symbol === 'cuEventRecord').map((call) => call.pointer);
    const destroyed = calls.filter((call) => call.symbol === 'cuEventDestroy').map((call) => call.pointer);
    expect(destroyed).toEqual(recorded);
  });

  it('asks cuDeviceCanAccessPeer and cuDeviceGetP2PAttribute about both directions', () => {
    const driver = fake.driver();
    expect(driver.deviceCanAccessPeer(0, 1)).toBe(true);
    expect(driver.deviceCanAccessPeer(1, 1)).toBe(false);
    expect(driver.deviceGetP2PAttribute(P2PAttribute.AccessSupported, 0, 1)).toBe(1);
    expect(fake.last()).toMatchObject({ symbol: 'cuDeviceGetP2PAttribute', advice: 2, device: 0, id: 1 });
    expect(driver.deviceGetP2PAttribute(P2PAttribute.PerformanceRank, 1, 0)).toBe(1);
    expect(fake.last()).toMatchObject({ advice: 1, device: 1, id: 0 });
    expect(() => driver.deviceCanAccessPeer(0, 7)).toThrow(CudaError);
    expect(() => driver.deviceCanAccessPeer(0, 5)).toThrow(/cuDeviceCanAccessPeer/);
  });

  it('enables context peer access once and treats ALREADY_ENABLED as success', () => {
    const driver = fake.driver();
    driver.contextSetCurrent(driver.primaryContextRetain(0));
    const peer = driver.primaryContextRetain(1);
    driver.contextEnablePeerAccess(peer);
    expect(() => driver.contextEnablePeerAccess(peer)).not.toThrow();
    expect(() => driver.contextEnablePeerAccess(driver.contextGetCurrent())).toThrow(/cuCtxEnablePeerAccess/);
  });

  it('copies with cuMemcpyPeerAsync between two contexts', () => {
    const driver = fake.driver();
    const src = driver.memAlloc(32);
    const dst = driver.memAlloc(32);
    driver.memcpyHtoD(
      src,
      Uint8Array.from({ length: 32 }, (_, i) => 255 - i),
    );
    driver.memcpyPeerAsync(dst, driver.primaryContextRetain(1), src, driver.primaryContextRetain(0), 32, 0n);
    expect([...driver.hostView(dst, 32)]).toEqual(Array.from({ length: 32 }, (_, i) => 255 - i));
    driver.memFree(src);
    driver.memFree(dst);
  });

  it('sets pool access for several locations in one cuMemPoolSetAccess call, and none for an empty list', () => {
    const driver = fake.driver();
    const pool = driver.deviceGetDefaultMemPool(0);
    driver.memPoolSetAccessMany(pool, [
      { location: { type: MemLocationType.Device, id: 1 }, flags: 3 },
      { location: { type: MemLocationType.Device, id: 2 }, flags: 1 },
    ]);
    expect(fake.last()).toMatchObject({
      symbol: 'cuMemPoolSetAccess',
      advice: 3,
      id: 1,
      count: 2,
      extra: 121,
    });
    driver.memPoolSetAccessMany(pool, []);
    const accessCalls = () => fake.calls().filter((call) => call.symbol === 'cuMemPoolSetAccess');
    expect(accessCalls()).toHaveLength(1); // no driver call for an empty list
  });
});
