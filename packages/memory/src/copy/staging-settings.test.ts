// configureStaging refuses, when it is called, settings an adapter cannot run: chunks past
// 4 GiB (the FFI staging workers' koffi views abort the process there) and thread counts past
// 64, with the limit in the message. The rule is core-types' checkStagedCopyOptions, which every
// adapter's staged copy applies too.
import { STAGED_COPY_MAX_CHUNK_BYTES, STAGED_COPY_MAX_THREADS } from '@cumem/core-types';
import { afterEach, describe, expect, it } from 'vitest';
import { configureStaging, stagingSettings } from './staging-settings.js';

describe('configureStaging limits', () => {
  const initial = stagingSettings();
  afterEach(() => {
    configureStaging(initial);
  });

  it('refuses chunks past 4 GiB and more than 64 threads, naming the limit, and keeps the settings in force', () => {
    expect(STAGED_COPY_MAX_CHUNK_BYTES).toBe(2 ** 32);
    for (const chunkBytes of [2 ** 32 + 1, 2 ** 40, Number.MAX_SAFE_INTEGER]) {
      expect(() => configureStaging({ chunkBytes })).toThrow(RangeError);
      expect(() => configureStaging({ chunkBytes })).toThrow(/from 1 to 4294967296 \(4 GiB\)/);
    }
    expect(() => configureStaging({ threads: STAGED_COPY_MAX_THREADS + 1 })).toThrow(/from 1 to 64/);
    expect(() => configureStaging({ chunkBytes: 0 })).toThrow(RangeError);
    expect(() => configureStaging({ chunkBytes: '8' as never })).toThrow(TypeError);
    expect(stagingSettings()).toEqual(initial);
  });

  it('accepts the limits themselves', () => {
    expect(configureStaging({ chunkBytes: STAGED_COPY_MAX_CHUNK_BYTES }).chunkBytes).toBe(2 ** 32);
    expect(configureStaging({ threads: STAGED_COPY_MAX_THREADS }).threads).toBe(64);
    expect(configureStaging({ chunkBytes: 1, threads: 1 })).toMatchObject({ chunkBytes: 1, threads: 1 });
  });
});
