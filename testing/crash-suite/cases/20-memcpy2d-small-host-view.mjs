// Class 8: memcpy2DAsync/memcpy3DAsync with a host view smaller than the extent are a
// RangeError from the driver itself (both adapters and the reference driver).
import { expectThrows, setUp } from './support.mjs';

const { driver } = await setUp();
driver.contextSetCurrent(driver.primaryContextRetain(0));
const stream = driver.streamCreate(0, 0);
const device = driver.memAlloc(64 * 64);
const small = new Uint8Array(100);
const copy2d = { src: small, srcPitch: 64, dst: device, dstPitch: 64, widthInBytes: 64, height: 64 };
expectThrows(RangeError, 'memcpy2DAsync from a 100-byte view over a 64x64 extent', () =>
  driver.memcpy2DAsync(copy2d, stream),
);
expectThrows(RangeError, 'memcpy2DAsync into a 100-byte view', () =>
  driver.memcpy2DAsync(
    { src: device, srcPitch: 64, dst: small, dstPitch: 64, widthInBytes: 64, height: 64 },
    stream,
  ),
);
const copy3d = { ...copy2d, height: 8, srcHeight: 8, dstHeight: 8, depth: 8 };
expectThrows(RangeError, 'memcpy3DAsync from a 100-byte view over a 64x8x8 extent', () =>
  driver.memcpy3DAsync(copy3d, stream),
);
driver.streamSynchronize(stream);
driver.memFree(device);
driver.streamDestroy(stream);
