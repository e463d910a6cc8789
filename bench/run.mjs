#!/usr/bin/env node
// Runs every benchmark row four ways (C floor, FFI adapter, N-API adapter, Python) on the GPU
// machine and writes one results JSON. The verdict is statistical (issue 47, verdict.mjs): the
// bench runs in rounds (rounds.mjs), and in each round every suite runs once per implementation,
// one process at a time (C, FFI, N-API, Python: interleaved A B C A B C), each under a time limit,
// so a crash or a hang costs only that process's rows. After every round the results file is
// written again, so a bench stopped by its limit keeps every round it finished.
//
//   node bench/run.mjs [--out FILE (default: $TMPDIR/cumem-bench.json)] [--suites contract,memory,...]
//                      [--impls c,ffi,napi,cudaCore] [--budget SECONDS] [--timeout SECONDS]
//                      [--processes N (default 5: rounds; the verdict needs MIN_PROCESSES)]
//                      [--max-reps N (default 3)] [--max-warmup-ms MS (default 500)] [--quick]
//                      [--merge FILE] [--single-thread-c SUITES (default '')] [--process-gate on|off (default off)]
//                      [--resume FILE[,FILE...]] [--base DIR]
//
// A device call has 10 minutes, and how many rounds fit is known only once one has run. So the
// work is cut into units (one suite run once by each implementation, raw-rounds.mjs), the results
// file is written again after every unit with every process's raw output (`rawRounds`), and a
// unit starts only when its expected time fits the budget left (unit-time.mjs; later, shorter
// units are still tried). `--resume FILE` continues an earlier call's file (same commit, device
// and caps): its units count towards `--processes`, the missing ones run now, and the file
// written holds both. `--base DIR` also runs each JS implementation of DIR (a copy of this tree
// with an earlier commit's packages: scripts/device/run.sh compare / bench with a baseline) in
// the same unit, right beside this tree's (which goes first alternates by round), and adds the
// comparison of the two (compare.mjs: the same rounds, the same spread rule).
//
// Shorter processes, not fewer: --max-reps and --max-warmup-ms cap each process's repetitions
// (repetitions.mjs). --quick: one round, one repetition, 50 ms warm-ups and small workloads, to
// see that every suite starts (its verdicts all read inconclusive). To look at one suite more
// closely, run it alone: `--suites vmm --processes 9 --max-reps 11`. `--merge FILE` keeps FILE's
// rows of the suites not run now. The C floor runs in a process with one idle thread, as Node and
// Python do (bench/c/bench.h says why); for the `--single-thread-c` suites the C program runs once
// more single-threaded (C variant `singleThreadedProcess`). The process-mode gate
// (process-gate.mjs) is off by default: with several interleaved processes per implementation a
// process in the host's slow mode falls in the spread (and the outlier rule) for every
// implementation alike, and the gate's retries cost the processes the verdict needs.
//
// Needs: built packages (dist/, the N-API addon), a C compiler (cc, gcc or nvcc) and the CUDA
// headers, python3 with cuda.core. The exit code is 0 when every row was measured by every
// implementation asked for, 1 otherwise; targets missed do not change it (see `verdict`).
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BASE_IMPLEMENTATIONS, comparisonLines, comparisonOf, oneTreeOnlyText } from './compare.mjs';
import { minProcessesOf, summaryOf } from './merge-results.mjs';
import {
  calibrate,
  GATED_SUITES,
  gatedRun,
  LOOPS,
  MAX_CALIBRATIONS,
  RETRY_SECONDS,
} from './process-gate.mjs';
import {
  mergeRawRounds,
  remainingUnits,
  roundsFromUnits,
  rowsFromRounds,
  unitsBySuite,
} from './raw-rounds.mjs';
import { REPS_VARIABLE, repetitionCaps, WARMUP_VARIABLE } from './repetitions.mjs';
import { renderMarkdown } from './report.mjs';
import { IMPLEMENTATIONS, ROWS, SINGLE_PROCESS_SUITES, SUITES } from './rows.mjs';
import { stagingDefaults } from './staging-defaults.mjs';
import { expectedUnitSeconds, fits } from './unit-time.mjs';
import { MIN_PROCESSES } from './verdict.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '..');
const started = Date.now();

