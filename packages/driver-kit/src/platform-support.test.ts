import { DriverUnavailableError } from '@cumem/core-types';
import { describe, expect, it } from 'vitest';
import { unsupportedPlatformError } from './platform-support.js';

describe('unsupportedPlatformError', () => {
  it('is undefined on Linux', () => {
    expect(unsupportedPlatformError('napi', 'linux')).toBeUndefined();
  });

  it.each(['darwin', 'win32', 'freebsd'])('names %s and the reference driver elsewhere', (platform) => {
    const error = unsupportedPlatformError('ffi', platform);
    expect(DriverUnavailableError.isInstance(error)).toBe(true);
    expect(error?.reason).toBe('library-missing');
    expect(error?.message).toContain(`this is ${platform}-${process.arch}`);
    expect(error?.message).toContain('The ffi adapter runs on Linux only');
    expect(error?.message).toContain('@cumem/testing');
  });
});
