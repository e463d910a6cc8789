// Class 13 (issue 21): staging settings no adapter can run. Before the fix configureStaging
// accepted any safe integer and, with chunks past 4 GiB, the FFI staging worker aborted the
// process inside koffi (SIGABRT) at the next large copy. Now the setting is refused when it is
// made, with the limit in the message, and each adapter's staged copy refuses it too.
import { check, expectThrows, memory, setUp } from './support.mjs';

const { driver } = await setUp();
for (const chunkBytes of [2 ** 32 + 1, 2 ** 33, Number.MAX_SAFE_INTEGER]) {
  const error = expectThrows(RangeError, `configureStaging chunkBytes ${chunkBytes}`, () =>
    memory.configureStaging({ chunkBytes, minBytes: 0 }),
  );
  check(error.message.includes('4294967296'), 'the message names the limit');
}
check(memory.configureStaging().chunkBytes <= 2 ** 32, 'the refused setting is not in force');
driver.contextSetCurrent(driver.primaryContextRetain(0));
const stream = driver.streamCreate(1, 0);
const device = driver.memAlloc(1 << 20);
const host = new Uint8Array(1 << 20).fill(7);
for (const options of [
  { chunkBytes: 2 ** 32 + 1, threads: 1 },
  { chunkBytes: 2 ** 40, threads: 4 },
]) {
  expectThrows(RangeError, `stagedCopyHtoD ${options.chunkBytes}`, () =>
    driver.stagedCopyHtoD(device, host, stream, options),
  );
  expectThrows(RangeError, `stagedCopyDtoH ${options.chunkBytes}`, () =>
    driver.stagedCopyDtoH(host, device, stream, options),
  );
}
// Staging still works with settings in range, through @cumem/memory.
memory.configureStaging({ chunkBytes: 65536 + 3, threads: 3, minBytes: 0 });
const mr = new memory.DeviceMemoryResource(0);
const buffer = mr.allocate(1 << 20);
const pattern = new Uint8Array(1 << 20);
for (let index = 0; index < pattern.length; index++) pattern[index] = (index * 7) & 255;
buffer.copyFrom(pattern);
const back = new Uint8Array(1 << 20);
buffer.copyTo(back);
check(Buffer.from(back).equals(Buffer.from(pattern)), 'staged copies byte-exact');
buffer.close();
mr.close();
driver.memFree(device);
driver.streamDestroy(stream);
