// The statistical verdict of a row (issue 47). Every implementation of a row runs in several
// processes, interleaved round by round (C, FFI, N-API, Python, then all again: rounds.mjs), so
// a stretch in which the host is slower weighs on each implementation alike. Each round is merged
// on its own (merge-row.mjs: values, ratios to that round's C, checks), and the rounds are then
// judged together:
//
// - a value or ratio is the median over the rounds;
// - its spread is the range over the rounds after ONE outlier rule, the same for every row and
//   implementation: with at least OUTLIER_TRIM_FROM rounds, the single lowest and the single
//   highest round are left out (a process that drew the host's slow mode, or a stray fast one);
// - a target is `met` when the whole spread is on its good side, `missed` when the whole spread
//   is on its bad side, and `inconclusive` otherwise, or when fewer than `minProcesses` rounds
//   measured it.
/** Processes per implementation the issue asks for before a target may read met or missed. */
export const MIN_PROCESSES = 5;
/** From this many rounds on, the lowest and highest are left out of a spread. */
export const OUTLIER_TRIM_FROM = 5;

/** The median of finite numbers (undefined for none). */
export function median(values) {
  const sorted = values.filter(Number.isFinite).sort((a, b) => a - b);
  if (sorted.length === 0) return undefined;
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

/**
 * `{ median, low, high, n, trimmed }` of per-round values: the spread after the outlier rule.
 * Undefined when no value is a finite number.
 */
export function spreadOf(values) {
  const sorted = values.filter(Number.isFinite).sort((a, b) => a - b);
  if (sorted.length === 0) return undefined;
  const trimmed = sorted.length >= OUTLIER_TRIM_FROM ? sorted.slice(1, -1) : sorted;
  return {
    median: median(sorted),
    low: trimmed[0],
    high: trimmed[trimmed.length - 1],
    n: sorted.length,
    trimmed: sorted.length - trimmed.length,
  };
}

/** True for check kinds whose measured value must stay at or below the target. */
export function lowerIsBetter(kind) {
  return kind.startsWith('max');
}

/** `met`, `missed` or `inconclusive` for a spread against one check's target. */
export function verdictOf(kind, target, spread, minProcesses = MIN_PROCESSES) {
  if (!spread || spread.n < minProcesses) return 'inconclusive';
  if (lowerIsBetter(kind)) {
    if (spread.high <= target) return 'met';
    if (spread.low > target) return 'missed';
  } else {
    if (spread.low >= target) return 'met';
    if (spread.high < target) return 'missed';
  }
  return 'inconclusive';
}

/** The row's verdict from its checks' verdicts: any missed, all met, else inconclusive. */
export function rowVerdict(checkVerdicts) {
  const judged = checkVerdicts.filter((verdict) => verdict !== 'notApplicable');
  if (judged.length === 0) return null;
  if (judged.includes('missed')) return 'missed';
  if (judged.every((verdict) => verdict === 'met')) return 'met';
  return 'inconclusive';
}

/**
 * One check judged over the rounds: `perRoundChecks[k]` is the check as evaluateChecks judged it
 * on round k alone (`measured`, `applicable`).
 */
export function judgeCheck(check, perRoundChecks, minProcesses = MIN_PROCESSES) {
  if (perRoundChecks.length > 0 && perRoundChecks.every((entry) => entry?.applicable === false))
    return { ...check, applicable: false, verdict: 'notApplicable', ok: null };
  const measured = perRoundChecks.map((entry) => entry?.measured).filter(Number.isFinite);
  const spread = spreadOf(measured);
  const verdict = verdictOf(check.kind, check.value, spread, minProcesses);
  const notes = [...new Set(perRoundChecks.map((entry) => entry?.note).filter(Boolean))];
  return {
    ...check,
    applicable: true,
    measured: spread?.median ?? null,
    spread: spread ? [spread.low, spread.high] : null,
    processes: measured.length,
    verdict,
    ok: verdict === 'met' ? true : verdict === 'missed' ? false : null,
    ...(measured.length < minProcesses
      ? { note: `${measured.length} of the ${minProcesses} processes a verdict needs measured it` }
      : notes.length
        ? { note: notes.slice(0, 3).join('; ') }
        : {}),
  };
}

/** Judges every check of `row` from the per-round merged rows; see judgeCheck. */
export function judgeChecks(row, perRound, minProcesses = MIN_PROCESSES) {
  return row.checks.map((check, index) =>
    judgeCheck(
      check,
      perRound.map((merged) => merged.checks?.[index]),
      minProcesses,
    ),
  );
}
