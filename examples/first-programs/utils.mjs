// @cumem/utils' first program: a 2x3 matrix in device memory transposed by a strided copy.
// On a GPU: `node utils.mjs`; without one: `node --import ./use-reference.mjs utils.mjs`.
import { DeviceMemoryResource } from '@cumem/memory';
import { StridedLayout, StridedMemoryView } from '@cumem/utils';

const resource = new DeviceMemoryResource(0);
const source = resource.allocate(6 * 4);
const target = resource.allocate(6 * 4);
try {
  source.copyFrom(Float32Array.of(1, 2, 3, 4, 5, 6)); // [[1, 2, 3], [4, 5, 6]]
  const from = StridedMemoryView.fromBuffer(source, StridedLayout.dense([2, 3], 4), { dtype: 'float32' });
  // The target read as 3x2, seen through a transposed (2x3) layout: the copy transposes.
  const to = StridedMemoryView.fromBuffer(target, StridedLayout.dense([3, 2], 4).permuted([1, 0]), {
    dtype: 'float32',
  });
  to.copyFrom(from);
  const back = new Float32Array(6);
  target.copyTo(back);
  console.log(`transposed: ${back.join(',')}`); // 1,4,2,5,3,6
} finally {
  source.close();
  target.close();
  resource.close();
}
