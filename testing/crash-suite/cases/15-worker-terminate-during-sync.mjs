// Class 5: worker.terminate() while the worker awaits stream.syncAsync(): the main process
// survives, and keeps using the driver correctly (ordered waits, intact bytes).
import { Worker } from 'node:worker_threads';
import { check, checkRoundTrip, collectGarbage, memory, setUp } from './support.mjs';

process.env.FAKE_CUDA_SYNC_US = '20000'; // the fake's synchronisation takes long enough to be caught mid-way
await setUp();
for (let round = 0; round < 4; round++) {
  const worker = new Worker(new URL('./workers/sync-loop.mjs', import.meta.url));
  await new Promise((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
  await new Promise((resolve) => setTimeout(resolve, 5 + round * 7));
  await worker.terminate();
}
await collectGarbage();
await new Promise((resolve) => setTimeout(resolve, 100));
// The safe outcome: the main thread's driver state is intact. Its streams order work, its waits
// resolve after that work, and its buffers hold their bytes.
const stream = memory.Stream.create(0);
const mr = new memory.LegacyPinnedMemoryResource();
const buffer = mr.allocate(1 << 20, { stream });
for (let round = 0; round < 3; round++) {
  buffer.fill(0x40 + round, { stream });
  await stream.syncAsync();
  const view = buffer.hostView();
  check(
    view.every((byte) => byte === 0x40 + round),
    `round ${round}: syncAsync resolved before the fill it follows had finished`,
  );
}
checkRoundTrip(buffer, 0x5a, 'a buffer allocated after the terminations keeps its bytes', stream);
buffer.close({ stream });
stream.close();
mr.close();
