// Adapter-specific behaviour that needs no GPU: import, load failures, JS memory helpers and
// the loader's message when the addon is not built.
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DRIVER_CONTRACT_VERSION, DriverUnavailableError, MemLocationType } from '@cumem/core-types';
import { offlineDriverCases } from '@cumem/testing/vitest';
import { afterAll, describe, expect, it } from 'vitest';
import { createDriver } from './index.js';
import { ADDON_FILE, defaultAddon, loadAddon } from './load-addon.js';
import { createDriverFrom } from './napi-driver.js';

const built = defaultAddon();
const itBuilt = built.addon ? it : it.skip;
const missingLibrary = '/nonexistent/cumem-test/libcuda.so.1';

describe('@cumem/driver-napi without a GPU', () => {
  it('imports without throwing and exports createDriver and nativeAddonInfo only', async () => {
    const module = await import('./index.js');
    expect(Object.keys(module).sort()).toEqual(['createDriver', 'nativeAddonInfo']);
  });

  it('creates a driver without loading anything, and names itself', () => {
    const driver = createDriver({ libraryPath: missingLibrary });
    expect(driver.name).toBe('napi');
    expect(driver.contractVersion).toBe(DRIVER_CONTRACT_VERSION);
  });

  it('refuses malformed options with TypeError', () => {
    expect(() => createDriver({ entryPoints: 'newest' as never })).toThrow(TypeError);
    expect(() => createDriver({ libraryPath: 7 as never })).toThrow(TypeError);
    expect(() => createDriver('legacy' as never)).toThrow(TypeError);
  });

  itBuilt('throws DriverUnavailableError(library-missing) on every call, with the fixes', () => {
    const driver = createDriver({ libraryPath: missingLibrary });
    for (const call of [
      () => driver.deviceGetCount(),
      () => driver.contextGetDevice(),
      () => driver.driverVersion,
    ]) {
      let caught: unknown;
      try {
        call();
      } catch (error) {
        caught = error;
      }
      expect(DriverUnavailableError.isInstance(caught)).toBe(true);
      const error = caught as DriverUnavailableError;
      expect(error.reason).toBe('library-missing');
      expect(error.message).toContain(missingLibrary);
      expect(error.message).toContain('Possible solutions');
      expect(error.message).toContain('libraryPath');
    }
  });

  itBuilt('rejects (does not throw) the async waits when the driver is unavailable', async () => {
    const driver = createDriver({ libraryPath: missingLibrary });
    const pending = driver.streamSynchronizeAsync(0n);
    expect(pending).toBeInstanceOf(Promise);
    await expect(pending).rejects.toMatchObject({
      name: 'DriverUnavailableError',
      reason: 'library-missing',
    });
    await expect(driver.eventSynchronizeAsync(1n)).rejects.toMatchObject({ reason: 'library-missing' });
  });

  itBuilt('checks NotSupported cases only after loading: an unavailable driver says so first', () => {
    const driver = createDriver({ libraryPath: missingLibrary, entryPoints: 'legacy' });
    expect(() => driver.memAdvise(0n, 8, 1, { type: MemLocationType.HostNuma, id: 0 })).toThrow(
      DriverUnavailableError,
    );
  });

  itBuilt('addressOf and hostView round-trip JS memory without copying', () => {
    const driver = createDriver({ libraryPath: missingLibrary });
    const data = new Float64Array([1.5, -2, 3.25, 4]);
    const address = driver.addressOf(data);
    expect(typeof address).toBe('bigint');
    expect(address).not.toBe(0n);
    expect(driver.addressOf(data.buffer)).toBe(address);
    expect(driver.addressOf(data.subarray(1))).toBe(address + 8n);
    expect(driver.addressOf(new DataView(data.buffer, 16))).toBe(address + 16n);

    const view = driver.hostView(address, data.byteLength);
    expect(view).toBeInstanceOf(Uint8Array);
    expect(view.byteLength).toBe(32);
    expect(driver.addressOf(view)).toBe(address);
    // Writes through the view land in the original memory, and the other way round.
    new Float64Array(view.buffer, view.byteOffset, 4)[2] = 42;
    expect(data[2]).toBe(42);
    data[0] = 7;
    expect(new Float64Array(view.buffer, view.byteOffset, 4)[0]).toBe(7);
    // A second view of the same memory is allowed.
    expect(driver.hostView(address + 8n, 8).byteLength).toBe(8);
  });

  itBuilt('detachView detaches a hostView buffer only: every view over it reads as length 0', () => {
    const driver = createDriver({ libraryPath: missingLibrary });
    const data = new Uint8Array(32).fill(4);
    const view = driver.hostView(driver.addressOf(data), 32);
    const other = new Uint32Array(view.buffer, 8, 2);
    expect(driver.detachView(view.buffer as ArrayBuffer)).toBe(true);
    expect(view.byteLength).toBe(0);
    expect(other.length).toBe(0);
    // The memory itself is untouched and still readable through its own buffer.
    expect(data.byteLength).toBe(32);
    expect(data[31]).toBe(4);
    expect(() => driver.detachView(view as never)).toThrow(TypeError);
  });

  itBuilt('refuses what is not memory or not an address', () => {
    const driver = createDriver({ libraryPath: missingLibrary });
    expect(() => driver.addressOf(42 as never)).toThrow(TypeError);
    expect(() => driver.hostView(-1n, 4)).toThrow(RangeError);
    expect(() => driver.hostView('1' as never, 4)).toThrow(TypeError);
    expect(() => driver.hostView(0n, 4)).toThrow(RangeError);
    expect(driver.hostView(0n, 0).byteLength).toBe(0);
  });
});

