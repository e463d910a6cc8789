#!/usr/bin/env node
// Turns a results JSON from bench/run.mjs into a Markdown table of ratios against the C floor,
// rewrites the table between the bench markers of README.md, and files the results under
// bench/results/<date>-<device>-<commit>.json.
//
//   node bench/report.mjs RESULTS.json [--readme README.md] [--no-readme] [--no-save] [--second-host]
// --second-host: the table between the second-host markers (`<!-- bench-second-host:start -->`),
// for issue 26's second machine.
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

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

/** "1.23× C (45.1 ns)" for times, "98% of C (53.1 GB/s)" for bandwidths. */
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
  const relative = row.unit === 'GB/s' ? `${Math.round(ratio * 100)}% of C` : `${ratio.toFixed(2)}× C`;
  return `${relative} (${absolute})`;
}

function formatPass(row) {
  const failing = row.checks.filter((check) => check.applicable && check.ok !== true);
  if (row.pass) return 'yes';
  // Informational rows (no target): results written before merge-row.mjs said so read pass false.
  if (row.checks.length === 0) return 'n/a (no target)';
  if (row.skipped) return `n/a (${row.skipped})`;
  return failing.length ? `**no** (${failing.map((check) => check.impl).join(', ')})` : 'n/a';
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
      'Each cell is the ratio to the C program on the driver API (the floor), then the median of several repetitions. ' +
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
    '| Row | Target | FFI (koffi) | N-API | Python (cuda.core) | C floor | Meets target |',
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
      formatPass(row),
    ];
    lines.push(`| ${cells.map(escapeCell).join(' | ')} |`);
  }
  // One note per distinct message: a suite that could not start fails all its rows alike.
  const notes = [];
  const errorRows = new Map();
  for (const row of results.rows) {
    if (row.via?.cudaCore && (!row.via.cudaCore.startsWith('cuda.core') || row.via.cudaCore.includes(';')))
      notes.push(`\`${row.id}\` Python: ${row.via.cudaCore}.`);
    for (const [impl, message] of Object.entries(row.errors ?? {})) {
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

/** `2025-11-21-nvidia-h100-80gb-hbm3-1a2b3c4`: the name results are filed under (one file per run). */
export function resultsFileName(results) {
  const device = String(results.device)
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');
  const commit = /^[0-9a-f]{7}/.exec(String(results.commit ?? ''))?.[0];
  return `${String(results.date).slice(0, 10)}-${device || 'unknown-device'}${commit ? `-${commit}` : ''}.json`;
}

function main(argv) {
  const here = dirname(fileURLToPath(import.meta.url));
  const input = argv.find((arg) => !arg.startsWith('--') && argv[argv.indexOf(arg) - 1] !== '--readme');
  if (!input) {
    process.stderr.write(
      'usage: node bench/report.mjs RESULTS.json [--readme README.md] [--no-readme] [--no-save] [--second-host]\n',
    );
    return 2;
  }
  const results = JSON.parse(readFileSync(resolve(input), 'utf8'));
  const table = renderMarkdown(results);
  process.stdout.write(`${table}\n`);
  if (!argv.includes('--no-readme')) {
    const readmeIndex = argv.indexOf('--readme');
    const readme = readmeIndex >= 0 ? resolve(argv[readmeIndex + 1]) : join(here, '..', 'README.md');
    const markers = argv.includes('--second-host') ? SECOND_HOST_MARKERS : [START_MARKER, END_MARKER];
    if (!existsSync(readme)) process.stderr.write(`no ${readme}: README not updated\n`);
    else if (!rewriteReadme(readme, table, markers)) {
      process.stderr.write(`${readme} has no ${markers[0]} ... ${markers[1]} markers: README not updated\n`);
      return 1;
    } else process.stderr.write(`updated the table in ${readme}\n`);
  }
  if (!argv.includes('--no-save')) {
    const target = join(here, 'results', resultsFileName(results));
    mkdirSync(dirname(target), { recursive: true });
    copyFileSync(resolve(input), target);
    process.stderr.write(`saved ${target}\n`);
  }
  return 0;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.exitCode = main(process.argv.slice(2));
}
