// On macOS / Windows the package installs (no `os` field) and imports; the first driver call
// says the adapter is Linux-only and names the platform, before koffi or libcuda is touched.
import { DriverUnavailableError } from '@cumem/core-types';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createDriver } from './index.js';

describe('the ffi adapter off Linux', () => {
  afterEach(() => vi.restoreAllMocks());

  it.each(['darwin', 'win32'])('on %s, fails with a typed error naming the platform', (platform) => {
    vi.spyOn(process, 'platform', 'get').mockReturnValue(platform as NodeJS.Platform);
    const driver = createDriver();
    expect(() => driver.deviceGetCount()).toThrow(DriverUnavailableError);
    expect(() => driver.deviceGetCount()).toThrow(
      expect.objectContaining({
        reason: 'library-missing',
        message: expect.stringContaining('The ffi adapter runs on Linux only'),
      }),
    );
    expect(() => driver.deviceGetCount()).toThrow(`this is ${platform}-${process.arch}`);
  });
});