describe('the addon loader', () => {
  const empty = mkdtempSync(join(tmpdir(), 'cumem-napi-empty-'));
  afterAll(() => rmSync(empty, { recursive: true, force: true }));

  it('reports a missing addon with the rebuild command and the FFI alternative', () => {
    const result = loadAddon({ packageRoot: empty });
    expect(result.addon).toBeUndefined();
    expect(result.error?.reason).toBe('no-adapter');
    expect(result.error?.message).toContain('npm rebuild @cumem/driver-napi');
    expect(result.error?.message).not.toContain('pnpm --filter');
    expect(result.error?.message).toContain('@cumem/driver-ffi');
    expect(result.error?.message).toContain(join(empty, 'build', 'Release', 'cumem_napi.node'));
  });

  it('still gives a Driver whose every call throws that error', async () => {
    const driver = createDriverFrom(loadAddon({ packageRoot: empty }));
    expect(driver.name).toBe('napi');
    for (const call of [
      () => driver.deviceGetCount(),
      () => driver.capabilities,
      () => driver.addressOf(new Uint8Array(1)),
    ]) {
      expect(call).toThrow(/Possible solutions/);
      expect(call).toThrow(DriverUnavailableError);
    }
    await expect(driver.streamSynchronizeAsync(0n)).rejects.toMatchObject({ reason: 'no-adapter' });
  });

  itBuilt('finds the addon in prebuilds/ (scripts/prebuild.cjs) or build/Release', () => {
    expect(built.addon?.cudaHeaderVersion).toBeGreaterThanOrEqual(12000);
    expect(built.addon ? built.path : '').toMatch(
      /(build\/Release\/cumem_napi|prebuilds\/linux-x64\/@cumem\+driver-napi(\.napi)?\.glibc)\.node$/,
    );
  });

  itBuilt('nativeAddonInfo says which file loaded and whether it is prebuilt', async () => {
    const { nativeAddonInfo } = await import('./index.js');
    const info = nativeAddonInfo();
    expect(info).toEqual({
      loaded: true,
      path: built.addon ? built.path : '',
      prebuilt: /prebuilds/.test(info.loaded ? info.path : ''),
    });
  });

  itBuilt('prefers build/Release (built on purpose, newer) to prebuilds/, as node-gyp-build does', () => {
    const root = mkdtempSync(join(tmpdir(), 'cumem-napi-both-'));
    try {
      const directory = join(root, 'prebuilds', `${process.platform}-${process.arch}`);
      mkdirSync(directory, { recursive: true });
      mkdirSync(join(root, 'build', 'Release'), { recursive: true });
      copyFileSync(built.addon ? built.path : '', join(directory, '@cumem+driver-napi.glibc.node'));
      copyFileSync(built.addon ? built.path : '', join(root, 'build', 'Release', ADDON_FILE));
      const result = loadAddon({ packageRoot: root });
      expect(result.error).toBeUndefined();
      // PREBUILDS_ONLY=1 (node-gyp-build's switch: the GPU run's prebuilt pass) skips build/.
      expect(result.addon ? result.path : '').toBe(
        process.env.PREBUILDS_ONLY
          ? join(directory, '@cumem+driver-napi.glibc.node')
          : join(root, 'build', 'Release', ADDON_FILE),
      );
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  itBuilt('loads a prebuilt binary named by prebuildify when there is no build/ at all', () => {
    const root = mkdtempSync(join(tmpdir(), 'cumem-napi-prebuilt-'));
    try {
      const directory = join(root, 'prebuilds', `${process.platform}-${process.arch}`);
      mkdirSync(directory, { recursive: true });
      copyFileSync(built.addon ? built.path : '', join(directory, '@cumem+driver-napi.glibc.node'));
      // A musl-tagged file is passed over on glibc (node-gyp-build's rules).
      writeFileSync(join(directory, '@cumem+driver-napi.musl.node'), 'not a binary');
      const result = loadAddon({ packageRoot: root });
      expect(result.error).toBeUndefined();
      expect(result.addon ? result.path : '').toBe(join(directory, '@cumem+driver-napi.glibc.node'));
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});

offlineDriverCases('napi', createDriver, built.addon ? undefined : 'the addon is not built');
