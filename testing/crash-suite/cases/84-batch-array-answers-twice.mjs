// Issue 26: the batch operations check each element of a 1024-slice batch once per parent, not
// once per element and getter. An array that answers differently on a second read (a Proxy, for
// which Array.isArray is true, or an element getter) must not get an element past the checks
// and a different one into the driver: after its first read each element here turns into an
// imitation naming memory the program freed, which the hostile fake faults on at once. Every
// batch operation reads each element once, so the copies land from the real slices; a getter
// the checks run (a fromHandle owner's isClosed) that starts another batch does not disturb the
// outer one's ranges; and a parent such code closes while its slices are checked is refused
// before any copy.
import { CudaStateError } from '@cumem/core-types';
import { copyBatch, discardBatch, prefetchBatch } from '@cumem/utils';
import { check, expectThrows, memory, setUp } from './support.mjs';

await setUp();
const RANGES = 1024;
const BYTES = 256;
const mr = new memory.DeviceMemoryResource(0);
const stream = memory.Stream.create(0);
const freed = mr.allocate(RANGES * BYTES);
const freedHandle = freed.handle;
freed.close();
stream.sync();
memory.defaultStream(0).sync();

const imitation = { handle: freedHandle, size: BYTES, deviceId: 0, isClosed: false, isManaged: true };
/** `buffers` behind a Proxy whose elements turn into the imitation after their first read. */
function answersTwice(buffers) {
  const reads = new Map();
  return new Proxy(buffers, {
    get(array, key, receiver) {
      if (typeof key === 'string' && /^\d+$/.test(key)) {
        reads.set(key, (reads.get(key) ?? 0) + 1);
        if (reads.get(key) > 1) return imitation;
      }
      return Reflect.get(array, key, receiver);
    },
  });
}
const slices = (buffer) => Array.from({ length: RANGES }, (_, i) => buffer.slice(i * BYTES, BYTES));

const source = mr.allocate(RANGES * BYTES);
const target = mr.allocate(RANGES * BYTES);
source.fill(0x3c, { stream });
target.fill(0, { stream });
for (const strategy of ['batch', 'loop']) {
  copyBatch(stream, answersTwice(slices(target)), answersTwice(slices(source)), undefined, { strategy });
}
stream.sync();
const bytes = new Uint8Array(RANGES * BYTES);
target.copyTo(bytes);
check(
  bytes.every((byte) => byte === 0x3c),
  'every range copied from the checked slices',
);

const managed = new memory.ManagedMemoryResource().allocate(RANGES * BYTES, { stream });
const device = new memory.Device(0);
for (const strategy of ['batch', 'loop']) {
  prefetchBatch(stream, answersTwice(slices(managed)), device, { strategy });
}
if (memory.currentDriver().capabilities.batchPrefetchDiscard)
  discardBatch(stream, answersTwice(slices(managed)));
stream.sync();

// A Proxy's trap closes the parent while its slices are checked: the slices before were taken
// with it open, the rest share their run. The parent's memory is freed: nothing may be copied.
const doomed = mr.allocate(RANGES * BYTES);
const closing = new Proxy(slices(doomed), {
  get(array, key, receiver) {
    if (key === '5') doomed.close();
    return Reflect.get(array, key, receiver);
  },
});
expectThrows(CudaStateError, 'copyBatch from slices of a parent closed during the checks', () =>
  copyBatch(stream, slices(target), closing),
);
stream.sync();

// A getter the checks run starts another copyBatch while the outer one records its ranges.
let armed = false;
const owner = {
  get isClosed() {
    if (armed) {
      armed = false;
      copyBatch(stream, slices(target).slice(0, 8), slices(source).slice(0, 8));
    }
    return false;
  },
};
const wrapped = memory.Buffer.fromHandle(source.handle, BYTES, { owner });
target.fill(0, { stream });
stream.sync();
armed = true;
const srcs = slices(source);
srcs[600] = wrapped;
copyBatch(stream, slices(target), srcs);
stream.sync();
target.copyTo(bytes);
check(
  bytes.every((byte) => byte === 0x3c),
  'the outer and the re-entered copies both landed',
);
wrapped.close();
for (const buffer of [source, target, managed]) buffer.close();
stream.close();
