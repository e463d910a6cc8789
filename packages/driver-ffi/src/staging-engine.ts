// The FFI adapter's staged copies: koffi cannot start native threads, so worker_threads do the
// work, each running staging-worker.js with its own koffi, its own stream and its own two
// pinned chunks, reaching the caller's memory by address. The caller blocks on shared memory
// (Atomics.wait) until every slice is done, as the N-API engine blocks on its threads, so the
// copy has the same meaning: complete on return, after the stream's queued work.
// One engine (set of workers) per library path, shared by the drivers that load it.
import { Worker } from 'node:worker_threads';
import { entryPointTable, stagedCopySlices } from '@cumem/driver-kit';
import { plainParameterTypes } from './entry-point-binder.js';
import {
  JOB_WORDS,
  JobKind,
  MAX_WORKERS,
  READY_AT,
  RESULT_WORDS,
  type StagingWorkerData,
  WORKER_ENTRY_POINTS,
} from './staging-protocol.js';

/** How long a copy waits for a new worker to load koffi and the library before it copies directly. */
const STARTUP_LIMIT_MS = 10_000;
/** The worker's program: beside this module, as src/staging-worker.js or dist/staging-worker.js. */
const workerProgram = new URL('./staging-worker.js', import.meta.url);
/** What each worker binds, with the koffi signatures of the entry-point table. */
const workerEntryPoints = WORKER_ENTRY_POINTS.map((symbol) => ({
  symbol,
  parameters: entryPointTable[symbol].parameters.map(([kind]) => plainParameterTypes[kind]),
}));

/** A failed slice: the CUresult and the entry point, or a worker that could not run. */
export type StagingOutcome = { result: number; call: string };

class StagingEngine {
  readonly #control = new SharedArrayBuffer((READY_AT + MAX_WORKERS) * 4);
  readonly #controls = new Int32Array(this.#control);
  readonly #jobs = new SharedArrayBuffer(MAX_WORKERS * JOB_WORDS * 8);
  readonly #results = new SharedArrayBuffer(MAX_WORKERS * RESULT_WORDS * 4);
  readonly #job = new BigUint64Array(this.#jobs);
  readonly #result = new Int32Array(this.#results);
  readonly #workers: Worker[] = [];
  /** The context each worker keeps chunks, stream and events in (0n: none), as its jobs said. */
  readonly #held: bigint[] = [];
  #broken: string | undefined;

  constructor(readonly libraryPath: string) {}

  /** Why the engine cannot run (a worker failed to start or died), or undefined. */
  get broken(): string | undefined {
    return this.#broken;
  }

