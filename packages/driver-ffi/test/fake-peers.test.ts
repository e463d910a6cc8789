// The peer entry points of the ffi adapter against test/fake-libcuda (two fake devices): device
// handles reach C through cuDeviceGet, CUmemAccessDesc arrays are packed as cuda.h lays them out,
// and an already-enabled peer access counts as success.
import { CudaError, type Driver, MemLocationType, P2PAttribute } from '@cumem/core-types';
import { beforeAll, describe, expect, it } from 'vitest';
import { createDriver } from '../src/index.js';
import { loadKoffi } from '../src/koffi-module.js';
import { buildFakeLibcuda, fakeUnavailable } from './fake-libcuda.js';

const suite = fakeUnavailable ? describe.skip : describe;
const title = fakeUnavailable
  ? `ffi adapter peers on a fake libcuda — skipped: ${fakeUnavailable}`
  : 'ffi adapter peers on a fake libcuda';

/** FAKE_CALL_POOL_ACCESS in fake-state.h. */
const poolAccessCall = 14;

suite(title, () => {
  let driver: Driver;
  let last: () => BigInt64Array;

  beforeAll(() => {
    const path = buildFakeLibcuda();
    driver = createDriver({ libraryPath: path });
    const fn = loadKoffi().load(path).func('fake_last', 'void', ['void *']);
    last = () => {
      const record = new BigInt64Array(9);
      fn(record);
      return record;
    };
  });

  it('asks cuDeviceCanAccessPeer and cuDeviceGetP2PAttribute about both directions', () => {
    expect(driver.deviceCanAccessPeer(0, 1)).toBe(true);
    expect(driver.deviceCanAccessPeer(1, 1)).toBe(false);
    expect(driver.deviceGetP2PAttribute(P2PAttribute.AccessSupported, 0, 1)).toBe(201);
    expect(driver.deviceGetP2PAttribute(P2PAttribute.PerformanceRank, 1, 0)).toBe(110);
    expect(() => driver.deviceCanAccessPeer(0, 7)).toThrow(CudaError);
  });

  it('enables context peer access once and treats ALREADY_ENABLED as success', () => {
    driver.contextSetCurrent(driver.primaryContextRetain(0));
    const peer = driver.primaryContextRetain(1);
    driver.contextEnablePeerAccess(peer);
    expect(() => driver.contextEnablePeerAccess(peer)).not.toThrow();
    expect(() => driver.contextEnablePeerAccess(driver.contextGetCurrent())).toThrow(/cuCtxEnablePeerAccess/);
  });

  it('copies with cuMemcpyPeerAsync between two contexts', () => {
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

  it('sets pool access for several locations in one cuMemPoolSetAccess call', () => {
    const pool = driver.deviceGetDefaultMemPool(0);
    driver.memPoolSetAccessMany(pool, [
      { location: { type: MemLocationType.Device, id: 1 }, flags: 3 },
      { location: { type: MemLocationType.Device, id: 2 }, flags: 1 },
    ]);
    const record = last();
    expect(Number(record[0])).toBe(poolAccessCall);
    expect(Number(record[3])).toBe(3); // first descriptor's flags
    expect(Number(record[5])).toBe(1); // first descriptor's id
    expect(Number(record[7])).toBe(2); // count
    expect(Number(record[8])).toBe(121); // last descriptor: type 1, id 2, flags 1
    driver.memPoolSetAccessMany(pool, []);
    expect(Number(last()[7])).toBe(2); // no driver call for an empty list
  });
});
