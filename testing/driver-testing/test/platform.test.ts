// Under CUMEM_FAKE_PLATFORM (package script test:platforms) the suite must see the faked
// platform, and the reference driver must work there while the CUDA adapters refuse it.

import { DriverUnavailableError } from '@cumem/core-types';
import { unsupportedPlatformError } from '@cumem/driver-kit';
import { describe, expect, it } from 'vitest';
import { createReferenceDriver } from '../src/index.js';

describe('the platform the suite runs as', () => {
  const platform = process.env.CUMEM_FAKE_PLATFORM ?? process.platform;

  it(`is ${platform}`, () => {
    expect(process.platform).toBe(platform);
  });

  it('runs the reference driver on any platform', () => {
    const driver = createReferenceDriver();
    expect(driver.deviceGetCount()).toBe(1);
  });

  it('has the CUDA adapters refuse every platform but Linux, naming it', () => {
    const error = unsupportedPlatformError('napi');
    if (platform === 'linux') expect(error).toBeUndefined();
    else {
      expect(DriverUnavailableError.isInstance(error)).toBe(true);
      expect(error?.message).toContain(`this is ${platform}-`);
    }
  });
});
