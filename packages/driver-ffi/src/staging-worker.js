// @ts-check
// The program of each staging worker thread of the FFI adapter (staging-engine.ts starts it).
// It loads koffi and the same libcuda, binds the entry points the engine names (with the
// signatures of driver-kit's entry-point table), and waits on shared memory for jobs: one
// contiguous slice of a copy, moved through two page-locked chunks of its own, as the N-API
// engine's threads do (native/staging-engine.cc). JS memory is reached by address: the caller
// blocks until every worker is done, so that memory cannot move or be freed meanwhile.
// Plain JavaScript, type-checked by tsc (checkJs), so Node runs this file as it is, from src/ and
// from dist/. It imports nothing of the package: the shared layout (staging-protocol.ts) comes
// in its workerData.
import { createRequire } from 'node:module';
import { workerData } from 'node:worker_threads';

/** @typedef {(...args: (number | bigint)[]) => number} Bound */
/** @typedef {import('./staging-protocol.js').WorkerEntryPoint} EntryPoint */
/** @typedef {{ context: number, chunkBytes: number, stream: number, chunks: number[], views: Uint8Array[], events: number[] }} Kept */

const data = /** @type {import('./staging-protocol.js').StagingWorkerData} */ (workerData);
const { jobKind: JobKind, jobWords: JOB_WORDS, readyAt: READY_AT, resultWords: RESULT_WORDS } = data;
const controls = new Int32Array(data.control);
const ready = READY_AT + data.index;

/** @type {typeof import('koffi')} */
let koffi;
/** @type {Map<string, Bound>} */
let bound;
try {
  koffi = createRequire(import.meta.url)('koffi');
  const library = koffi.load(data.libraryPath);
  bound = new Map(
    data.entryPoints.map(({ symbol, parameters }) => [symbol, library.func(symbol, 'int', [...parameters])]),
  );
} catch (error) {
  Atomics.store(controls, ready, -1);
  Atomics.notify(controls, ready);
  throw error;
}
Atomics.store(controls, ready, 1);
Atomics.notify(controls, ready);

/** Calls the entry point `symbol` with `args`; returns its CUresult. */
const cu = (/** @type {EntryPoint} */ symbol, /** @type {(number | bigint)[]} */ ...args) =>
  /** @type {Bound} */ (bound.get(symbol))(...args);

// One 8-byte output slot of native memory, for the entry points' out-parameters.
const slotPointer = koffi.alloc('uint64_t', 1);
const slotAddress = Number(koffi.address(slotPointer));
const slot = new BigUint64Array(koffi.view(slotPointer, 8));
const pointerSlot = new BigUint64Array(1);

/** The `size` bytes of native memory at `address`. */
function view(/** @type {number} */ address, /** @type {number} */ size) {
  pointerSlot[0] = BigInt(address);
  return new Uint8Array(koffi.view(koffi.decode(pointerSlot, 'void *'), size));
}

/** A driver call that failed: its CUresult, and its index in the entry points (what the engine reads). */
class Failure {
  constructor(/** @type {number} */ result, /** @type {EntryPoint} */ symbol) {
    this.result = result;
    this.call = data.entryPoints.findIndex((entry) => entry.symbol === symbol);
  }
}

/** Calls `call`; throws a Failure unless it succeeds. */
function check(/** @type {EntryPoint} */ call, /** @type {(number | bigint)[]} */ ...args) {
  const result = cu(call, ...args);
  if (result !== 0) throw new Failure(result, call);
}

/** Calls `call` with the output slot first; returns what the driver wrote there. */
function output(/** @type {EntryPoint} */ call, /** @type {(number | bigint)[]} */ ...args) {
  check(call, slotAddress, ...args);
  return Number(slot[0]);
}

/** @returns {Kept} */
const nothingKept = () => ({ context: 0, chunkBytes: 0, stream: 0, chunks: [], views: [], events: [] });
let kept = nothingKept();

// Frees what the worker keeps, with its context current. Only ever while that context lives:
// a chunk of a destroyed context is unmapped, and its address may already be someone else's.
// The engine has every worker release before a primary context loses a reference (its last
// one resets the context, freeing the chunks, while the next retain returns the same handle).
function release() {
  if (kept.stream !== 0 && cu('cuCtxSetCurrent', kept.context) === 0) {
    cu('cuStreamSynchronize', kept.stream);
    for (const event of kept.events) cu('cuEventDestroy_v2', event);
    for (const chunk of kept.chunks) cu('cuMemFreeHost', chunk);
    cu('cuStreamDestroy_v2', kept.stream);
  }
  kept = nothingKept();
}

/** Makes `context` current and the stream, chunks and events of `chunkBytes` ready. */
function prepare(/** @type {number} */ context, /** @type {number} */ chunkBytes) {
  if (kept.stream !== 0 && (kept.context !== context || kept.chunkBytes !== chunkBytes)) release();
  check('cuCtxSetCurrent', context);
  if (kept.stream !== 0) return;
  kept = { ...nothingKept(), context, chunkBytes };
  try {
    kept.stream = output('cuStreamCreateWithPriority', 1, 0); // CU_STREAM_NON_BLOCKING, priority 0
    for (let k = 0; k < 2; k++) {
      const chunk = output('cuMemHostAlloc', chunkBytes, 0);
      kept.chunks.push(chunk);
      kept.views.push(view(chunk, chunkBytes));
      kept.events.push(output('cuEventCreate', 2)); // CU_EVENT_DISABLE_TIMING
    }
  } catch (error) {
    release(); // never half a set of resources: the next job makes them again
    throw error;
  }
}

