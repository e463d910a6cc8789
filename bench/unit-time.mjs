// Whether one more unit of the bench (a suite run once by each implementation, raw-rounds.mjs)
// fits the time left in the device call. A unit started too late is killed by the call's limit
// and wasted, while a unit left out is only run by the next call; so run.mjs starts a unit only
// when its expected time, with a margin, fits what is left, and tries the later (shorter) units
// of the order before it stops.

/**
 * Seconds one process of a suite is expected to take on a one-GPU machine under the default caps
 * (3 repetitions, 500 ms warm-ups), before any unit of that suite has been timed: generous
 * guesses (the growth curves stop adding points after 8 s each, four curves per adapter).
 * Measured units replace them.
 */
export const FIRST_GUESS_SECONDS_PER_PROCESS = {
  contract: 8,
  memory: 10,
  utils: 10,
  arrow: 7,
  multi: 3,
  handoff: 6,
  pageable: 7,
  compute: 7,
  vmm: 6,
  workloads: 10,
  curves: 45,
};
const UNKNOWN_SUITE_SECONDS = 15;

/** The margin on an estimate: a unit's time varies between rounds (the host's slow mode). */
export const ESTIMATE_MARGIN = 1.15;
/** Seconds kept back for writing the results after the last unit. */
export const RESERVE_SECONDS = 5;

/** Processes in a unit: its implementations and, when comparing, the baseline's. */
export function processesOf(unit) {
  return (unit.impls?.length ?? 0) + (unit.baseImpls?.length ?? 0);
}

/**
 * Seconds a unit of `suite` with `processes` processes is expected to take: the slowest process
 * of that suite measured so far (`history`: units of that suite, with `seconds`, `impls` and
 * `baseImpls`) times `processes`, or the first guess.
 */
export function expectedUnitSeconds(suite, processes, history = []) {
  const perProcess = history
    .filter((unit) => typeof unit?.seconds === 'number' && processesOf(unit) > 0)
    .map((unit) => unit.seconds / processesOf(unit));
  const slowest = perProcess.length
    ? Math.max(...perProcess)
    : (FIRST_GUESS_SECONDS_PER_PROCESS[suite] ?? UNKNOWN_SUITE_SECONDS);
  return slowest * processes;
}

/** True when a unit expected to take `expected` seconds fits `secondsLeft`. */
export function fits(expected, secondsLeft) {
  return expected * ESTIMATE_MARGIN + RESERVE_SECONDS <= secondsLeft;
}
