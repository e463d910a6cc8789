#!/usr/bin/env node
// The JS rows of two builds of cumem judged against each other (issue 44: a restructure must show
// no row worse than before, judged by the bench's statistical rule). bench/run.mjs --base DIR
// runs, in each unit of the bench (raw-rounds.mjs), every JS implementation of DIR (an earlier
// commit's built packages laid over a copy of this tree: scripts/device/pack.sh --baseline,
// unpacked by run.sh) right beside this tree's, so both share the bench's rounds, its resume
// across device calls and its results file. Per row and adapter: the median over rounds of
// head / base, its spread (verdict.mjs's outlier rule) and a verdict: `worse` when the whole
// spread is on the slower side of 1, `better` when on the faster side, `same` otherwise,
// `inconclusive` with fewer rounds than a verdict needs; `head only` / `base only` for a row one
// build's processes never wrote (added or removed between the commits: nothing to compare).
//
//   node bench/compare.mjs RESULTS.json [MORE.json ...]   the comparison of results files from
//                                                         run.mjs --base (merged round by round)
//   node bench/compare.mjs --base DIR [run.mjs options]   runs it: run.mjs --impls ffi,napi
//                                                         --base DIR over every suite but the curves
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { HIGHER_IS_BETTER_UNITS } from './checks.mjs';
import { mergeRawRounds, unitsBySuite } from './raw-rounds.mjs';
import { ROWS, SINGLE_PROCESS_SUITES, SUITES } from './rows.mjs';
import { MIN_PROCESSES, spreadOf, verdictOf } from './verdict.mjs';

/** The implementations a baseline runs: its packages are JavaScript; C and Python do not change. */
export const BASE_IMPLEMENTATIONS = ['ffi', 'napi'];

/** Per round, head / base of one row and adapter; `worse` / `better` / `same` over the rounds. */
export function compareRow(row, perRound, impl, minProcesses = MIN_PROCESSES) {
  const ratios = perRound
    .map((round) => {
      const head = round.head?.rows?.[row.id];
      const base = round.base?.rows?.[row.id];
      return typeof head?.value === 'number' &&
        typeof base?.value === 'number' &&
        base.value > 0 &&
        !head.error &&
        !base.error
        ? head.value / base.value
        : undefined;
    })
    .filter(Number.isFinite);
  const spread = spreadOf(ratios);
  // head / base <= 1 is "not slower" for times, >= 1 for bandwidths.
  const kind = HIGHER_IS_BETTER_UNITS.has(row.unit) ? 'minRatio' : 'maxRatio';
  const judged = verdictOf(kind, 1, spread, minProcesses);
  const verdict = judged === 'met' ? 'better' : judged === 'missed' ? 'worse' : 'same';
  return {
    id: row.id,
    impl,
    unit: row.unit,
    headOverBase: spread?.median ?? null,
    spread: spread ? [spread.low, spread.high] : null,
    processes: ratios.length,
    verdict: ratios.length >= minProcesses ? verdict : (onlyOneTree(row.id, perRound) ?? 'inconclusive'),
  };
}

/**
 * 'head only' / 'base only' for a row that one build measured and the other's processes, which
 * ran, never wrote at all (a row added or removed between the commits): nothing to compare, and
 * no failure either. A row a process wrote with an error is no such row: it stays inconclusive,
 * and the error is the process's.
 */
function onlyOneTree(id, perRound) {
  const measured = (result) => typeof result?.rows?.[id]?.value === 'number';
  const wrote = (result) => result?.rows !== undefined && id in result.rows;
  // At least one of the tree's processes ran to its end, and none of them wrote the row.
  const lacks = (tree) =>
    perRound.some((round) => round[tree] !== undefined && !round[tree].error) &&
    !perRound.some((round) => wrote(round[tree]));
  if (perRound.some((round) => measured(round.head)) && lacks('base')) return 'head only';
  if (perRound.some((round) => measured(round.base)) && lacks('head')) return 'base only';
  return undefined;
}

/**
 * The comparison section of a results file: every row of `suites` with baseline units, per
 * adapter of `impls` (default: those the units ran a baseline of), judged from the raw rounds (each unit's head and base processes).
 */
