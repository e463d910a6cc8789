// Issue 45, overlapping registrations: a view that is only partly registered with
// registerHostMemory is neither pinned nor plain pageable memory for the driver, which refused
// such copies (CUDA_ERROR_INVALID_VALUE) when handed them as one range. Every copy of such a
// view goes through staging: it succeeds, with the right bytes, both ways, and through the
// range API; a second registration sharing a page with the first is refused at registration.
import { check, expectThrows, memory, setUp } from './support.mjs';

await setUp();
const total = 1 << 20;
const memoryBytes = new ArrayBuffer(total);
const registration = memory.registerHostMemory(new Uint8Array(memoryBytes, 0, total / 4));
expectThrows(memory.CudaStateError, 'a registration overlapping a live one', () =>
  memory.registerHostMemory(new Uint8Array(memoryBytes, total / 8, total / 4)),
);
const mr = new memory.DeviceMemoryResource(0);
const buffer = mr.allocate(total);
for (const [name, offset, length] of [
  ['the whole, partly registered', 0, total],
  ['a view straddling the registration end', total / 8, total / 4],
  ['a small straddling view', total / 4 - 64, 128],
]) {
  const source = new Uint8Array(memoryBytes, offset, length);
  for (let i = 0; i < length; i++) source[i] = (i * 7 + offset) & 0xff;
  const part = buffer.slice(0, length);
  part.copyFrom(source);
  const back = new Uint8Array(length);
  part.copyTo(back);
  check(
    back.every((byte, i) => byte === ((i * 7 + offset) & 0xff)),
    `${name}: copyFrom + copyTo round trip`,
  );
  const target = new Uint8Array(memoryBytes, offset, length);
  target.fill(0);
  part.copyTo(target);
  part.close();
  check(
    target.every((byte, i) => byte === ((i * 7 + offset) & 0xff)),
    `${name}: copyTo into the partly registered view`,
  );
}
registration.close();
buffer.close();
mr.close();
