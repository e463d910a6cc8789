// The worker of case 15: waits on stream.syncAsync() in a loop until it is terminated.
import { parentPort } from 'node:worker_threads';
import { memory, setUp } from '../support.mjs';

await setUp();
const stream = memory.Stream.create(0);
parentPort.postMessage('ready');
for (;;) await stream.syncAsync();
