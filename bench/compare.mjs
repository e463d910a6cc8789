#!/usr/bin/env node
// The JS rows of two builds of cumem, interleaved in one run on one machine (issue 47: a
// restructure must show no row worse than before). The same bench scripts (this tree's bench/js)
// run over this tree's packages ("head") and over an earlier commit's built packages laid over a
// copy of this tree ("base": scripts/device/pack.sh --baseline, unpacked by run.sh compare), one
// process each, in rounds: for each suite, for each adapter, head then base. Per row and adapter:
// the median over rounds of head / base, its spread (verdict.mjs's outlier rule) and a verdict:
// `worse` when the whole spread is on the slower side of 1, `better` when on the faster side,
// `same` otherwise. A results file is written after every round.
//
//   node bench/compare.mjs --base DIR [--out FILE] [--suites a,b] [--impls ffi,napi]
//                          [--processes N (5)] [--budget SECONDS (540)] [--timeout SECONDS (120)]
//                          [--max-reps N (3)] [--max-warmup-ms MS (500)] [--min-processes N (5)]
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { HIGHER_IS_BETTER_UNITS } from './checks.mjs';
import { REPS_VARIABLE, WARMUP_VARIABLE } from './repetitions.mjs';
import { ROWS, SINGLE_PROCESS_SUITES, SUITES } from './rows.mjs';
import { stagingDefaults } from './staging-defaults.mjs';
import { MIN_PROCESSES, spreadOf, verdictOf } from './verdict.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '..');
const started = Date.now();
const TREES = ['head', 'base'];

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
    verdict: ratios.length >= minProcesses ? verdict : 'inconclusive',
  };
}

function parseArguments(argv) {
  const options = {
    base: undefined,
    out: join(tmpdir(), 'cumem-compare.json'),
    // The curves have no single value to compare and take minutes: left out unless named.
    suites: SUITES.filter((suite) => !SINGLE_PROCESS_SUITES.includes(suite)),
    impls: ['ffi', 'napi'],
    minProcesses: MIN_PROCESSES,
    processes: MIN_PROCESSES,
    budget: 540,
    timeout: 120,
    maxReps: 3,
    maxWarmupMs: 500,
  };
  for (let i = 0; i < argv.length; i += 2) {
    const [key, value] = [argv[i], argv[i + 1]];
    if (value === undefined) throw new Error(`${key} needs a value`);
    if (key === '--base') options.base = resolve(value);
    else if (key === '--out') options.out = resolve(value);
    else if (key === '--suites') options.suites = value.split(',').filter((suite) => SUITES.includes(suite));
    else if (key === '--impls')
      options.impls = value.split(',').filter((impl) => ['ffi', 'napi'].includes(impl));
    else if (key === '--processes') options.processes = Math.max(1, Math.floor(Number(value)));
    else if (key === '--budget') options.budget = Number(value);
    else if (key === '--timeout') options.timeout = Number(value);
    else if (key === '--min-processes') options.minProcesses = Math.max(1, Math.floor(Number(value)));
    else if (key === '--max-reps') options.maxReps = Math.max(1, Math.floor(Number(value)));
    else if (key === '--max-warmup-ms') options.maxWarmupMs = Number(value);
    else throw new Error(`unknown argument ${key}`);
  }
  if (!options.base || !existsSync(join(options.base, 'bench', 'js')))
    throw new Error('--base DIR: a copy of this tree with the earlier packages (run.sh compare makes it)');
  return options;
}