export function comparisonOf(
  rows,
  rawRounds,
  { suites, head, base, impls: asked, minProcesses = MIN_PROCESSES },
) {
  const bySuite = unitsBySuite(rawRounds);
  // By default the adapters the units ran a baseline of.
  const impls =
    asked ??
    BASE_IMPLEMENTATIONS.filter((impl) =>
      Object.values(bySuite).some((list) => list.some((unit) => unit.baseImpls?.includes(impl))),
    );
  const compared = rows
    .filter((row) => suites.includes(row.suite) && (bySuite[row.suite] ?? []).some((unit) => unit.base))
    .flatMap((row) =>
      impls.map((impl) =>
        compareRow(
          row,
          bySuite[row.suite].map((unit) => ({ head: unit[impl], base: unit.base?.[impl] })),
          impl,
          minProcesses,
        ),
      ),
    );
  const errors = Object.entries(bySuite).flatMap(([suite, list]) =>
    list.flatMap((unit, index) =>
      Object.entries(unit.base ?? {})
        .filter(([, result]) => result?.error)
        .map(
          ([impl, result]) =>
            `${suite} unit ${index + 1} ${impl} base: ${String(result.error).slice(0, 200)}`,
        ),
    ),
  );
  return {
    head,
    base,
    rule: 'head / base per unit (the same bench scripts on the same machine, the two processes side by side, which goes first alternating by round); median and spread over units (bench/verdict.mjs); worse = whole spread on the slower side of 1, better = whole spread on the faster side, same otherwise',
    summary: {
      worse: compared.filter((row) => row.verdict === 'worse').map((row) => `${row.id} ${row.impl}`),
      better: compared.filter((row) => row.verdict === 'better').length,
      same: compared.filter((row) => row.verdict === 'same').length,
      inconclusive: compared.filter((row) => row.verdict === 'inconclusive').length,
      oneTreeOnly: compared
        .filter((row) => row.verdict === 'head only' || row.verdict === 'base only')
        .map((row) => `${row.id} ${row.impl} (${row.verdict})`),
    },
    rows: compared,
    ...(errors.length ? { errors } : {}),
  };
}

/** One line per compared row with a value, and per row only one of the builds has. */
export function comparisonLines(comparison) {
  return comparison.rows
    .filter((row) => row.headOverBase !== null || row.verdict === 'head only' || row.verdict === 'base only')
    .map((row) =>
      row.headOverBase === null
        ? `${row.verdict.padEnd(12)} ${row.id} ${row.impl}: not measured by the other build`
        : `${row.verdict.padEnd(12)} ${row.id} ${row.impl}: head/base ${row.headOverBase.toFixed(3)} [${row.spread.map((v) => v.toFixed(3)).join('–')}] over ${row.processes}`,
    );
}

/** '; only one build: …' for the summary line, or nothing. */
export function oneTreeOnlyText(summary) {
  return summary.oneTreeOnly?.length ? `; only one build: ${summary.oneTreeOnly.join(', ')}` : '';
}

function main(argv) {
  const here = dirname(fileURLToPath(import.meta.url));
  if (argv.includes('--base')) {
    // Only the JS rows change between two builds of cumem; the growth curves have no single value.
    const suites = SUITES.filter((suite) => !SINGLE_PROCESS_SUITES.includes(suite)).join(',');
    const forwarded = argv.includes('--suites') ? argv : ['--suites', suites, ...argv];
    const run = spawnSync(process.execPath, [join(here, 'run.mjs'), '--impls', 'ffi,napi', ...forwarded], {
      stdio: 'inherit',
    });
    return run.status ?? 1;
  }
  const files = argv.filter((arg) => !arg.startsWith('--'));
  if (files.length === 0) {
    process.stderr.write(
      'usage: node bench/compare.mjs RESULTS.json [MORE.json ...] | node bench/compare.mjs --base DIR [run.mjs options]\n',
    );
    return 2;
  }
  const results = files.map((file) => JSON.parse(readFileSync(resolve(file), 'utf8')));
  const { rawRounds } = mergeRawRounds(results);
  const comparison = comparisonOf(ROWS, rawRounds, {
    suites: SUITES,
    head: results[0].commit,
    base: results[0].comparison?.base ?? 'unknown',
  });
  process.stdout.write(`${comparisonLines(comparison).join('\n')}\n`);
  process.stdout.write(
    `head ${String(comparison.head).slice(0, 12)} against base ${String(comparison.base).slice(0, 12)}: worse ${comparison.summary.worse.join(', ') || 'none'}; ${comparison.summary.better} better, ${comparison.summary.same} same, ${comparison.summary.inconclusive} inconclusive${oneTreeOnlyText(comparison.summary)}\n`,
  );
  return 0;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url))
  process.exitCode = main(process.argv.slice(2));
