#!/usr/bin/env node
// test-asan.sh's gate on which tests fail: the failures of a vitest JSON report against the list
// of conformance tests the fake libcuda does not model. Each line of the list is a full test name,
// a tab, and the first line of the failure that test is expected to give; a listed test that fails
// another way fails the gate too, so a crash or a new bug hiding behind a listed name shows.
// Exit 0 when the failures are exactly those listed, each as expected; else prints the difference
// and exits 1. UPDATE_UNMODELED=1 writes this run's failures as the list.
// Usage: node scripts/compare-unmodeled.mjs <vitest results.json> <asan-unmodeled.txt>
import { existsSync, readFileSync, writeFileSync } from 'node:fs';

const [resultsPath, listPath] = process.argv.slice(2);
if (!resultsPath || !listPath) {
  console.error('usage: node scripts/compare-unmodeled.mjs <vitest results.json> <asan-unmodeled.txt>');
  process.exit(2);
}
if (!existsSync(resultsPath)) {
  console.error(`compare-unmodeled: no vitest report at ${resultsPath}`);
  process.exit(1);
}

/**
 * The part of a failure that identifies it: its first line with every number left out (addresses,
 * sizes and pattern bytes differ between runs; the words say which check failed and how).
 */
function failureSummary(messages) {
  const first = String(messages?.[0] ?? '').split('\n')[0] ?? '';
  return first
    .replace(/0x[0-9a-f]+/gi, '#')
    .replace(/[+-]?\d+(\.\d+)?n?/g, '#')
    .trim();
}

const results = JSON.parse(readFileSync(resultsPath, 'utf8'));
/** @type {Map<string, string>} full name -> failure summary */
const failed = new Map();
const passed = new Set();
for (const file of results.testResults ?? []) {
  for (const test of file.assertionResults ?? []) {
    if (test.status === 'failed') failed.set(test.fullName, failureSummary(test.failureMessages));
    else if (test.status === 'passed') passed.add(test.fullName);
  }
}
if (process.env.UPDATE_UNMODELED === '1') {
  const lines = [...failed]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([name, why]) => `${name}\t${why}`);
  writeFileSync(listPath, `${lines.join('\n')}\n`);
  console.log(`compare-unmodeled: wrote ${failed.size} entries to ${listPath}`);
  process.exit(0);
}
/** @type {Map<string, string>} */
const listed = new Map();
for (const line of readFileSync(listPath, 'utf8').split('\n')) {
  if (line.trim() === '') continue;
  const tab = line.indexOf('\t');
  if (tab < 0) {
    console.error(`compare-unmodeled: a line without its expected failure (name<TAB>failure): ${line}`);
    process.exit(2);
  }
  listed.set(line.slice(0, tab), line.slice(tab + 1));
}
const unlisted = [...failed.keys()].filter((name) => !listed.has(name));
const otherwise = [...failed].filter(([name, why]) => listed.has(name) && listed.get(name) !== why);
const nowPassing = [...listed.keys()].filter((name) => passed.has(name));
const missing = [...listed.keys()].filter((name) => !failed.has(name) && !passed.has(name));
console.log(
  `compare-unmodeled: ${failed.size} failed (${listed.size} listed as not modeled by the fake), ` +
    `${passed.size} passed; ${unlisted.length} failing unlisted, ${otherwise.length} failing otherwise than listed, ` +
    `${nowPassing.length} listed but passing, ${missing.length} listed but not run`,
);
for (const name of unlisted) console.log(`  FAILS, not listed: ${name}\n    ${failed.get(name)}`);
for (const [name, why] of otherwise)
  console.log(`  FAILS OTHERWISE: ${name}\n    expected: ${listed.get(name)}\n    got:      ${why}`);
for (const name of nowPassing) console.log(`  passes, listed (remove it): ${name}`);
for (const name of missing) console.log(`  listed, not run (renamed?): ${name}`);
process.exit(unlisted.length + otherwise.length + nowPassing.length + missing.length === 0 ? 0 : 1);
