// Shared by the JS suites: arguments, timing, and a result file rewritten after every row, so a
// crash (or a native fault in an adapter) keeps the rows already measured. A row that throws
// records its error and the suite goes on. Usage of every suite:
//   node --expose-gc bench/js/<suite>.mjs --driver ffi|napi --out FILE
import { writeFileSync } from 'node:fs';
import { cappedReps, cappedWarmupMs } from '../repetitions.mjs';
// The process-mode gate (bench/process-gate.mjs): runs before any suite code when asked for.
import { fastModeNow } from './process-mode.mjs';

/** Parses `--driver` and `--out`. */
export function parseArguments(argv = process.argv.slice(2)) {
  const options = {};
  for (let i = 0; i < argv.length; i += 2) {
    const key = argv[i];
    const value = argv[i + 1];
    if (key !== '--driver' && key !== '--out') throw new Error(`unknown argument ${key}`);
    if (value === undefined) throw new Error(`${key} needs a value`);
    options[key.slice(2)] = value;
  }
  if (!['ffi', 'napi', 'reference'].includes(options.driver))
    throw new Error('--driver must be ffi, napi or reference');
  if (!options.out) throw new Error('--out FILE is required');
  return options;
}

/**
 * `--name value` of a probe script's command line (the scripts beside the suites, which take
 * optional flags), or `fallback` when the flag is absent.
 */
export function optionValue(name, fallback) {
  const index = process.argv.indexOf(name);
  return index >= 0 ? process.argv[index + 1] : fallback;
}

/**
 * The adapter's package, taken as a user would: through its public entry point. `reference` is
 * the host-memory driver of the test suites: it runs without a GPU, to check the suites' code
 * paths; its numbers mean nothing.
 */
export async function loadDriverPackage(name) {
  if (name === 'ffi') return import('@cumem/driver-ffi');
  if (name === 'napi') return import('@cumem/driver-napi');
  const { createReferenceDriver } = await import('@cumem/testing/reference-driver');
  return { createDriver: createReferenceDriver };
}

/** What `useDriver` takes for `name`: the adapter's name, or a reference driver object. */
export async function driverChoice(name) {
  if (name !== 'reference') return name;
  // CUMEM_BENCH_REFERENCE_DEVICES=2 gives the reference driver two devices, to run the multi suite's code paths.
  const deviceCount = Number(process.env.CUMEM_BENCH_REFERENCE_DEVICES ?? 1);
  return (await loadDriverPackage(name)).createDriver({ deviceCount });
}

const now = () => process.hrtime.bigint();

export function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

/**
 * Repetitions of the small-call rows, the same in bench/c/bench.h and bench/python/common.py:
 * one untimed repetition (the warm-up, which also gets the JIT past its tiers), then the median
 * of `CALL_REPS` timed repetitions of a fixed number of operations. A row may ask for a longer
 * warm-up (`warmupMs`: untimed repetitions go on until that much time has passed), the same in
 * the three languages. Such a row's repetitions are also gated: in a process the gate passed,
 * each timed repetition starts only while the host is in its fast mode (fastModeNow); when it
 * is not, the row's work runs once more untimed and the host is asked again, at most
 * SLOW_REPS_SKIPPED_MAX times per process, all rows together (then the rest run ungated: on
 * 2x H100 at d5c184d a host that stayed slow had N-API's allocate + close rows skip 24 each, and
 * with the process gate's retries the memory suite took 130 s instead of 60). The protocol
 * records how many each row skipped.
 */
export const CALL_REPS = 11;
export const CALL_WARMUP_REPS = 1;
export const SLOW_REPS_SKIPPED_MAX = 24;
let slowRepsLeft = SLOW_REPS_SKIPPED_MAX;

/**
 * Nanoseconds per operation: `batch(n)` runs n operations and waits for the device. Returns
 * `{ samples, protocol }`; `iterations` must be the row's count in rows.mjs. `warmupMs`: see
 * CALL_WARMUP_REPS.
 */
