// The bench's raw rounds: what every process of every round printed, kept in the results file
// (`rawRounds`) so that a bench split over several device calls ends in one verdict. A device
// call has 10 minutes and nobody knows beforehand how many rounds fit, so a call stopped by its
// limit keeps the rounds it finished, and the next call continues from them (run.mjs --resume)
// or report.mjs merges the files afterwards. Either way the rows are judged again from the raw
// rounds by the same code (merge-row.mjs per round, rounds.mjs over the rounds), never by
// averaging two files' summaries.
//
// `rawRounds[k][suite]` is one unit of work: the suite run once by every implementation, one
// process each: `{ c, ffi, napi, cudaCore, base?: { ffi, napi }, impls, baseImpls?, seconds }`
// (`impls` / `baseImpls`: the processes the unit was to run; `seconds`: its time on the device;
// `id`: the call and place it ran in, so a file and the file that resumed it can be merged
// without counting their shared units twice).
// A unit is written only once all its processes ended; one whose process the call's time limit
// cut short is marked `incomplete` and left out of every verdict, so the next call runs it again.
import { mergeRow } from './merge-row.mjs';
import { combineRounds } from './rounds.mjs';
import { MIN_PROCESSES } from './verdict.mjs';

/** True for a unit whose processes all ended on their own (not cut by the call's time limit). */
export function unitComplete(unit) {
  if (!unit || typeof unit !== 'object' || unit.incomplete || typeof unit.seconds !== 'number') return false;
  const heads = unit.impls ?? [];
  const bases = unit.baseImpls ?? [];
  return (
    heads.every((impl) => unit[impl] !== undefined) && bases.every((impl) => unit.base?.[impl] !== undefined)
  );
}

/** Per suite, its complete units in the order they ran. */
export function unitsBySuite(rawRounds = []) {
  const units = {};
  for (const round of rawRounds)
    for (const [suite, unit] of Object.entries(round ?? {}))
      if (unitComplete(unit)) units[suite] = [...(units[suite] ?? []), unit];
  return units;
}

/** Rounds rebuilt from units per suite: round k holds each suite's k-th unit. */
export function roundsFromUnits(units) {
  const rounds = [];
  for (const [suite, list] of Object.entries(units))
    list.forEach((unit, index) => {
      rounds[index] ??= {};
      rounds[index][suite] = unit;
    });
  return rounds;
}

/** How many complete units each suite has. */
export function unitsDone(rawRounds) {
  return Object.fromEntries(
    Object.entries(unitsBySuite(rawRounds)).map(([suite, list]) => [suite, list.length]),
  );
}

/** Seconds each suite's complete units took, in order: what the next unit of that suite is expected to take. */
export function unitSeconds(rawRounds) {
  return Object.fromEntries(
    Object.entries(unitsBySuite(rawRounds)).map(([suite, list]) => [suite, list.map((unit) => unit.seconds)]),
  );
}

/** What must agree between results files before their rounds may be judged together. */
function mergeKey(results) {
  return {
    commit: results.commit,
    baseCommit: results.comparison?.base ?? null,
    device: results.device,
    maxReps: results.environment?.repetitions?.maxReps,
    maxWarmupMs: results.environment?.repetitions?.maxWarmupMs,
    quick: results.environment?.repetitions?.quick ?? false,
  };
}

/**
 * The raw rounds of several results files (in the order given) as one list: each suite's complete
 * units one after another. Throws, naming the difference, when the files measured different
 * commits, devices or repetition caps: their rounds are not samples of one thing. A file without
 * `rawRounds` (written before they were kept) cannot be merged this way.
 */
export function mergeRawRounds(resultsList) {
  if (resultsList.length === 0) throw new Error('mergeRawRounds: no results to merge');
  const first = mergeKey(resultsList[0]);
  const units = {};
  const seen = new Set();
  let dropped = 0;
  resultsList.forEach((results, index) => {
    if (!Array.isArray(results.rawRounds))
      throw new Error(
        `results file ${index + 1} (${results.date ?? 'no date'}) has no rawRounds: written before bench/run.mjs kept them; it cannot be merged round by round`,
      );
    const key = mergeKey(results);
    for (const [name, value] of Object.entries(key))
      if (value !== first[name])
        throw new Error(
          `results file ${index + 1} has ${name} ${JSON.stringify(value)}, file 1 ${JSON.stringify(first[name])}: rounds of different runs are not merged`,
        );
    for (const round of results.rawRounds)
      for (const [suite, unit] of Object.entries(round ?? {})) {
        if (!unitComplete(unit)) dropped++;
        else if (unit.id === undefined || !seen.has(unit.id)) units[suite] = [...(units[suite] ?? []), unit];
        if (unit?.id !== undefined) seen.add(unit.id);
      }
  });
  return { rawRounds: roundsFromUnits(units), dropped };
}

/**
 * `{ round, suite }` units still to run, round-major so suites stay interleaved: `wanted(suite)`
 * units per suite in all, `done[suite]` of them already there. `round` is where the unit goes in
 * the merged rounds (the suite's next free index).
 */
export function remainingUnits(suites, wanted, done = {}) {
  const missing = Object.fromEntries(
    suites.map((suite) => [suite, Math.max(0, wanted(suite) - (done[suite] ?? 0))]),
  );
  const most = Math.max(0, ...Object.values(missing));
  const order = [];
  for (let step = 0; step < most; step++)
    for (const suite of suites)
      if (step < missing[suite]) order.push({ suite, round: (done[suite] ?? 0) + step });
  return order;
}

/**
 * The results file's rows of `suites` judged from the raw rounds: each round merged on its own
 * (ratios to that round's C), then combined and judged (rounds.mjs). `minProcesses(suite)`: the
 * rounds a verdict needs for that suite's rows.
 */
export function rowsFromRounds(
  rows,
  rawRounds,
  { suites, deviceName, caps, minProcesses = () => MIN_PROCESSES },
) {
  const bySuite = unitsBySuite(rawRounds);
  const measured = [];
  for (const row of rows.filter((entry) => suites.includes(entry.suite))) {
    const units = bySuite[row.suite] ?? [];
    if (units.length === 0) continue;
    const perRound = units.map((unit) => mergeRow(row, unit, deviceName, { caps }));
    measured.push(combineRounds(row, perRound, { minProcesses: minProcesses(row.suite) }));
  }
  return measured;
}
