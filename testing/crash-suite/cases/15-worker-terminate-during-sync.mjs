// Class 5: worker.terminate() while the worker awaits stream.syncAsync(): the main process
// survives, and keeps using the driver.
import { Worker } from 'node:worker_threads';
import { check, collectGarbage, memory, setUp } from './support.mjs';

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
const stream = memory.Stream.create(0);
await stream.syncAsync();
stream.close();
check(true, 'the main process survived');
