// A row's targets (the `checks` of rows.mjs): as text for the report, and judged against the
// merged results of a run.
import { fasterForm } from './faster-form.mjs';

const SYMBOL = {
  max: '≤',
  min: '≥',
  maxRatio: '≤',
  minRatio: '≥',
  minOfReference: '≥',
  minSpeedup: '≥',
  minPairRatio: '≥',
  maxOfBaseRow: '≤',
  maxOfFasterForm: '≤',
};

/** Units in which a larger value is better (rates); every other unit is a time or a ratio. */
export const HIGHER_IS_BETTER_UNITS = new Set(['GB/s', 'req/s']);

/** The target as text, e.g. "ffi ≤ 1.6× C, napi ≤ 1.2× C". */
export function describeChecks(row) {
  return row.checks
    .map((check) => {
      const { impl, kind, value, onDevice } = check;
      let text;
      if (kind === 'max' || kind === 'min') text = `${impl} ${SYMBOL[kind]} ${value} ${row.unit}`;
      else if (kind === 'minSpeedup')
        text = `${impl} zero-copy ${SYMBOL[kind]} ${value}× faster than the host round trip`;
      else if (kind === 'minPairRatio')
        text = `${impl} ${SYMBOL[kind]} ${Math.round(value * 100)}% of C for every pair`;
      else if (kind === 'maxOfFasterForm')
        text = `${impl} default ${SYMBOL[kind]} ${value}× its own faster forced form (loop or batch)`;
      else if (kind === 'maxOfBaseRow') text = `${impl} ${SYMBOL[kind]} ${value}× its own ${row.cFrom} row`;
      else if (kind === 'minOfReference')
        text = `${impl} ${SYMBOL[kind]} ${Math.round(value * 100)}% of the contiguous copy`;
      else if (HIGHER_IS_BETTER_UNITS.has(row.unit))
        text = `${impl} ${SYMBOL[kind]} ${Math.round(value * 100)}% of C`;
      else text = `${impl} ${SYMBOL[kind]} ${value}× C`;
      return onDevice ? `${text} (on ${onDevice})` : text;
    })
    .join(', ');
}

/**
 * Evaluates a row's checks against its merged results. A check whose values are missing fails;
 * one limited to another device is reported as not applicable.
 */
export function evaluateChecks(row, { results, reference, deviceName, variants = {}, baseRow = {} }) {
  return row.checks.map((check) => {
    if (check.kind === 'maxOfBaseRow') {
      // The implementation's value against its own value of the row named by `cFrom`, same run.
      const value = results[check.impl];
      const base = baseRow[check.impl];
      if (typeof value !== 'number' || typeof base !== 'number' || !(base > 0))
        return { ...check, applicable: true, ok: false, note: 'missing measurement' };
      return { ...check, applicable: true, measured: value / base, ok: value / base <= check.value };
    }
    if (check.kind === 'maxOfFasterForm')
      return fasterFormRatio(check, results[check.impl], variants[check.impl]);
    if (check.kind === 'minSpeedup') {
      // The implementation's own ratio of two variants measured in the same run.
      const speedup = variants[check.impl]?.speedup;
      if (typeof speedup !== 'number')
        return { ...check, applicable: true, ok: false, note: 'missing measurement' };
      return { ...check, applicable: true, measured: speedup, ok: speedup >= check.value };
    }
    if (check.kind === 'minPairRatio') return pairRatios(check, variants);
    const value = results[check.impl];
    const base = check.kind === 'minOfReference' ? reference : check.kind.endsWith('Ratio') ? results.c : 1;
    const outcome = { ...check };
    if (check.onDevice && !String(deviceName ?? '').includes(check.onDevice)) {
      return { ...outcome, applicable: false, ok: null };
    }
    if (typeof value !== 'number' || typeof base !== 'number' || !(base > 0)) {
      return { ...outcome, applicable: true, ok: false, note: 'missing measurement' };
    }
    const measured = check.kind === 'max' || check.kind === 'min' ? value : value / base;
    const ok = check.kind.startsWith('max') ? measured <= check.value : measured >= check.value;
    return { ...outcome, applicable: true, measured, ok };
  });
}

// Every variant of C (one per pair, e.g. "0to1") against the same variant of the implementation:
// the worst ratio is what is judged, and a pair the implementation lacks fails the check.
function pairRatios(check, variants) {
  const floor = variants.c ?? {};
  const own = variants[check.impl] ?? {};
  // singleThreadedProcess is the floor measured otherwise (bench/c/bench.h), not a pair.
  const pairs = Object.keys(floor).filter(
    (pair) => pair !== 'singleThreadedProcess' && typeof floor[pair] === 'number' && floor[pair] > 0,
  );
  if (pairs.length === 0) return { ...check, applicable: true, ok: false, note: 'missing measurement' };
  let worst = Number.POSITIVE_INFINITY;
  let worstPair = '';
  for (const pair of pairs) {
    const ratio = typeof own[pair] === 'number' ? own[pair] / floor[pair] : 0;
    if (ratio < worst) {
      worst = ratio;
      worstPair = pair;
    }
  }
  return {
    ...check,
    applicable: true,
    measured: worst,
    ok: worst >= check.value,
    note: `slowest relative pair ${worstPair}`,
  };
}

// The row's value (the default strategy, 'auto') against the faster of the same implementation's
// forced forms, measured in the same run with repetitions interleaved (bench/js/utils.mjs). Judged
// on `autoOverFasterForm`, the ratio paired by repetition, where the run recorded it (from
// 2026-11-27); the ratio of the three medians is kept beside it as `ofMedians`.
function fasterFormRatio(check, value, own = {}) {
  const { loop, batch, autoOverFasterForm } = own;
  if (
    typeof value !== 'number' ||
    typeof loop !== 'number' ||
    typeof batch !== 'number' ||
    !(Math.min(loop, batch) > 0)
  )
    return { ...check, applicable: true, ok: false, note: 'missing measurement' };
  const ofMedians = value / Math.min(loop, batch);
  const paired = typeof autoOverFasterForm === 'number' && autoOverFasterForm > 0;
  const measured = paired ? autoOverFasterForm : ofMedians;
  const form = fasterForm(loop, batch);
  return {
    ...check,
    applicable: true,
    measured,
    ofMedians,
    ok: measured <= check.value,
    note: paired
      ? `faster form: ${form}; paired by repetition (ratio of medians ${ofMedians.toFixed(3)})`
      : `faster form: ${form}`,
  };
}
