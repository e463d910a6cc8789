// Class 8: views over 4 GiB. koffi aborted the process on them. Now: a hostView over 4 GiB is a
// RangeError in every adapter; a JS view over 4 GiB is a valid copy endpoint (2D copies of a
// small extent out of it work and are byte-exact); a 1D copy whose sizes differ is refused by
// @cumem/memory before the driver.
// needs: bigArrayBuffer
import { check, expectThrows, memory, setUp } from './support.mjs';

const { driver } = await setUp();
const pinned = new memory.PinnedMemoryResource();
const small = pinned.allocate(4096);
expectThrows(RangeError, 'hostView over 4 GiB', () => driver.hostView(small.handle, 2 ** 32 + 1));
// Uint16Array: node 20 limits a typed array to 2^32 elements, not bytes. Untouched pages: virtual memory only.
const huge = new Uint16Array(2 ** 31 + 2048);
const bytes = new Uint8Array(huge.buffer, 0, 4096);
for (let i = 0; i < bytes.length; i++) bytes[i] = i % 251;
const mr = new memory.DeviceMemoryResource(0);
const device = mr.allocate(4096);
expectThrows(RangeError, 'Buffer.copyFrom a view over 4 GiB into 4 KiB', () => device.copyFrom(huge));
const stream = memory.defaultStream();
driver.contextSetCurrent(driver.primaryContextRetain(0));
driver.memcpy2DAsync(
  { src: huge, srcPitch: 2 ** 32 + 4096, dst: device.handle, dstPitch: 4096, widthInBytes: 4096, height: 1 },
  stream.handle,
);
stream.sync();
const back = new Uint8Array(4096);
device.copyTo(back);
check(
  back.every((b, i) => b === i % 251),
  'a 2D copy out of a view over 4 GiB is byte-exact',
);
device.close();
small.close();
driver.primaryContextRelease(0);
