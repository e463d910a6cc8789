// An object's own properties rewritten or added: `stream.streamHandle = x` handed the driver a
// CUstream it never made (the hostile fake faults on one, as libcuda may), `mr.pool = x` a
// CUmemoryPool, a closed stream, event or pool resource whose `closed` was set back to false
// reached the driver after its destroy, and an own `launchFunctionOn` on a Kernel answered any
// CUfunction. Streams, events, kernels, programs, object code, the built-in memory resources
// and Arrow's context, writer and reader are now frozen with their state in private fields: every such write or definition is a TypeError, and
// the objects keep working with what the driver made; so is the runtime they share, whose state
// is out of reach. (Buffers: case 40.)
import { float32, LaunchConfig, launch, ObjectCode, Program, uint32 } from '@cumem/compute';
import { CudaStateError } from '@cumem/core-types';
import * as arrow from '@cumem/interop-arrow';
import { referenceKernelsPTX } from '@cumem/testing';
import { check, checkRoundTrip, expectThrows, memory, memoryInternal, setUp } from './support.mjs';

await setUp();
const bogus = 2n ** 64n - 1n;

/** Every way a program could rewrite or shadow `key` of `object`: each must throw. */
function refusesTampering(object, key, what) {
  expectThrows(TypeError, `${what}: assign ${key}`, () => {
    object[key] = bogus;
  });
  expectThrows(TypeError, `${what}: define ${key}`, () => {
    Object.defineProperty(object, key, { value: bogus });
  });
  expectThrows(TypeError, `${what}: define a getter for ${key}`, () => {
    Object.defineProperty(object, key, { get: () => bogus });
  });
  // An own property cannot be deleted; deleting a prototype member's name removes nothing.
  if (Object.hasOwn(object, key)) {
    expectThrows(TypeError, `${what}: delete ${key}`, () => {
      delete object[key];
    });
  }
}

const stream = memory.Stream.create(0);
for (const key of ['streamHandle', 'handle', 'runtime', 'ordinal', 'checkOpen', 'closed', 'isClosed'])
  refusesTampering(stream, key, 'stream');
expectThrows(TypeError, 'stream: swap its prototype', () => Object.setPrototypeOf(stream, {}));
const mr = new memory.DeviceMemoryResource(0);
const buffer = mr.allocate(4096, { stream });
checkRoundTrip(buffer, 7, 'the stream still works after the refused writes', stream);

const event = stream.record();
for (const key of ['eventHandle', 'open', 'closed', 'isClosed']) refusesTampering(event, key, 'event');
event.sync();
event.close();
expectThrows(CudaStateError, 'a closed event refuses a record', () => stream.record(event));

const closing = memory.Stream.create(0);
closing.close();
expectThrows(TypeError, 'a closed stream cannot be reopened', () => {
  closing.closed = false;
});
expectThrows(CudaStateError, 'a closed stream refuses sync', () => closing.sync());

// The runtime a stream, buffer or resource reaches (left out of the type declarations) held the
// default streams, the known streams that frees of dropped buffers wait on, the retained contexts
// and the mapped VMM ranges as writable own properties: `stream.runtime.defaultStreams[0] = x`
// handed the driver a CUstream it never made at the next call without a stream. Now it is frozen
// with that state unreachable, and every object shares it unchanged.
const runtime = stream.runtime;
check(Object.isFrozen(runtime), 'the runtime is frozen');
check(
  Object.keys(runtime).join() === 'driver',
  `the runtime's only own property is its driver (got ${Object.keys(runtime).join()})`,
);
for (const key of ['defaultStreams', 'knownStreams', 'contexts', 'virtualRanges', 'hostResources'])
  check(runtime[key] === undefined, `the runtime exposes no ${key}`);
for (const key of [
  'driver',
  'currentDevice',
  'makeCurrent',
  'bind',
  'context',
  'defaultStreams',
  'knownStreams',
])
  refusesTampering(runtime, key, 'the runtime');
check(
  memoryInternal.bufferState(buffer).runtime === runtime && mr.runtime === runtime,
  'buffers and resources share the one runtime',
);
const afterTampering = mr.allocate(4096);
checkRoundTrip(afterTampering, 9, "work on the device's default stream still works after the refused writes");
afterTampering.close();
expectThrows(CudaStateError, 'a closed stream refuses allocate', () => mr.allocate(64, { stream: closing }));