function main() {
  const options = parseArguments(process.argv.slice(2));
  const scratch = mkdtempSync(join(tmpdir(), 'cumem-compare-'));
  const staging = stagingDefaults(root);
  const env = {
    ...process.env,
    PYTHONUNBUFFERED: '1',
    [REPS_VARIABLE]: String(options.maxReps),
    [WARMUP_VARIABLE]: String(options.maxWarmupMs),
    BENCH_STAGE_CHUNK_BYTES: String(staging.chunkBytes),
    BENCH_STAGE_THREADS: String(staging.threads),
  };
  const trees = { head: root, base: options.base };
  const log = (message) =>
    process.stderr.write(`[compare ${((Date.now() - started) / 1000).toFixed(1)}s] ${message}\n`);
  const rounds = [];
  let stoppedEarly;
  const run = (tree, suite, impl) => {
    const out = join(scratch, `${tree}-${suite}-${impl}.json`);
    const limit = Math.min(options.timeout, options.budget - (Date.now() - started) / 1000);
    const child = spawnSync(
      process.execPath,
      ['--expose-gc', join(trees[tree], 'bench', 'js', `${suite}.mjs`), '--driver', impl, '--out', out],
      {
        cwd: trees[tree],
        env,
        stdio: ['ignore', 'inherit', 'inherit'],
        timeout: Math.max(1, limit) * 1000,
        killSignal: 'SIGKILL',
      },
    );
    let parsed = { rows: {} };
    try {
      if (existsSync(out)) parsed = JSON.parse(readFileSync(out, 'utf8'));
    } catch (error) {
      parsed = { rows: {}, error: `unreadable: ${error.message}` };
    }
    if (child.error || child.signal || child.status !== 0)
      parsed.error =
        `${parsed.error ?? ''} exit ${child.status ?? child.signal ?? child.error?.message}`.trim();
    return parsed;
  };
  const write = () => {
    const rows = ROWS.filter((row) => options.suites.includes(row.suite)).flatMap((row) =>
      options.impls.map((impl) =>
        compareRow(
          row,
          rounds.map((round) => ({
            head: round[row.suite]?.[impl]?.head,
            base: round[row.suite]?.[impl]?.base,
          })),
          impl,
          options.minProcesses,
        ),
      ),
    );
    const headCommit = existsSync(join(root, '.device', 'commit.txt'))
      ? readFileSync(join(root, '.device', 'commit.txt'), 'utf8').trim()
      : 'unknown';
    const baseCommit = existsSync(join(root, '.device', 'baseline-commit.txt'))
      ? readFileSync(join(root, '.device', 'baseline-commit.txt'), 'utf8').trim()
      : 'unknown';
    const result = {
      schema: 1,
      head: headCommit,
      base: baseCommit,
      date: new Date().toISOString(),
      seconds: Math.round((Date.now() - started) / 1000),
      rule: 'head / base per round (same bench scripts, same machine, processes interleaved head, base); median and spread over rounds (bench/verdict.mjs); worse = whole spread on the slower side of 1, better = whole spread on the faster side, same otherwise',
      rounds: rounds.length,
      ...(stoppedEarly ? { stoppedEarly } : {}),
      repetitions: { maxReps: options.maxReps, maxWarmupMs: options.maxWarmupMs },
      summary: {
        worse: rows.filter((row) => row.verdict === 'worse').map((row) => `${row.id} ${row.impl}`),
        better: rows.filter((row) => row.verdict === 'better').length,
        same: rows.filter((row) => row.verdict === 'same').length,
        inconclusive: rows.filter((row) => row.verdict === 'inconclusive').length,
      },
      rows,
      errors: rounds.flatMap((round, index) =>
        Object.entries(round).flatMap(([suite, impls]) =>
          Object.entries(impls).flatMap(([impl, pair]) =>
            TREES.filter((tree) => pair[tree]?.error).map(
              (tree) => `round ${index + 1} ${suite} ${impl} ${tree}: ${pair[tree].error}`,
            ),
          ),
        ),
      ),
    };
    mkdirSync(dirname(options.out), { recursive: true });
    writeFileSync(options.out, `${JSON.stringify(result, null, 1)}\n`);
    return result;
  };
  outer: for (let index = 0; index < options.processes; index++) {
    const round = {};
    rounds.push(round);
    for (const suite of options.suites)
      for (const impl of options.impls)
        for (const tree of TREES) {
          if (options.budget - (Date.now() - started) / 1000 < 10) {
            stoppedEarly = `the ${options.budget} s budget ran out in round ${index + 1}`;
            log(stoppedEarly);
            break outer;
          }
          log(`round ${index + 1}: ${suite} / ${impl} / ${tree}`);
          round[suite] ??= {};
          round[suite][impl] ??= {};
          round[suite][impl][tree] = run(tree, suite, impl);
        }
    write();
  }
  const result = write();
  for (const row of result.rows.filter((entry) => entry.headOverBase !== null))
    process.stdout.write(
      `${row.verdict.padEnd(12)} ${row.id} ${row.impl}: head/base ${row.headOverBase.toFixed(3)} [${row.spread.map((v) => v.toFixed(3)).join('–')}] over ${row.processes}\n`,
    );
  log(
    `worse: ${result.summary.worse.length ? result.summary.worse.join(', ') : 'none'}; ${result.rounds} rounds; ${options.out}`,
  );
  return 0;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) process.exitCode = main();
