// Merging a row's raw results from the four implementations into one entry of the results
// file: the C floor, ratios to it, the protocol each implementation reported, the targets.
import { describeChecks, evaluateChecks } from './checks.mjs';
import { expectedProtocol } from './repetitions.mjs';
import { IMPLEMENTATIONS } from './rows.mjs';

function ratio(value, c) {
  return typeof value === 'number' && typeof c === 'number' && c > 0 ? value / c : null;
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

/**
 * The C entry of a small-call row measured before and after the other implementations: one
 * value, the median of both runs' repetitions, so a drift of the machine during the suite
 * weighs on the floor the way it weighed on the implementations timed in between.
 */
function combineFloor(before, after) {
  const usable = (entry) => typeof entry?.value === 'number' && !entry.error && Array.isArray(entry.samples);
  if (!usable(after)) return before && after?.error ? { ...before, afterError: after.error } : before;
  if (!usable(before)) return { ...after, variants: { ...after.variants, before: null, after: after.value } };
  const samples = [...before.samples, ...after.samples];
  return {
    ...before,
    value: median(samples),
    samples,
    variants: { ...before.variants, before: before.value, after: after.value },
  };
}

/** Keys of the row's protocol where an implementation's reported protocol differs. */
function protocolDifferences(expected, reported) {
  if (!expected) return [];
  if (!reported) return ['not reported'];
  return Object.keys(expected)
    .filter((key) => reported[key] !== expected[key])
    .map((key) => `${key}: ${JSON.stringify(reported[key])} (expected ${JSON.stringify(expected[key])})`);
}

/**
 * One round's entry of a row from every implementation's raw suite output of that round
 * (`raw[impl]`, plus `raw.cAfter` for floors measured before and after): values, ratios to C,
 * targets evaluated on this round alone. rounds.mjs combines the rounds and judges them.
 * `caps`: the repetition caps the processes ran under (repetitions.mjs).
 */
export function mergeRow(row, raw, deviceName, { caps } = {}) {
  // Under run.mjs's repetition caps a process reports the capped counts (repetitions.mjs).
  const protocol = caps ? expectedProtocol(row.protocol, caps) : row.protocol;
  const results = {};
  const errors = {};
  const variants = {};
  const samples = {};
  const via = {};
  const rounds = {};
  const protocolMismatch = {};
  // Repetitions a row with a warm-up skipped while the host was in its slow mode (callsNs).
  const slowRepsSkipped = {};
  // The rule the default strategy follows (utils rows), named beside its measurements.
  const autoChoice = {};
  // Seconds each implementation's process spent on the row (Suite.row): where device time goes.
  const seconds = {};
  let reference;
  const baseRow = {};
  let skipped;
  for (const impl of IMPLEMENTATIONS) {
    const suiteResult = raw[impl];
    if (!suiteResult) continue;
    // A row whose C floor is another row's (`cFrom` in rows.mjs) reads that row's C result.
    const id = impl === 'c' && row.cFrom ? row.cFrom : row.id;
    let entry = suiteResult.rows?.[id];
    if (impl === 'c' && row.floorBeforeAndAfter && raw.cAfter)
      entry = combineFloor(entry, raw.cAfter.rows?.[id]);
    if (typeof entry?.skipped === 'string') {
      // Not applicable on this machine (the multi-GPU rows on one GPU): neither pass nor fail.
      skipped ??= entry.skipped;
      continue;
    }
    if (typeof entry?.value === 'number' && !entry.error) results[impl] = entry.value;
    else if (!row.notApplicable?.[impl]) errors[impl] = entry?.error ?? suiteResult.error ?? 'no result';
    if (entry?.variants) variants[impl] = entry.variants;
    if (Array.isArray(entry?.samples)) samples[impl] = entry.samples;
    if (entry?.via) via[impl] = entry.via;
    if (Array.isArray(entry?.rounds)) rounds[impl] = entry.rounds;
    if (impl === 'c' && entry?.reference) reference = entry.reference;
    if (row.cFrom && typeof suiteResult.rows?.[row.cFrom]?.value === 'number')
      baseRow[impl] = suiteResult.rows[row.cFrom].value;
    const differences = entry && !entry.error ? protocolDifferences(protocol, entry.protocol) : [];
    if (differences.length) protocolMismatch[impl] = differences.join('; ');
    if (entry?.autoChoice !== undefined) autoChoice[impl] = entry.autoChoice;
    if (typeof entry?.seconds === 'number') seconds[impl] = entry.seconds;
    if (typeof entry?.protocol?.slowRepsSkipped === 'number')
      slowRepsSkipped[impl] = entry.protocol.slowRepsSkipped;
  }
  // The floor in a single-threaded process, for comparison (bench/c/bench.h).
  const cId = row.cFrom ?? row.id;
  const single = raw.cSingleThread?.rows?.[cId];
  if (results.c !== undefined && typeof single?.value === 'number' && !single.error)
    variants.c = { ...variants.c, singleThreadedProcess: single.value };
  const checks = evaluateChecks(row, { results, reference: reference?.value, deviceName, variants, baseRow });
  const applicable = checks.filter((check) => check.applicable);
  return {
    id: row.id,
    suite: row.suite,
    description: row.description,
    unit: row.unit,
    results: {
      ffi: results.ffi ?? null,
      napi: results.napi ?? null,
      cudaCore: results.cudaCore ?? null,
      c: results.c ?? null,
    },
    ratios: {
      ffiVsC: ratio(results.ffi, results.c),
      napiVsC: ratio(results.napi, results.c),
      cudaCoreVsC: ratio(results.cudaCore, results.c),
    },
    ...(reference ? { reference } : {}),
    ...(row.notApplicable ? { notApplicable: row.notApplicable } : {}),
    target: describeChecks(row),
    checks,
    // A row without targets (e.g. the uncached NVRTC compile, which has no C floor) informs only.
    pass:
      skipped || row.checks.length === 0
        ? null
        : applicable.length > 0 && applicable.every((check) => check.ok === true),
    ...(skipped ? { skipped } : {}),
    ...(row.protocol ? { protocol: row.protocol } : {}),
    ...(Object.keys(protocolMismatch).length ? { protocolMismatch } : {}),
    ...(Object.keys(slowRepsSkipped).length ? { slowRepsSkipped } : {}),
    ...(Object.keys(autoChoice).length ? { autoChoice } : {}),
    ...(Object.keys(seconds).length ? { seconds } : {}),
    ...(Object.keys(errors).length ? { errors } : {}),
    ...(Object.keys(variants).length ? { variants } : {}),
    ...(Object.keys(rounds).length ? { rounds } : {}),
    samples,
    via,
  };
}
