// Rounds of processes (issue 47). The bench runs in rounds: in each, every suite runs once per
// implementation, one process each, C then FFI then N-API then Python; then the next round. So a
// row's implementations are interleaved A B C A B C ... and a stretch of a slower host weighs on
// every implementation alike (the order, and a bench split over device calls: raw-rounds.mjs).
// Each round is merged on its own (merge-row.mjs: ratios to the SAME round's C); combineRounds
// then reports medians and spreads over the rounds and judges the targets (verdict.mjs).
import { judgeChecks, MIN_PROCESSES, median, rowVerdict, spreadOf } from './verdict.mjs';

const RATIO_KEYS = { ffi: 'ffiVsC', napi: 'napiVsC', cudaCore: 'cudaCoreVsC' };

/** Per key, the median over rounds of numeric variant values; other values from the first round that has them. */
function combineVariants(perRoundVariants) {
  const combined = {};
  const keys = new Set(perRoundVariants.flatMap((variants) => Object.keys(variants ?? {})));
  for (const key of keys) {
    const values = perRoundVariants.map((variants) => variants?.[key]).filter((value) => value !== undefined);
    const numbers = values.filter(Number.isFinite);
    combined[key] = numbers.length ? median(numbers) : values[0];
  }
  return combined;
}

/**
 * One entry of the results file from the merged entries of one row, one per round
 * (`perRound[k]` = mergeRow(row, raw of round k)). `minProcesses`: rounds a verdict needs.
 */
export function combineRounds(row, perRound, { minProcesses = MIN_PROCESSES } = {}) {
  const first = perRound[0];
  const impls = ['ffi', 'napi', 'cudaCore', 'c'];
  const results = {};
  const ratios = {};
  const spreads = {};
  const perProcess = {};
  for (const impl of impls) {
    const values = perRound.map((merged) => merged.results?.[impl]).filter(Number.isFinite);
    perProcess[impl] = perRound.map((merged) => merged.results?.[impl] ?? null);
    const spread = spreadOf(values);
    results[impl] = spread?.median ?? null;
    if (spread) spreads[impl] = [spread.low, spread.high];
    const key = RATIO_KEYS[impl];
    if (!key) continue;
    const roundRatios = perRound.map((merged) => merged.ratios?.[key]).filter(Number.isFinite);
    const ratioSpread = spreadOf(roundRatios);
    ratios[key] = ratioSpread?.median ?? null;
    if (ratioSpread) spreads[key] = [ratioSpread.low, ratioSpread.high];
  }
  const skipped = perRound.find((merged) => merged.skipped)?.skipped;
  const checks = skipped ? [] : judgeChecks(row, perRound, minProcesses);
  const verdict =
    skipped || row.checks.length === 0 ? null : rowVerdict(checks.map((check) => check.verdict));
  const errors = {};
  perRound.forEach((merged, round) => {
    for (const [impl, message] of Object.entries(merged.errors ?? {}))
      errors[impl] = [...(errors[impl] ?? []), `process ${round + 1}: ${message}`];
  });
  const variantsByImpl = {};
  for (const impl of new Set(perRound.flatMap((merged) => Object.keys(merged.variants ?? {}))))
    variantsByImpl[impl] = combineVariants(perRound.map((merged) => merged.variants?.[impl]));
  const protocolMismatch = Object.assign({}, ...perRound.map((merged) => merged.protocolMismatch ?? {}));
  const referenceValues = perRound.map((merged) => merged.reference?.value).filter(Number.isFinite);
  return {
    id: row.id,
    suite: row.suite,
    description: row.description,
    unit: row.unit,
    results,
    ratios,
    spreads,
    processes: perProcess,
    ...(referenceValues.length ? { reference: { ...first.reference, value: median(referenceValues) } } : {}),
    ...(row.notApplicable ? { notApplicable: row.notApplicable } : {}),
    target: first.target,
    checks,
    verdict,
    // `pass` as before: true only when met; false when missed; null otherwise.
    pass: verdict === 'met' ? true : verdict === 'missed' ? false : null,
    ...(skipped ? { skipped } : {}),
    ...(row.protocol ? { protocol: row.protocol } : {}),
    ...(Object.keys(protocolMismatch).length ? { protocolMismatch } : {}),
    ...(Object.keys(errors).length ? { errors } : {}),
    ...(Object.keys(variantsByImpl).length ? { variants: variantsByImpl } : {}),
    samples: Object.fromEntries(
      impls
        .filter((impl) => perRound.some((merged) => merged.samples?.[impl]))
        .map((impl) => [impl, perRound.map((merged) => merged.samples?.[impl] ?? null)]),
    ),
    via: Object.assign({}, ...perRound.map((merged) => merged.via ?? {})),
  };
}
