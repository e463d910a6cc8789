// Class 12: a kernel that writes to an illegal address is a typed CudaError at the next
// synchronization (CUDA_ERROR_ILLEGAL_ADDRESS, naming cuStreamSynchronize), not a crash. As in C,
// the fault poisons the context for the rest of the process: later calls in it fail with the same
// error, which is why this runs alone in its own process.
// needs: gpu
// sanitize: faults on purpose (memcheck reports the illegal address it is about)

import { LaunchConfig, launch, ObjectCode, uint32 } from '@cumem/compute';
import { CudaError } from '@cumem/core-types';
import { referenceKernelsPTX } from '@cumem/testing';
import { check, memory, setUp } from './support.mjs';

await setUp();
const stream = memory.Stream.create(0);
const code = ObjectCode.fromPTX(referenceKernelsPTX);
// Address 8: the null page, never device memory.
launch(stream, new LaunchConfig({ grid: 1, block: 1 }), code.getKernel('write_u32'), 8n, uint32(1));
let fault;
try {
  stream.sync();
} catch (error) {
  fault = error;
}
check(CudaError.isInstance(fault), `the fault is a CudaError, got ${fault}`);
check(
  fault.codeName === 'CUDA_ERROR_ILLEGAL_ADDRESS',
  `the fault is CUDA_ERROR_ILLEGAL_ADDRESS, got ${fault.codeName}`,
);
check(fault.call === 'cuStreamSynchronize', `the fault names cuStreamSynchronize, got ${fault.call}`);
// Poisoned: the next call in the context fails too, typed.
let after;
try {
  new memory.DeviceMemoryResource(0).allocate(64).close();
  memory.defaultStream().sync();
} catch (error) {
  after = error;
}
check(CudaError.isInstance(after), `a call after the fault is a CudaError too, got ${after}`);
