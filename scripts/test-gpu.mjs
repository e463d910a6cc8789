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
//   node scripts/test-gpu.mjs [--isolate] [--strict] [extra vitest arguments, e.g. a file filter]
// --isolate runs each test file in its own vitest process, four at a time.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
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
const vitestArguments = process.argv.slice(2).filter((arg) => arg !== '--strict' && arg !== '--isolate');
// vitest takes pool options from the root config only, so a project's forks execArgv (memory's
// --expose-gc, which its release-after-GC tests need) is lost when all projects run from the
// root. NODE_OPTIONS reaches every worker.
const nodeOptions = `${inheritedNodeOptions ?? ''} --expose-gc`.trim();
const childEnvironment = { ...process.env, CUMEM_REQUIRE_GPU: '1', NODE_OPTIONS: nodeOptions };

// Tests that print a figure the device run must show (the out-of-memory loop's counts, hot-path
// costs) prefix the line with this; the isolated run copies those lines into its log.
const REPORT_MARKER = 'gpu-report:';

/** One vitest run writing its JSON report to `reportFile`; resolves with its exit status and output tail. */
function runVitest(extraArguments, reportFile, inheritOutput) {
  return new Promise((resolveRun) => {
    const child = spawn(
      process.execPath,
      [
        vitest,
        'run',
        '--reporter=default',
        '--reporter=json',
        `--outputFile.json=${reportFile}`,
        ...extraArguments,
      ],
      { cwd: root, stdio: inheritOutput ? 'inherit' : ['ignore', 'pipe', 'pipe'], env: childEnvironment },
    );
    let tail = '';
    let pending = '';
    const reports = [];
    const keep = (chunk) => {
      const text = chunk.toString();
      tail = (tail + text).slice(-4000);
      // Whole lines only: a report line may arrive split over two chunks.
      const lines = (pending + text).split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) if (line.includes(REPORT_MARKER)) reports.push(line.trim());
    };
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
    child.on('close', (status, signal) => {
      if (pending.includes(REPORT_MARKER)) reports.push(pending.trim());
      resolveRun({ status: status ?? signal, tail, reports });
    });
  });
}

/** Every test file of the vitest projects (packages/*, testing/*), relative to the root. */
function testFiles() {
  const files = [];
  const walk = (directory) => {
    for (const entry of readdirSync(directory, { withFileTypes: true })) {
      if (entry.name === 'node_modules' || entry.name === 'dist' || entry.name === 'build') continue;
      const path = join(directory, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.test.ts')) files.push(relative(root, path));
    }
  };
  for (const group of ['packages', 'testing']) {
    for (const project of readdirSync(join(root, group))) {
      for (const part of ['src', 'test']) {
        const directory = join(root, group, project, part);
        if (existsSync(directory)) walk(directory);
      }
    }
  }
  return files.sort();
}

// memory's reliability and device-query tests compare memoryInfo().free, which other processes move;
// the hot-path test times calls; out-of-memory recovery fills the whole card on purpose. They run
// with nothing else on the machine.
const EXCLUSIVE_FILES = [
  /reliability\.test\.ts$/,
  /hot-path\.test\.ts$/,
  /device-queries\.test\.ts$/,
  /out-of-memory-recovery\.test\.ts$/,
];

// One vitest process per test file (`--isolate`, the device default): a native crash in one file
// (a worker that dies takes the whole shared run down with "Channel closed") then costs that file
// alone, and the summary names it.
async function runIsolated() {
  // File filters (vitest's: a path containing the text) apply here too, as in a shared run.
  const filters = vitestArguments.filter((arg) => !arg.startsWith('-'));
  const all = testFiles().filter(
    (file) => filters.length === 0 || filters.some((text) => file.includes(text)),
  );
  const exclusive = (file) => EXCLUSIVE_FILES.some((pattern) => pattern.test(file));
  const files = all.filter((file) => !exclusive(file));
  const exclusiveFiles = all.filter(exclusive);
  const merged = { success: true, testResults: [] };
  let worst = 0;
  let next = 0;
  const worker = async () => {
    while (next < files.length) {
      const file = files[next++];
      const fileReport = `${report}.${next}.json`;
      const { status, tail, reports } = await runVitest([file], fileReport, false);
      if (status !== 0) worst = status;
      if (existsSync(fileReport)) {
        const part = JSON.parse(readFileSync(fileReport, 'utf8'));
        merged.success &&= part.success === true;
        merged.testResults.push(...(part.testResults ?? []));
        process.stdout.write(`${status === 0 ? 'ok     ' : 'FAILED '} ${file}\n`);
        for (const line of reports) process.stdout.write(`          ${line}\n`);
        if (status !== 0) process.stdout.write(`${tail}\n`);
      } else {
        merged.success = false;
        merged.testResults.push({
          name: join(root, file),
          status: 'failed',
          message: `vitest exited ${status} without a report (crashed?): ${tail.split('\n').slice(-12).join(' | ')}`,
          assertionResults: [],
        });
        process.stdout.write(`CRASHED ${file} (exit ${status})\n${tail}\n`);
      }
    }
  };
  await Promise.all(Array.from({ length: 4 }, worker));
  // Files that measure the whole device (free memory, timings) run alone, after the rest.
  files.splice(0, files.length, ...exclusiveFiles);
  next = 0;
  await worker();
  writeFileSync(report, JSON.stringify(merged));
  return { status: worst };
}

const isolate = process.argv.includes('--isolate');
const run = isolate ? await runIsolated() : await runVitest(vitestArguments, report, true);

/** A skip the suites make on purpose (see the header); never one of a real adapter in default mode. */
function allowedSkip(test) {
  if (strict || test.status !== 'skipped') return false;
  const text = [...(test.ancestorTitles ?? []), test.title ?? ''].join(' > ');
  if (text.includes('skipped: not applicable:')) return true;
  const limitedDriver = /\[reference[\],]|legacy entry points\]/.test(text);
  return limitedDriver && text.includes('skipped: driver lacks');
}

if (!existsSync(report)) {
  finish(`test:gpu: vitest wrote no JSON report (exit ${run.status})`, [], 1);
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
    `test:gpu FAILED: vitest exit ${run.status}, success ${result.success}; ` +
      'every test must run and pass (skipped and todo tests count as failures here, except those by design)',
  );
}
finish(line, details, ok ? 0 : 1);
