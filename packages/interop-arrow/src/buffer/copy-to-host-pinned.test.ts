// CudaBuffer.copyToHost without `buf`: cumem allocates the destination, page-locked from 1 MiB up
// (issue 14: a copy into never-touched pageable memory pays its first-touch page faults).
import { configureStaging } from '@cumem/memory';
import { type DriverCallLog, describeEachDriver } from '@cumem/testing/vitest';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { adapters, countedContext, patternBytes, sameBytes } from '../../test/support.js';
import type { Context } from '../context/context.js';
import { hostBufferOf } from '../host/host-buffer.js';
import { PINNED_OUTPUT_MIN_BYTES } from '../host/host-destination.js';

describeEachDriver(adapters, 'CudaBuffer.copyToHost into memory cumem allocates', (entry) => {
  let context: Context;
  let log: DriverCallLog;

  beforeAll(() => {
    ({ log, context } = countedContext(entry.driver));
    // Large enough to be staged were it pageable: the pinned destination must not be.
    configureStaging({ ...saved, minBytes: 1024 * 1024 });
  });
  const saved = configureStaging();
  afterAll(() => {
    configureStaging(saved);
  });

  it('returns the bytes of new page-locked memory by default from 1 MiB up, copied straight (no staging), byte-exact', () => {
    const size = 3 * 1024 * 1024 + 5; // above the staged-copy threshold for pageable memory
    const data = patternBytes(size, 3);
    using device = context.bufferFromData(data);
    log.reset();
    const pinned = device.copyToHost({ position: 5 });
    expect(pinned.byteLength).toBe(size - 5);
    expect(hostBufferOf(pinned)).toBeDefined();
    expect(sameBytes(pinned, data.subarray(5))).toBe(true);
    expect(log.calls).toContain('memcpyDtoHAsync');
    expect(log.calls).not.toContain('stagedCopyDtoH');
  });

  it("output: 'pageable' returns a plain new array (staged when large); by default pinned from 1 MiB up", () => {
    const size = 2 * 1024 * 1024;
    const data = patternBytes(size, 5);
    using device = context.bufferFromData(data);
    log.reset();
    const pageable = device.copyToHost({ output: 'pageable' });
    expect(hostBufferOf(pageable)).toBeUndefined();
    expect(sameBytes(pageable, data)).toBe(true);
    expect(log.calls).toContain('stagedCopyDtoH');
    expect(hostBufferOf(device.copyToHost({ output: 'pinned' }))).toBeDefined();
    expect(hostBufferOf(device.toBytes())).toBeDefined();
    expect(device.copyToHost({ nbytes: 0 }).byteLength).toBe(0);
    // Below 1 MiB the default is a plain array: a small read holds no page-locked memory.
    expect(hostBufferOf(device.copyToHost({ nbytes: PINNED_OUTPUT_MIN_BYTES - 1 }))).toBeUndefined();
    expect(hostBufferOf(device.copyToHost({ nbytes: PINNED_OUTPUT_MIN_BYTES }))).toBeDefined();
    expect(hostBufferOf(device.copyToHost({ nbytes: 16, output: 'pinned' }))).toBeDefined();
  });

  it('the pinned bytes stay valid after the device buffer is closed and across GC', async () => {
    const data = patternBytes(65536, 7);
    const device = context.bufferFromData(data);
    const bytes = device.copyToHost({ output: 'pinned' });
    expect(hostBufferOf(bytes)).toBeDefined();
    device.close();
    for (let i = 0; i < 3; i++) {
      (globalThis as { gc?: () => void }).gc?.();
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(sameBytes(bytes, data)).toBe(true);
  });

  it('a bad output is a TypeError before any driver call', () => {
    using device = context.bufferFromData(new Uint8Array(64));
    log.reset();
    expect(() => device.copyToHost({ output: 'locked' as never })).toThrow(TypeError);
    expect(() => device.copyToHost({ output: 1 as never })).toThrow(TypeError);
    expect(log.calls).toEqual([]);
  });
});
