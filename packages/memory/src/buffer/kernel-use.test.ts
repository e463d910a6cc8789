// A buffer a kernel used (noteKernelUse, called by @cumem/compute's launch) is freed on close()
// after the work queued on every known stream, as a dropped buffer is; other buffers keep the
// caller's order (one memFreeAsync, no event).
import { countingDriver, createReferenceDriver } from '@cumem/testing';
import { beforeAll, describe, expect, it } from 'vitest';
import { DeviceMemoryResource } from '../resources/device-memory-resource.js';
import { useDriver } from '../runtime/driver-selection.js';
import { Stream } from '../stream/stream.js';
import { noteKernelUse } from './kernel-use.js';

describe('noteKernelUse', () => {
  const { driver, log } = countingDriver(createReferenceDriver());
  let pool: DeviceMemoryResource;
  let launchStream: Stream;
  let other: Stream;

  beforeAll(() => {
    useDriver(driver);
    pool = new DeviceMemoryResource(0);
    launchStream = Stream.create(0);
    other = Stream.create(0);
  });

  it('orders the close of a used buffer after every known stream, a slice marking its owner', () => {
    const buffer = pool.allocate(4096, { stream: other });
    noteKernelUse(buffer.slice(0, 16));
    log.reset();
    buffer.close();
    expect(log.calls).toContain('streamWaitEvent');
    expect(log.calls.at(-1)).toBe('memFreeAsync');
  });

  it('leaves the order of buffers no kernel used as it was', () => {
    const buffer = pool.allocate(4096, { stream: other });
    log.reset();
    buffer.close();
    expect(log.calls).toEqual(['memFreeAsync']);
  });

  it('honours the stream close() names, made to wait for the others', () => {
    const buffer = pool.allocate(4096, { stream: other });
    noteKernelUse(buffer);
    log.reset();
    buffer.close({ stream: launchStream });
    expect(log.calls.filter((call) => call === 'streamWaitEvent').length).toBeGreaterThan(0);
    expect(log.calls.at(-1)).toBe('memFreeAsync');
  });
});
