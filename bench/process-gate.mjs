// The process-mode gate: every implementation measured in the host's fast mode.
//
// On the shared GPU hosts a process lands in one of two modes and keeps it for its life. In the
// slow one the same driver calls take about 1.7x as long: 2x H100 (driver 580.159, 2026-11-26,
// bench/probes/vmm-placement.c), 36 C processes in a row: a 4 KiB pool allocate + free pair took
// 696-787 ns in 10 of them and 1131-1419 ns in 25; a 2 MiB VMM pair 68-74 us against 87-103 us;
// a VMM 1 GiB grow 650-680 us against 1000-1230 us. The mode is the same at the start and end
// of a process, does not follow the CPU it runs on (`taskset`), and is drawn again by the next
// process. With one process per implementation per round, a row's ratio to C was decided by
// which processes drew the fast mode: C's pool pair was 591 ns in one run and 1182 ns in the
// next on the same kind of host, and the driver-bound rows swung between meeting and missing.
//
// So before the suites, each implementation runs calibration-only processes that time two loops
// through its own bare driver calls (the same loops in C, JS and Python: a 4 KiB pool allocate +
// free pair, a 2 MiB VMM reserve-create-map-access-unmap-release-free pair; best of three) and
// exit: at least MIN_CALIBRATIONS, and more until both modes were seen in each loop (its slowest
// calibration `spread` x its fastest) or MAX_CALIBRATIONS ran; whether they were is recorded.
// An implementation's limit for a loop is the loop's `margin` x its fastest calibration. Every
// process of a gated suite then times the loops first and exits with SLOW_MODE_EXIT when above
// the limit of the loop that suite depends on (GATED_SUITES); it is started again, up to
// MAX_TRIES times, and runs ungated if none passed (recorded). The same rule holds for C, FFI,
// N-API and Python, so the ratios compare the implementations' own costs, not the host's draw.
// The bandwidth suites are not gated: their rows are DMA-bound, and a try costs a process start.
// The gate code: bench/c/process-gate.h, bench/js/process-mode.mjs, bench/python/process_gate.py.

/** Calibration-only processes per implementation: at least, and at most. */
export const MIN_CALIBRATIONS = 4;
export const MAX_CALIBRATIONS = 16;
/**
 * The loops. `spread`: both modes were seen once the slowest calibration is this times the
 * fastest; `margin`: the limit is this times the fastest. On 2x H100 the pool pair's modes were
 * 1.5-1.9x apart with up to 13% within one (C); the VMM pair's 1.2-1.5x apart with up to 13%
 * within one.
 */
export const LOOPS = {
  poolPairNs: { spread: 1.35, margin: 1.25 },
  vmmPairUs: { spread: 1.2, margin: 1.15 },
};
/** The suites whose rows are bound by driver calls, and the loop whose mode decides each. */
export const GATED_SUITES = {
  contract: 'poolPairNs',
  memory: 'poolPairNs',
  utils: 'poolPairNs',
  multi: 'poolPairNs',
  compute: 'poolPairNs',
  vmm: 'vmmPairUs',
};
/** Suite processes started at most, per suite and implementation, before one runs ungated. */
export const MAX_TRIES = 12;
/** The exit status of a process that found itself in the slow mode. */
export const SLOW_MODE_EXIT = 75;

const timesOf = (calibrations, loop) =>
  calibrations.map((times) => times[loop]).filter((value) => typeof value === 'number' && value > 0);

/** Per loop with a time: did the calibrations show both modes? */
function modesSeen(calibrations) {
  const seen = {};
  for (const [loop, { spread }] of Object.entries(LOOPS)) {
    const values = timesOf(calibrations, loop);
    if (values.length > 0) seen[loop] = Math.max(...values) >= spread * Math.min(...values);
  }
  return seen;
}

/**
 * Limits from calibration runs: `calibrateOnce()` starts one calibration-only process and
 * returns its times (`{ poolPairNs, vmmPairUs? }`) or undefined. Returns `{ limits, calibrations,
 * bothModesSeen }`, `limits` undefined when no calibration gave a positive time (the gate then
 * stays off).
 */
export function calibrate(calibrateOnce) {
  const calibrations = [];
  for (let i = 0; i < MAX_CALIBRATIONS; i++) {
    const times = calibrateOnce();
    if (times) calibrations.push(times);
    const seen = Object.values(modesSeen(calibrations));
    if (i + 1 >= MIN_CALIBRATIONS && seen.length > 0 && seen.every(Boolean)) break;
  }
  const limits = {};
  for (const [loop, { margin }] of Object.entries(LOOPS)) {
    const values = timesOf(calibrations, loop);
    if (values.length > 0) limits[loop] = Number((Math.min(...values) * margin).toFixed(1));
  }
  return {
    limits: Object.keys(limits).length > 0 ? limits : undefined,
    calibrations,
    bothModesSeen: modesSeen(calibrations),
  };
}

/**
 * Seconds one suite process's tries may take at most, as a share of what is left of run.mjs's
 * budget: on a 1x H100 host whose pool pair swung from 700 to 3900 ns, twelve tries of each
 * Python process spent the budget before the vmm suite ran at all.
 */
export const RETRY_SECONDS = { most: 45, shareOfBudgetLeft: 0.1 };

/**
 * Runs `start(env)` (one suite process; returns `{ status, ... }`) until a process passes the
 * gate of `loop`, or `mayRetry()` says the time for tries is spent. Returns the last run and
 * `{ tries, passed, times }` for the results' info.
 */
export function gatedRun(start, limits, loop, readTimes, mayRetry = () => true) {
  if (limits?.[loop] === undefined) return { run: start({}), gate: { off: `no calibration of ${loop}` } };
  const limit = { [loop]: limits[loop] };
  const seen = [];
  let tries = 0;
  while (tries < MAX_TRIES) {
    tries++;
    const run = start({ BENCH_PROCESS_GATE: JSON.stringify(limit) });
    seen.push(readTimes());
    if (run.status !== SLOW_MODE_EXIT)
      return { run, gate: { tries, passed: true, limit, times: seen.at(-1) } };
    if (!mayRetry()) break;
  }
  // Every try drew the slow mode: measure anyway, and say so.
  const run = start({});
  const stoppedBy = tries < MAX_TRIES ? 'the time for tries' : 'the number of tries';
  return { run, gate: { tries: tries + 1, passed: false, stoppedBy, limit, slowTimes: seen } };
}
