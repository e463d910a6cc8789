#!/usr/bin/env node
// Turns a results JSON from bench/run.mjs into a Markdown table of ratios against the C floor,
// rewrites the table between the bench markers of README.md, and files the results as
// bench/results/<machine kind>.json with its table <machine kind>.md (the newest per kind: older
// results live in git history). `--regenerate` rebuilds every table from the committed JSON.
//
//   node bench/report.mjs RESULTS.json [MORE.json ...] [--readme README.md] [--no-readme] [--no-save]
//                         [--second-host] [--out MERGED.json] [--keep-rounds]
// Several files of one run split over device calls (run.mjs --resume or not) are merged round by
// round and judged again (merge-results.mjs); `--out` writes the merged file (with its raw rounds,
// for a later --resume). The copy filed in bench/results/ leaves the raw rounds out (every row
// keeps each process's value) unless --keep-rounds.
// --second-host: the table between the second-host markers (`<!-- bench-second-host:start -->`),
// for issue 26's second machine.
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { HIGHER_IS_BETTER_UNITS } from './checks.mjs';
import { comparisonLines } from './compare.mjs';
import { mergeResults } from './merge-results.mjs';
import { curvePlots } from './plot-svg.mjs';

export const START_MARKER = '<!-- bench:start -->';
export const END_MARKER = '<!-- bench:end -->';
const SECOND_HOST_MARKERS = ['<!-- bench-second-host:start -->', '<!-- bench-second-host:end -->'];

const COLUMNS = [
  ['ffi', 'ffiVsC', 'FFI (koffi)'],
  ['napi', 'napiVsC', 'N-API'],
  ['cudaCore', 'cudaCoreVsC', 'Python (cuda.core)'],
];

function formatNumber(value) {
  if (value >= 100) return value.toFixed(0);
  if (value >= 10) return value.toFixed(1);
  return value.toFixed(2);
}

/** "[1.10–1.31]": a ratio's spread over processes (schema 2; absent before). */
function spreadText(row, ratioKey) {
  const spread = row.spreads?.[ratioKey];
  if (!Array.isArray(spread)) return '';
  const [low, high] = spread;
  return HIGHER_IS_BETTER_UNITS.has(row.unit)
    ? ` [${Math.round(low * 100)}–${Math.round(high * 100)}%]`
    : ` [${low.toFixed(2)}–${high.toFixed(2)}]`;
}

/** "1.23× C [1.10–1.31] (45.1 ns)" for times, "98% of C [97–99%] (53.1 GB/s)" for bandwidths. */
function formatCell(row, impl, ratioKey) {
  const value = row.results[impl];
  if (value === null || value === undefined)
    return row.notApplicable?.[impl] ?? (row.errors?.[impl] ? 'error' : '—');
  const ratio = row.ratios[ratioKey];
  const speedup = row.variants?.[impl]?.speedup;
  const absolute = `${formatNumber(value)} ${row.unit}`;
  // A row comparing two ways in one run shows that ratio instead of one against C.
  if (typeof speedup === 'number')
    return `${absolute}; ${formatNumber(speedup)}× faster than the host round trip (${formatNumber(row.variants[impl].hostRoundTrip)} ${row.unit})`;
  if (ratio === null || ratio === undefined) return absolute;
  const relative = HIGHER_IS_BETTER_UNITS.has(row.unit)
    ? `${Math.round(ratio * 100)}% of C`
    : `${ratio.toFixed(2)}× C`;
  return `${relative}${spreadText(row, ratioKey)} (${absolute})`;
}

/** The verdict column: met / **missed** (which) / inconclusive (which), from schema 2's `verdict`. */
export function formatVerdict(row) {
  if (row.skipped) return `n/a (${row.skipped})`;
  if (row.checks.length === 0) return 'n/a (no target)';
  if (row.verdict === undefined) {
    // Schema 1 (one process per implementation): `pass` only.
    const failing = row.checks.filter((check) => check.applicable && check.ok !== true);
    if (row.pass) return 'yes';
    return failing.length ? `**no** (${failing.map((check) => check.impl).join(', ')})` : 'n/a';
  }
  const which = (verdict) =>
    row.checks
      .filter((check) => check.verdict === verdict)
      .map((check) => check.impl)
      .join(', ');
  if (row.verdict === 'met') return 'met';
  if (row.verdict === 'missed') return `**missed** (${which('missed')})`;
  if (row.verdict === 'inconclusive') return `inconclusive (${which('inconclusive')})`;
  return 'n/a';
}

