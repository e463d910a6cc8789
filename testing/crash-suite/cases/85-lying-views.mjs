// A JS view whose own properties lie about the memory it shows: `Object.defineProperty(view,
// 'byteLength' | 'byteOffset' | 'buffer', ...)` shadows the prototype's getter. Over the FFI
// adapter, `buffer.copyTo(view)` with a 16-byte view claiming 16 MiB wrote 16 MiB into it (a
// segfault), and a slice copied into a view claiming an offset of 1 GiB wrote there. Now
// @cumem/memory sizes JS memory as V8 counts it (a RangeError for the size mismatch) and both
// adapters address and size views the same way (the N-API addon asks V8; the FFI adapter calls
// the intrinsic getters). A 2D copy's object whose `dst` getter answers a large view for the
// bounds check and a small one afterwards must not get past the check either.
import { check, expectThrows, memory, setUp } from './support.mjs';

const { driver } = await setUp();
const MIB16 = 1 << 24;
const mr = new memory.DeviceMemoryResource(0);
const stream = memory.Stream.create(0);
const big = mr.allocate(MIB16);
big.fill(0x5a, { stream });
stream.sync();

/** The bytes `view` really shows, read through the intrinsic getters. */
function honest(view) {
  const prototype =
    view instanceof DataView ? DataView.prototype : Object.getPrototypeOf(Uint8Array.prototype);
  const get = (key) => Reflect.apply(Object.getOwnPropertyDescriptor(prototype, key).get, view, []);
  return new Uint8Array(get('buffer'), get('byteOffset'), get('byteLength'));
}

/** A 16-byte Uint8Array (or DataView) with one property redefined on the instance. */
function lying(property, Kind = Uint8Array) {
  const view = new Kind(new ArrayBuffer(16));
  const lie = {
    byteLength: MIB16,
    byteOffset: 1 << 30,
    buffer: new ArrayBuffer(MIB16),
    length: MIB16,
  }[property];
  Object.defineProperty(view, property, { value: lie });
  return view;
}

for (const Kind of [Uint8Array, DataView]) {
  for (const property of ['byteLength', 'byteOffset', 'buffer', 'length']) {
    // Sized as V8 counts it: 16 bytes against a 16 MiB buffer.
    expectThrows(RangeError, `copyTo a ${Kind.name} lying about ${property}`, () =>
      big.copyTo(lying(property, Kind), { stream }),
    );
    expectThrows(RangeError, `copyFrom a ${Kind.name} lying about ${property}`, () =>
      big.copyFrom(lying(property, Kind), { stream }),
    );
    // Same sizes: the copy lands in the 16 bytes the view really shows.
    const view = lying(property, Kind);
    big.slice(0, 16).copyTo(view, { stream });
    stream.sync();
    check(
      honest(view).every((byte) => byte === 0x5a),
      `a slice copied into a ${Kind.name} lying about ${property} lands in its own 16 bytes`,
    );
  }
}

// The driver contract itself: a lying view is copied as V8 counts it, never past its memory (the
// reference driver, JavaScript, may refuse it instead).
for (const property of ['byteLength', 'byteOffset', 'buffer']) {
  const view = lying(property);
  try {
    driver.memcpyDtoHAsync(view, big.handle, stream.handle);
    driver.streamSynchronize(stream.handle);
  } catch (error) {
    check(error instanceof RangeError, `memcpyDtoHAsync into a view lying about ${property}: ${error}`);
  }
}

// A 2D copy whose dst getter answers a 16 MiB view first, then a 16-byte one.
let reads = 0;
const twoFaced = {
  src: big.handle,
  srcPitch: 4096,
  get dst() {
    reads += 1;
    return reads === 1 ? new Uint8Array(MIB16) : new Uint8Array(16);
  },
  dstPitch: 4096,
  widthInBytes: 4096,
  height: 4096,
};
let outcome = 'copied';
try {
  driver.memcpy2DAsync(twoFaced, stream.handle);
  driver.streamSynchronize(stream.handle);
} catch (error) {
  outcome = error instanceof RangeError ? 'refused' : `threw ${error?.name}`;
}
// Read once: the 16 MiB view passed the check and took the copy; or the check saw the small one.
check(reads === 1, `the 2D copy read dst ${reads} times`);
check(outcome === 'copied' || outcome === 'refused', `2D copy: ${outcome}`);

big.close();
stream.sync();
