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
// So before the suites, each implementation runs CALIBRATION_PROCESSES processes that only time
// two loops through its own bare driver calls (the same loops in C, JS and Python: a 4 KiB pool
// allocate + free pair, a 2 MiB VMM reserve-create-map-access-unmap-release-free pair; best of
// three) and exit. An implementation's limit for each loop is MARGIN x its fastest calibration.
// Every suite process then times the loops first and exits with SLOW_MODE_EXIT when above a
// limit; it is started again, up to MAX_TRIES times, and the last try runs ungated if none
// passed (recorded). The same rule holds for C, FFI, N-API and Python, so the ratios compare
// the implementations' own costs, not the host's draw. The gate code: bench/c/process-gate.h,
// bench/js/process-mode.mjs, bench/python/process_gate.py.

/** Calibration-only processes per implementation. */
export const CALIBRATION_PROCESSES = 8;
/** A loop's limit: this times the implementation's fastest calibration (modes are ~1.7x apart). */
export const MARGIN = 1.25;
/** Suite processes started at most, per suite and implementation, before one runs ungated. */
export const MAX_TRIES = 12;
/** The exit status of a process that found itself in the slow mode. */
export const SLOW_MODE_EXIT = 75;

const LOOPS = ['poolPairNs', 'vmmPairUs'];

/**
 * Limits from calibration runs: `calibrateOnce()` starts one calibration-only process and
 * returns its times (`{ poolPairNs, vmmPairUs? }`) or undefined. Returns `{ limits, calibrations }`,
 * `limits` undefined when no calibration gave a positive time (the gate then stays off).
 */
export function calibrate(calibrateOnce) {
  const calibrations = [];
  for (let i = 0; i < CALIBRATION_PROCESSES; i++) {
    const times = calibrateOnce();
    if (times) calibrations.push(times);
  }
  const limits = {};
  for (const loop of LOOPS) {
    const values = calibrations.map((times) => times[loop]).filter((value) => typeof value === 'number' && value > 0);
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
    if (run.status !== SLOW_MODE_EXIT) return { run, gate: { tries, passed: true, limits, times: seen.at(-1) } };
  }
  // Every try drew the slow mode: measure anyway, and say so.
  const run = start({});
  return { run, gate: { tries: MAX_TRIES + 1, passed: false, limits, slowTimes: seen } };
}
