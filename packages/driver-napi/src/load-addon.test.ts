// The loader's platform check and its warning for a prebuilt binary that does not load.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { loadAddon } from './load-addon.js';

/** A package root whose only binary is a damaged prebuilt one, as on a foreign or too-old system. */
function rootWithBrokenPrebuild(): string {
  const root = mkdtempSync(join(tmpdir(), 'cumem-napi-broken-'));
  const directory = join(root, 'prebuilds', `${process.platform}-${process.arch}`);
  mkdirSync(directory, { recursive: true });
  writeFileSync(join(directory, '@cumem+driver-napi.glibc.node'), 'not an ELF file');
  return root;
}

describe('loadAddon', () => {
  afterEach(() => {
    vi.restoreAllMocks();
    vi.unstubAllEnvs();
  });

  it('warns once, naming the cause and the FFI fallback, when a prebuilt binary does not load', () => {
    const root = rootWithBrokenPrebuild();
    const warn = vi.spyOn(process, 'emitWarning').mockImplementation(() => {});
    try {
      const result = loadAddon({ packageRoot: root });
      expect(result.error?.reason).toBe('no-adapter');
      expect(warn).toHaveBeenCalledTimes(1);
      const [message, options] = warn.mock.calls[0] as [string, { code: string }];
      expect(message).toContain('@cumem+driver-napi.glibc.node does not load here');
      expect(message).toMatch(/invalid ELF header|file too short|not an ELF/i);
      expect(message).toContain('@cumem/driver-ffi');
      expect(options.code).toBe('CUMEM_PREBUILD_NOT_LOADED');
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('stays quiet with CUMEM_NO_WARNINGS=1, and for a missing addon', () => {
    const root = rootWithBrokenPrebuild();
    const empty = mkdtempSync(join(tmpdir(), 'cumem-napi-none-'));
    const warn = vi.spyOn(process, 'emitWarning').mockImplementation(() => {});
    try {
      vi.stubEnv('CUMEM_NO_WARNINGS', '1');
      expect(loadAddon({ packageRoot: root }).error?.reason).toBe('no-adapter');
      vi.unstubAllEnvs();
      expect(loadAddon({ packageRoot: empty }).error?.reason).toBe('no-adapter');
      expect(warn).not.toHaveBeenCalled();
    } finally {
      rmSync(root, { recursive: true, force: true });
      rmSync(empty, { recursive: true, force: true });
    }
  });

  it.each(['darwin', 'win32'])('on %s, says the adapter is Linux-only and names the platform', (platform) => {
    vi.spyOn(process, 'platform', 'get').mockReturnValue(platform as NodeJS.Platform);
    const result = loadAddon();
    expect(result.addon).toBeUndefined();
    expect(result.error?.reason).toBe('library-missing');
    expect(result.error?.message).toContain(`The napi adapter runs on Linux only`);
    expect(result.error?.message).toContain(`this is ${platform}-${process.arch}`);
  });
});