function parseArguments(argv) {
  const options = {
    out: join(tmpdir(), 'cumem-bench.json'),
    suites: SUITES,
    impls: IMPLEMENTATIONS,
    budget: 540,
    timeout: 120,
    processes: MIN_PROCESSES,
    maxReps: 3,
    maxWarmupMs: 500,
    quick: false,
    merge: undefined,
    singleThreadC: [],
    processGate: false,
    resume: [],
    base: undefined,
    // workload.arrowFromDisk's file: 512 MiB (the issue's 2 GiB, read in 5 processes by 4
    // implementations, does not fit the one device call); in the temporary directory unless
    // BENCH_ARROW_DIR names another (the results record its file system: tmpfs is no disk).
    arrowFileBytes: 512 * 1024 * 1024,
    arrowDirectory: process.env.BENCH_ARROW_DIR || tmpdir(),
  };
  for (let i = 0; i < argv.length; i += 2) {
    const key = argv[i];
    if (key === '--quick') {
      options.quick = true;
      i--;
      continue;
    }
    const value = argv[i + 1];
    if (value === undefined) throw new Error(`${key} needs a value`);
    if (key === '--out') options.out = resolve(value);
    else if (key === '--suites') options.suites = listOf(value, SUITES, key);
    else if (key === '--impls') options.impls = listOf(value, IMPLEMENTATIONS, key);
    else if (key === '--budget') options.budget = positiveNumber(value, key);
    else if (key === '--timeout') options.timeout = positiveNumber(value, key);
    else if (key === '--processes' || key === '--rounds')
      options.processes = Math.floor(positiveNumber(value, key));
    else if (key === '--max-reps') options.maxReps = Math.floor(positiveNumber(value, key));
    else if (key === '--max-warmup-ms') options.maxWarmupMs = positiveNumber(value, key);
    else if (key === '--merge') options.merge = resolve(value);
    else if (key === '--resume')
      options.resume = value
        .split(',')
        .filter(Boolean)
        .map((path) => resolve(path));
    else if (key === '--base') options.base = existingTree(value, key);
    else if (key === '--arrow-file-bytes') options.arrowFileBytes = Math.floor(positiveNumber(value, key));
    else if (key === '--process-gate') options.processGate = value === 'on';
    else if (key === '--single-thread-c')
      options.singleThreadC = value === '' ? [] : listOf(value, SUITES, key);
    else throw new Error(`unknown argument ${key}`);
  }
  if (options.quick)
    Object.assign(options, { processes: 1, maxReps: 1, maxWarmupMs: 50, arrowFileBytes: 64 * 1024 * 1024 });
  return options;
}

function listOf(text, known, key) {
  const names = text.split(',').filter(Boolean);
  const unknown = names.filter((name) => !known.includes(name));
  if (unknown.length) throw new Error(`${key}: unknown ${unknown.join(', ')} (known: ${known.join(', ')})`);
  return known.filter((name) => names.includes(name));
}

function existingTree(path, key) {
  const tree = resolve(path);
  if (!existsSync(join(tree, 'bench', 'js')))
    throw new Error(
      `${key} ${path}: not a copy of this tree with bench/js (scripts/device/run.sh makes one)`,
    );
  return tree;
}

function positiveNumber(text, key) {
  const value = Number(text);
  if (!(value > 0)) throw new Error(`${key} needs a positive number, not ${text}`);
  return value;
}

