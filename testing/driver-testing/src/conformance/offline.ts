import { closeSync, fstatSync, openSync } from 'node:fs';
import { tmpdir } from 'node:os';
import type { CreateDriver } from '@cumem/core-types';
import { describe, expect, it } from 'vitest';

/**
 * What an adapter does without any libcuda (no GPU needed): each adapter's CPU tests call it
 * once, so the claim is written once. `skipReason`: why this adapter cannot run here.
 */
export function offlineDriverCases(name: string, create: CreateDriver, skipReason?: string): void {
  const title = `${name} adapter without libcuda${skipReason ? ` — skipped: ${skipReason}` : ''}`;
  describe.skipIf(skipReason !== undefined)(title, () => {
    it('duplicateFileDescriptor works without libcuda and names errno', () => {
      const driver = create({ libraryPath: '/nonexistent/cumem-test/libcuda.so.1' });
      const fd = openSync(tmpdir(), 'r');
      const duplicate = driver.duplicateFileDescriptor(fd);
      expect(duplicate).not.toBe(fd);
      expect(fstatSync(duplicate).ino).toBe(fstatSync(fd).ino);
      closeSync(fd);
      closeSync(duplicate);
      expect(() => driver.duplicateFileDescriptor(duplicate)).toThrow(/EBADF/);
      expect(() => driver.duplicateFileDescriptor(-1)).toThrow(RangeError);
    });

    it('hostView of JS memory refuses a view over 4 GiB with a RangeError, and allows exactly 4 GiB', () => {
      // The FFI adapter must refuse (koffi.view would abort the process); N-API gives its error.
      const driver = create({ libraryPath: '/nonexistent/cumem-test/libcuda.so.1' });
      const address = driver.addressOf(new Uint8Array(16));
      expect(() => driver.hostView(address, 2 ** 32 + 1)).toThrow(
        'hostView: 4294967297 bytes are more than one view can show (at most 4294967296 bytes, 4 GiB)',
      );
      expect(() => driver.hostView(address, 2 ** 40)).toThrow(RangeError);
      // A view object is made, never touched: its size alone is in question.
      expect(driver.hostView(address, 2 ** 32).byteLength).toBe(2 ** 32);
    });
  });
}
