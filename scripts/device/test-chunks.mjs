#!/usr/bin/env node
// `pnpm test:gpu` in chunks, for scripts/device/run.sh: a device call has 10 minutes and the whole
// GPU run takes most of one (bench/README.md, device time), so it may not fit one call with the
// rest. Each chunk is one `node scripts/test-gpu.mjs --isolate FILES...` run; run.sh starts a
// chunk only when its expected time fits what is left of the call, keeps each finished chunk's
// summary and report in $OUT, and names the chunks left for the next call (TEST_CHUNKS). A chunk
// killed half-way costs only itself.
//
//   node scripts/device/test-chunks.mjs names                    the chunks, in the order they run
//   node scripts/device/test-chunks.mjs files CHUNK              its test files, one a line
//   node scripts/device/test-chunks.mjs seconds CHUNK            its expected seconds (first guess)
//   node scripts/device/test-chunks.mjs merge-report TARGET PART vitest JSON report PART added to TARGET
//   node scripts/device/test-chunks.mjs total SUMMARY...         the chunks' lines added up (one call's
//                                                                summary, or several calls' together)
import { existsSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

/**
 * The chunks: the largest packages alone, the rest together (every test file belongs to exactly
 * one: `rest` takes what the others do not). Seconds: a first guess, the whole run's last measured
 * time (scripts/device/README.md) shared by file count and rounded up; run.sh scales the later
 * chunks by how the first compared.
 */
export const CHUNKS = [
  { name: 'memory', prefixes: ['packages/memory/'], seconds: 170 },
  {
    name: 'upper',
    prefixes: ['packages/utils/', 'packages/interop-arrow/', 'packages/compute/'],
    seconds: 170,
  },
  { name: 'rest', prefixes: [], seconds: 120 },
];

/** Every test file of the vitest projects, as scripts/test-gpu.mjs finds them (relative to the root). */
export function testFiles(base = root) {
  const files = [];
  const walk = (directory) => {
    for (const entry of readdirSync(directory, { withFileTypes: true })) {
      if (entry.name === 'node_modules' || entry.name === 'dist' || entry.name === 'build') continue;
      const path = join(directory, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.test.ts')) files.push(relative(base, path));
    }
  };
  for (const group of ['packages', 'testing'])
    for (const project of readdirSync(join(base, group)))
      for (const part of ['src', 'test']) {
        const directory = join(base, group, project, part);
        if (existsSync(directory)) walk(directory);
      }
  return files.sort();
}

/** The chunk a test file belongs to. */
export function chunkOf(file) {
  const named = CHUNKS.find((chunk) => chunk.prefixes.some((prefix) => file.startsWith(prefix)));
  return named ? named.name : 'rest';
}

/** PART's test results appended to TARGET's (a vitest JSON report each); TARGET is made when missing. */
export function mergeReports(target, part) {
  const counts = [
    'numTotalTests',
    'numPassedTests',
    'numFailedTests',
    'numPendingTests',
    'numTodoTests',
    'numTotalTestSuites',
    'numPassedTestSuites',
    'numFailedTestSuites',
    'numPendingTestSuites',
  ];
  const merged = { ...target, success: (target.success ?? true) && part.success === true };
  for (const key of counts) if (typeof part[key] === 'number') merged[key] = (target[key] ?? 0) + part[key];
  merged.testResults = [...(target.testResults ?? []), ...(part.testResults ?? [])];
  return merged;
}

const SUMMARY_LINE =
  /^chunk (\S+): test:gpu: (\d+) passed, (\d+) failed, (\d+) skipped(?: \((\d+) of them by design)?/;

/**
 * The chunk lines of one or more summaries added up: `{ chunks, passed, failed, skipped, byDesign,
 * pending }` (`pending`: the chunks no summary has a line of). A chunk summarised twice (run
 * again in a later call) counts once, its last line.
 */
export function totalOf(texts) {
  const chunks = new Map();
  for (const text of texts)
    for (const line of text.split('\n')) {
      const match = SUMMARY_LINE.exec(line);
      if (match)
        chunks.set(
          match[1],
          match.slice(2, 6).map((value) => Number(value ?? 0)),
        );
    }
  const sum = (index) => [...chunks.values()].reduce((total, values) => total + values[index], 0);
  return {
    chunks: [...chunks.keys()],
    passed: sum(0),
    failed: sum(1),
    skipped: sum(2),
    byDesign: sum(3),
    pending: CHUNKS.map((chunk) => chunk.name).filter((name) => !chunks.has(name)),
  };
}

function main([command, ...rest]) {
  if (command === 'names')
    return void process.stdout.write(`${CHUNKS.map((chunk) => chunk.name).join(' ')}\n`);
  if (command === 'files' || command === 'seconds') {
    const chunk = CHUNKS.find((entry) => entry.name === rest[0]);
    if (!chunk)
      throw new Error(`unknown chunk ${rest[0]} (chunks: ${CHUNKS.map((entry) => entry.name).join(', ')})`);
    if (command === 'seconds') return void process.stdout.write(`${chunk.seconds}\n`);
    const files = testFiles().filter((file) => chunkOf(file) === chunk.name);
    return void process.stdout.write(files.length ? `${files.join('\n')}\n` : '');
  }
  if (command === 'merge-report') {
    const [targetPath, partPath] = rest;
    const target = existsSync(targetPath) ? JSON.parse(readFileSync(targetPath, 'utf8')) : {};
    const merged = mergeReports(target, JSON.parse(readFileSync(partPath, 'utf8')));
    // Written aside and renamed: a call killed while writing keeps the previous report.
    writeFileSync(`${targetPath}.partial`, JSON.stringify(merged));
    renameSync(`${targetPath}.partial`, targetPath);
    return undefined;
  }
  if (command === 'total') {
    const total = totalOf(rest.map((path) => readFileSync(path, 'utf8')));
    process.stdout.write(
      `test:gpu over chunks ${total.chunks.join(', ') || 'none'}: ${total.passed} passed, ${total.failed} failed, ${total.skipped} skipped (${total.byDesign} of them by design, ${total.skipped - total.byDesign} not)` +
        (total.pending.length ? `; chunks not run: ${total.pending.join(' ')}` : '; every chunk ran') +
        '\n',
    );
    return undefined;
  }
  throw new Error(
    'usage: test-chunks.mjs names | files CHUNK | seconds CHUNK | merge-report TARGET PART | total SUMMARY...',
  );
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url))
  main(process.argv.slice(2));