const options = parseArguments(process.argv.slice(2));
const staging = stagingDefaults(root);
/** What every implementation's process reads: the repetition caps, cumem's staging parameters, quick mode. */
const processEnvironment = {
  [REPS_VARIABLE]: String(options.maxReps),
  [WARMUP_VARIABLE]: String(options.maxWarmupMs),
  BENCH_STAGE_CHUNK_BYTES: String(staging.chunkBytes),
  BENCH_STAGE_THREADS: String(staging.threads),
  BENCH_KERNELS_PTX: join(here, 'kernels', 'workloads.ptx'),
  BENCH_ARROW_FILE: join(options.arrowDirectory, 'cumem-bench-arrow-from-disk.arrow'),
  ...(options.quick ? { BENCH_QUICK: '1' } : {}),
};
/** workload.arrowFromDisk's file, made once before the first process of the suite. */
let arrowFile;
function makeArrowFile() {
  if (arrowFile) return;
  const path = processEnvironment.BENCH_ARROW_FILE;
  const made = spawnSync(
    process.execPath,
    [join(here, 'js', 'arrow-file.mjs'), path, String(options.arrowFileBytes)],
    {
      encoding: 'utf8',
      timeout: 120_000,
    },
  );
  const fileSystem = commandOutput('stat', ['-f', '-c', '%T', options.arrowDirectory]);
  arrowFile =
    made.status === 0
      ? {
          path,
          bytes: options.arrowFileBytes,
          fileSystem,
          ...JSON.parse(made.stdout.trim().split('\n').at(-1)),
        }
      : { path, error: `bench/js/arrow-file.mjs failed: ${made.stderr || made.error?.message}` };
  log(`arrow file: ${JSON.stringify(arrowFile)}`);
}
const caps = repetitionCaps(processEnvironment);
const scratch = mkdtempSync(join(tmpdir(), 'cumem-bench-'));
const log = (message) =>
  process.stderr.write(`[bench ${((Date.now() - started) / 1000).toFixed(1)}s] ${message}\n`);

function secondsLeft() {
  return options.budget - (Date.now() - started) / 1000;
}

function commandOutput(command, args) {
  try {
    return execFileSync(command, args, {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
      timeout: 20_000,
    }).trim();
  } catch {
    return undefined;
  }
}

/** HEAD, or the commit pack.sh recorded (the device copy of the tree may have no .git). */
function commit() {
  // pack.sh's record first: the GPU machine's copy of the tree may carry a stale .git.
  const packed = join(root, '.device', 'commit.txt');
  if (existsSync(packed)) return readFileSync(packed, 'utf8').trim();
  const fromGit = commandOutput('git', ['-C', root, 'rev-parse', 'HEAD']);
  if (fromGit) {
    const dirty = commandOutput('git', ['-C', root, 'status', '--porcelain', '--untracked-files=no']);
    return dirty ? `${fromGit}-dirty` : fromGit;
  }
  const file = join(root, '.device', 'commit.txt');
  return existsSync(file) ? readFileSync(file, 'utf8').trim() : 'unknown';
}

function gpuFacts() {
  const line = commandOutput('nvidia-smi', [
    '--query-gpu=name,driver_version,memory.total',
    '--format=csv,noheader',
  ]);
  if (!line) return {};
  const gpus = line.split('\n').filter((text) => text.trim() !== '');
  const [name, driverVersion, memoryTotal] = gpus[0].split(',').map((s) => s.trim());
  // Several GPUs of one model are named as such ("2x NVIDIA H200"), so results of a multi-GPU
  // machine are filed apart from those of a one-GPU one.
  const sameModel = gpus.every((text) => text.split(',')[0].trim() === name);
  const label =
    gpus.length > 1 ? (sameModel ? `${gpus.length}x ${name}` : `${gpus.length} GPUs, ${name} first`) : name;
  return { name: label, driverVersion, memoryTotal, count: gpus.length };
}

function cudaInclude() {
  const candidates = [process.env.CUDA_HOME, process.env.CUDA_PATH, '/usr/local/cuda'].filter(Boolean);
  const nvcc = commandOutput('sh', ['-c', 'command -v nvcc']);
  if (nvcc) candidates.push(resolve(dirname(nvcc), '..'));
  return candidates.map((base) => join(base, 'include')).find((dir) => existsSync(join(dir, 'cuda.h')));
}

/** Builds bench/c/<suite>.c with the first compiler that works; returns the binary or throws. */
function compileC(suite, include) {
  const source = join(here, 'c', `${suite}.c`);
  const output = join(scratch, `c-${suite}`);
  const attempts = [];
  for (const compiler of ['cc', 'gcc', 'nvcc']) {
    const args =
      compiler === 'nvcc'
        ? ['-O2', `-I${include}`, '-o', output, source, '-ldl', '-lpthread']
        : ['-O2', '-std=c11', '-pthread', `-I${include}`, '-o', output, source, '-ldl'];
    const run = spawnSync(compiler, args, { encoding: 'utf8', timeout: 120_000 });
    if (run.status === 0) return { binary: output, compiler: `${compiler} ${args.join(' ')}` };
    attempts.push(
      `${compiler}: ${run.error?.message ?? run.stderr.trim().split('\n').slice(-3).join(' | ')}`,
    );
  }
  throw new Error(`could not compile ${suite}.c: ${attempts.join('; ')}`);
}

