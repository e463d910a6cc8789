// Shorter processes, not fewer (issue 47): the whole bench runs every row in several processes
// per implementation within one device call, so each process times fewer repetitions. run.mjs
// passes two caps through the environment, read the same way by bench/js/harness.mjs,
// bench/python/common.py and bench/c/bench.h:
//   BENCH_MAX_REPS       timed repetitions per row and process, at most (the row's own count when lower)
//   BENCH_MAX_WARMUP_MS  a row's time-based warm-up (`warmupMs`), at most
// A row's protocol in rows.mjs keeps its full counts; expectedProtocol gives what a capped
// process reports, so merge-row.mjs still flags an implementation that measured otherwise.

export const REPS_VARIABLE = 'BENCH_MAX_REPS';
export const WARMUP_VARIABLE = 'BENCH_MAX_WARMUP_MS';

function positive(text) {
  const value = Number(text);
  return text !== undefined && text !== '' && value > 0 ? value : Number.POSITIVE_INFINITY;
}

/** The caps in force: `{ reps, warmupMs }`, Infinity where none is set. */
export function repetitionCaps(env = process.env) {
  return { reps: Math.floor(positive(env[REPS_VARIABLE])), warmupMs: positive(env[WARMUP_VARIABLE]) };
}

/** `reps` under the cap (at least 1). */
export function cappedReps(reps, caps = repetitionCaps()) {
  return Math.max(1, Math.min(reps, caps.reps));
}

/** `warmupMs` under the cap. */
export function cappedWarmupMs(warmupMs, caps = repetitionCaps()) {
  return Math.min(warmupMs, caps.warmupMs);
}

/** The protocol a process under `caps` reports for a row whose full protocol is `protocol`. */
export function expectedProtocol(protocol, caps) {
  if (!protocol) return protocol;
  const expected = { ...protocol };
  if (typeof expected.reps === 'number') expected.reps = cappedReps(expected.reps, caps);
  if (typeof expected.warmupMs === 'number') expected.warmupMs = cappedWarmupMs(expected.warmupMs, caps);
  return expected;
}
