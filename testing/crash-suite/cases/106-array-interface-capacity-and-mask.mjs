// Issue 45, items 4 and 7 (the @cumem/utils parts): a view() of an imported CUDA Array Interface
// stays within the bytes the interface described — a 16 KiB view of a 4 KiB import is refused
// before any driver call, so no copy reaches past it — and an interface with a `mask` is refused
// (masked arrays, as Numba refuses them) instead of being silently read unmasked. Fields are read
// once: a getter cannot pass the bounds check with one shape and be used with another.
import { NotSupportedError } from '@cumem/core-types';
import { StridedLayout, StridedMemoryView } from '@cumem/utils';
import { check, expectThrows, memory, setUp } from './support.mjs';

await setUp();
const mr = new memory.DeviceMemoryResource(0);
const buffer = mr.allocate(16 * 1024);
const neighbour = mr.allocate(64 * 1024);
neighbour.fill(0x33);
buffer.fill(0x11);
const cai = { shape: [4096], typestr: '|u1', data: [buffer.handle, false], version: 3 };
const imported = StridedMemoryView.from({ cudaArrayInterface: cai });

expectThrows(RangeError, 'a 16 KiB view of a 4 KiB import', () =>
  imported.view(StridedLayout.dense([16 * 1024], 1)),
);
expectThrows(RangeError, 'a view one element past the import', () =>
  imported.view(StridedLayout.dense([1025], 4)),
);
const whole = imported.view(StridedLayout.dense([1024], 4));
const words = new Uint32Array(1024);
whole.copyTo(StridedMemoryView.fromHost(words));
const host = new Uint8Array(words.buffer);
check(
  host.every((byte) => byte === 0x11),
  'the 4 KiB the interface gave copy',
);
// Into the import, a copy of more than it holds is refused too (shape mismatch), and the
// neighbour keeps its bytes.
expectThrows(RangeError, 'a 16 KiB copy into a 4 KiB import', () =>
  imported.copyFrom(StridedMemoryView.fromHost(new Uint8Array(16 * 1024))),
);
const after = new Uint8Array(64 * 1024);
neighbour.copyTo(after);
check(
  after.every((byte) => byte === 0x33),
  'the neighbouring allocation kept its bytes',
);

for (const mask of [true, 1, { cudaArrayInterface: cai }, [0, 1]]) {
  const error = expectThrows(NotSupportedError, `an interface with mask ${typeof mask}`, () =>
    StridedMemoryView.from({ cudaArrayInterface: { ...cai, mask } }),
  );
  check(/mask/.test(error.message), `the mask refusal says why: ${error.message}`);
}
check(
  StridedMemoryView.from({ cudaArrayInterface: { ...cai, mask: null } }).shape[0] === 4096,
  'mask: null is no mask',
);

// A shape getter answering small for the check and large afterwards.
let shapeReads = 0;
const twoFaced = {
  ...cai,
  get shape() {
    shapeReads++;
    return shapeReads === 1 ? [4096] : [1 << 30];
  },
};
const once = StridedMemoryView.from({ cudaArrayInterface: twoFaced });
check(shapeReads === 1 && once.shape[0] === 4096, `shape read ${shapeReads} times`);
buffer.close();
neighbour.close();