/** Parses a C program's stdout; if it died mid-way, keeps the rows it had printed. */
function parseC(stdout, suite) {
  try {
    return JSON.parse(stdout);
  } catch {
    const rows = {};
    for (const line of stdout.split('\n')) {
      const match = /^"([^"]+)":(\{.*\}),?$/.exec(line.trim());
      if (match) rows[match[1]] = JSON.parse(match[2]);
    }
    return { impl: 'c', suite, error: 'the program stopped before finishing its JSON', rows };
  }
}

/**
 * Runs one process under the smaller of --timeout and the budget left. `budgetCut`: the budget,
 * not the process's own limit, stopped it (or left it no time to start): the unit it belongs to
 * is then incomplete and runs again in the next call (raw-rounds.mjs).
 */
function spawnLimited(command, args, capture, env = {}, cwd = root) {
  const left = secondsLeft();
  const limit = Math.min(options.timeout, left);
  if (limit < 5)
    return { skipped: `skipped: the ${options.budget} s budget of bench/run.mjs is spent`, budgetCut: true };
  const run = spawnSync(command, args, {
    cwd,
    encoding: 'utf8',
    timeout: Math.floor(limit * 1000),
    killSignal: 'SIGKILL',
    maxBuffer: 64 * 1024 * 1024,
    stdio: ['ignore', capture ? 'pipe' : 'inherit', 'inherit'],
    env: { ...process.env, PYTHONUNBUFFERED: '1', ...processEnvironment, ...env },
  });
  let problem;
  if (run.error) problem = `${command} could not run or was stopped: ${run.error.message}`;
  else if (run.signal)
    problem = `${command} ended by ${run.signal}${run.signal === 'SIGKILL' ? ` (limit ${Math.round(limit)} s?)` : ''}`;
  else if (run.status !== 0) problem = `${command} exited with ${run.status}`;
  const killed = run.signal === 'SIGKILL' || run.error?.code === 'ETIMEDOUT';
  return {
    stdout: run.stdout ?? '',
    problem,
    status: run.status,
    budgetCut: killed && left < options.timeout,
  };
}

// The process-mode gate (process-gate.mjs): limits per implementation, from calibration-only
// processes started before its first suite process.
const gateLimits = {};
const gateCalibrations = {};
const gateOut = join(scratch, 'process-gate.json');

function readGateTimes() {
  if (!existsSync(gateOut)) return undefined;
  try {
    return JSON.parse(readFileSync(gateOut, 'utf8'));
  } catch {
    return undefined;
  } finally {
    rmSync(gateOut, { force: true });
  }
}

/** `spawn(extraEnv)` through the gate of `impl` for `suite`, calibrating it first when needed. */
function gated(suite, impl, spawn) {
  const loop = GATED_SUITES[suite];
  if (!options.processGate || loop === undefined) return { run: spawn({}) };
  if (!(impl in gateLimits)) {
    const { limits, calibrations, bothModesSeen } = calibrate(() => {
      spawn({ BENCH_PROCESS_GATE: 'calibrate', BENCH_PROCESS_GATE_OUT: gateOut });
      return readGateTimes();
    });
    gateLimits[impl] = limits;
    gateCalibrations[impl] = { calibrations, bothModesSeen };
    log(
      `${impl}: process gate ${limits ? JSON.stringify(limits) : 'off (no calibration)'}, both modes seen: ${JSON.stringify(bothModesSeen)}`,
    );
  }
  const retryUntil =
    Date.now() + 1000 * Math.min(RETRY_SECONDS.most, secondsLeft() * RETRY_SECONDS.shareOfBudgetLeft);
  return gatedRun(
    (extra) => spawn({ ...extra, BENCH_PROCESS_GATE_OUT: gateOut }),
    gateLimits[impl],
    loop,
    readGateTimes,
    () => Date.now() < retryUntil,
  );
}

/**
 * Runs one suite for one implementation; always returns `{ rows, error?, info? }`, plus
 * `budgetCut` when the budget stopped it. `tree` 'base': the JS implementation of --base DIR.
 */
