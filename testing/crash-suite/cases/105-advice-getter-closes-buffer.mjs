// Issue 45, item 5: advise / prefetch / discard / discardPrefetch and the *Batch forms read every
// argument once before checking, and check the buffers last, right before the driver. A getter
// among the locations (or the options, or a later target) that closes the first buffer and
// allocates another — on the hostile fake at the freed address — must find the closed buffer
// refused: discardPrefetch must not destroy the new buffer's bytes.
import { CudaStateError } from '@cumem/core-types';
import {
  advise,
  discard,
  discardPrefetch,
  discardPrefetchBatch,
  prefetch,
  prefetchBatch,
} from '@cumem/utils';
import { check, expectThrows, memory, setUp } from './support.mjs';

const { driver } = await setUp();
const mr = new memory.ManagedMemoryResource();
const device = new memory.Device(0);
const host = new memory.Host();
const stream = memory.Stream.create(0);
const size = 64 * 1024;

/** Runs `call(buffers, hook)`; the hook closes buffers[0] and allocates a replacement of 7s. */
function closedByHook(what, call) {
  const buffers = [mr.allocate(size), mr.allocate(size)];
  let replacement;
  const hook = () => {
    if (replacement !== undefined) return;
    buffers[0].close();
    replacement = mr.allocate(size);
    replacement.fill(7);
  };
  expectThrows(CudaStateError, what, () => call(buffers, hook));
  check(replacement !== undefined, `${what}: the getter ran`);
  stream.sync();
  const bytes = new Uint8Array(size);
  replacement.copyTo(bytes);
  check(
    bytes.every((byte) => byte === 7),
    `${what}: the buffer allocated in the getter${replacement.handle === buffers[0].handle ? ' at the freed address' : ''} lost its bytes`,
  );
  replacement.close();
  buffers[1].close();
}

function locations(hook, first, second) {
  const list = [first, second];
  Object.defineProperty(list, 0, {
    get() {
      hook();
      return first;
    },
  });
  return list;
}

function targetsWithGetter(buffers, hook) {
  const list = [...buffers];
  Object.defineProperty(list, 1, {
    get() {
      hook();
      return buffers[1];
    },
  });
  return list;
}

const batch = driver.capabilities.batchPrefetchDiscard;
closedByHook('discardPrefetch, locations getter', (buffers, hook) =>
  discardPrefetch(buffers, locations(hook, device, host), { stream }),
);
closedByHook('prefetch, locations getter', (buffers, hook) =>
  prefetch(buffers, locations(hook, host, device), { stream }),
);
closedByHook('prefetchBatch, locations getter', (buffers, hook) =>
  prefetchBatch(stream, buffers, locations(hook, device, device)),
);
closedByHook('discardPrefetchBatch, locations getter', (buffers, hook) =>
  discardPrefetchBatch(stream, buffers, locations(hook, device, device)),
);
closedByHook('discardPrefetch, target getter', (buffers, hook) =>
  discardPrefetch(targetsWithGetter(buffers, hook), device, { stream }),
);
closedByHook('advise, target getter', (buffers, hook) =>
  advise(targetsWithGetter(buffers, hook), 'setPreferredLocation', device),
);
if (batch) {
  closedByHook('discard, options getter', (buffers, hook) =>
    discard(buffers, {
      get stream() {
        hook();
        return stream;
      },
    }),
  );
}
stream.close();
