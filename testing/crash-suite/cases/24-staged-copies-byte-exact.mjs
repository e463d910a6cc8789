// Class 9: the staged copies (pageable memory through pinned chunks on native threads) move
// exactly the bytes of the view: odd sizes, offsets inside the buffer, more threads than
// chunks, chunks that do not divide the slices, and nothing written past either end. On the
// hostile fake a chunk or slice off by one lands in unmapped pages and faults.
import { check, expectThrows, setUp } from './support.mjs';

const { driver } = await setUp();
driver.contextSetCurrent(driver.primaryContextRetain(0));
const stream = driver.streamCreate(1, 0);
const shapes = [
  [1, 0, 4096, 4],
  [4096 * 3 + 5, 7, 4096, 2],
  [3 * 1048576 + 17, 13, 262147, 3],
  [2 << 20, 0, 65536, 8],
  [(1 << 20) + 1, 1, 8 << 20, 1],
  [24 << 20, 5, 1 << 20, 5],
];
for (const [size, offset, chunkBytes, threads] of shapes) {
  const options = { chunkBytes, threads };
  const source = new Uint8Array(size + offset + 9);
  for (let index = 0; index < source.length; index++) source[index] = (index * 7 + 3) & 255;
  const view = source.subarray(offset, offset + size);
  const device = driver.memAlloc(size);
  driver.stagedCopyHtoD(device, view, stream, options);
  const back = new Uint8Array(size);
  driver.memcpyDtoH(back, device);
  check(
    Buffer.from(back).equals(Buffer.from(view)),
    `stagedCopyHtoD of ${size} bytes (${chunkBytes}, ${threads})`,
  );
  const landing = new Uint8Array(size + 2 * offset + 1).fill(0x11);
  driver.stagedCopyDtoH(landing.subarray(offset, offset + size), device, stream, options);
  check(
    Buffer.from(landing.subarray(offset, offset + size)).equals(Buffer.from(view)),
    `stagedCopyDtoH of ${size} bytes`,
  );
  check(
    landing[offset + size] === 0x11 && (offset === 0 || landing[offset - 1] === 0x11),
    'bytes around the view untouched',
  );
  driver.memFree(device);
}
expectThrows(RangeError, 'chunkBytes 0', () =>
  driver.stagedCopyHtoD(0n, new Uint8Array(8), stream, { chunkBytes: 0, threads: 1 }),
);
const registered = new ArrayBuffer(1 << 20);
const pointer = driver.memHostRegister(registered, 0);
driver.memHostUnregister(pointer);
driver.streamDestroy(stream);