function runImplementation(suite, impl, compiled, rowIds, env, tree = 'head') {
  const how = [
    tree === 'base' && 'baseline',
    rowIds && `again: ${rowIds.join(', ')}`,
    env &&
      Object.entries(env)
        .map((e) => e.join('='))
        .join(' '),
  ];
  const said = how.filter(Boolean).join('; ');
  log(`${suite} / ${impl}${said ? ` (${said})` : ''}`);
  if (impl === 'c') {
    if (compiled.error) return { rows: {}, error: compiled.error };
    const args = rowIds ? ['--rows', rowIds.join(',')] : [];
    const { run, gate } = gated(suite, impl, (extra) =>
      spawnLimited(compiled.binary, args, true, { ...env, ...extra }),
    );
    if (run.skipped) return { rows: {}, error: run.skipped, budgetCut: true };
    const parsed = parseC(run.stdout, suite);
    if (run.problem && !parsed.error) parsed.error = run.problem;
    if (gate) parsed.info = { ...(parsed.info ?? {}), processGate: gate };
    if (run.budgetCut) parsed.budgetCut = true;
    return parsed;
  }
  const out = join(scratch, `${suite}-${impl}-${tree}.json`);
  // A process that dies before writing must not be read as the previous round's file.
  rmSync(out, { force: true });
  const treeRoot = tree === 'base' ? options.base : root;
  const spawnJs = (extra) =>
    spawnLimited(
      process.execPath,
      ['--expose-gc', join(treeRoot, 'bench', 'js', `${suite}.mjs`), '--driver', impl, '--out', out],
      false,
      extra,
      treeRoot,
    );
  const { run, gate } =
    tree === 'base'
      ? { run: spawnJs({}) }
      : gated(suite, impl, (extra) =>
          impl === 'cudaCore'
            ? spawnLimited('python3', [join(here, 'python', `${suite}.py`), '--out', out], false, extra)
            : spawnJs(extra),
        );
  if (run.skipped) return { rows: {}, error: run.skipped, budgetCut: true };
  let parsed = { rows: {} };
  if (existsSync(out)) {
    try {
      parsed = JSON.parse(readFileSync(out, 'utf8'));
    } catch (error) {
      parsed = { rows: {}, error: `unreadable result file: ${error.message}` };
    }
  }
  if (run.problem) parsed.error = parsed.error ? `${parsed.error}; ${run.problem}` : run.problem;
  if (gate) parsed.info = { ...(parsed.info ?? {}), processGate: gate };
  if (run.budgetCut) parsed.budgetCut = true;
  return parsed;
}

const include = cudaInclude();
const gpu = gpuFacts();
const info = {};
const compilers = {};
/** Per suite: the compiled C program (or why not). */
const compiledC = {};
function compiledFor(suite) {
  if (suite in compiledC) return compiledC[suite];
  let compiled = { error: 'C not requested' };
  if (options.impls.includes('c') && !cNotApplicable(suite)) {
    try {
      if (!include) throw new Error('no cuda.h found (set CUDA_HOME)');
      compiled = compileC(suite, include);
      compilers[suite] = compiled.compiler;
    } catch (error) {
      compiled = { error: error.message };
      log(error.message);
    }
  }
  compiledC[suite] = compiled;
  return compiled;
}
function cNotApplicable(suite) {
  return notApplicable(suite, 'c');
}
/** True when no row of `suite` has a column for `impl` (rows.mjs `notApplicable`): no process to start. */
function notApplicable(suite, impl) {
  return ROWS.filter((row) => row.suite === suite).every((row) => row.notApplicable?.[impl]);
}

/** Per suite, the complete units so far: the resumed files' first, then this call's (raw-rounds.mjs). */
const resumedFiles = options.resume.map((path) => JSON.parse(readFileSync(path, 'utf8')));
const units = {};
/** Units this call started but the budget cut short: run again by the next call. */
const cutUnits = [];
const deviceNameNow = () =>
  gpu.name ??
  resumedFiles[0]?.device ??
  Object.values(units)
    .flat()
    .find((unit) => unit.c?.info?.device)?.c.info.device ??
  'unknown device';
