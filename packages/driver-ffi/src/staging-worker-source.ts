// The program each staging worker thread runs (a CommonJS script, started with `eval: true` so
// it needs no file next to the compiled adapter). It loads koffi and the same libcuda, binds the
// nine entry points it uses, and waits on shared memory for jobs: one contiguous slice of a
// copy, moved through two page-locked chunks of its own, exactly as the N-API engine's threads
// do (staging-engine.cc). JS memory is reached by address: the caller blocks until every
// worker is done, so the memory cannot move or be freed meanwhile.
//
// Shared layout (staging-engine.ts): control Int32Array [generation, done, ..., ready of worker
// w at 8 + w];
// per worker w, job BigUint64Array at 8 * w: [kind (0 to host, 1 to device, 2 release), host,
// device, begin, end, chunkBytes, context, generation], result Int32Array at 64 + 2 * w: [CUresult, index of the failing call].

/** The worker's source text. */
export const stagingWorkerSource = `
'use strict';
const { workerData } = require('node:worker_threads');
const { control, jobs, results, index } = workerData;
const controls = new Int32Array(control);
const READY = 8 + index; // 1 once bound, -1 when this worker cannot run
let koffi;
let cu;
try {
  koffi = require(workerData.koffiPath);
  const lib = koffi.load(workerData.libraryPath);
  cu = {
  cuCtxSetCurrent: lib.func('int cuCtxSetCurrent(uintptr_t)'),
  cuStreamCreate: lib.func('int cuStreamCreateWithPriority(void *, unsigned int, int)'),
  cuMemHostAlloc: lib.func('int cuMemHostAlloc(void *, size_t, unsigned int)'),
  cuMemFreeHost: lib.func('int cuMemFreeHost(uintptr_t)'),
  cuEventCreate: lib.func('int cuEventCreate(void *, unsigned int)'),
  cuEventRecord: lib.func('int cuEventRecord(uintptr_t, uintptr_t)'),
  cuEventSynchronize: lib.func('int cuEventSynchronize(uintptr_t)'),
  cuMemcpyHtoDAsync: lib.func('int cuMemcpyHtoDAsync_v2(uint64_t, uintptr_t, size_t, uintptr_t)'),
  cuMemcpyDtoHAsync: lib.func('int cuMemcpyDtoHAsync_v2(uintptr_t, uint64_t, size_t, uintptr_t)'),
  cuStreamSynchronize: lib.func('int cuStreamSynchronize(uintptr_t)'),
  cuStreamDestroy: lib.func('int cuStreamDestroy_v2(uintptr_t)'),
  cuEventDestroy: lib.func('int cuEventDestroy_v2(uintptr_t)'),
  };
  Atomics.store(controls, READY, 1);
} catch (error) {
  Atomics.store(controls, READY, -1);
  Atomics.notify(controls, READY);
  throw error;
}
Atomics.notify(controls, READY);
const CALLS = ['cuCtxSetCurrent', 'cuStreamCreate', 'cuMemHostAlloc', 'cuEventCreate', 'cuEventRecord',
  'cuEventSynchronize', 'cuMemcpyHtoDAsync', 'cuMemcpyDtoHAsync', 'cuStreamSynchronize'];
const slot = new BigUint64Array(1);
const pointerSlot = new BigUint64Array(1);
function view(address, size) {
  pointerSlot[0] = BigInt(address);
  return new Uint8Array(koffi.view(koffi.decode(pointerSlot, 'void *'), size));
}
let kept = { context: 0, chunkBytes: 0, stream: 0, chunks: [], views: [], events: [] };
class Failure { constructor(result, call) { this.result = result; this.call = call; } }
function ck(result, call) { if (result !== 0) throw new Failure(result, CALLS.indexOf(call)); }
function out(call, ...args) { ck(cu[call](slot, ...args), call); return Number(slot[0]); }
// Frees what the worker keeps, with its context current. Only ever while that context lives:
// a chunk of a destroyed context is unmapped, and its address may already be someone else's.
// The engine has every worker release before a primary context loses a reference (its last
// one resets the context, freeing the chunks, while the next retain returns the same handle).
function release() {
  if (kept.stream !== 0 && cu.cuCtxSetCurrent(kept.context) === 0) {
    cu.cuStreamSynchronize(kept.stream);
    for (const event of kept.events) cu.cuEventDestroy(event);
    for (const chunk of kept.chunks) cu.cuMemFreeHost(chunk);
    cu.cuStreamDestroy(kept.stream);
  }
  kept = { context: 0, chunkBytes: 0, stream: 0, chunks: [], views: [], events: [] };
}
function prepare(context, chunkBytes) {
  if (kept.stream !== 0 && (kept.context !== context || kept.chunkBytes !== chunkBytes)) release();
  ck(cu.cuCtxSetCurrent(context), 'cuCtxSetCurrent');
  if (kept.stream !== 0) return;
  kept = { context, chunkBytes, stream: 0, chunks: [], views: [], events: [] };
  try {
    kept.stream = out('cuStreamCreate', 1, 0);
    for (let k = 0; k < 2; k++) {
      const chunk = out('cuMemHostAlloc', chunkBytes, 0);
      kept.chunks.push(chunk);
      kept.views.push(view(chunk, chunkBytes));
      kept.events.push(out('cuEventCreate', 2));
    }
  } catch (error) {
    release(); // never half a set of resources: the next job makes them again
    throw error;
  }
}
function toDevice(host, device, begin, end, chunkBytes) {
  const pending = [false, false];
  for (let offset = begin, k = 0; offset < end; offset += chunkBytes, k ^= 1) {
    const n = Math.min(chunkBytes, end - offset);
    if (pending[k]) ck(cu.cuEventSynchronize(kept.events[k]), 'cuEventSynchronize');
    kept.views[k].set(view(host + offset, n));
    ck(cu.cuMemcpyHtoDAsync(BigInt(device) + BigInt(offset), kept.chunks[k], n, kept.stream), 'cuMemcpyHtoDAsync');
    ck(cu.cuEventRecord(kept.events[k], kept.stream), 'cuEventRecord');
    pending[k] = true;
  }
}
function toHost(host, device, begin, end, chunkBytes) {
  const offsets = [0, 0];
  const sizes = [0, 0];
  const drain = (p) => {
    ck(cu.cuEventSynchronize(kept.events[p]), 'cuEventSynchronize');
    view(host + offsets[p], sizes[p]).set(kept.views[p].subarray(0, sizes[p]));
    sizes[p] = 0;
  };
  let k = 0;
  for (let offset = begin; offset < end; offset += chunkBytes, k ^= 1) {
    const n = Math.min(chunkBytes, end - offset);
    ck(cu.cuMemcpyDtoHAsync(kept.chunks[k], BigInt(device) + BigInt(offset), n, kept.stream), 'cuMemcpyDtoHAsync');
    ck(cu.cuEventRecord(kept.events[k], kept.stream), 'cuEventRecord');
    offsets[k] = offset;
    sizes[k] = n;
    if (sizes[k ^ 1] !== 0) drain(k ^ 1);
  }
  for (const p of [k, k ^ 1]) if (sizes[p] !== 0) drain(p);
}
const job = new BigUint64Array(jobs, 8 * 8 * index, 8);
const result = new Int32Array(results, 8 * index, 2);
let seen = 0; // a worker that starts late still finds the job posted before it ran
for (;;) {
  Atomics.wait(controls, 0, seen);
  const generation = Atomics.load(controls, 0);
  if (generation === seen) continue;
  seen = generation;
  if (job[7] !== BigInt(generation)) continue; // not this worker's turn
  const [direction, host, device, begin, end, chunkBytes, context] = Array.from(job.subarray(0, 7), Number);
  result[0] = 0;
  result[1] = -1;
  if (direction >= 2) { // 2: release what is kept in \`context\`; 3: nothing for this worker
    if (direction === 2 && kept.context === context) release();
    Atomics.add(controls, 1, 1);
    Atomics.notify(controls, 1);
    continue;
  }
  try {
    prepare(context, chunkBytes);
    try {
      if (direction === 1) toDevice(host, device, begin, end, chunkBytes);
      else toHost(host, device, begin, end, chunkBytes);
    } finally {
      // Nothing may stay in flight on the chunks or the caller's memory, even after a failure.
      const synced = cu.cuStreamSynchronize(kept.stream);
      if (synced !== 0 && result[0] === 0) throw new Failure(synced, CALLS.indexOf('cuStreamSynchronize'));
    }
  } catch (error) {
    if (error instanceof Failure) {
      result[0] = error.result;
      result[1] = error.call;
    } else {
      result[0] = -1;
      result[1] = -1;
    }
  }
  Atomics.add(controls, 1, 1);
  Atomics.notify(controls, 1);
}
`;

/** Entry points named by a worker's failure index, in the order of `CALLS` above. */
export const stagingWorkerCalls = [
  'cuCtxSetCurrent',
  'cuStreamCreate',
  'cuMemHostAlloc',
  'cuEventCreate',
  'cuEventRecord',
  'cuEventSynchronize',
  'cuMemcpyHtoDAsync',
  'cuMemcpyDtoHAsync',
  'cuStreamSynchronize',
] as const;
