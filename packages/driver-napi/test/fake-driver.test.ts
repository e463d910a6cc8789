// The addon against a fake libcuda (test/fixtures/fake-libcuda.c, compiled here): the ABI
// version each entry point is resolved with, capabilities per driver version, the legacy
// forms, and CudaError fields. Skipped where there is no compiler or no CUDA headers.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CudaError, type Driver, MemAdvise, MemLocationType, NotSupportedError } from '@cumem/core-types';
import { deriveCapabilities, unsupported } from '@cumem/driver-kit';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { createDriver } from '../src/index.js';
import { defaultAddon } from '../src/load-addon.js';

const directory = mkdtempSync(join(tmpdir(), 'cumem-fake-cuda-'));
const library = join(directory, 'libcuda-fake.so');
const log = join(directory, 'requests.log');
const cudaInclude = join(process.env.CUDA_PATH ?? process.env.CUDA_HOME ?? '/usr/local/cuda', 'include');

function compile(): string | undefined {
  if (!defaultAddon().addon) return 'the addon is not built';
  try {
    const source = fileURLToPath(new URL('./fixtures/fake-libcuda.c', import.meta.url));
    execFileSync('cc', ['-shared', '-fPIC', '-O1', `-I${cudaInclude}`, source, '-o', library], {
      stdio: 'pipe',
    });
    return undefined;
  } catch (error) {
    return `cannot compile the fake driver: ${(error as Error).message.split('\n')[0]}`;
  }
}

const skipReason = compile();
const describeFake = skipReason === undefined ? describe : describe.skip;

/** A driver over a fresh copy of the fake (dlopen shares one handle per path). */
function fakeDriver(version: number, entryPoints: 'auto' | 'legacy' = 'auto'): Driver {
  process.env.FAKE_CUDA_VERSION = String(version);
  process.env.FAKE_CUDA_LOG = log;
  writeFileSync(log, '');
  const driver = createDriver({ libraryPath: library, entryPoints });
  void driver.driverVersion; // loads now, with this version
  return driver;
}

function requested(): Map<string, number[]> {
  const map = new Map<string, number[]>();
  for (const line of readFileSync(log, 'utf8').split('\n')) {
    const [name, version] = line.split(' ');
    if (!name || name === 'call' || version === undefined) continue;
    map.set(name, [...(map.get(name) ?? []), Number(version)]);
  }
  return map;
}

function calls(): string[] {
  return readFileSync(log, 'utf8')
    .split('\n')
    .filter((line) => line.startsWith('call '))
    .map((line) => line.slice(5));
}

