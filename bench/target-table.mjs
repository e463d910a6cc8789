// bench/README.md's table of rows and targets, generated from rows.mjs (issue 47: the hand-kept
// table disagreed with the rows). `node bench/report.mjs --regenerate` rewrites it between the
// markers; test/target-table.test.mjs fails when the README's copy differs.
import { readFileSync, writeFileSync } from 'node:fs';
import { describeChecks } from './checks.mjs';
import { ROWS } from './rows.mjs';

export const TARGETS_START =
  '<!-- targets:start (generated from rows.mjs by bench/report.mjs --regenerate) -->';
export const TARGETS_END = '<!-- targets:end -->';

const cell = (text) => String(text).replaceAll('|', '\\|').replaceAll('\n', ' ');

/** The Markdown table: one line per row of rows.mjs, in its order. */
export function renderTargetTable(rows = ROWS) {
  const lines = ['| row | unit | target | what is measured |', '| --- | --- | --- | --- |'];
  for (const row of rows) {
    const target = row.checks.length ? describeChecks(row) : 'none (informative)';
    lines.push(`| \`${row.id}\` | ${cell(row.unit)} | ${cell(target)} | ${cell(row.description)} |`);
  }
  return lines.join('\n');
}

/** The table as it stands between the markers of `text`, or undefined without markers. */
export function tableInReadme(text) {
  const start = text.indexOf(TARGETS_START);
  const end = text.indexOf(TARGETS_END);
  if (start < 0 || end < start) return undefined;
  return text.slice(start + TARGETS_START.length, end).trim();
}

/** Rewrites the table between the markers of the README at `path`; throws without markers. */
export function rewriteTargetTable(path, rows = ROWS) {
  const text = readFileSync(path, 'utf8');
  const start = text.indexOf(TARGETS_START);
  const end = text.indexOf(TARGETS_END);
  if (start < 0 || end < start) throw new Error(`${path} has no ${TARGETS_START} ... ${TARGETS_END} markers`);
  writeFileSync(
    path,
    `${text.slice(0, start + TARGETS_START.length)}\n${renderTargetTable(rows)}\n${text.slice(end)}`,
  );
}
