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
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { mergeRow } from './merge-row.mjs';
import {
  calibrate,
  GATED_SUITES,
  gatedRun,
  LOOPS,
  MAX_CALIBRATIONS,
  RETRY_SECONDS,
} from './process-gate.mjs';
import { REPS_VARIABLE, repetitionCaps, WARMUP_VARIABLE } from './repetitions.mjs';
import { renderMarkdown } from './report.mjs';
import { combineRounds, interleavedOrder } from './rounds.mjs';
import { IMPLEMENTATIONS, ROWS, SINGLE_PROCESS_SUITES, SUITES } from './rows.mjs';
import { stagingDefaults } from './staging-defaults.mjs';
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

function spawnLimited(command, args, capture, env = {}) {
  const limit = Math.min(options.timeout, secondsLeft());
  if (limit < 5) return { skipped: `skipped: the ${options.budget} s budget of bench/run.mjs is spent` };
  const run = spawnSync(command, args, {
    cwd: root,
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
  return { stdout: run.stdout ?? '', problem, status: run.status };
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

/** Runs one suite for one implementation; always returns `{ rows, error?, info? }`. */
function runImplementation(suite, impl, compiled, rowIds, env) {
  const how = [
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
    if (run.skipped) return { rows: {}, error: run.skipped };
    const parsed = parseC(run.stdout, suite);
    if (run.problem && !parsed.error) parsed.error = run.problem;
    if (gate) parsed.info = { ...(parsed.info ?? {}), processGate: gate };
    return parsed;
  }
  const out = join(scratch, `${suite}-${impl}.json`);
  const { run, gate } = gated(suite, impl, (extra) =>
    impl === 'cudaCore'
      ? spawnLimited('python3', [join(here, 'python', `${suite}.py`), '--out', out], false, extra)
      : spawnLimited(
          process.execPath,
          ['--expose-gc', join(here, 'js', `${suite}.mjs`), '--driver', impl, '--out', out],
          false,
          extra,
        ),
  );
  if (run.skipped) return { rows: {}, error: run.skipped };
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

/** raws[round][suite][impl]: one process's suite result. */
const raws = [];
const deviceNameNow = () =>
  gpu.name ??
  raws.flatMap((round) => Object.values(round)).find((suite) => suite.c?.info?.device)?.c.info.device ??
  'unknown device';
let stoppedEarly;
// Suites whose every row needs two GPUs only say "skipped" on one: once is enough.
const needsTwoGpus = (suite) => suite === 'multi' && (gpu.count ?? 1) < 2;
const order = interleavedOrder(options.processes, options.suites, options.impls).filter(
  ({ round, suite, impl }) =>
    !notApplicable(suite, impl) &&
    !(round > 0 && (SINGLE_PROCESS_SUITES.includes(suite) || needsTwoGpus(suite))),
);
const roundSeconds = [];
let roundStarted = Date.now();
for (const [index, { round, suite, impl }] of order.entries()) {
  // A guard: a process that starts too near the end of the budget would be killed half-way.
  if (secondsLeft() < 10) {
    stoppedEarly = `the ${options.budget} s budget ran out in round ${round + 1} of ${options.processes} (before ${suite} / ${impl})`;
    log(stoppedEarly);
    break;
  }
  raws[round] ??= {};
  raws[round][suite] ??= {};
  try {
    if (suite === 'workloads') makeArrowFile();
    raws[round][suite][impl] = runImplementation(suite, impl, compiledFor(suite));
  } catch (error) {
    // Never lose the other rows: an exception of this script for one process is that process's error.
    raws[round][suite][impl] = { rows: {}, error: `bench/run.mjs: ${error.message}` };
  }
  const problem = raws[round][suite][impl].error;
  if (problem)
    info[`${suite}.${impl}`] = { ...(info[`${suite}.${impl}`] ?? {}), [`process${round + 1}`]: problem };
  const next = order[index + 1];
  if (!next || next.round !== round) {
    roundSeconds.push(Math.round((Date.now() - roundStarted) / 1000));
    roundStarted = Date.now();
    const last = roundSeconds.at(-1);
    if (next && secondsLeft() < last * (options.processes - round - 1))
      log(
        `round ${round + 1} took ${last} s: at that pace ${Math.floor(secondsLeft() / last)} more fit the budget, not ${options.processes - round - 1} (rows with fewer than ${MIN_PROCESSES} processes read inconclusive; run suites alone with --suites)`,
      );
    writeResults(round + 1);
  }
}
for (const suite of options.suites) {
  const compiled = compiledC[suite];
  if (!options.singleThreadC.includes(suite) || !compiled || compiled.error || secondsLeft() < 20) continue;
  const single = runImplementation(suite, 'c', compiled, undefined, { BENCH_C_SINGLE_THREAD: '1' });
  for (const round of raws) if (round?.[suite]) round[suite].cSingleThread = single;
}
const results = writeResults(raws.length);
if (arrowFile?.path)
  for (const path of [arrowFile.path, `${arrowFile.path}.layout`]) rmSync(path, { force: true });
process.stdout.write(`${renderMarkdown(results)}\n`);
log(
  `wrote ${options.out}: ${results.summary.met} met, ${results.summary.missed} missed, ${results.summary.inconclusive} inconclusive of ${results.summary.rows} rows (${raws.length} rounds)`,
);
const measuredAll = results.rows.every(
  (row) =>
    row.skipped || options.impls.every((impl) => row.results[impl] !== null || row.notApplicable?.[impl]),
);
process.exit(measuredAll ? 0 : 1);

/** Merges the rounds finished so far and writes the results file; returns the results object. */
function writeResults(roundsDone) {
  const deviceName = deviceNameNow();
  const measured = [];
  for (const row of ROWS.filter((entry) => options.suites.includes(entry.suite))) {
    const perRound = raws
      .slice(0, roundsDone)
      .map((round) => round?.[row.suite])
      .filter((suiteRaw) => suiteRaw && Object.keys(suiteRaw).length > 0)
      .map((suiteRaw) => mergeRow(row, suiteRaw, deviceName, { caps }));
    if (perRound.length === 0) continue;
    const minProcesses = SINGLE_PROCESS_SUITES.includes(row.suite) ? 1 : MIN_PROCESSES;
    measured.push(combineRounds(row, perRound, { minProcesses }));
  }
  const merged = options.merge ? JSON.parse(readFileSync(options.merge, 'utf8')) : undefined;
  const kept = (merged?.rows ?? []).filter((row) => !options.suites.includes(row.suite));
  const rows = ROWS.map(
    (row) => measured.find((entry) => entry.id === row.id) ?? kept.find((entry) => entry.id === row.id),
  ).filter(Boolean);
  const cInfo =
    raws.flatMap((round) => Object.values(round ?? {})).find((suite) => suite.c?.info?.driverVersion)?.c
      .info ?? {};
  const results = {
    schema: 2,
    commit: commit(),
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
        roundSeconds,
        minProcesses: MIN_PROCESSES,
        ...(stoppedEarly ? { stoppedEarly } : {}),
      },
      repetitions: { maxReps: options.maxReps, maxWarmupMs: options.maxWarmupMs, quick: options.quick },
      staging,
      ...(arrowFile ? { arrowFile } : {}),
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
      compilers: { ...(merged?.environment?.compilers ?? {}), ...compilers },
      implementations: { ...(merged?.environment?.implementations ?? {}), ...info },
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
    summary: {
      rows: rows.length,
      met: rows.filter((row) => row.verdict === 'met').length,
      missed: rows.filter((row) => row.verdict === 'missed').length,
      inconclusive: rows.filter((row) => row.verdict === 'inconclusive').length,
      missedRows: rows.filter((row) => row.verdict === 'missed').map((row) => row.id),
      skipped: rows.filter((row) => row.skipped).map((row) => row.id),
      withErrors: rows.filter((row) => row.errors).map((row) => row.id),
      protocolMismatch: rows.filter((row) => row.protocolMismatch).map((row) => row.id),
    },
  };
  mkdirSync(dirname(options.out), { recursive: true });
  writeFileSync(options.out, `${JSON.stringify(results, null, 1)}\n`);
  log(`results of ${roundsDone} round(s) written to ${options.out}`);
  return results;
}
