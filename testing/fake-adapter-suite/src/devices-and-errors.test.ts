// Loading, devices and errors over the fake libcuda, the same claims for both adapters: device
// handles come from cuDeviceGet (the fake numbers devices from 100), capabilities follow the
// driver version and the mode, and every failure carries the code, its name, the entry point the
// caller asked for and the driver's description.
import { CudaError, DriverUnavailableError, MemLocationType } from '@cumem/core-types';
import { expect, it } from 'vitest';
import { describeOverFake } from './fake-harness.js';

function thrown(use: () => unknown): unknown {
  try {
    use();
  } catch (error) {
    return error;
  }
  return undefined;
}

describeOverFake('devices, capabilities and errors', (fake) => {
  it('reports the version and capabilities of each mode', () => {
    const auto = fake.driver();
    expect(auto.driverVersion).toBe(13000);
    expect(auto.capabilities).toEqual({
      memoryLocations: true,
      hostNumaLocations: true,
      batchPrefetchDiscard: true,
      batchMemcpy: true,
      hostMemoryPools: true,
      managedMemoryPools: true,
      interprocess: true,
      memoryPoolQueries: true,
      kernelParameterInfo: true,
    });
    expect(fake.driver({ entryPoints: 'legacy' }).capabilities).toEqual({
      memoryLocations: false,
      hostNumaLocations: false,
      batchPrefetchDiscard: false,
      batchMemcpy: false,
      hostMemoryPools: false,
      managedMemoryPools: false,
      interprocess: true,
      memoryPoolQueries: false,
      kernelParameterInfo: false,
    });
    expect(fake.driver({ version: 12080 }).capabilities).toMatchObject({
      memoryLocations: true,
      hostNumaLocations: false,
      batchMemcpy: true,
    });
    expect(fake.driver({ version: 12000 }).capabilities).toMatchObject({
      memoryLocations: false,
      batchMemcpy: false,
    });
  });

  it('maps ordinals through cuDeviceGet (the fake numbers devices from 100)', () => {
    const driver = fake.driver();
    expect(driver.deviceGetCount()).toBe(2);
    expect(driver.deviceGetName(1)).toBe('Fake GPU 1');
    expect([...driver.deviceGetUuid(1)]).toEqual(Array.from({ length: 16 }, (_, i) => i * 16 + 1));
    expect(driver.deviceTotalMem(0)).toBe(80 * 2 ** 30);
    expect(driver.deviceGetAttribute(33, 1)).toBe(2); // PCI bus id: the fake answers ordinal + 1
    expect(driver.deviceGetAttribute(75, 0)).toBe(9); // compute capability major
    expect(driver.deviceGetDefaultMemPool(1)).not.toBe(driver.deviceGetDefaultMemPool(0));
    expect(driver.deviceGetMemPool(0)).toBe(driver.deviceGetDefaultMemPool(0));
    const context = driver.primaryContextRetain(1);
    expect(context).toBe(BigInt(0xc000 + 101));
    driver.contextSetCurrent(context);
    expect(driver.contextGetCurrent()).toBe(context);
    // The contract answers ordinals: cuCtxGetDevice's CUdevice (101) is mapped back.
    expect(driver.contextGetDevice()).toBe(1);
    // Also for a context this driver never asked cuDeviceGet about (made current by another).
    const other = fake.driver();
    other.contextSetCurrent(context);
    expect(other.contextGetDevice()).toBe(1);
    fake.clearLog();
    expect(other.contextGetDevice()).toBe(1);
    expect(fake.calls().map((call) => call.symbol)).not.toContain('cuDeviceGet'); // cached
    driver.primaryContextRelease(1);
    expect(driver.memGetInfo()).toEqual({ free: 3 * 2 ** 30, total: 80 * 2 ** 30 });
    expect(driver.contextGetStreamPriorityRange()).toEqual({ least: 0, greatest: -5 });
    driver.contextSynchronize();
  });

  it('reports a bad device ordinal under the entry point the caller asked for', () => {
    const driver = fake.driver();
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
      const caught = thrown(use);
      expect(CudaError.isInstance(caught), call).toBe(true);
      // CUDA_ERROR_INVALID_DEVICE, from the fake's cuDeviceGet.
      expect(caught, call).toMatchObject({ code: 101, call });
    }
  });

  it('turns a failing call into a CudaError with code, name, entry point and description', () => {
    const driver = fake.driver();
    const caught = thrown(() => driver.deviceGetName(7));
    expect(CudaError.isInstance(caught)).toBe(true);
    expect(caught).toMatchObject({
      code: 101,
      codeName: 'CUDA_ERROR_INVALID_DEVICE',
      call: 'cuDeviceGetName',
      description: 'fake description',
    });
    expect(thrown(() => driver.memAlloc(0))).toMatchObject({
      code: 1,
      codeName: 'CUDA_ERROR_INVALID_VALUE',
      call: 'cuMemAlloc',
      description: 'invalid argument',
      message: 'cuMemAlloc failed: CUDA_ERROR_INVALID_VALUE (1): invalid argument',
    });
    driver.contextSetCurrent(0n);
    expect(() => driver.contextGetDevice()).toThrow(
      /cuCtxGetDevice failed: CUDA_ERROR_INVALID_CONTEXT \(201\)/,
    );
    const pool = driver.deviceGetDefaultMemPool(0);
    expect(() => driver.memPoolSetAttribute(pool, 99, 1)).toThrow(/cuMemPoolSetAttribute failed/);
  });

  it('refuses malformed createDriver options with the same TypeError, before loading anything', () => {
    const refused: [unknown, RegExp][] = [
      [null, /options must be an object or undefined, got null/],
      [5, /options must be an object or undefined/],
      [[], /options must be an object or undefined/],
      [{ entryPoints: 'newest' }, /options\.entryPoints must be 'auto' or 'legacy', got the string "newest"/],
      [{ libraryPath: 5 }, /options\.libraryPath must be a non-empty string/],
      [{ libraryPath: '' }, /options\.libraryPath must be a non-empty string/],
    ];
    for (const [options, message] of refused) {
      expect(() => fake.createDriver(options), String(options)).toThrow(TypeError);
      expect(() => fake.createDriver(options)).toThrow(message);
    }
    expect(fake.calls()).toEqual([]);
    // Well-formed options are taken as given: the library named, in the mode named.
    const legacy = fake.createDriver({ libraryPath: fake.library(), entryPoints: 'legacy' });
    expect(legacy.capabilities.batchMemcpy).toBe(false);
  });

  it('maps cuInit failures and old drivers to DriverUnavailableError reasons', () => {
    const reasons: Record<string, string> = {
      '100': 'no-device',
      '34': 'library-missing',
      '999': 'init-failed',
    };
    for (const [code, reason] of Object.entries(reasons)) {
      process.env.FAKE_CUDA_INIT_RESULT = code;
      for (let attempt = 0; attempt < 2; attempt++) {
        const error = thrown(() => fake.driver().deviceGetCount()) as DriverUnavailableError | undefined;
        expect(DriverUnavailableError.isInstance(error), code).toBe(true);
        expect(error?.reason).toBe(reason);
      }
    }
    delete process.env.FAKE_CUDA_INIT_RESULT;
    expect(() => fake.driver({ version: 11080 }).capabilities).toThrow(/CUDA 11\.8.*12\.0 or newer/);
    const cuda122 = fake.driver({ version: 12020 });
    expect(cuda122.capabilities).toMatchObject({
      memoryLocations: true,
      hostNumaLocations: false,
      batchPrefetchDiscard: false,
    });
    const managed = cuda122.memAllocManaged(64, 1);
    expect(() => cuda122.memAdvise(managed, 1, 1, { type: MemLocationType.HostNuma, id: 0 })).toThrow(
      /CUDA 13\.0.*driver is 12\.2/,
    );
    cuda122.memFree(managed);
  });
});
