// What only the addon does over the fake libcuda (testing/fake-libcuda; the claims both adapters
// make are in testing/fake-adapter-suite): the ABI version cuGetProcAddress is asked for each
// entry point, the load failing on missing entry points, the native hot members, and
// capabilities and refusals that are driver-kit's word for word. Skipped where there is no
// compiler, no CUDA headers or no addon.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Driver, MemLocationType } from '@cumem/core-types';
import { deriveCapabilities, unsupported } from '@cumem/driver-kit';
import { buildFakeLibcuda, type FakeLibcudaVariant, fakeUnavailable } from '@cumem/fake-libcuda';
import { fakeRequests } from '@cumem/fake-libcuda/log';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDriver } from '../src/index.js';
import { defaultAddon } from '../src/load-addon.js';

const directory = mkdtempSync(join(tmpdir(), 'cumem-fake-cuda-'));
const log = join(directory, 'requests.log');
const skipReason = defaultAddon().addon ? fakeUnavailable() : 'the addon is not built';
const describeFake = skipReason === undefined ? describe : describe.skip;

/** A driver over the fake (variant), loaded now with this driver version; the log starts empty. */
function fakeDriver(
  version: number,
  entryPoints: 'auto' | 'legacy' = 'auto',
  variant: FakeLibcudaVariant = 'default',
): Driver {
  process.env.FAKE_CUDA_VERSION = String(version);
  process.env.FAKE_CUDA_LOG = log;
  writeFileSync(log, '');
  const driver = createDriver({ libraryPath: buildFakeLibcuda({ variant }), entryPoints });
  void driver.driverVersion; // loads now, with this version
  return driver;
}

const requested = (): Map<string, number[]> => fakeRequests(log);
/** The ABI versions the addon asked the fake for, per entry point named in `expected`. */
const expectRequested = (expected: Record<string, number[]>): void => {
  const abi = requested();
  for (const [name, versions] of Object.entries(expected)) expect(abi.get(name), name).toEqual(versions);
};

// Compiling the fake (a C library) and loading it take seconds on a busy two-core machine
// (issue 21: a case timed out at vitest's default 5 s under turbo's parallel load): the
// compiles happen once, in beforeAll, and every case gets a generous limit.
const compileTimeout = 180_000;
const caseTimeout = 60_000;

describeFake(
  `the addon over a fake libcuda${skipReason ? ` — skipped: ${skipReason}` : ''}`,
  { timeout: caseTimeout },
  () => {
    beforeAll(() => {
      for (const variant of ['default', 'without-advise'] as const) buildFakeLibcuda({ variant });
    }, compileTimeout);
    afterAll(() => {
      delete process.env.FAKE_CUDA_LOG;
      delete process.env.FAKE_CUDA_VERSION;
      rmSync(directory, { recursive: true, force: true });
    });

    it('resolves each entry point at the ABI its typedef has (cuCtxGetDevice at 2000 on a CUDA 13 driver)', () => {
      fakeDriver(13000);
      expectRequested({
        cuCtxGetDevice: [2000],
        cuCtxSynchronize: [2000],
        cuMemcpyDtoH: [3020],
        cuStreamDestroy: [4000],
        cuMemcpyBatchAsync: [13000],
        cuMemPrefetchBatchAsync: [13000],
        cuEventElapsedTime: [12080],
        cuMemAdvise: [8000, 12020],
      });
    });

    it('asks an older driver for the older ABIs only', () => {
      fakeDriver(12080);
      expect(requested().get('cuMemcpyBatchAsync')).toEqual([12080]);
      expect(requested().has('cuMemPrefetchBatchAsync')).toBe(false);
      fakeDriver(12000);
      expect(requested().get('cuEventElapsedTime')).toEqual([2000]);
      fakeDriver(13000, 'legacy');
      expect(Math.max(...[...requested().values()].flat())).toBeLessThanOrEqual(12000);
    });

    it('fails the load, naming the entry points, when neither form of cuMemAdvise exists', () => {
      expect(() => fakeDriver(13000, 'auto', 'without-advise').deviceGetCount()).toThrow(
        expect.objectContaining({
          reason: 'entry-point-missing',
          message: expect.stringContaining('cuMemAdvise'),
        }),
      );
    });

    it('resolves the peer entry points at their ABIs', () => {
      fakeDriver(13000);
      expectRequested({
        cuDeviceCanAccessPeer: [4000],
        cuDeviceGetP2PAttribute: [8000],
        cuMemcpyPeerAsync: [4000],
      });
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
          resolved: ['cuMemAdvise_v2', 'cuMemPrefetchAsync_v2', 'cuMemcpyBatchAsync', 'cuMemcpyBatchAsync_v2']
            .concat([
              'cuMemPrefetchBatchAsync',
              'cuMemDiscardBatchAsync',
              'cuMemDiscardAndPrefetchBatchAsync',
              'cuFuncGetParamInfo',
            ])
            .concat(['cuMemGetMemPool', 'cuMemGetDefaultMemPool']),
          driverVersion: version,
          mode,
          interprocess: process.platform === 'linux',
        });
        expect([version, mode, driver.capabilities]).toEqual([version, mode, derived]);
      }
      const legacy = fakeDriver(13000, 'legacy');
      const facts = { driverVersion: 13000, mode: 'legacy' as const };
      expect(() => legacy.memAdvise(4096n, 64, 3, { type: MemLocationType.HostNuma, id: 0 })).toThrow(
        unsupported(
          facts,
          'cuMemAdvise: a host NUMA location (HostNuma, HostNumaCurrent)',
          'hostNumaLocations',
        ).message,
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
      ).toThrow(
        unsupported(facts, 'cuMemPoolCreate: a pool of managed memory', 'managedMemoryPools').message,
      );
    });
  },
);
