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
// exit: at least MIN_CALIBRATIONS, and more until both modes were seen (the slowest pool pair
// SPREAD x the fastest) or MAX_CALIBRATIONS ran, so the fastest calibration is the fast mode's
// unless every one drew the slow mode (0.78^12 = 5% on that host). An implementation's limit for
// each loop is MARGIN x its fastest calibration. Every suite process of GATED_SUITES then times
// the loops first and exits with SLOW_MODE_EXIT when above a limit; it is started again, up to
// MAX_TRIES times, and runs ungated if none passed (recorded). The same rule holds for C, FFI,
// N-API and Python, so the ratios compare the implementations' own costs, not the host's draw.
// The bandwidth suites are not gated: their rows are DMA-bound, and a try costs a process start.
// The gate code: bench/c/process-gate.h, bench/js/process-mode.mjs, bench/python/process_gate.py.

/** Calibration-only processes per implementation: at least, and at most. */
export const MIN_CALIBRATIONS = 4;
export const MAX_CALIBRATIONS = 12;
/** Both modes were seen once the slowest pool pair is this times the fastest. */
export const SPREAD = 1.35;
/** A loop's limit: this times the implementation's fastest calibration (modes are ~1.7x apart). */
export const MARGIN = 1.25;
/** Suite processes started at most, per suite and implementation, before one runs ungated. */
export const MAX_TRIES = 12;
/** The exit status of a process that found itself in the slow mode. */
export const SLOW_MODE_EXIT = 75;
/** The suites whose rows are bound by driver calls. */
export const GATED_SUITES = ['contract', 'memory', 'utils', 'multi', 'compute', 'vmm'];

const LOOPS = ['poolPairNs', 'vmmPairUs'];

/**
 * Limits from calibration runs: `calibrateOnce()` starts one calibration-only process and
 * returns its times (`{ poolPairNs, vmmPairUs? }`) or undefined. Returns `{ limits, calibrations }`,
 * `limits` undefined when no calibration gave a positive time (the gate then stays off).
 */
export function calibrate(calibrateOnce) {
  const calibrations = [];
  const poolPairs = () => calibrations.map((times) => times.poolPairNs).filter((value) => value > 0);
  for (let i = 0; i < MAX_CALIBRATIONS; i++) {
    const times = calibrateOnce();
    if (times) calibrations.push(times);
    const seen = poolPairs();
    if (i + 1 >= MIN_CALIBRATIONS && seen.length > 0 && Math.max(...seen) >= SPREAD * Math.min(...seen))
      break;
  }
  const limits = {};
  for (const loop of LOOPS) {
    const values = calibrations
      .map((times) => times[loop])
      .filter((value) => typeof value === 'number' && value > 0);
    if (values.length > 0) limits[loop] = Number((Math.min(...values) * MARGIN).toFixed(1));
  }
  return { limits: Object.keys(limits).length > 0 ? limits : undefined, calibrations };
}

/**
 * Runs `start(env)` (one suite process; returns `{ status, ... }`) until a process passes the
 * gate. Returns the last run and `{ tries, passed, times }` for the results' info.
 */
export function gatedRun(start, limits, readTimes) {
  if (limits === undefined) return { run: start({}), gate: { off: 'no calibration' } };
  const seen = [];
  for (let tries = 1; tries <= MAX_TRIES; tries++) {
    const run = start({ BENCH_PROCESS_GATE: JSON.stringify(limits) });
    seen.push(readTimes());
    if (run.status !== SLOW_MODE_EXIT)
      return { run, gate: { tries, passed: true, limits, times: seen.at(-1) } };
  }
  // Every try drew the slow mode: measure anyway, and say so.
  const run = start({});
  return { run, gate: { tries: MAX_TRIES + 1, passed: false, limits, slowTimes: seen } };
}
