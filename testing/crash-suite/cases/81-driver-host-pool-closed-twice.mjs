// Class 11 (issue 22): new PinnedMemoryResource() without options is the driver's host pool,
// which cumem does not own. Closing such a resource (twice, with buffers still open, from two
// resources naming one pool) never destroys the pool: buffers stay readable, the other
// resource keeps allocating, and a new resource names the same pool again.
// needs: hostMemoryPools
import { CudaStateError } from '@cumem/core-types';
import { check, expectThrows, memory, setUp } from './support.mjs';

const { driver } = await setUp();
const first = new memory.PinnedMemoryResource();
const second = new memory.PinnedMemoryResource();
if (driver.capabilities.memoryPoolQueries) {
  check(first.handle === second.handle, 'two resources without options name different pools');
  check(!first.isHandleOwned && !second.isHandleOwned, 'the driver host pool is reported as owned');
}
const open = first.allocate(4096);
open.hostView().fill(0x42);
first.close();
first.close();
expectThrows(CudaStateError, 'allocate after close()', () => first.allocate(64));
const more = second.allocate(4096);
more.hostView().fill(0x24);
check(
  open.hostView().every((byte) => byte === 0x42),
  'a buffer of the closed resource lost its bytes',
);
const device = new memory.DeviceMemoryResource(0).allocate(4096);
device.copyFrom(open);
const back = new Uint8Array(4096);
device.copyTo(back);
check(
  back.every((byte) => byte === 0x42),
  'the copy through the device lost bytes',
);
open.close();
second.close();
check(
  more.hostView().every((byte) => byte === 0x24),
  'a buffer of the other resource lost its bytes',
);
more.close();
device.close();
const third = new memory.PinnedMemoryResource();
if (driver.capabilities.memoryPoolQueries) check(third.handle === first.handle, 'the pool changed');
third.allocate(64).close();
third.close();
