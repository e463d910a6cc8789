// Issue 45, item 3 (the @cumem/utils part): a StridedMemoryView over a VirtualMemoryResource
// buffer that shrank is measured against the buffer as it is now at each use. Copies into and
// out of it, its DLPack export, its CUDA Array Interface and a full-size view() are refused
// (RangeError) instead of reaching the unmapped tail, and so is a launch given it; what is left
// still copies; once the buffer is closed the view refuses everything.
import { float32, LaunchConfig, launch, ObjectCode, uint32 } from '@cumem/compute';
import { CudaStateError } from '@cumem/core-types';
import { referenceKernelsPTX } from '@cumem/testing';
import { StridedLayout, StridedMemoryView } from '@cumem/utils';
import { check, expectThrows, memory, setUp } from './support.mjs';

await setUp();
const mr = new memory.VirtualMemoryResource(0, { reserveSize: 0 });
const g = mr.granularity;
const buffer = mr.allocate(4 * g);
buffer.fill(5);
const stale = StridedMemoryView.fromBuffer(buffer, StridedLayout.dense([4 * g], 1));
const host = StridedMemoryView.fromHost(new Uint8Array(4 * g));
stale.copyTo(host);
const stream = memory.Stream.create(0);
const code = ObjectCode.fromPTX(referenceKernelsPTX);
const fill = code.getKernel('fill_f32');
const shrunk = mr.modifyAllocation(buffer, g).buffer;
check(shrunk.size === g, `the buffer shrank to ${shrunk.size} bytes`);

for (const [what, action] of [
  ['copyTo from the stale view', () => stale.copyTo(host)],
  ['copyFrom into the stale view', () => stale.copyFrom(host)],
  ['a host view copying from it', () => host.copyFrom(stale)],
  ['its DLPack export', () => stale.toDLPack()],
  ['its CUDA Array Interface', () => stale.cudaArrayInterface],
  ['a view of the old size', () => stale.view()],
  [
    'a launch writing through it',
    () => launch(stream, new LaunchConfig({ grid: 1, block: 64 }), fill, stale, float32(1), uint32(4 * g)),
  ],
]) {
  expectThrows(RangeError, what, action);
}
const kept = stale.view(StridedLayout.dense([g], 1));
const bytes = new Uint8Array(g);
kept.copyTo(StridedMemoryView.fromHost(bytes));
check(
  bytes.every((byte) => byte === 5),
  'the bytes that stay mapped still copy',
);
shrunk.close();
expectThrows(CudaStateError, 'a view of the closed buffer', () =>
  kept.copyTo(StridedMemoryView.fromHost(bytes)),
);
mr.close();
code.close();
stream.close();