function escapeCell(text) {
  return String(text).replaceAll('|', '\\|');
}

/** Where an implementation's calibrations saw one mode only: its limit may admit the slow one. */
function oneModeOnly(gate) {
  const single = Object.entries(gate.calibrations ?? {}).flatMap(([impl, { bothModesSeen = {} } = {}]) =>
    Object.entries(bothModesSeen)
      .filter(([, seen]) => !seen)
      .map(([loop]) => `${impl} ${loop}`),
  );
  return single.length
    ? ` Calibrations that saw one mode only (the limit may admit the slow one): ${single.join(', ')}.`
    : '';
}

/** Suite processes that ran ungated (every try drew the slow mode): their rows are slow-mode figures. */
function ranUngated(implementations = {}) {
  const ungated = Object.entries(implementations)
    .filter(([, info]) => info?.processGate?.passed === false)
    .map(
      ([name, info]) =>
        `${name} (${info.processGate.tries - 1} tries, stopped by ${info.processGate.stoppedBy ?? 'the number of tries'})`,
    );
  return ungated.length ? ` Ran ungated, every try in the slow mode: ${ungated.join(', ')}.` : '';
}

/** Rows a split run kept from an earlier commit's file (bench/run.mjs --merge): which, and from when. */
function mergedRows(results) {
  const from = results.environment?.mergedFrom;
  if (!from || from.commit === results.commit) return '';
  const rows = from.suites?.length ? `the rows of ${from.suites.join(', ')}` : "some suites' rows";
  return ` Merged from two device calls: ${rows} come from commit \`${String(from.commit).slice(0, 12)}\` (${String(from.date).slice(0, 10)}).`;
}

