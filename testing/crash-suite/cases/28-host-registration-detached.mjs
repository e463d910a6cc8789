// Class 11 (issue 21): registerHostMemory against a program that moves or detaches the memory
// it registered, registers overlapping ranges and names devices that do not exist. Before the
// fix a registration outlived its ArrayBuffer's memory (transfer()), and new memory at the same
// address then copied the old pages' bytes, silently; overlaps were accepted and failed later;
// { device: 2**53 } reached the FFI adapter as device 0. Each round detaches a registered
// buffer, drops the memory's new owner, allocates buffers of the same size (one likely lands at
// the old address) and requires their copies to be byte-exact.
import { check, collectGarbage, expectThrows, memory, setUp } from './support.mjs';

const { driver } = await setUp();
const size = 1 << 20;

async function detach(buffer) {
  const stream = new ReadableStream({
    type: 'bytes',
    pull(controller) {
      controller.enqueue(new Uint8Array(4));
    },
  });
  const reader = stream.getReader({ mode: 'byob' });
  try {
    await reader.read(new Uint8Array(buffer));
  } catch (error) {
    // A Node that keeps registered buffers attached (detach key) refuses: that is safe too.
    check(error instanceof TypeError, `a refused detach is a TypeError, got ${error?.name}`);
  }
}

const mr = new memory.DeviceMemoryResource(0);
const device = mr.allocate(size);
for (let round = 0; round < 8; round++) {
  let registration;
  {
    const buffer = new ArrayBuffer(size);
    registration = memory.registerHostMemory(buffer);
    if (round % 2 === 1 && typeof buffer.transfer === 'function') {
      try {
        buffer.transfer();
      } catch (error) {
        check(error instanceof TypeError, `a refused transfer() is a TypeError, got ${error?.name}`);
      }
    } else await detach(buffer);
    check(buffer.byteLength === 0 || !registration.closed, 'an attached buffer keeps its registration');
  }
  await collectGarbage(2);
  for (let attempt = 0; attempt < 4; attempt++) {
    const fresh = new Uint8Array(size);
    for (let index = 0; index < size; index += 997) fresh[index] = (index + round + attempt) & 255;
    device.copyFrom(fresh);
    const back = new Uint8Array(size);
    device.copyTo(back);
    check(
      Buffer.from(back).equals(Buffer.from(fresh)),
      `round ${round}.${attempt}: bytes through new memory`,
    );
  }
  registration.close();
}
// Overlaps: refused, typed, naming the range; the first registration keeps working.
const shared = new Uint8Array(4 * 65536);
const first = memory.registerHostMemory(shared.subarray(65536, 2 * 65536));
for (const [begin, end] of [
  [0, 2 * 65536],
  [65536 + 8, 65536 + 16],
  [2 * 65536 - 1, 2 * 65536 + 1],
]) {
  const error = expectThrows(memory.CudaStateError, `overlap ${begin}..${end}`, () =>
    memory.registerHostMemory(shared.subarray(begin, end)),
  );
  check(/registered range 0x/.test(error.message), 'the overlap names the registered range');
}
first.close();
// Devices that do not exist, before any driver call; the adapters refuse ordinals past 32 bits.
const count = memory.deviceCount();
for (const bad of [-1, count, 2 ** 31, 2 ** 53]) {
  expectThrows(RangeError, `registerHostMemory device ${bad}`, () =>
    memory.registerHostMemory(new Uint8Array(4096), { device: bad }),
  );
}
for (const bad of [2 ** 53, 2 ** 40, 1.5]) {
  expectThrows(RangeError, `primaryContextRetain(${bad})`, () => driver.primaryContextRetain(bad));
}
device.close();
mr.close();
