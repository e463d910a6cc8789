#!/usr/bin/env node
// `pnpm test:gpu`: every vitest project (packages/*, testing/*) with CUMEM_REQUIRE_GPU=1, so an
// unavailable GPU driver fails its suites instead of skipping them. Then reads vitest's JSON
// report and fails unless every test ran and passed: one skipped or todo test is a failure here,
// because on the GPU machine nothing may be left out.
//
// Two kinds of skip are by design, allowed and counted apart: a title saying 'skipped: not
// applicable: ...' (e.g. a case that needs a second GPU), and 'skipped: driver lacks <capability>'
// inside a block of the reference driver or of an adapter deliberately limited to legacy entry
// points. Any other skip — above all a real adapter in its default mode — fails the run.
// `--strict` fails on every skip.
//
// Needs no pnpm or turbo: node_modules/vitest is enough. Prints (and, when $OUT is set, writes to
// $OUT/test-gpu-summary.txt) one line: `test:gpu: N passed, N failed, N skipped`.
//   node scripts/test-gpu.mjs [extra vitest arguments, e.g. a file filter]
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const vitest = join(root, 'node_modules', 'vitest', 'vitest.mjs');
const report = join(mkdtempSync(join(tmpdir(), 'cumem-test-gpu-')), 'vitest.json');
// Read once: this script runs under node directly, never as a turbo task.
const { OUT: outDirectory, NODE_OPTIONS: inheritedNodeOptions } = process.env;

function finish(line, details, code) {
  if (details.length) process.stdout.write(`${details.join('\n')}\n`);
  process.stdout.write(`${line}\n`);
  if (outDirectory) {
    try {
      writeFileSync(join(outDirectory, 'test-gpu-summary.txt'), `${line}\n${details.join('\n')}\n`);
      if (existsSync(report)) writeFileSync(join(outDirectory, 'test-gpu.json'), readFileSync(report));
    } catch (error) {
      process.stderr.write(`could not write to $OUT: ${error.message}\n`);
    }
  }
  process.exit(code);
}

if (!existsSync(vitest))
  finish(`test:gpu: vitest not found at ${vitest} (install or unpack node_modules)`, [], 1);

const strict = process.argv.includes('--strict');
const vitestArguments = process.argv.slice(2).filter((arg) => arg !== '--strict');
// vitest takes pool options from the root config only, so a project's forks execArgv (memory's
// --expose-gc, which its release-after-GC tests need) is lost when all projects run from the
// root. NODE_OPTIONS reaches every worker.
const nodeOptions = `${inheritedNodeOptions ?? ''} --expose-gc`.trim();
const run = spawnSync(
  process.execPath,
  [vitest, 'run', '--reporter=default', '--reporter=json', `--outputFile.json=${report}`, ...vitestArguments],
  { cwd: root, stdio: 'inherit', env: { ...process.env, CUMEM_REQUIRE_GPU: '1', NODE_OPTIONS: nodeOptions } },
);

/** A skip the suites make on purpose (see the header); never one of a real adapter in default mode. */
function allowedSkip(test) {
  if (strict || test.status !== 'skipped') return false;
  const text = [...(test.ancestorTitles ?? []), test.title ?? ''].join(' > ');
  if (text.includes('skipped: not applicable:')) return true;
  const limitedDriver = /\[reference[\],]|legacy entry points\]/.test(text);
  return limitedDriver && text.includes('skipped: driver lacks');
}

if (!existsSync(report)) {
  finish(`test:gpu: vitest wrote no JSON report (exit ${run.status ?? run.signal})`, [], 1);
}

const result = JSON.parse(readFileSync(report, 'utf8'));
const counts = { passed: 0, failed: 0, skipped: 0, allowed: 0 };
const details = [];
for (const file of result.testResults ?? []) {
  const name = relative(root, file.name);
  if (file.status === 'failed' && (file.assertionResults ?? []).every((test) => test.status !== 'failed')) {
    // A file that failed outside any test (import error, failing hook): its tests may never have run.
    counts.failed += 1;
    details.push(`FAILED FILE ${name}: ${String(file.message).split('\n')[0]}`);
  }
  for (const test of file.assertionResults ?? []) {
    if (test.status === 'passed') counts.passed += 1;
    else if (test.status === 'failed') {
      counts.failed += 1;
      details.push(
        `FAILED  ${name} > ${test.fullName}: ${String(test.failureMessages?.[0] ?? '').split('\n')[0]}`,
      );
    } else if (allowedSkip(test)) {
      counts.skipped += 1;
      counts.allowed += 1;
    } else {
      counts.skipped += 1;
      if (counts.skipped - counts.allowed <= 40)
        details.push(`${test.status.toUpperCase().padEnd(7)} ${name} > ${test.fullName}`);
      else if (counts.skipped - counts.allowed === 41)
        details.push('... (more skipped or todo tests: see the JSON report)');
    }
  }
}
const line =
  `test:gpu: ${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped` +
  (counts.allowed
    ? ` (${counts.allowed} of them by design: not applicable, or a limited driver lacking a capability)`
    : '');
const unexpectedSkips = counts.skipped - counts.allowed;
// vitest's own exit code and `success` count skips as fine, so they decide only about failures.
const ok =
  run.status === 0 &&
  result.success === true &&
  counts.failed === 0 &&
  unexpectedSkips === 0 &&
  counts.passed > 0;
if (!ok) {
  details.push(
    `test:gpu FAILED: vitest exit ${run.status ?? run.signal}, success ${result.success}; ` +
      'every test must run and pass (skipped and todo tests count as failures here, except those by design)',
  );
}
finish(line, details, ok ? 0 : 1);
