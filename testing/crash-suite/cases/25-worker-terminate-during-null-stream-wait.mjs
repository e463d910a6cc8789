// Class 5: worker.terminate() while the Worker awaits driver.streamSynchronizeAsync() on the NULL,
// legacy or per-thread stream (0n, 1n, 2n): the process survives and keeps waiting, and the wait
// leaves no driver object behind. (The FFI adapter recorded an event of its own for such a wait;
// a terminated Worker never destroyed it.) On the fake libcuda, whose queries stay busy for a
// while and which counts live events, the Worker is caught mid-wait and the count is checked.
import { createRequire } from 'node:module';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { check, memory, setUp } from './support.mjs';

process.env.FAKE_CUDA_BUSY_MS = '300'; // the FFI adapter's polls (per thread)
process.env.FAKE_CUDA_SYNC_US = '300000'; // the N-API adapter's thread-pool cuStreamSynchronize

if (!isMainThread) {
  const { driver } = await setUp();
  memory.setCurrentDevice(0); // device 0's context becomes this thread's current one
  const wait = driver.streamSynchronizeAsync(BigInt(workerData.handle));
  parentPort.postMessage('waiting');
  await wait;
  parentPort.postMessage('settled');
} else {
  const { driver, onFake } = await setUp();
  memory.setCurrentDevice(0);
  let liveEvents;
  if (onFake) {
    const koffi = createRequire(import.meta.resolve('@cumem/driver-ffi'))('koffi');
    liveEvents = koffi.load(process.env.CUMEM_CRASH_LIBCUDA).func('int fake_live_events(void)');
  }
  const before = liveEvents?.();
  for (const handle of [0n, 1n, 2n]) {
    const worker = new Worker(new URL(import.meta.url), { workerData: { handle: String(handle) } });
    let settled = false;
    worker.on('message', (message) => {
      if (message === 'settled') settled = true;
    });
    await new Promise((resolve, reject) => {
      worker.once('message', resolve);
      worker.once('error', reject);
    });
    const mainWait = driver.streamSynchronizeAsync(0n); // a wait of this thread's own meanwhile
    const exitCode = await worker.terminate();
    await mainWait;
    if (onFake) {
      check(!settled && exitCode === 1, `stream ${handle}: the Worker was not terminated mid-wait`);
    }
  }
  await driver.streamSynchronizeAsync(0n);
  if (liveEvents) {
    const after = liveEvents();
    check(after === before, `live events went from ${before} to ${after}: a terminated wait leaked`);
  }
}
