// The safety contract's "sizes from outside are checked against what is known": a program that
// replaces the TypedArray and DataView prototype getters (byteLength, byteOffset) after cumem
// loaded must not size a copy. Before, `pinned.copyFrom(new Uint8Array(16))` with byteLength
// answering 4096 passed the size check and handed the driver the view's address with 4096
// bytes: the buffer received bytes from past the 16-byte view (a segfault where that memory
// is not mapped). cumem reads JS memory's facts through the getters it took at load
// (core-types view-facts.ts), so each copy below is refused as a size mismatch or moves exactly
// the view's own bytes.
import { check, expectThrows, memory, setUp } from './support.mjs';

await setUp();
const typedArrayPrototype = Object.getPrototypeOf(Uint8Array.prototype);
const SIZE = 4096;

/** Runs `action` with `key` of TypedArray.prototype and DataView.prototype answering `value`. */
function withReplacedGetter(key, value, action) {
  const saved = [typedArrayPrototype, DataView.prototype].map((prototype) => [
    prototype,
    Object.getOwnPropertyDescriptor(prototype, key),
  ]);
  for (const [prototype] of saved)
    Object.defineProperty(prototype, key, { get: () => value, configurable: true });
  try {
    return action();
  } finally {
    for (const [prototype, descriptor] of saved) Object.defineProperty(prototype, key, descriptor);
  }
}

const resources = [
  ['device', new memory.DeviceMemoryResource(0)],
  ['legacy pinned', new memory.LegacyPinnedMemoryResource()],
];
for (const [name, mr] of resources) {
  const buffer = mr.allocate(SIZE);
  const small = new Uint8Array(16).fill(7);
  const smallView = new DataView(new ArrayBuffer(16));
  for (const source of [small, smallView]) {
    const kind = source.constructor.name;
    buffer.fill(0);
    // 16 real bytes claiming SIZE: the sizes differ as V8 counts them.
    expectThrows(RangeError, `${name}: copyFrom a 16-byte ${kind} whose getter says ${SIZE}`, () =>
      withReplacedGetter('byteLength', SIZE, () => buffer.copyFrom(source)),
    );
    expectThrows(RangeError, `${name}: copyTo a 16-byte ${kind} whose getter says ${SIZE}`, () =>
      withReplacedGetter('byteLength', SIZE, () => buffer.copyTo(source)),
    );
    // A range of 16 real bytes claiming SIZE at the buffer's end: past it only by the lie.
    withReplacedGetter('byteLength', SIZE, () =>
      memory.copyRangesFromHost(buffer, [{ offset: SIZE - 16, bytes: source }]),
    );
    const back = new Uint8Array(SIZE);
    buffer.copyTo(back);
    const expected = kind === 'Uint8Array' ? 7 : 0;
    check(
      back.subarray(SIZE - 16).every((byte) => byte === expected),
      `${name}: copyRangesFromHost of a lying ${kind} moved its own 16 bytes`,
    );
    check(
      back.subarray(0, SIZE - 16).every((byte) => byte === 0),
      `${name}: copyRangesFromHost of a lying ${kind} wrote nothing before its range`,
    );
  }
  // A 4-byte fill pattern whose getter says 1: the pattern is its own 4 bytes.
  const pattern = Uint8Array.of(1, 2, 3, 4);
  withReplacedGetter('byteLength', 1, () => buffer.fill(pattern));
  const filled = new Uint8Array(SIZE);
  buffer.copyTo(filled);
  check(
    filled.every((byte, i) => byte === (i % 4) + 1),
    `${name}: a fill pattern whose getter lies keeps its own 4 bytes`,
  );
  buffer.close();
  mr.close();
}
