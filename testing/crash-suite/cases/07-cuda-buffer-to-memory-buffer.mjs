// Class 2: CudaBuffer.toMemoryBuffer() follows the CudaBuffer: closed with it, fill() refused.
import { Context } from '@cumem/interop-arrow';
import { check, expectRefused, setUp } from './support.mjs';

await setUp();
const context = new Context(0);
const cuda = context.newBuffer(1024);
const wrapped = cuda.toMemoryBuffer();
cuda.close();
check(wrapped.isClosed, 'toMemoryBuffer() of a closed CudaBuffer reports isClosed');
expectRefused('fill() on the MemoryBuffer of a closed CudaBuffer', () => wrapped.fill(1));
expectRefused('copyTo() on the MemoryBuffer of a closed CudaBuffer', () =>
  wrapped.copyTo(new Uint8Array(1024)),
);
