// VirtualMemoryResource: hostile sizes, buffers and options are typed errors, never a crash.
import { check, expectRefused, expectThrows, memory, setUp } from './support.mjs';

const { driver } = await setUp();
const mr = new memory.VirtualMemoryResource(0);
const g = mr.granularity;
for (const size of [0, -1, 1.5, 2 ** 53, Number.NaN, driver.deviceTotalMem(0) + 1]) {
  expectThrows(RangeError, `allocate(${size})`, () => mr.allocate(size));
}
expectThrows(TypeError, "allocate('1')", () => mr.allocate('1'));
const buffer = mr.allocate(g);
const other = new memory.VirtualMemoryResource(0);
const foreign = other.allocate(1);
const pooled = new memory.DeviceMemoryResource(0).allocate(64);
expectThrows(TypeError, 'grow of a pool buffer', () => mr.modifyAllocation(pooled, 2 * g));
expectThrows(TypeError, "grow of another resource's buffer", () => mr.modifyAllocation(foreign, 2 * g));
expectThrows(TypeError, 'grow of a slice', () => mr.modifyAllocation(buffer.slice(0, 8), 2 * g));
expectThrows(TypeError, 'grow of a non-buffer', () =>
  mr.modifyAllocation({ handle: buffer.handle, size: 1 }, 2 * g),
);
expectThrows(RangeError, 'grow to 2**53', () => mr.modifyAllocation(buffer, 2 ** 53));
expectThrows(RangeError, 'shrink to 0', () => mr.modifyAllocation(buffer, 0));
expectRefused('fromHandle(mr: vmm)', () => memory.Buffer.fromHandle(buffer.handle, 8, { mr }));
expectThrows(memory.CudaStateError, 'deallocate of a live buffer', () => mr.deallocate(buffer.handle, g));
buffer.close();
expectThrows(memory.CudaStateError, 'grow of a closed buffer', () => mr.modifyAllocation(buffer, 2 * g));
expectThrows(memory.CudaStateError, 'copy into a closed buffer', () => buffer.copyFrom(new Uint8Array(g)));
expectThrows(
  RangeError,
  'peers that do not exist',
  () => new memory.VirtualMemoryResource(0, { peers: [64] }),
);
expectThrows(
  memory.NotSupportedError,
  "handleType 'fabric'",
  () => new memory.VirtualMemoryResource(0, { handleType: 'fabric' }),
);
expectThrows(
  memory.NotSupportedError,
  "locationType 'host'",
  () => new memory.VirtualMemoryResource(0, { locationType: 'host' }),
);
if (!driver.capabilities.interprocess) {
  expectThrows(
    memory.NotSupportedError,
    "handleType 'posixFd' without IPC",
    () => new memory.VirtualMemoryResource(0, { handleType: 'posixFd' }),
  );
}
foreign.close();
pooled.close();
mr.close();
other.close();
check(mr.isClosed, 'the resource closed');
