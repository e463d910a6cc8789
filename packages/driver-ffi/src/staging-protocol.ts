// How the FFI adapter's staging engine (staging-engine.ts) and its worker threads
// (staging-worker.js) talk, through three SharedArrayBuffers. The engine hands each worker this
// layout in its workerData (StagingWorkerData), so the worker imports nothing of the package.
//
// - control, Int32Array: [0] the job generation, [1] how many workers finished it, and worker
//   w's ready flag at READY_AT + w (1 once it has bound the library, -1 when it cannot run).
// - jobs, BigUint64Array: worker w's job at JOB_WORDS * w: [kind, host address, device address,
//   begin, end, chunk bytes, context, generation].
// - results, Int32Array: worker w's outcome at RESULT_WORDS * w: [CUresult, index in the
//   worker's entry points of the call that failed, or -1].

/** The most staging workers (and threads of one staged copy). */
export const MAX_WORKERS = 64;
/** Where worker w's ready flag is in the control array: READY_AT + w. */
export const READY_AT = 8;
/** 64-bit words of one job. */
export const JOB_WORDS = 8;
/** 32-bit words of one result. */
export const RESULT_WORDS = 2;

/** What a job asks of its worker. */
export const JobKind = Object.freeze({
  /** Copy the slice from device memory to the host. */
  ToHost: 0,
  /** Copy the slice from the host to device memory. */
  ToDevice: 1,
  /** Free what the worker keeps in the job's context. */
  Release: 2,
  /** Nothing for this worker (a release that others do). */
  Skip: 3,
});

/**
 * The entry points a worker calls, in the order its failure index counts them. The engine binds
 * nothing of them itself; it hands the worker each one's koffi signature from the entry-point
 * table.
 */
export const WORKER_ENTRY_POINTS = [
  'cuCtxSetCurrent',
  'cuStreamCreateWithPriority',
  'cuMemHostAlloc',
  'cuMemFreeHost',
  'cuEventCreate',
  'cuEventRecord',
  'cuEventSynchronize',
  'cuMemcpyHtoDAsync_v2',
  'cuMemcpyDtoHAsync_v2',
  'cuStreamSynchronize',
  'cuStreamDestroy_v2',
  'cuEventDestroy_v2',
] as const;

/** An entry point a worker calls. */
export type WorkerEntryPoint = (typeof WORKER_ENTRY_POINTS)[number];

/** What a staging worker is started with. */
export interface StagingWorkerData {
  /** The libcuda the adapter loaded. */
  readonly libraryPath: string;
  readonly control: SharedArrayBuffer;
  readonly jobs: SharedArrayBuffer;
  readonly results: SharedArrayBuffer;
  /** This worker's index w. */
  readonly index: number;
  /** The layout above. */
  readonly readyAt: typeof READY_AT;
  readonly jobWords: typeof JOB_WORDS;
  readonly resultWords: typeof RESULT_WORDS;
  readonly jobKind: typeof JobKind;
  /** What to bind, in the order of WORKER_ENTRY_POINTS: each symbol with its koffi parameter types. */
  readonly entryPoints: readonly { readonly symbol: string; readonly parameters: readonly string[] }[];
}