const headCommit = commit();
const baseCommit = options.base ? packedBaseCommit() : null;
if (resumedFiles.length) {
  // The files must measure what this call measures: checked by merging them with an empty file of this call.
  const thisCall = {
    commit: headCommit,
    device: deviceNameNow(),
    environment: {
      repetitions: { maxReps: options.maxReps, maxWarmupMs: options.maxWarmupMs, quick: options.quick },
    },
    ...(baseCommit ? { comparison: { base: baseCommit } } : {}),
    rawRounds: [],
  };
  const { rawRounds, dropped } = mergeRawRounds([...resumedFiles, thisCall]);
  Object.assign(units, unitsBySuite(rawRounds));
  log(
    `resumed from ${options.resume.join(', ')}: ${Object.entries(units)
      .map(([suite, list]) => `${suite} ${list.length}`)
      .join(', ')} unit(s)${dropped ? `; ${dropped} incomplete unit(s) left out` : ''}`,
  );
}
const earlierCalls = resumedFiles.flatMap((file) => file.environment?.verdict?.calls ?? []);
let stoppedEarly;
/** Seconds the units left for the next call are expected to take, at the pace measured so far. */
let leftSeconds = 0;
// Suites whose every row needs two GPUs only say "skipped" on one: once is enough.
const needsTwoGpus = (suite) => suite === 'multi' && (gpu.count ?? 1) < 2;
const unitsWanted = (suite) =>
  SINGLE_PROCESS_SUITES.includes(suite) || needsTwoGpus(suite) ? 1 : options.processes;
const implsOf = (suite) => options.impls.filter((impl) => !notApplicable(suite, impl));
const baseImplsOf = (suite) =>
  options.base && !SINGLE_PROCESS_SUITES.includes(suite)
    ? implsOf(suite).filter((impl) => BASE_IMPLEMENTATIONS.includes(impl))
    : [];