// Memory resources: a rewritten pool handed the driver a CUmemoryPool it never made, and a
// closed pool resource set back to open allocated from a destroyed pool.
const resources = [
  mr,
  new memory.PinnedMemoryResource(),
  new memory.ManagedMemoryResource(),
  new memory.VirtualMemoryResource(0),
];
for (const resource of resources) {
  const what = resource.constructor.name;
  for (const key of [
    'pool',
    'runtime',
    'handle',
    'allocate',
    'deallocate',
    'closed',
    'isClosed',
    'uuid',
    'settings',
  ])
    refusesTampering(resource, key, what);
  expectThrows(TypeError, `${what}: swap its prototype`, () => Object.setPrototypeOf(resource, {}));
  // Nor can its state be changed through an object it holds: a resource's live pointers (which
  // mr.deallocate trusts), a pool's imported pointers and queued frees, a VirtualMemoryResource's
  // records, settings, peers and the helper that made Buffers at any address were objects a
  // program could reach and rewrite. Every own property is now a primitive or a frozen object.
  for (const key of Object.getOwnPropertyNames(resource)) {
    const value = resource[key];
    check(
      value === null || (typeof value !== 'object' && typeof value !== 'function') || Object.isFrozen(value),
      `${what}.${key} is a primitive or frozen`,
    );
  }
}
refusesTampering(mr.peerAccessibleBy, 'resource', 'a pool peer-access view');
const managed = new memory.ManagedMemoryResource().allocate(4096);
refusesTampering(managed.accessedBy, 'advisor', 'a managed accessedBy view');
managed.close();
const registration = memory.registerHostMemory(new Uint8Array(8192));
refusesTampering(registration, 'pointer', 'a host registration');
registration.close();
if (memory.currentDriver().capabilities.interprocess) {
  // `handle.descriptor = 0` made close() close the process's stdin, which it never owned.
  const exporting = new memory.DeviceMemoryResource(0, { ipcEnabled: true });
  const handle = exporting.getAllocationHandle();
  refusesTampering(handle, 'descriptor', 'an IPC allocation handle');
  handle.close();
  exporting.close();
}
const closedPool = new memory.DeviceMemoryResource(0, {});
closedPool.close();
expectThrows(TypeError, 'a closed pool resource cannot be reopened', () => {
  closedPool.closed = false;
});
expectThrows(CudaStateError, 'a closed pool resource refuses allocate', () => closedPool.allocate(64));
// A subclass of the user's is the user's: left extensible.
class Mine extends memory.DeviceMemoryResource {}
const mine = new Mine(0, {});
check(Object.isExtensible(mine), 'a subclass of a built-in resource stays extensible');
mine.close();

// Arrow's context, its writer and reader, and compute's Program: no method can be shadowed.
const context = new arrow.Context(0);
refusesTampering(context, 'newBuffer', 'an Arrow context');
const cudaBuffer = context.newBuffer(64);
refusesTampering(new arrow.BufferWriter(cudaBuffer), 'write', 'a BufferWriter');
refusesTampering(new arrow.BufferReader(cudaBuffer), 'read', 'a BufferReader');
if (memory.currentDriver().capabilities.interprocess)
  refusesTampering(cudaBuffer.exportForIpc(), 'serialize', 'an IpcMemHandle');
cudaBuffer.close();
refusesTampering(new Program('extern "C" __global__ void k() {}', 'c++'), 'codeType', 'a Program');

const code = ObjectCode.fromPTX(referenceKernelsPTX);
refusesTampering(code, 'getKernel', 'object code');
refusesTampering(code, 'codeType', 'object code');
const fill = code.getKernel('fill_f32');
for (const key of ['launchFunctionOn', 'layout', 'driver', 'passedLimits', 'notePassedLimits', 'name'])
  refusesTampering(fill, key, 'kernel');
const out = mr.allocate(1024, { stream });
// The limits check that launch() skips for a repeat of the last config found within them cannot
// be marked passed from outside: an impossible geometry is still refused.
expectThrows(TypeError, 'kernel: mark a config as passed', () => {
  fill.passedConfig = new LaunchConfig({ grid: 1, block: 4096 });
});
check(
  fill.notePassedLimits === undefined && fill.passedLimits === undefined,
  'no method of a kernel marks a config as passed',
);
expectThrows(RangeError, 'a block past the device limit', () =>
  launch(stream, new LaunchConfig({ grid: 1, block: 4096 }), fill, out, float32(2), uint32(256)),
);

out.close();
buffer.close();
stream.close();
mr.close();
code.close();
console.log('tampered handles: every write refused, the objects kept working');
