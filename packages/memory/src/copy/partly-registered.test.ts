// Issue 45, overlapping registrations: a view only partly inside memory registered with
// registerHostMemory is neither pinned nor plain pageable memory for the driver (which fails a
// copy of it handed over as one range), so every copy of it takes the staged path.
import { countingDriver, describeEachDriver } from '@cumem/testing/vitest';
import { beforeAll, expect, it } from 'vitest';
import { adapters } from '../../test/adapters.js';
import { DeviceMemoryResource } from '../resources/device-memory-resource.js';
import { useDriver } from '../runtime/driver-selection.js';
import { copyRangesFromHost, copyRangesToHost } from './host-range-copies.js';
import {
  isPartlyRegisteredHostMemory,
  isRegisteredHostMemory,
  registerHostMemory,
} from './host-registration.js';

describeEachDriver(adapters, 'partly registered host memory', (entry) => {
  beforeAll(() => useDriver(entry.driver));

  it('is told apart from registered and unregistered memory', () => {
    const memory = new ArrayBuffer(64 * 1024);
    using registration = registerHostMemory(new Uint8Array(memory, 0, 16 * 1024));
    expect(registration.closed).toBe(false);
    expect(isRegisteredHostMemory(new Uint8Array(memory, 0, 16 * 1024))).toBe(true);
    expect(isPartlyRegisteredHostMemory(new Uint8Array(memory, 0, 16 * 1024))).toBe(false);
    expect(isPartlyRegisteredHostMemory(new Uint8Array(memory, 8 * 1024, 16 * 1024))).toBe(true);
    expect(isPartlyRegisteredHostMemory(new Uint8Array(memory))).toBe(true);
    expect(isPartlyRegisteredHostMemory(new Uint8Array(memory, 32 * 1024, 1024))).toBe(false);
    expect(isRegisteredHostMemory(new Uint8Array(memory))).toBe(false);
    expect(() => isPartlyRegisteredHostMemory({} as never)).toThrow(TypeError);
  });

  it('range copies of partly registered views take the staged copy, with the right bytes', () => {
    // The adapters' drivers are frozen: the calls are observed through a counting wrapper, with
    // every object made under it (objects of two drivers do not mix).
    const counted = countingDriver(entry.driver);
    useDriver(counted.driver);
    try {
      const memory = new ArrayBuffer(64 * 1024);
      using registration = registerHostMemory(new Uint8Array(memory, 0, 16 * 1024));
      expect(registration.closed).toBe(false);
      const mr = new DeviceMemoryResource(0);
      using buffer = mr.allocate(64 * 1024);
      const source = new Uint8Array(memory, 8 * 1024, 16 * 1024);
      source.forEach((_, index) => {
        source[index] = index & 0xff;
      });
      counted.log.reset();
      copyRangesFromHost(buffer, [{ offset: 0, bytes: source }]);
      const target = new Uint8Array(memory, 4 * 1024, 16 * 1024);
      copyRangesToHost(buffer, [{ offset: 0, bytes: target }]);
      const copies = counted.log.calls.filter((call) => /[cC]opy|memcpy/.test(call));
      expect(copies).toEqual(['stagedCopyHtoD', 'stagedCopyDtoH']);
      expect(target.every((byte, index) => byte === (index & 0xff))).toBe(true);
    } finally {
      useDriver(entry.driver);
    }
  });
});
