// Class 10 (issue 22): advise / prefetch / discard / discardPrefetch of @cumem/utils refuse
// hostile targets before the driver sees them: closed buffers (their address reused by a new
// allocation on the hostile fake), buffer-shaped objects claiming another allocation's range,
// non-managed memory, bad advice and mismatched locations. Nothing is discarded that the caller
// did not own: the live neighbour keeps its bytes.
import { CudaStateError, NotSupportedError } from '@cumem/core-types';
import { advise, discard, discardPrefetch, discardPrefetchBatch, prefetch } from '@cumem/utils';
import { check, expectThrows, memory, setUp } from './support.mjs';

const { driver } = await setUp();
const mr = new memory.ManagedMemoryResource();
const host = new memory.Host();
const device = new memory.Device(0);
const closed = mr.allocate(4096);
closed.close();
const live = mr.allocate(4096);
live.fill(0x5a);
const plain = new memory.DeviceMemoryResource(0).allocate(4096);
const stream = memory.Stream.create(0);

expectThrows(CudaStateError, 'prefetch(closed)', () => prefetch(closed, host, { stream }));
expectThrows(CudaStateError, 'discard([live, closed])', () => discard([live, closed], { stream }));
expectThrows(CudaStateError, 'advise([closed])', () => advise([closed], 'setReadMostly'));
const lying = { handle: live.handle, size: 1 << 30, isManaged: true, isClosed: false, owner: null };
expectThrows(TypeError, 'discard(lying object)', () => discard(lying, { stream }));
expectThrows(TypeError, 'discardPrefetch([lying])', () => discardPrefetch([lying], host, { stream }));
expectThrows(TypeError, 'discardPrefetchBatch(stream, [lying])', () =>
  discardPrefetchBatch(stream, [lying], host),
);
expectThrows(TypeError, 'prefetch(non-managed)', () => prefetch(plain, device, { stream }));
expectThrows(TypeError, 'advise(bad advice)', () => advise(live, 'setReadMostlyPlease'));
expectThrows(TypeError, 'advise(setAccessedBy, NUMA host)', () =>
  advise(live, 'setAccessedBy', new memory.Host({ numaId: 0 })),
);
expectThrows(TypeError, 'advise(setPreferredLocation) without a location', () =>
  advise(live, 'setPreferredLocation'),
);
expectThrows(RangeError, 'prefetch(2 buffers, 3 locations)', () =>
  prefetch([live, live], [host, host, device], { stream }),
);
if (!driver.capabilities.hostNumaLocations) {
  expectThrows(NotSupportedError, 'prefetch to a NUMA host without NUMA support', () =>
    prefetch(live, new memory.Host({ numaId: 0 }), { stream }),
  );
}
const stale = memory.Stream.create(0);
stale.close();
expectThrows(CudaStateError, 'prefetch on a closed stream', () => prefetch(live, host, { stream: stale }));

// A new allocation may take the closed buffer's address: the refusals above touched neither.
const reused = mr.allocate(4096);
reused.fill(0x11);
stream.sync();
const bytes = new Uint8Array(4096);
live.copyTo(bytes);
check(
  bytes.every((byte) => byte === 0x5a),
  'the live buffer lost its bytes',
);
reused.copyTo(bytes);
check(
  bytes.every((byte) => byte === 0x11),
  'the reused allocation lost its bytes',
);
for (const buffer of [live, reused, plain]) buffer.close();
stream.close();
