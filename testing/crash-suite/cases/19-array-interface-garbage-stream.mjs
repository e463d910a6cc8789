// Class 7: a cudaArrayInterface whose stream is a garbage pointer is a TypeError (the driver is
// never handed it) unless the caller explicitly opts in.
import { StridedMemoryView } from '@cumem/utils';
import { expectThrows, memory, setUp } from './support.mjs';

await setUp();
const buffer = new memory.DeviceMemoryResource(0).allocate(64);
const foreign = {
  cudaArrayInterface: {
    shape: [64],
    typestr: '|u1',
    data: [buffer.handle, false],
    version: 3,
    stream: 0xdeadbeefn,
  },
};
expectThrows(TypeError, 'StridedMemoryView.from() with a garbage stream pointer', () =>
  StridedMemoryView.from(foreign),
);
buffer.close();
