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
  });
}
