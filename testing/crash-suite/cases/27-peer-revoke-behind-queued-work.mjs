// Class 10 (issue 21): taking a pool's peer access away while a copy that reads the pool from
// the other device is still queued behind other work. Before the fix the revocation returned at
// once, the copy faulted and every later call failed with CUDA_ERROR_LAUNCH_FAILED (the context
// was lost for the process). Now the revocation waits for the queued work: the bytes arrive and
// both devices still work, with every way to revoke (assignment, delete, clear).
// needs: devices2
import { check, checkRoundTrip, memory, setUp } from './support.mjs';

const { onFake, name } = await setUp();
if (!memory.canAccessPeer(1, 0)) {
  // Peer access cannot be granted between these devices, so there is none to revoke.
  console.log('device 1 cannot access device 0: nothing to revoke');
  process.exit(0);
}
const MiB = 1024 * 1024;
const size = (onFake || name === 'reference' ? 4 : 256) * MiB;
const filler = (onFake || name === 'reference' ? 1 : 512) * MiB;
const owner = new memory.DeviceMemoryResource(0, {});
const remote = new memory.DeviceMemoryResource(1, {});
const stream = memory.Stream.create(1);
const source = owner.allocate(size);
const scratch = [remote.allocate(filler, { stream }), remote.allocate(filler, { stream })];
const revocations = [
  () => {
    owner.peerAccessibleBy = [];
  },
  () => owner.peerAccessibleBy.delete(1),
  () => owner.peerAccessibleBy.clear(),
];
for (const [round, revoke] of revocations.entries()) {
  const pattern = new Uint8Array(size);
  for (let index = 0; index < size; index += 4096) pattern[index] = (index / 4096 + round) & 255;
  source.copyFrom(pattern);
  owner.peerAccessibleBy = [1];
  // Work the peer copy waits behind on device 1, then the copy that reads device 0's pool.
  for (let i = 0; i < 8; i++) scratch[i % 2].copyFrom(scratch[(i + 1) % 2], { stream });
  const landing = remote.allocate(size, { stream });
  landing.copyFrom(source, { stream });
  revoke();
  // (The fake libcuda answers read-write to every cuMemPoolGetAccess: nothing to read back there.)
  if (!onFake) check(!owner.peerAccessibleBy.has(1), `revocation ${round} took effect`);
  stream.sync();
  const back = new Uint8Array(size);
  landing.copyTo(back, { stream });
  stream.sync();
  check(Buffer.from(back).equals(Buffer.from(pattern)), `the queued copy of round ${round} arrived intact`);
  landing.close({ stream });
}
// Both contexts still work.
for (const mr of [owner, remote]) {
  const probe = mr.allocate(4096);
  checkRoundTrip(probe, 0x5a, `device ${mr.deviceId} still works`);
  probe.close();
}
for (const buffer of scratch) buffer.close({ stream });
source.close();
stream.sync();
stream.close();
owner.close();
remote.close();