/** The Markdown table (with a short header and notes) for a results object. */
export function renderMarkdown(results) {
  const lines = [
    `Measured on ${results.device} (driver ${results.driverVersion ?? 'unknown'}, CUDA ${
      results.cudaDriverVersion ? (results.cudaDriverVersion / 1000).toFixed(1) : 'unknown'
    }), commit \`${String(results.commit).slice(0, 12)}\`, ${String(results.date).slice(0, 10)}. ` +
      (results.environment?.verdict
        ? `Each implementation ran in ${results.environment.verdict.roundsDone} processes, interleaved round by round (bench/rounds.mjs); a cell is the median over processes of the ratio to the C program of the same round, [its spread over processes without the lowest and highest], then the median value. A target is met when the whole spread is within it, missed when the whole spread is outside it, else inconclusive (bench/verdict.mjs). `
        : 'Each cell is the ratio to the C program on the driver API (the floor), then the median of several repetitions. ') +
      'Times: lower is better, 1.00× C is the floor. Bandwidths: higher is better, 100% of C is the floor.' +
      (results.environment?.rounds > 1
        ? ` Each implementation ran in ${results.environment.rounds} interleaved rounds (one process each); a cell is its best round (bench/rounds.mjs).`
        : '') +
      (results.environment?.cProcess
        ? ' The C floor runs with one idle thread, as Node and Python do (bench/c/bench.h).'
        : '') +
      (typeof results.environment?.processGate === 'object'
        ? " The driver-bound suites ran in the host's fast mode, the same rule for every implementation (bench/process-gate.mjs)." +
          oneModeOnly(results.environment.processGate) +
          ranUngated(results.environment.implementations)
        : '') +
      mergedRows(results),
    '',
    `| Row | Target | FFI (koffi) | N-API | Python (cuda.core) | C floor | ${results.environment?.verdict ? 'Verdict' : 'Meets target'} |`,
    '| --- | --- | --- | --- | --- | --- | --- |',
  ];
  for (const row of results.rows) {
    const c = row.results.c;
    const cCell =
      c === null || c === undefined
        ? (row.notApplicable?.c ?? (row.errors?.c ? 'error' : '—'))
        : `${formatNumber(c)} ${row.unit}`;
    const cells = [
      `\`${row.id}\`<br>${row.description}`,
      row.target,
      ...COLUMNS.map(([impl, ratioKey]) => formatCell(row, impl, ratioKey)),
      row.reference ? `${cCell}<br>contiguous: ${formatNumber(row.reference.value)} ${row.unit}` : cCell,
      formatVerdict(row),
    ];
    lines.push(`| ${cells.map(escapeCell).join(' | ')} |`);
  }
  // One note per distinct message: a suite that could not start fails all its rows alike.
  const notes = [];
  const errorRows = new Map();
  for (const row of results.rows) {
    if (row.via?.cudaCore && (!row.via.cudaCore.startsWith('cuda.core') || row.via.cudaCore.includes(';')))
      notes.push(`\`${row.id}\` Python: ${row.via.cudaCore}.`);
    for (const [impl, messages] of Object.entries(row.errors ?? {})) {
      // Schema 2 keeps one message per process that failed; the first names the problem.
      const message = Array.isArray(messages) ? messages[0] : messages;
      const key = `${impl} error: ${String(message).split('\n')[0].slice(0, 240)}`;
      errorRows.set(key, [...(errorRows.get(key) ?? []), row.id]);
    }
  }
  for (const row of results.rows) {
    for (const [impl, difference] of Object.entries(row.protocolMismatch ?? {}))
      notes.push(`\`${row.id}\` ${impl} measured otherwise than the row's protocol: ${difference}.`);
    const floor = row.variants?.c;
    const single = floor?.singleThreadedProcess;
    if (
      typeof single === 'number' &&
      typeof row.results.c === 'number' &&
      Math.abs(single / row.results.c - 1) > 0.05
    )
      notes.push(
        `\`${row.id}\` C in a single-threaded process: ${formatNumber(single)} ${row.unit} (${formatNumber(single / row.results.c)}× the floor with one idle thread).`,
      );
    if (typeof floor?.before === 'number' && typeof floor?.after === 'number')
      notes.push(
        `\`${row.id}\` C floor before / after the others: ${formatNumber(floor.before)} / ${formatNumber(floor.after)} ${row.unit} (the floor is the median of both runs' repetitions).`,
      );
  }
  for (const [message, ids] of errorRows)
    notes.push(`${message} (${ids.map((id) => `\`${id}\``).join(', ')})`);
  if (notes.length) lines.push('', ...notes.map((note) => `- ${note}`));
  return lines.join('\n');
}

/** Replaces what lies between the bench markers of `readme` with `table`; false when the markers are missing. */
export function rewriteReadme(readmePath, table, [startMarker, endMarker] = [START_MARKER, END_MARKER]) {
  const text = readFileSync(readmePath, 'utf8');
  const start = text.indexOf(startMarker);
  const end = text.indexOf(endMarker);
  if (start < 0 || end < start) return false;
  const updated = `${text.slice(0, start + startMarker.length)}\n${table}\n${text.slice(end)}`;
  writeFileSync(readmePath, updated);
  return true;
}

/**
 * The machine kind results are filed under, e.g. `2x-nvidia-h100-80gb-hbm3`: bench/results/ keeps
 * the newest result per kind (`<kind>.json` and its table `<kind>.md`); git keeps the older ones.
 */
export function machineKind(results) {
  return (
    String(results.device)
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-|-$/g, '') || 'unknown-device'
  );
}

/** The header line of a generated file. */
const GENERATED = (from) => `<!-- generated by bench/report.mjs from ${from}; do not edit -->`;

/** Writes one SVG per growth curve of `results` into `directory`/plots/<kind>-<row>.svg; returns the paths. */
export function writePlots(directory, results) {
  const plots = curvePlots(results);
  if (plots.length === 0) return [];
  mkdirSync(join(directory, 'plots'), { recursive: true });
  return plots.map(({ id, svg }) => {
    const path = join(directory, 'plots', `${machineKind(results)}-${id}.svg`);
    writeFileSync(path, svg);
    return path;
  });
}

export const PLOTS_START = '<!-- plots:start (generated by bench/report.mjs) -->';
export const PLOTS_END = '<!-- plots:end -->';

/** The Markdown list of the plots in `directory`/plots, as bench/README.md links them. */
export function plotLinks(directory) {
  const plots = existsSync(join(directory, 'plots'))
    ? readdirSync(join(directory, 'plots'))
        .filter((file) => file.endsWith('.svg'))
        .sort()
    : [];
  return plots.length
    ? plots.map((file) => `- [${file.replace(/\.svg$/, '')}](results/plots/${file})`).join('\n')
    : '- none yet: the first run with the `curves` suite writes them';
}

/** Rewrites the list of plots between the markers of bench/README.md. */
export function rewritePlotLinks(readmePath, directory) {
  return rewriteReadme(readmePath, plotLinks(directory), [PLOTS_START, PLOTS_END]);
}

/** Writes `<kind>.md` (and the plots) beside `<kind>.json` in `directory` for every results file there; returns the paths. */
export function regenerateTables(directory) {
  const written = [];
  for (const name of readdirSync(directory)
    .filter((file) => file.endsWith('.json'))
    .sort()) {
    const results = JSON.parse(readFileSync(join(directory, name), 'utf8'));
    const path = join(directory, name.replace(/\.json$/, '.md'));
    writeFileSync(path, `${GENERATED(name)}\n\n${renderMarkdown(results)}\n`);
    written.push(path, ...writePlots(directory, results));
  }
  return written;
}

function usage() {
  process.stderr.write(
    'usage: node bench/report.mjs RESULTS.json [MORE.json ...] [--readme README.md] [--no-readme] [--no-save] [--second-host] [--out MERGED.json] [--keep-rounds]\n' +
      '       node bench/report.mjs --regenerate   (every bench/results/<kind>.md from its JSON, and the target table of bench/README.md from rows.mjs)\n',
  );
  return 2;
}

async function main(argv) {
  const here = dirname(fileURLToPath(import.meta.url));
  if (argv.includes('--regenerate')) {
    for (const path of regenerateTables(join(here, 'results'))) process.stderr.write(`wrote ${path}\n`);
    const { rewriteTargetTable } = await import('./target-table.mjs');
    rewriteTargetTable(join(here, 'README.md'));
    rewritePlotLinks(join(here, 'README.md'), join(here, 'results'));
    process.stderr.write(`rewrote the target table and the plot links of ${join(here, 'README.md')}\n`);
    return 0;
  }
  const valued = new Set(['--readme', '--out']);
  const inputs = argv.filter((arg, index) => !arg.startsWith('--') && !valued.has(argv[index - 1]));
  if (inputs.length === 0) return usage();
  const files = inputs.map((input) => JSON.parse(readFileSync(resolve(input), 'utf8')));
  const results = files.length > 1 ? mergeResults(files) : files[0];
  if (files.length > 1)
    process.stderr.write(
      `merged ${files.length} files round by round: units per suite ${JSON.stringify(results.environment.verdict.unitsDone)}\n`,
    );
  const outIndex = argv.indexOf('--out');
  if (outIndex >= 0) {
    writeFileSync(resolve(argv[outIndex + 1]), `${JSON.stringify(results, null, 1)}\n`);
    process.stderr.write(`wrote ${resolve(argv[outIndex + 1])}\n`);
  }
  const table = renderMarkdown(results);
  process.stdout.write(`${table}\n`);
  if (results.comparison)
    process.stdout.write(
      `\nAgainst the baseline \`${String(results.comparison.base).slice(0, 12)}\` (head / base):\n${comparisonLines(results.comparison).join('\n')}\n`,
    );
  if (!argv.includes('--no-readme')) {
    const readmeIndex = argv.indexOf('--readme');
    const readme = readmeIndex >= 0 ? resolve(argv[readmeIndex + 1]) : join(here, '..', 'README.md');
    const markers = argv.includes('--second-host') ? SECOND_HOST_MARKERS : [START_MARKER, END_MARKER];
    if (!existsSync(readme)) process.stderr.write(`no ${readme}: README not updated\n`);
    else if (!rewriteReadme(readme, table, markers))
      process.stderr.write(`${readme} has no ${markers[0]} ... ${markers[1]} markers: README not updated\n`);
    else process.stderr.write(`updated the table in ${readme}\n`);
  }
  if (!argv.includes('--no-save')) {
    const directory = join(here, 'results');
    mkdirSync(directory, { recursive: true });
    const target = join(directory, `${machineKind(results)}.json`);
    const { rawRounds, ...filed } = results;
    const kept = argv.includes('--keep-rounds') ? results : filed;
    writeFileSync(target, `${JSON.stringify(kept, null, 1)}\n`);
    writeFileSync(
      target.replace(/\.json$/, '.md'),
      `${GENERATED(`${machineKind(results)}.json`)}\n\n${table}\n`,
    );
    for (const path of writePlots(directory, results)) process.stderr.write(`wrote ${path}\n`);
    rewritePlotLinks(join(here, 'README.md'), directory);
    process.stderr.write(
      `saved ${target} and its table (the previous result of this kind is in git history)\n`,
    );
  }
  return 0;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.exitCode = await main(process.argv.slice(2));
}