export function callsNs(batch, iterations, { warmupMs: fullWarmupMs = 0 } = {}) {
  const warmupMs = cappedWarmupMs(fullWarmupMs);
  const reps = cappedReps(CALL_REPS);
  const warm = now() + BigInt(warmupMs * 1e6);
  for (let i = 0; i < CALL_WARMUP_REPS || now() < warm; i++) batch(iterations);
  const samples = [];
  let slowRepsSkipped = 0;
  while (samples.length < reps) {
    if (warmupMs > 0 && slowRepsLeft > 0 && !fastModeNow()) {
      slowRepsLeft--;
      slowRepsSkipped++;
      batch(iterations);
      continue;
    }
    const start = now();
    batch(iterations);
    samples.push(Number(now() - start) / iterations);
  }
  const protocol = { iterations, reps, warmupReps: CALL_WARMUP_REPS };
  return { samples, protocol: warmupMs > 0 ? { ...protocol, warmupMs, slowRepsSkipped } : protocol };
}

/**
 * Nanoseconds per operation of several batches measured side by side: each repetition runs every
 * batch once, in an order that rotates between repetitions, so a slow spell of the machine (these
 * machines drift up to 2x within a second) falls on all of them alike. Returns each batch's
 * median, by name. For comparing parts of one row (the adapter's bare driver calls against the
 * row's whole operation), not for the row's own value, which follows `callsNs`. `iterations`: a
 * number, or one per batch name.
 */
export function sideBySideNs(batches, iterations, reps = CALL_REPS) {
  const names = Object.keys(batches);
  const samples = Object.fromEntries(names.map((name) => [name, []]));
  // One count for every batch, or one per batch name (batches of very different lengths).
  const countOf = (name) => (typeof iterations === 'number' ? iterations : iterations[name]);
  for (const name of names) batches[name](countOf(name));
  for (let rep = 0; rep < reps; rep++) {
    for (let k = 0; k < names.length; k++) {
      const name = names[(rep + k) % names.length];
      const count = countOf(name);
      const start = now();
      batches[name](count);
      samples[name].push(Number(now() - start) / count);
    }
  }
  return Object.fromEntries(names.map((name) => [name, Number(median(samples[name]).toFixed(1))]));
}

/**
 * Untimed warm-up of a bandwidth row, in milliseconds (the same in bench/c/bench.h and
 * bench/python/common.py): a GPU left idle by the rows before lowers its clocks, and on a 1x H100
 * (SM clock 345 MHz at rest) 256 MiB device-to-device copies ran at 86% for the first 10-35 ms of
 * load, so whichever implementation measured right after idle rows lost 14%. The warm-up repeats
 * `batch(1)` until this much time has passed.
 */
export const BANDWIDTH_WARMUP_MS = 200;

/** GB/s (1e9 bytes per second) of `batch(n)`, which moves `bytes` n times and waits. */
export function bandwidthGBps(batch, bytes, { perRep, reps: fullReps }) {
  const reps = cappedReps(fullReps);
  const warm = now() + BigInt(BANDWIDTH_WARMUP_MS * 1e6);
  do batch(1);
  while (now() < warm);
  const samples = [];
  for (let i = 0; i < reps; i++) {
    const start = now();
    batch(perRep);
    samples.push((bytes * perRep) / Number(now() - start));
  }
  return samples;
}

/**
 * Microseconds per timed step (the step must end by waiting): the median over `reps` of the mean
 * of `perRep` steps, after `warmupReps` (default 1) untimed repetitions. `setup(i)` runs untimed before each
 * step; `i` counts steps from 0 across the measurement. When `steps` (an array) is given, each
 * timed step's `[i, microseconds]` is pushed to it. Same loop as measure_steps in bench/c/utils.c.
 */
export function stepsUs(timed, { setup, perRep, reps, steps, warmupReps } = {}) {
  // One variant of interleavedStepsUs: the same loop, so the two cannot drift apart.
  const {
    error,
    samples,
    steps: taken,
  } = interleavedStepsUs({ only: timed }, { setup, perRep, reps, warmupReps }).only;
  if (error) throw error;
  if (steps) steps.push(...taken);
  return samples;
}

/**
 * stepsUs for several variants of one row, their repetitions interleaved: every variant's warm-up
 * repetitions (`warmupReps`, default 1), then repetition 1 of each variant in turn, repetition 2, ..., so a drift of the
 * host during the row (shared machines drift by tens of percent within seconds) weighs on every
 * variant alike instead of on whichever ran last. The order turns by one variant each repetition
 * (a, b, c; b, c, a; c, a, b; ...), so no variant always runs right after the same other one:
 * with a fixed order the utils rows' `auto` always followed `batch`, and its migrations to the
 * host, done as the same loop as the `loop` variant's, came out 3-14% slower than that variant's
 * in six of eight runs on two H100 hosts at 11ce16e (bench/README.md has the rest).
 * `timed[name](iteration)` is one step; each variant counts its own iterations from 0. A
 * variant that throws is dropped from later repetitions. @returns per name `{ samples, steps }`
 * or `{ error }`.
 */
