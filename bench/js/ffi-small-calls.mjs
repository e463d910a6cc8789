// Where the FFI adapter's time goes on the two small-call rows the issue holds to 1.3x C
// (memory.deviceAllocateClose4KiB and memory.readMostlySet): a bare koffi call of the same C
// functions (the floor koffi imposes), the adapter's contract call, and the @cumem/memory
// operation, all against a fake libcuda whose functions do almost nothing, so what is left is
// the cost of each layer. Build the fake first: node testing/fake-libcuda/build.mjs /tmp/fakelib
//   node bench/js/ffi-small-calls.mjs /tmp/fakelib/libcuda.so.1 (after pnpm build)
// CPU time, best of interleaved rounds (the machines these run on are shared).
import { createRequire } from 'node:module';
import { MemLocationType } from '@cumem/core-types';
import { createDriver } from '@cumem/driver-ffi';
import * as memory from '@cumem/memory';

const path = process.argv[2] ?? '/tmp/fakelib/libcuda.so.1';
const koffi = createRequire(import.meta.url)('koffi');
const driver = createDriver({ libraryPath: path });
memory.useDriver(driver);
driver.contextSetCurrent(driver.primaryContextRetain(0));

const library = koffi.load(path);
const bareAlloc = library.func('cuMemAllocFromPoolAsync', 'int', [
  'uintptr_t',
  'size_t',
  'uint64_t',
  'uint64_t',
]);
const bareFree = library.func('cuMemFreeAsync', 'int', ['uint64_t', 'uint64_t']);
const bareAdvise = library.func('cuMemAdvise_v2', 'int', ['uint64_t', 'size_t', 'int', 'uint64_t']);
const bareNothing = library.func('cuCtxGetDevice', 'int', ['uintptr_t']);
const slotPointer = koffi.alloc('uint64_t', 1);
const slot = Number(koffi.address(slotPointer));
const slotView = new BigUint64Array(koffi.view(slotPointer, 8));

const pool = driver.deviceGetMemPool(0);
const stream = memory.Stream.create(new memory.Device(0), { nonBlocking: true });
const onStream = { stream };
const handle = stream.handle;
const poolNumber = Number(pool);
const streamNumber = Number(handle);
const resource = new memory.DeviceMemoryResource(0);
const managedBuffer = new memory.ManagedMemoryResource().allocate(2 * 1024 * 1024, onStream);
const managed = managedBuffer.handle;
const managedNumber = Number(managed);
const device0 = { type: MemLocationType.Device, id: 0 };
let flip = false;

const bodies = {
  bareCall: () => bareNothing(slot),
  bareAllocFree: () => {
    bareAlloc(slot, 4096, poolNumber, streamNumber);
    bareFree(Number(slotView[0]), streamNumber);
  },
  driverAllocFree: () => driver.memFreeAsync(driver.memAllocFromPoolAsync(4096, pool, handle), handle),
  memoryAllocateClose: () => resource.allocate(4096, onStream).close(onStream),
  bareAdvise: () => {
    flip = !flip;
    bareAdvise(managedNumber, 2097152, flip ? 1 : 2, 0);
  },
  driverAdvise: () => {
    flip = !flip;
    driver.memAdvise(managed, 2097152, flip ? 1 : 2, device0);
  },
  memoryReadMostly: () => {
    flip = !flip;
    managedBuffer.readMostly = flip;
  },
};

const calls = 50_000;
const best = {};
for (const [name, body] of Object.entries(bodies)) {
  for (let i = 0; i < 20_000; i++) body();
  best[name] = Number.POSITIVE_INFINITY;
}
for (let round = 0; round < 11; round++) {
  for (const [name, body] of Object.entries(bodies)) {
    const start = process.cpuUsage();
    for (let i = 0; i < calls; i++) body();
    const used = process.cpuUsage(start);
    best[name] = Math.min(best[name], ((used.user + used.system) * 1000) / calls);
  }
  stream.sync();
}
for (const [name, value] of Object.entries(best))
  console.log(`${name.padEnd(22)} ${value.toFixed(0).padStart(6)} ns`);
