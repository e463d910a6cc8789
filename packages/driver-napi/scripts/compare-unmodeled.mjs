#!/usr/bin/env node
// test-asan.sh's gate on which tests fail: the failures of a vitest JSON report against the list
// of conformance tests the fake libcuda does not model (one full test name per line, sorted).
// Exit 0 when they are the same; else prints the tests that fail unlisted and the listed ones
// that pass now, and exits 1. UPDATE_UNMODELED=1 writes this run's failures as the list.
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
const results = JSON.parse(readFileSync(resultsPath, 'utf8'));
const failed = new Set();
const passed = new Set();
for (const file of results.testResults ?? []) {
  for (const test of file.assertionResults ?? []) {
    if (test.status === 'failed') failed.add(test.fullName);
    else if (test.status === 'passed') passed.add(test.fullName);
  }
}
if (process.env.UPDATE_UNMODELED === '1') {
  writeFileSync(listPath, `${[...failed].sort().join('\n')}\n`);
  console.log(`compare-unmodeled: wrote ${failed.size} names to ${listPath}`);
  process.exit(0);
}
const listed = new Set(
  readFileSync(listPath, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== ''),
);
const unlisted = [...failed].filter((name) => !listed.has(name));
const nowPassing = [...listed].filter((name) => passed.has(name));
const missing = [...listed].filter((name) => !failed.has(name) && !passed.has(name));
console.log(
  `compare-unmodeled: ${failed.size} failed (${listed.size} listed as not modeled by the fake), ` +
    `${passed.size} passed; ${unlisted.length} failing unlisted, ${nowPassing.length} listed but passing, ` +
    `${missing.length} listed but not run`,
);
for (const name of unlisted) console.log(`  FAILS, not listed: ${name}`);
for (const name of nowPassing) console.log(`  passes, listed (remove it): ${name}`);
for (const name of missing) console.log(`  listed, not run (renamed?): ${name}`);
process.exit(unlisted.length + nowPassing.length + missing.length === 0 ? 0 : 1);
