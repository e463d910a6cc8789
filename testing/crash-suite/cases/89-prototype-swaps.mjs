// Buffers are ordinary, extensible objects (issue 26): a program can give one another prototype
// or define its own members over its class's. What a buffer is and does must not follow them:
// the class of a slice, the record of a virtual allocation's slices and fromHandle's class come
// from the buffer's state, and cumem's private construction token never reaches a constructor of
// the program's (with it, the program could build a Buffer that owns, and on close frees, any
// address). Managed-memory methods reached through a swapped prototype are refused.
import { Device } from '@cumem/core-types';
import { check, checkRoundTrip, expectThrows, memory, setUp } from './support.mjs';

await setUp();
const mr = new memory.DeviceMemoryResource(0);
const buffer = mr.allocate(4096);
let leaked;
class Mine {
  constructor(token) {
    leaked = token;
  }
}
expectThrows(TypeError, 'fromHandle called on a class of the program', () =>
  memory.Buffer.fromHandle.call(Mine, buffer.handle, 64),
);
check(leaked === undefined, 'fromHandle handed no constructor of the program the token');

Object.setPrototypeOf(buffer, Mine.prototype);
const slice = memory.Buffer.prototype.slice.call(buffer, 0, 64);
check(leaked === undefined, 'slice() of a buffer with the program prototype called no constructor of it');
check(Object.getPrototypeOf(slice) === memory.Buffer.prototype, 'the slice is a Buffer');
Object.defineProperty(buffer, 'constructor', { value: Mine });
memory.Buffer.prototype.slice.call(buffer, 64, 64).close();
check(leaked === undefined, 'nor an own constructor property');
Object.setPrototypeOf(buffer, memory.ManagedBuffer.prototype);
expectThrows(TypeError, 'prefetch of device memory through a ManagedBuffer prototype', () =>
  buffer.prefetch(new Device(0)),
);
expectThrows(TypeError, 'readMostly of device memory through a ManagedBuffer prototype', () => {
  buffer.readMostly = true;
});
Object.setPrototypeOf(buffer, memory.Buffer.prototype);

// A virtual allocation's buffer given Buffer's own prototype still records its slices with the
// resource, so a shrink below one is refused instead of unmapping memory the slice still names.
const vmr = new memory.VirtualMemoryResource(0, { reserveSize: 0 });
const g = vmr.granularity;
const { buffer: grown } = vmr.modifyAllocation(vmr.allocate(g), 4 * g);
// Its class (not exported, reachable through the prototype) makes no wrappers: a VirtualBuffer
// outside the resource's records would slice memory no shrink check knows of.
const VirtualClass = Object.getPrototypeOf(grown).constructor;
expectThrows(TypeError, 'fromHandle called on the VirtualBuffer class', () =>
  VirtualClass.fromHandle(grown.handle, 64),
);
Object.setPrototypeOf(grown, memory.Buffer.prototype);
const tail = grown.slice(3 * g, 64);
expectThrows(memory.CudaStateError, 'a shrink below a slice taken through Buffer.prototype', () =>
  vmr.modifyAllocation(grown, g),
);
checkRoundTrip(tail, 0x5a, 'the slice still holds its memory after the refusal');
tail.close();
grown.close();
vmr.close();
slice.close();
buffer.close();
mr.close();
