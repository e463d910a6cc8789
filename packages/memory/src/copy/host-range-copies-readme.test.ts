// The README example of copyRangesFromHost / copyRangesToHost, on the reference driver.
import { createReferenceDriver } from '@cumem/testing';
import { expect, it } from 'vitest';
import {
  copyRangesFromHost,
  copyRangesToHost,
  DeviceMemoryResource,
  PinnedMemoryResource,
  useDriver,
} from '../index.js';

it('the README example of copyRangesFromHost runs', () => {
  useDriver(createReferenceDriver());
  using dst = new DeviceMemoryResource(0).allocate(1 << 20);
  using pinned = new PinnedMemoryResource().allocate(512 * 1024);
  pinned.hostView().fill(7);
  const header = new TextEncoder().encode('header');
  copyRangesFromHost(dst, [
    { offset: 0, bytes: header },
    { offset: 4096, bytes: pinned.hostView() },
  ]);
  const back = new Uint8Array(6);
  copyRangesToHost(dst, [{ offset: 0, bytes: back }]);
  expect(new TextDecoder().decode(back)).toBe('header');
  const body = new Uint8Array(512 * 1024);
  copyRangesToHost(dst, [{ offset: 4096, bytes: body }]);
  expect(body.every((byte) => byte === 7)).toBe(true);
});
