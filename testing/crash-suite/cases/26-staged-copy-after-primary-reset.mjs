// Class 9: a staged copy after the primary context was reset. The last release of a primary
// context resets it (its pinned memory is freed and unmapped) and the next retain returns the
// same handle, so staging resources kept under that handle would be used after they were
// freed. The FFI adapter's conformance suite did exactly this (its 'legacy entry points' suite
// runs after the first released the context) and its process died on an H200. Both orders:
// one driver (retain, copy, release, again) and a second driver on the same library.
import { check, setUp } from './support.mjs';

// The fake resets its primary context on the last release only when asked (CUDA always does).
process.env.FAKE_CUDA_PRIMARY_RESET = '1';
const { driver, name } = await setUp();
const second = name === 'reference' ? driver : (await setUp()).driver;
const size = (2 << 20) + 5;
const source = new Uint8Array(size);
for (let index = 0; index < size; index++) source[index] = (index * 13 + 1) & 255;

function roundTrip(d, threads) {
  d.contextSetCurrent(d.primaryContextRetain(0));
  const stream = d.streamCreate(1, 0);
  const device = d.memAlloc(size);
  const options = { chunkBytes: 65536, threads };
  d.stagedCopyHtoD(device, source, stream, options);
  const back = new Uint8Array(size);
  d.stagedCopyDtoH(back, device, stream, options);
  check(Buffer.from(back).equals(Buffer.from(source)), `staged round trip on ${threads} threads`);
  d.memFree(device);
  d.streamDestroy(stream);
  d.contextSetCurrent(0n);
  d.primaryContextRelease(0); // the last reference: the context is reset
}

for (const threads of [8, 3, 8]) roundTrip(driver, threads);
for (const threads of [8, 8]) roundTrip(second, threads);
roundTrip(driver, 8);