describeFake(`the addon over a fake libcuda ${skipReason ?? ''}`, () => {
  afterAll(() => rmSync(directory, { recursive: true, force: true }));
  beforeEach(() => {
    delete process.env.FAKE_CUDA_MISSING;
  });

  it('resolves each entry point at the ABI its typedef has (cuCtxGetDevice at 2000 on a CUDA 13 driver)', () => {
    fakeDriver(13000);
    const abi = requested();
    expect(abi.get('cuCtxGetDevice')).toEqual([2000]);
    expect(abi.get('cuCtxSynchronize')).toEqual([2000]);
    expect(abi.get('cuMemcpyDtoH')).toEqual([3020]);
    expect(abi.get('cuStreamDestroy')).toEqual([4000]);
    expect(abi.get('cuMemcpyBatchAsync')).toEqual([13000]);
    expect(abi.get('cuMemPrefetchBatchAsync')).toEqual([13000]);
    expect(abi.get('cuEventElapsedTime')).toEqual([12080]);
    expect(abi.get('cuMemAdvise')).toEqual([8000, 12020]);
  });

  it('derives capabilities from the driver version', () => {
    expect(fakeDriver(13000).capabilities).toEqual({
      memoryLocations: true,
      hostNumaLocations: true,
      batchPrefetchDiscard: true,
      batchMemcpy: true,
      hostMemoryPools: true,
      managedMemoryPools: true,
      interprocess: true,
    });
    const cuda128 = fakeDriver(12080);
    expect(cuda128.capabilities).toMatchObject({
      memoryLocations: true,
      hostNumaLocations: false,
      batchMemcpy: true,
    });
    expect(requested().get('cuMemcpyBatchAsync')).toEqual([12080]);
    expect(requested().has('cuMemPrefetchBatchAsync')).toBe(false);
    const cuda120 = fakeDriver(12000);
    expect(cuda120.capabilities).toMatchObject({ memoryLocations: false, batchMemcpy: false });
    expect(requested().get('cuEventElapsedTime')).toEqual([2000]);
  });

  it("'legacy' asks for nothing newer than CUDA 12.0 and advises by ordinal", () => {
    const driver = fakeDriver(13000, 'legacy');
    expect(driver.capabilities).toMatchObject({
      memoryLocations: false,
      batchMemcpy: false,
      hostMemoryPools: false,
    });
    const newest = Math.max(...[...requested().values()].flat());
    expect(newest).toBeLessThanOrEqual(12000);
    driver.memAdvise(4096n, 64, MemAdvise.SetPreferredLocation, { type: MemLocationType.Host, id: 0 });
    driver.memAdvise(4096n, 64, MemAdvise.SetAccessedBy, { type: MemLocationType.Device, id: 1 });
    expect(calls()).toEqual(['cuMemAdvise@8000 -1', 'cuMemAdvise@8000 1']);
    expect(() => driver.memAdvise(4096n, 64, 3, { type: MemLocationType.HostNuma, id: 0 })).toThrow(
      NotSupportedError,
    );
    expect(() =>
      driver.memcpyBatchAsync(new BigUint64Array(1), new BigUint64Array(1), new BigUint64Array(1), 1, 0n),
    ).toThrow(NotSupportedError);
  });

  it("'legacy' emulates a missing ordinal form with the CUmemLocation one, Device and Host only", () => {
    process.env.FAKE_CUDA_MISSING = 'cuMemAdvise@8000,cuMemPrefetchAsync@8000,';
    const driver = fakeDriver(13000, 'legacy');
    expect(driver.capabilities.memoryLocations).toBe(false);
    driver.memAdvise(4096n, 64, MemAdvise.SetPreferredLocation, { type: MemLocationType.Host, id: 9 });
    driver.memAdvise(4096n, 64, MemAdvise.SetAccessedBy, { type: MemLocationType.Device, id: 1 });
    expect(calls()).toEqual(['cuMemAdvise@12020 200', 'cuMemAdvise@12020 101']);
    expect(() => driver.memAdvise(4096n, 64, 3, { type: MemLocationType.HostNumaCurrent, id: 0 })).toThrow(
      NotSupportedError,
    );
  });

  it('fails the load, naming the entry points, when neither form of cuMemAdvise exists', () => {
    process.env.FAKE_CUDA_MISSING = 'cuMemAdvise@8000,cuMemAdvise@12020,';
    expect(() => fakeDriver(13000).deviceGetCount()).toThrow(
      expect.objectContaining({
        reason: 'entry-point-missing',
        message: expect.stringContaining('cuMemAdvise'),
      }),
    );
  });

  it('resolves the peer entry points, packs pool access descriptors, and accepts ALREADY_ENABLED', () => {
    const driver = fakeDriver(13000);
    const abi = requested();
    expect(abi.get('cuDeviceCanAccessPeer')).toEqual([4000]);
    expect(abi.get('cuDeviceGetP2PAttribute')).toEqual([8000]);
    expect(abi.get('cuMemcpyPeerAsync')).toEqual([4000]);
    expect(() => driver.contextEnablePeerAccess(0xc001n)).not.toThrow();
    driver.memPoolSetAccessMany(1n, [
      { location: { type: MemLocationType.Device, id: 0 }, flags: 3 },
      { location: { type: MemLocationType.Device, id: 1 }, flags: 1 },
    ]);
    driver.memPoolSetAccessMany(1n, []);
    driver.memPoolSetAccess(1n, { type: MemLocationType.Device, id: 1 }, 3);
    expect(calls()).toEqual(['cuMemPoolSetAccess 2111', 'cuMemPoolSetAccess 1113']);
    expect(() => driver.deviceCanAccessPeer(0, 5)).toThrow(/cuDeviceCanAccessPeer/);
  });

  it('passes CUmemLocation by value in the auto mode', () => {
    const driver = fakeDriver(13000);
    driver.memAdvise(4096n, 64, MemAdvise.SetPreferredLocation, { type: MemLocationType.HostNuma, id: 2 });
    driver.memAdvise(4096n, 64, MemAdvise.SetPreferredLocation, { type: MemLocationType.Device, id: 1 });
    expect(calls()).toEqual(['cuMemAdvise@12020 302', 'cuMemAdvise@12020 101']);
  });

  it('turns a failed call into a CudaError with code, name, entry point and description', () => {
    const driver = fakeDriver(13000);
    let caught: unknown;
    try {
      driver.memAlloc(0);
    } catch (error) {
      caught = error;
    }
    expect(CudaError.isInstance(caught)).toBe(true);
    expect(caught).toMatchObject({
      code: 1,
      codeName: 'CUDA_ERROR_INVALID_VALUE',
      call: 'cuMemAlloc',
      description: 'invalid argument',
      message: 'cuMemAlloc failed: CUDA_ERROR_INVALID_VALUE (1): invalid argument',
    });
  });

  it('reports a bad device ordinal under the entry point the caller asked for, as the FFI adapter does', () => {
    const driver = fakeDriver(13000);
    const cases: [string, () => unknown][] = [
      ['cuDeviceGetName', () => driver.deviceGetName(5)],
      ['cuDeviceGetUuid', () => driver.deviceGetUuid(5)],
      ['cuDeviceTotalMem', () => driver.deviceTotalMem(-1)],
      ['cuDeviceGetAttribute', () => driver.deviceGetAttribute(1, 5)],
      ['cuDeviceGetDefaultMemPool', () => driver.deviceGetDefaultMemPool(5)],
      ['cuDeviceGetMemPool', () => driver.deviceGetMemPool(5)],
      ['cuDevicePrimaryCtxRetain', () => driver.primaryContextRetain(5)],
      ['cuDevicePrimaryCtxRelease', () => driver.primaryContextRelease(5)],
    ];
    for (const [call, use] of cases) {
      let caught: unknown;
      try {
        use();
      } catch (error) {
        caught = error;
      }
      expect(CudaError.isInstance(caught), call).toBe(true);
      // CUDA_ERROR_INVALID_DEVICE, from the fake's cuDeviceGet.
      expect(caught, call).toMatchObject({ code: 101, call });
    }
    expect(driver.deviceGetAttribute(1, 1)).toBe(0);
  });

  it('returns each pool allocation as its own bigint, and fails without a stale result', () => {
    const driver = fakeDriver(13000);
    const pool = 0x55d0c0a1b2c0n;
    const stream = 0x55d0c0a1f7e0n;
    const first = driver.memAllocFromPoolAsync(4096, pool, stream);
    const second = driver.memAllocFromPoolAsync(4096, pool, stream);
    expect(typeof first).toBe('bigint');
    // The fake hands out consecutive 48-bit addresses, 4 KiB apart.
    expect(first).toBeGreaterThanOrEqual(0x7f4a20000000n);
    expect(second - first).toBe(4096n);
    driver.memFreeAsync(first, stream);
    driver.memFreeAsync(second, stream);
    expect(() => driver.memAllocFromPoolAsync(0, pool, stream)).toThrow(
      expect.objectContaining({ call: 'cuMemAllocFromPoolAsync', code: 1 }),
    );
    expect(() => driver.memAllocFromPoolAsync(-1, pool, stream)).toThrow(RangeError);
    expect(() => driver.memAllocFromPoolAsync(4096, 'pool' as never, stream)).toThrow(TypeError);
    expect(() => driver.memFreeAsync(-1n, stream)).toThrow(RangeError);
    // Number handles are accepted as well as bigints.
    expect(driver.memAllocFromPoolAsync(512, 4096 as never, 0 as never)).toBe(second + 4096n);
  });

  it('keeps the hot members native, and the accessors lazy on a frozen Driver', () => {
    const driver = fakeDriver(13000);
    for (const member of [driver.contextGetDevice, driver.memFreeAsync]) {
      expect(Function.prototype.toString.call(member)).toContain('[native code]');
    }
    expect(Object.isFrozen(driver)).toBe(true);
    expect(Object.getOwnPropertyDescriptor(driver, 'driverVersion')?.get).toBeTypeOf('function');
    expect(driver.driverVersion).toBe(13000);
  });

  it('copies through the out-parameters and views in place', () => {
    const driver = fakeDriver(13000);
    expect(driver.contextGetDevice()).toBe(3);
    const pointer = driver.memAlloc(16);
    driver.memcpyHtoD(pointer, new Float64Array([2.5, -1]));
    const back = new Float64Array(2);
    driver.memcpyDtoH(back, pointer);
    expect([...back]).toEqual([2.5, -1]);
    expect([...driver.hostView(pointer, 16)]).toEqual([...new Uint8Array(back.buffer)]);
    driver.memFree(pointer);
  });

  it('asks for ACCESSED_BY with one slot per device plus the CPU, and drops CU_DEVICE_INVALID', () => {
    const driver = fakeDriver(13000);
    expect(driver.memRangeGetAccessedBy(4096n, 64)).toEqual([1, -1, 0]);
    expect(calls()).toEqual(['cuMemRangeGetAttribute 12']);
  });

  it('reports cuInit finding no device as DriverUnavailableError(no-device)', () => {
    process.env.FAKE_CUDA_NO_DEVICE = '1';
    try {
      const copy = join(directory, 'libcuda-nodevice.so');
      writeFileSync(copy, readFileSync(library));
      const driver = createDriver({ libraryPath: copy });
      expect(() => driver.deviceGetCount()).toThrow(expect.objectContaining({ reason: 'no-device' }));
    } finally {
      delete process.env.FAKE_CUDA_NO_DEVICE;
    }
  });

  // The addon resolves; driver-kit decides. Its native refusals (hot paths) spell driver-kit's text.
  it("capabilities are driver-kit's derivation; native refusals read word for word as driver-kit's", () => {
    for (const [version, mode] of [
      [13000, 'auto'],
      [12080, 'auto'],
      [12020, 'auto'],
      [13000, 'legacy'],
    ] as const) {
      const driver = fakeDriver(version, mode);
      const derived = deriveCapabilities({
        resolved: [
          'cuMemAdvise_v2',
          'cuMemPrefetchAsync_v2',
          'cuMemcpyBatchAsync',
          'cuMemcpyBatchAsync_v2',
        ].concat(['cuMemPrefetchBatchAsync', 'cuMemDiscardBatchAsync', 'cuMemDiscardAndPrefetchBatchAsync']),
        driverVersion: version,
        mode,
        interprocess: process.platform === 'linux',
      });
      expect([version, mode, driver.capabilities]).toEqual([version, mode, derived]);
    }
    const legacy = fakeDriver(13000, 'legacy');
    const facts = { driverVersion: 13000, mode: 'legacy' as const };
    expect(() => legacy.memAdvise(4096n, 64, 3, { type: MemLocationType.HostNuma, id: 0 })).toThrow(
      unsupported(facts, 'cuMemAdvise: a host NUMA location (HostNuma, HostNumaCurrent)', 'hostNumaLocations')
        .message,
    );
    expect(() =>
      legacy.memcpyBatchAsync(new BigUint64Array(1), new BigUint64Array(1), new BigUint64Array(1), 1, 0n),
    ).toThrow(unsupported(facts, 'cuMemcpyBatchAsync', 'batchMemcpy').message);
    expect(() =>
      legacy.memPoolCreate({
        allocationType: 2,
        location: { type: MemLocationType.Device, id: 0 },
        handleTypes: 0,
        maxSize: 0,
      }),
    ).toThrow(unsupported(facts, 'cuMemPoolCreate: a pool of managed memory', 'managedMemoryPools').message);
  });
});
