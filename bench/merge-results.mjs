// One results file from several of the same run (bench/run.mjs split over device calls): the
// raw rounds of all of them merged (raw-rounds.mjs) and every row judged again from them, so the
// verdict of a bench run in two calls is the verdict of one bench with all their rounds. Used by
// report.mjs and compare.mjs when given several files.
import { comparisonOf } from './compare.mjs';
import { mergeRawRounds, rowsFromRounds, unitsBySuite } from './raw-rounds.mjs';
import { ROWS, SINGLE_PROCESS_SUITES } from './rows.mjs';
import { MIN_PROCESSES } from './verdict.mjs';

/** The summary block of a results file from its rows. */
export function summaryOf(rows) {
  return {
    rows: rows.length,
    met: rows.filter((row) => row.verdict === 'met').length,
    missed: rows.filter((row) => row.verdict === 'missed').length,
    inconclusive: rows.filter((row) => row.verdict === 'inconclusive').length,
    missedRows: rows.filter((row) => row.verdict === 'missed').map((row) => row.id),
    skipped: rows.filter((row) => row.skipped).map((row) => row.id),
    withErrors: rows.filter((row) => row.errors).map((row) => row.id),
    protocolMismatch: rows.filter((row) => row.protocolMismatch).map((row) => row.id),
  };
}

/** The rounds a verdict needs for a suite's rows: the curves run once. */
export const minProcessesOf = (suite) => (SINGLE_PROCESS_SUITES.includes(suite) ? 1 : MIN_PROCESSES);

/**
 * `resultsList` (results objects of one commit, device and caps, in the order they ran) as one
 * results object. Rows whose suites have raw rounds are judged again; rows without (kept from an
 * older file by run.mjs --merge) are taken from the last file that has them. Throws when the
 * files cannot be merged (raw-rounds.mjs mergeRawRounds says why).
 */
export function mergeResults(resultsList) {
  const { rawRounds, dropped } = mergeRawRounds(resultsList);
  const last = resultsList.at(-1);
  const repetitions = last.environment?.repetitions ?? {};
  const caps = {
    reps: repetitions.maxReps ?? Number.POSITIVE_INFINITY,
    warmupMs: repetitions.maxWarmupMs ?? Number.POSITIVE_INFINITY,
  };
  const units = unitsBySuite(rawRounds);
  const suites = Object.keys(units);
  const measured = rowsFromRounds(ROWS, rawRounds, {
    suites,
    deviceName: last.device,
    caps,
    minProcesses: minProcessesOf,
  });
  const kept = (id) =>
    resultsList.map((results) => results.rows?.find((row) => row.id === id)).findLast(Boolean);
  const rows = ROWS.map((row) => measured.find((entry) => entry.id === row.id) ?? kept(row.id)).filter(
    Boolean,
  );
  const unitsDone = Object.fromEntries(Object.entries(units).map(([suite, list]) => [suite, list.length]));
  const repeated = Object.entries(unitsDone).filter(([suite]) => !SINGLE_PROCESS_SUITES.includes(suite));
  const verdict = last.environment?.verdict ?? {};
  const implementations = Object.assign(
    {},
    ...resultsList.map((results) => results.environment?.implementations ?? {}),
  );
  const calls = resultsList
    .flatMap((results) => results.environment?.verdict?.calls ?? [])
    .filter((call, index, all) => all.findIndex((other) => other.date === call.date) === index);
  return {
    ...last,
    date: last.date,
    seconds: calls.reduce((sum, call) => sum + (call.seconds ?? 0), 0),
    environment: {
      ...last.environment,
      implementations,
      verdict: {
        ...verdict,
        roundsDone: repeated.length ? Math.min(...repeated.map(([, count]) => count)) : rawRounds.length,
        unitsDone,
        unitSeconds: Object.fromEntries(
          Object.entries(units).map(([suite, list]) => [suite, list.map((unit) => unit.seconds)]),
        ),
        calls,
        mergedFiles: resultsList.length,
        ...(dropped ? { incompleteUnitsLeftOut: dropped } : {}),
      },
    },
    rows,
    summary: summaryOf(rows),
    ...(last.comparison
      ? {
          comparison: comparisonOf(ROWS, rawRounds, {
            suites,
            head: last.commit,
            base: last.comparison.base,
          }),
        }
      : {}),
    rawRounds,
  };
}