export function interleavedStepsUs(timed, { setup, perRep, reps: fullReps, warmupReps = 1 }) {
  const reps = cappedReps(fullReps);
  const names = Object.keys(timed);
  const state = Object.fromEntries(names.map((name) => [name, { iteration: 0, samples: [], steps: [] }]));
  for (let rep = -warmupReps; rep < reps; rep++) {
    const first = (rep + warmupReps) % names.length;
    for (let turn = 0; turn < names.length; turn++) {
      const name = names[(first + turn) % names.length];
      const variant = state[name];
      if (variant.error) continue;
      try {
        let total = 0n;
        for (let i = 0; i < perRep; i++, variant.iteration++) {
          if (setup) setup(variant.iteration);
          const start = now();
          timed[name](variant.iteration);
          const elapsed = now() - start;
          total += elapsed;
          if (rep >= 0) variant.steps.push([variant.iteration, Number(elapsed) / 1000]);
        }
        if (rep >= 0) variant.samples.push(Number(total) / perRep / 1000);
      } catch (error) {
        variant.error = error;
      }
    }
  }
  return Object.fromEntries(
    names.map((name) => {
      const { error, samples, steps } = state[name];
      return [name, error ? { error } : { samples, steps }];
    }),
  );
}

/** A row result from samples: `{ value: median, unit, samples, ...extra }`. */
export function result(samples, unit, extra = {}) {
  return { value: median(samples), unit, samples, ...extra };
}

/** Fills bytes with a non-zero pseudo-random pattern (copies are never timed on zeros). */
export function fillPattern(bytes, seed = 1) {
  const words = new Uint32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength >>> 2);
  let x = seed >>> 0 || 1;
  for (let i = 0; i < words.length; i++) {
    x = (Math.imul(x, 1664525) + 1013904223) >>> 0;
    words[i] = (x | 0x01010101) >>> 0;
  }
}

/** Calls `global.gc` when node runs with --expose-gc, so dropped native memory is released between rows. */
export function collectGarbage() {
  if (typeof globalThis.gc === 'function') globalThis.gc();
}

function describeError(error) {
  if (error instanceof Error) return `${error.name}: ${error.message}`;
  return String(error);
}

/** Collects rows and rewrites the output file after each one. */
export class Suite {
  constructor(suite, { driver, out }) {
    this.out = out;
    this.data = { impl: driver, suite, info: { node: process.version }, rows: {} };
    this.save();
  }

  save() {
    writeFileSync(this.out, `${JSON.stringify(this.data, null, 1)}\n`);
  }

  fatal(error) {
    this.data.error = describeError(error);
    this.data.stack = error instanceof Error ? error.stack : undefined;
    this.save();
  }

  /** Runs one row; `measure` returns a row result (see {@link result}) or throws. */
  async row(id, unit, measure) {
    const started = Date.now();
    let entry;
    try {
      entry = { unit, ...(await measure()) };
    } catch (error) {
      entry = { unit, error: describeError(error), stack: error instanceof Error ? error.stack : undefined };
    }
    entry.seconds = (Date.now() - started) / 1000;
    // Under BENCH_MAX_REPS (repetitions.mjs) the repetitions timed are what the row reports.
    if (typeof entry.protocol?.reps === 'number' && Array.isArray(entry.samples))
      entry.protocol = { ...entry.protocol, reps: entry.samples.length };
    this.data.rows[id] = entry;
    this.save();
    collectGarbage();
    process.stderr.write(`[${this.data.impl}] ${id}: ${entry.error ?? entry.skipped ?? entry.value}\n`);
  }

  /**
   * Measures `variants` ({ name: () => samples }) one after another; the row's value is the
   * `main` variant, every other variant's median (or error) goes under `variants`.
   */
  static variants(unit, main, variants, extra = {}) {
    const summary = {};
    let mainResult;
    for (const [name, measure] of Object.entries(variants)) {
      try {
        const samples = measure();
        summary[name] = median(samples);
        if (name === main) mainResult = result(samples, unit, extra);
      } catch (error) {
        summary[name] = { error: describeError(error) };
        if (name === main) throw error;
      }
    }
    return { ...mainResult, variants: summary };
  }
}