const done = Object.fromEntries(Object.entries(units).map(([suite, list]) => [suite, list.length]));
const order = remainingUnits(
  options.suites.filter((suite) => implsOf(suite).length > 0),
  unitsWanted,
  done,
);
const notStarted = [];
let unitsRun = 0;
log(`${order.length} unit(s) to run: ${order.map(({ suite, round }) => `${suite}#${round + 1}`).join(' ')}`);
for (const { suite, round } of order) {
  const impls = implsOf(suite);
  const baseImpls = baseImplsOf(suite);
  const expected = expectedUnitSeconds(suite, impls.length + baseImpls.length, units[suite]);
  // A unit started too late would be killed half-way; a later, shorter one may still fit.
  if (!fits(expected, secondsLeft())) {
    notStarted.push(`${suite}#${round + 1}`);
    log(
      `${suite} unit ${round + 1}: not started (expected ${Math.round(expected)} s, ${Math.round(secondsLeft())} s left)`,
    );
    continue;
  }
  const unit = runUnit(suite, round, impls, baseImpls);
  if (unit.incomplete) {
    cutUnits.push(`${suite}#${round + 1}`);
    log(`${suite} unit ${round + 1}: ${unit.incomplete}; left for the next call`);
  } else {
    units[suite] = [...(units[suite] ?? []), unit];
    unitsRun++;
    log(
      `${suite} unit ${round + 1} took ${unit.seconds} s (expected ${Math.round(expected)} s); ${Math.round(secondsLeft())} s left`,
    );
  }
  writeResults();
}
leftSeconds = Math.round(
  [...cutUnits, ...notStarted]
    .map((name) => name.split('#')[0])
    .reduce(
      (sum, suite) =>
        sum + expectedUnitSeconds(suite, implsOf(suite).length + baseImplsOf(suite).length, units[suite]),
      0,
    ),
);
if (notStarted.length || cutUnits.length) {
  stoppedEarly = `the ${options.budget} s budget did not fit ${[...cutUnits, ...notStarted].join(' ')} (about ${leftSeconds} s at the pace measured): continue with --resume ${options.out}`;
  log(stoppedEarly);
}
for (const suite of options.suites) {
  const compiled = compiledC[suite];
  if (!options.singleThreadC.includes(suite) || !compiled || compiled.error || secondsLeft() < 20) continue;
  const single = runImplementation(suite, 'c', compiled, undefined, { BENCH_C_SINGLE_THREAD: '1' });
  for (const unit of units[suite] ?? []) unit.cSingleThread = single;
}
const results = writeResults();
if (arrowFile?.path)
  for (const path of [arrowFile.path, `${arrowFile.path}.layout`]) rmSync(path, { force: true });
process.stdout.write(`${renderMarkdown(results)}\n`);
if (results.comparison) process.stdout.write(`${comparisonLines(results.comparison).join('\n')}\n`);
if (results.comparison?.errors) process.stdout.write(`${results.comparison.errors.join('\n')}\n`);
log(
  `wrote ${options.out}: ${results.summary.met} met, ${results.summary.missed} missed, ${results.summary.inconclusive} inconclusive of ${results.summary.rows} rows (units per suite: ${JSON.stringify(results.environment.verdict.unitsDone)})`,
);
if (results.comparison)
  log(
    `against the baseline ${results.comparison.base}: worse ${results.comparison.summary.worse.join(', ') || 'none'}; ${results.comparison.summary.better} better, ${results.comparison.summary.same} same, ${results.comparison.summary.inconclusive} inconclusive${oneTreeOnlyText(results.comparison.summary)}${results.comparison.errors ? `; baseline processes that failed: ${results.comparison.errors.length} (comparison.errors)` : ''}`,
  );
const measuredAll = results.rows.every(
  (row) =>
    row.skipped || options.impls.every((impl) => row.results[impl] !== null || row.notApplicable?.[impl]),
);
process.exit(measuredAll && !stoppedEarly ? 0 : 1);

/** The commit of the packed baseline (pack.sh --baseline), or 'unknown'. */
function packedBaseCommit() {
  const file = join(root, '.device', 'baseline-commit.txt');
  return existsSync(file) ? readFileSync(file, 'utf8').trim() : 'unknown';
}

/**
 * One unit: `suite` once per implementation, C, FFI, N-API, Python in turn, with the baseline's
 * process of each JS implementation beside this tree's (which of the two goes first alternates
 * by round, so neither always runs on a GPU the other has just warmed).
 */
function runUnit(suite, round, impls, baseImpls) {
  const unit = {
    id: `${new Date(started).toISOString()}/${suite}#${round + 1}`,
    impls,
    ...(baseImpls.length ? { baseImpls, base: {} } : {}),
  };
  const unitStarted = Date.now();
  for (const impl of impls) {
    const trees = !baseImpls.includes(impl)
      ? ['head']
      : round % 2 === 0
        ? ['head', 'base']
        : ['base', 'head'];
    for (const tree of trees) {
      let result;
      try {
        if (suite === 'workloads') makeArrowFile();
        result = runImplementation(suite, impl, compiledFor(suite), undefined, undefined, tree);
      } catch (error) {
        // Never lose the other rows: an exception of this script for one process is that process's error.
        result = { rows: {}, error: `bench/run.mjs: ${error.message}` };
      }
      if (tree === 'head') unit[impl] = result;
      else unit.base[impl] = result;
      const name = `${suite}.${impl}${tree === 'base' ? '.base' : ''}`;
      if (result.error) info[name] = { ...(info[name] ?? {}), [`process${round + 1}`]: result.error };
      if (result.budgetCut) {
        unit.incomplete = `the budget stopped ${impl}${tree === 'base' ? ' (baseline)' : ''}`;
        return unit;
      }
    }
  }
  unit.seconds = Math.round((Date.now() - unitStarted) / 100) / 10;
  return unit;
}

/** Judges every unit so far and writes the results file (with the raw rounds); returns the results object. */
function writeResults() {
  const deviceName = deviceNameNow();
  const rawRounds = roundsFromUnits(units);
  // This call's suites and those of the files it resumed.
  const judgedSuites = SUITES.filter((suite) => options.suites.includes(suite) || units[suite]);
  const measured = rowsFromRounds(ROWS, rawRounds, {
    suites: judgedSuites,
    deviceName,
    caps,
    minProcesses: minProcessesOf,
  });
  const unitsDone = Object.fromEntries(Object.entries(units).map(([suite, list]) => [suite, list.length]));
  // Whole rounds: the fewest units of any suite that runs in every round (none yet counts as 0).
  const repeated = judgedSuites.filter((suite) => implsOf(suite).length > 0 && unitsWanted(suite) > 1);
  const roundsDone = repeated.length
    ? Math.min(...repeated.map((suite) => unitsDone[suite] ?? 0))
    : rawRounds.length;
  const merged = options.merge ? JSON.parse(readFileSync(options.merge, 'utf8')) : undefined;
  const kept = (merged?.rows ?? []).filter((row) => !judgedSuites.includes(row.suite));
  const rows = ROWS.map(
    (row) => measured.find((entry) => entry.id === row.id) ?? kept.find((entry) => entry.id === row.id),
  ).filter(Boolean);
  const cInfo =
    Object.values(units)
      .flat()
      .find((unit) => unit.c?.info?.driverVersion)?.c.info ?? {};
  const earlier = resumedFiles.at(-1)?.environment ?? {};
  const thisCall = {
    date: new Date(started).toISOString(),
    seconds: Math.round((Date.now() - started) / 1000),
    budget: options.budget,
    unitsRun,
    ...(cutUnits.length ? { cut: cutUnits } : {}),
    ...(notStarted.length ? { notStarted } : {}),
    ...(stoppedEarly ? { leftSeconds } : {}),
  };
  const results = {
    schema: 2,
    commit: headCommit,
    device: deviceName,
    driverVersion: gpu.driverVersion ?? null,
    cudaDriverVersion: cInfo.driverVersion ?? null,
    date: new Date().toISOString(),
    seconds: Math.round((Date.now() - started) / 1000),
    environment: {
      node: process.version,
      gpuMemory: gpu.memoryTotal ?? null,
      gpuCount: gpu.count ?? null,
      verdict: {
        rule: `every implementation in ${options.processes} processes, interleaved round by round; value and ratio: median over processes; spread: range over processes without the lowest and highest from 5 on; met = whole spread within the target, missed = whole spread outside, else inconclusive (bench/verdict.mjs)`,
        processesAsked: options.processes,
        roundsDone,
        unitsDone,
        unitSeconds: Object.fromEntries(
          Object.entries(units).map(([suite, list]) => [suite, list.map((unit) => unit.seconds)]),
        ),
        calls: [...earlierCalls, thisCall],
        minProcesses: MIN_PROCESSES,
        ...(stoppedEarly ? { stoppedEarly } : {}),
      },
      repetitions: { maxReps: options.maxReps, maxWarmupMs: options.maxWarmupMs, quick: options.quick },
      staging,
      ...(arrowFile ? { arrowFile } : earlier.arrowFile ? { arrowFile: earlier.arrowFile } : {}),
      cProcess: 'one idle thread (bench/c/bench.h); single-threaded C as the variant singleThreadedProcess',
      processGate: options.processGate
        ? {
            rule: `the processes of ${Object.keys(GATED_SUITES).join(', ')} run in the host's fast mode (bench/process-gate.mjs): limit = margin x an implementation's fastest of up to ${MAX_CALIBRATIONS} calibrations`,
            loops: LOOPS,
            suites: GATED_SUITES,
            limits: gateLimits,
            calibrations: gateCalibrations,
          }
        : 'off',
      compilers: { ...(merged?.environment?.compilers ?? {}), ...(earlier.compilers ?? {}), ...compilers },
      implementations: {
        ...(merged?.environment?.implementations ?? {}),
        ...(earlier.implementations ?? {}),
        ...info,
      },
      ...(merged
        ? {
            mergedFrom: {
              commit: merged.commit,
              date: merged.date,
              suites: [...new Set(kept.map((row) => row.suite))],
            },
          }
        : {}),
    },
    rows,
    summary: summaryOf(rows),
    ...(options.base
      ? {
          comparison: comparisonOf(ROWS, rawRounds, {
            suites: judgedSuites,
            head: headCommit,
            base: baseCommit,
            impls: BASE_IMPLEMENTATIONS.filter((impl) => options.impls.includes(impl)),
          }),
        }
      : {}),
    // Every process's own output, unit by unit: what --resume and report.mjs merge (raw-rounds.mjs).
    rawRounds,
  };
  mkdirSync(dirname(options.out), { recursive: true });
  // Written aside and renamed: a call killed while writing keeps the previous complete file.
  writeFileSync(`${options.out}.partial`, `${JSON.stringify(results, null, 1)}\n`);
  renameSync(`${options.out}.partial`, options.out);
  log(`results of ${roundsDone} whole round(s) written to ${options.out}`);
  return results;
}
