// Class 8: a host view over 4 GiB is a RangeError (the copies' 32-bit length paths never see it).
// needs: bigArrayBuffer
import { expectThrows, setUp } from './support.mjs';

const { driver } = await setUp();
driver.contextSetCurrent(driver.primaryContextRetain(0));
const stream = driver.streamCreate(0, 0);
const device = driver.memAlloc(4096);
// Uint16Array: node 20 limits a typed array to 2^32 elements, not bytes. Untouched pages: virtual memory only.
const huge = new Uint16Array(2 ** 31 + 2048);
expectThrows(RangeError, 'memcpyHtoDAsync from a view over 4 GiB', () =>
  driver.memcpyHtoDAsync(device, huge, stream),
);
expectThrows(RangeError, 'memcpy2DAsync with a host view over 4 GiB', () =>
  driver.memcpy2DAsync(
    { src: huge, srcPitch: 2 ** 32 + 4096, dst: device, dstPitch: 4096, widthInBytes: 4096, height: 1 },
    stream,
  ),
);
driver.streamSynchronize(stream);
driver.memFree(device);
driver.streamDestroy(stream);