/** Bytes [begin, end) of the host memory at `host` to `device`, through the two chunks in turn. */
function toDevice(
  /** @type {number} */ host,
  /** @type {number} */ device,
  /** @type {number} */ begin,
  /** @type {number} */ end,
  /** @type {number} */ chunkBytes,
) {
  const pending = [false, false];
  for (let offset = begin, k = 0; offset < end; offset += chunkBytes, k ^= 1) {
    const n = Math.min(chunkBytes, end - offset);
    const chunk = /** @type {number} */ (kept.chunks[k]);
    const event = /** @type {number} */ (kept.events[k]);
    if (pending[k]) check('cuEventSynchronize', event);
    /** @type {Uint8Array} */ (kept.views[k]).set(view(host + offset, n));
    check('cuMemcpyHtoDAsync_v2', BigInt(device) + BigInt(offset), chunk, n, kept.stream);
    check('cuEventRecord', event, kept.stream);
    pending[k] = true;
  }
}

/** Bytes [begin, end) of `device` to the host memory at `host`: a chunk drains while the other fills. */
function toHost(
  /** @type {number} */ host,
  /** @type {number} */ device,
  /** @type {number} */ begin,
  /** @type {number} */ end,
  /** @type {number} */ chunkBytes,
) {
  const offsets = [0, 0];
  const sizes = [0, 0];
  const drain = (/** @type {number} */ p) => {
    const size = /** @type {number} */ (sizes[p]);
    check('cuEventSynchronize', /** @type {number} */ (kept.events[p]));
    view(host + /** @type {number} */ (offsets[p]), size).set(
      /** @type {Uint8Array} */ (kept.views[p]).subarray(0, size),
    );
    sizes[p] = 0;
  };
  let k = 0;
  for (let offset = begin; offset < end; offset += chunkBytes, k ^= 1) {
    const n = Math.min(chunkBytes, end - offset);
    check(
      'cuMemcpyDtoHAsync_v2',
      /** @type {number} */ (kept.chunks[k]),
      BigInt(device) + BigInt(offset),
      n,
      kept.stream,
    );
    check('cuEventRecord', /** @type {number} */ (kept.events[k]), kept.stream);
    offsets[k] = offset;
    sizes[k] = n;
    if (sizes[k ^ 1] !== 0) drain(k ^ 1);
  }
  for (const p of [k, k ^ 1]) if (sizes[p] !== 0) drain(p);
}

/** Writes the outcome of a failed job: a driver call's Failure, or -1 for anything else. */
function report(/** @type {unknown} */ error, /** @type {Int32Array} */ result) {
  result[0] = error instanceof Failure ? error.result : -1;
  result[1] = error instanceof Failure ? error.call : -1;
}

/** Runs one copy job; a failure goes to `result` (the first one, as in the N-API engine). */
function copy(/** @type {number[]} */ fields, /** @type {Int32Array} */ result) {
  const [kind, host, device, begin, end, chunkBytes, context] =
    /** @type {[number, number, number, number, number, number, number]} */ (fields);
  try {
    prepare(context, chunkBytes);
  } catch (error) {
    report(error, result);
    return;
  }
  /** @type {unknown} */
  let failure;
  try {
    if (kind === JobKind.ToDevice) toDevice(host, device, begin, end, chunkBytes);
    else toHost(host, device, begin, end, chunkBytes);
  } catch (error) {
    failure = error;
  }
  // Nothing may stay in flight on the chunks or the caller's memory, even after a failure.
  const synced = cu('cuStreamSynchronize', kept.stream);
  if (failure === undefined && synced !== 0) failure = new Failure(synced, 'cuStreamSynchronize');
  if (failure !== undefined) report(failure, result);
}

const job = new BigUint64Array(data.jobs, 8 * JOB_WORDS * data.index, JOB_WORDS);
const result = new Int32Array(data.results, 4 * RESULT_WORDS * data.index, RESULT_WORDS);
let seen = 0; // a worker that starts late still finds the job posted before it ran
for (;;) {
  Atomics.wait(controls, 0, seen);
  const generation = Atomics.load(controls, 0);
  if (generation === seen) continue;
  seen = generation;
  if (job[7] !== BigInt(generation)) continue; // not this worker's turn
  const fields = Array.from(job.subarray(0, 7), Number);
  result[0] = 0;
  result[1] = -1;
  if (fields[0] === JobKind.Release) {
    if (kept.context === fields[6]) release();
  } else if (fields[0] !== JobKind.Skip) {
    copy(fields, result);
  }
  Atomics.add(controls, 1, 1);
  Atomics.notify(controls, 1);
}