  #grow(count: number): void {
    while (this.#workers.length < count) {
      const worker = new Worker(workerProgram, {
        workerData: {
          libraryPath: this.libraryPath,
          control: this.#control,
          jobs: this.#jobs,
          results: this.#results,
          index: this.#workers.length,
          readyAt: READY_AT,
          jobWords: JOB_WORDS,
          resultWords: RESULT_WORDS,
          jobKind: JobKind,
          entryPoints: workerEntryPoints,
        } satisfies StagingWorkerData,
      });
      worker.unref();
      // A worker that dies marks the engine broken; the copy waiting on it times out below.
      worker.on('error', (error) => {
        this.#broken = `a staging worker failed: ${error.message}`;
      });
      this.#workers.push(worker);
      this.#held.push(0n);
    }
  }

  /**
   * Waits (blocking; workers start without the caller's event loop) until workers 0..count-1
   * have bound the library. False, and the engine marked broken, when one cannot.
   */
  #ready(count: number): boolean {
    const deadline = Date.now() + STARTUP_LIMIT_MS;
    for (let index = 0; index < count; index++) {
      for (;;) {
        const flag = Atomics.load(this.#controls, READY_AT + index);
        if (flag === 1) break;
        const left = deadline - Date.now();
        if (flag === -1 || left <= 0) {
          this.#broken =
            flag === -1
              ? 'a staging worker could not load koffi or the library'
              : 'the staging workers did not start';
          return false;
        }
        Atomics.wait(this.#controls, READY_AT + index, 0, left);
      }
    }
    return true;
  }

  /** Runs one staged copy; blocks until it is done. `result` -1: the workers cannot run. */
  run(
    toDevice: boolean,
    host: number,
    device: bigint,
    bytes: number,
    chunkBytes: number,
    threads: number,
    context: bigint,
  ): StagingOutcome {
    const slices = stagedCopySlices(bytes, chunkBytes, Math.min(threads, MAX_WORKERS));
    this.#grow(slices.length);
    if (!this.#ready(slices.length)) return { result: -1, call: 'staging worker' };
    const kind = BigInt(toDevice ? JobKind.ToDevice : JobKind.ToHost);
    this.#post(
      slices.map((slice) => [
        kind,
        BigInt(host),
        device,
        BigInt(slice.begin),
        BigInt(slice.end),
        BigInt(chunkBytes),
      ]),
      context,
    );
    for (let index = 0; index < slices.length; index++) {
      const result = this.#result[RESULT_WORDS * index]!;
      const failed = WORKER_ENTRY_POINTS[this.#result[RESULT_WORDS * index + 1]!];
      if (result !== 0)
        return { result, call: failed === undefined ? 'staging worker' : entryPointTable[failed].name };
    }
    return { result: 0, call: '' };
  }

  /**
   * Has every worker that keeps resources in `context` free them, and waits. Called while
   * `context` is alive, before a reference to it is dropped: the last release of a primary
   * context resets it (its pinned memory unmapped) and the next retain hands out the same
   * handle, so resources kept across that would be used after they were freed.
   */
  releaseContext(context: bigint): void {
    const holders = this.#held.flatMap((held, index) => (held === context ? [index] : []));
    if (holders.length === 0 || this.#broken !== undefined) return;
    const jobs: bigint[][] = [];
    // Worker w takes job w, so the holders get release jobs and the others skip theirs.
    const release = BigInt(JobKind.Release);
    const skip = BigInt(JobKind.Skip);
    for (let index = 0; index <= holders[holders.length - 1]!; index++)
      jobs.push([this.#held[index] === context ? release : skip, 0n, 0n, 0n, 0n, 0n]);
    this.#post(jobs, context);
    for (const index of holders) this.#held[index] = 0n;
  }

  /** Whether a worker keeps resources in any context. */
  holdsAny(): boolean {
    return this.#held.some((held) => held !== 0n);
  }

  /** Gives job w (without context and generation) to worker w, and blocks until all are done. */
  #post(jobs: readonly bigint[][], context: bigint): void {
    const generation = (Atomics.load(this.#controls, 0) + 1) | 0 || 1;
    Atomics.store(this.#controls, 1, 0);
    jobs.forEach((fields, index) => {
      this.#job.set([...fields, context, BigInt(generation)], JOB_WORDS * index);
      const copies = fields[0] === BigInt(JobKind.ToDevice) || fields[0] === BigInt(JobKind.ToHost);
      if (copies) this.#held[index] = context;
    });
    // The other workers keep a stale generation in their job, so they skip this one.
    for (let index = jobs.length; index < this.#workers.length; index++)
      this.#job[JOB_WORDS * index + 7] = 0n;
    Atomics.store(this.#controls, 0, generation);
    Atomics.notify(this.#controls, 0);
    // As long as the copy takes: a worker catches every failure and always reports.
    for (
      let done = Atomics.load(this.#controls, 1);
      done < jobs.length;
      done = Atomics.load(this.#controls, 1)
    ) {
      Atomics.wait(this.#controls, 1, done);
    }
  }
}

const engines = new Map<string, StagingEngine>();

/** The engine of `libraryPath` if one was made, without making one. */
export function existingStagingEngine(libraryPath: string): StagingEngine | undefined {
  return engines.get(libraryPath);
}

/** The engine of `libraryPath`, made on first use. */
export function stagingEngine(libraryPath: string): StagingEngine {
  let engine = engines.get(libraryPath);
  if (engine === undefined) {
    engine = new StagingEngine(libraryPath);
    engines.set(libraryPath, engine);
  }
  return engine;
}
