import { describe, expect, it } from 'vitest';
import type { SuiteContext } from './suite-context.js';

/** The DLPack members: the release function, reads of native memory, native calls. */
export function nativeExchangeCases(suite: SuiteContext): void {
  describe('native exchange (DLPack)', () => {
    it('readNativeMemory copies bytes of the process (JS memory at its addressOf, page-locked memory)', () => {
      const data = Uint8Array.from({ length: 64 }, (_, i) => i * 3);
      const copy = suite.driver.readNativeMemory(suite.driver.addressOf(data), 64);
      expect(copy).toEqual(data);
      expect(copy.buffer).not.toBe(data.buffer);
      expect(suite.driver.readNativeMemory(suite.driver.addressOf(data), 0).byteLength).toBe(0);
      const pinned = suite.driver.memHostAlloc(256, 0);
      try {
        suite.driver.hostView(pinned, 256).fill(0x5a);
        expect(suite.driver.readNativeMemory(pinned + 8n, 16).every((byte) => byte === 0x5a)).toBe(true);
      } finally {
        suite.driver.memFreeHost(pinned);
      }
    });

    it('readNativeMemory of unmapped memory or an oversized read is a RangeError, never a crash', () => {
      expect(() => suite.driver.readNativeMemory(0x1000n, 8)).toThrow(RangeError);
      expect(() => suite.driver.readNativeMemory(0n, 8)).toThrow(RangeError);
      const data = new Uint8Array(16);
      expect(() => suite.driver.readNativeMemory(suite.driver.addressOf(data), 2 ** 20 + 1)).toThrow(
        RangeError,
      );
    });

    it('the release function, called through callNativeFunction, writes a value >= 1000 to the 4 bytes at its argument only', () => {
      const release = suite.driver.nativeReleaseFunction();
      expect(typeof release).toBe('bigint');
      expect(release).not.toBe(0n);
      const pinned = suite.driver.memHostAlloc(16, 0);
      try {
        const bytes = suite.driver.hostView(pinned, 16);
        bytes.fill(0xee);
        suite.driver.callNativeFunction(release, pinned);
        const view = new DataView(bytes.buffer, bytes.byteOffset, 16);
        expect(view.getInt32(0, true)).toBe(suite.driver.driverVersion);
        expect(view.getInt32(0, true)).toBeGreaterThanOrEqual(1000);
        expect([...bytes.subarray(4)].every((byte) => byte === 0xee)).toBe(true);
      } finally {
        suite.driver.memFreeHost(pinned);
      }
    });
  });
}
