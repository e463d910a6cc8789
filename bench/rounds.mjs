// Several rounds of one suite: every implementation runs once per round and the rounds are
// interleaved (C, FFI, N-API, Python, then all again), so a stretch in which the host is slower
// weighs on every implementation alike. On shared GPU hosts the same program's result moves
// between processes far more than within one (1x H100, 2026-11-26: the C VMM 2 MiB pair took
// 54 us in one process and 82 us in the next; an FFI process 130 us, the next 88 us), so each
// implementation's entry of a row is its best round — the lowest time or the highest bandwidth —
// the same rule for C as for the others. Every round's value stays in the entry (`rounds`).

/** True when a larger value of `unit` is better (bandwidths). */
function higherIsBetter(unit) {
  return unit === 'GB/s';
}

function usable(entry) {
  return typeof entry?.value === 'number' && !entry.error && typeof entry.skipped !== 'string';
}

/**
 * One suite result (`{ rows, info?, error? }`) from the results of several rounds of the same
 * implementation: per row, the best usable round, with every usable round's value in `rounds`.
 * `unitOf(id)` gives a row's unit where an entry does not carry one.
 */
export function bestOfRounds(runs, unitOf) {
  if (runs.length === 1) return runs[0];
  const ids = [...new Set(runs.flatMap((run) => Object.keys(run.rows ?? {})))];
  const rows = {};
  for (const id of ids) {
    const entries = runs.map((run) => run.rows?.[id]).filter((entry) => entry !== undefined);
    const good = entries.filter(usable);
    if (good.length === 0) {
      rows[id] = entries[0];
      continue;
    }
    const better = higherIsBetter(good[0].unit ?? unitOf(id))
      ? (a, b) => (b.value > a.value ? b : a)
      : (a, b) => (b.value < a.value ? b : a);
    rows[id] = { ...good.reduce(better), rounds: good.map((entry) => entry.value) };
  }
  const errors = runs.map((run, round) => (run.error ? `round ${round + 1}: ${run.error}` : undefined));
  const failedRounds = errors.filter(Boolean);
  const combined = { ...runs[0], rows, info: { ...(runs[0].info ?? {}), rounds: runs.length } };
  delete combined.error;
  if (failedRounds.length === runs.length) combined.error = failedRounds.join('; ');
  else if (failedRounds.length) combined.info.roundErrors = failedRounds;
  return combined;
}
