#!/usr/bin/env node
// Runs every benchmark row four ways (C floor, FFI adapter, N-API adapter, Python) on the GPU
// machine and writes one results JSON. Each suite runs as one process per implementation, one
// process at a time (never two timing runs at once), each under a time limit, so a crash or a
// hang costs only that process's rows.
//
//   node bench/run.mjs [--out FILE (default: $TMPDIR/cumem-bench.json)] [--suites contract,memory,utils,arrow,multi]
//                      [--impls c,ffi,napi,cudaCore] [--budget SECONDS] [--timeout SECONDS]
//                      [--rounds N (default 1; see rounds.mjs)] [--merge FILE]
//                      [--single-thread-c SUITES (default contract,memory,utils,compute,vmm; '' for none)]
//                      [--process-gate on|off (default on)]
//
// `--merge FILE` keeps FILE's rows of the suites not run now (a bench split over two device
// calls ends in one results file). The C floor runs in a process with one idle thread, as Node
// and Python do (bench/c/bench.h says why); for the `--single-thread-c` suites the C program runs
// once more single-threaded, recorded as the C variant `singleThreadedProcess`. Every process is
// measured in the host's fast mode: process-gate.mjs says why and how.
//
// Needs: built packages (dist/, the N-API addon), a C compiler (cc, gcc or nvcc) and the CUDA
// headers, python3 with cuda.core. The exit code is 0 when every row was measured by every
// implementation asked for, 1 otherwise; targets missed do not change it (see `pass`).
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
import { renderMarkdown } from './report.mjs';
import { bestOfRounds } from './rounds.mjs';
import { IMPLEMENTATIONS, ROWS, SUITES } from './rows.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '..');
const started = Date.now();

function parseArguments(argv) {
  const options = {
    out: join(tmpdir(), 'cumem-bench.json'),
    suites: SUITES,
    impls: IMPLEMENTATIONS,
    budget: 330,
    timeout: 150,
    rounds: 1,
    merge: undefined,
    singleThreadC: ['contract', 'memory', 'utils', 'compute', 'vmm'],
    processGate: true,
  };
  for (let i = 0; i < argv.length; i += 2) {
    const [key, value] = [argv[i], argv[i + 1]];
    if (value === undefined) throw new Error(`${key} needs a value`);
    if (key === '--out') options.out = resolve(value);
    else if (key === '--suites') options.suites = value.split(',').filter((s) => SUITES.includes(s));
    else if (key === '--impls') options.impls = value.split(',').filter((s) => IMPLEMENTATIONS.includes(s));
    else if (key === '--budget') options.budget = Number(value);
    else if (key === '--timeout') options.timeout = Number(value);
    else if (key === '--rounds') options.rounds = Math.max(1, Math.floor(Number(value)) || 1);
    else if (key === '--merge') options.merge = resolve(value);
    else if (key === '--process-gate') options.processGate = value !== 'off';
    else if (key === '--single-thread-c')
      options.singleThreadC = value.split(',').filter((s) => SUITES.includes(s));
    else throw new Error(`unknown argument ${key}`);
  }
  return options;
}

const options = parseArguments(process.argv.slice(2));
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
    env: { ...process.env, PYTHONUNBUFFERED: '1', ...env },
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
const raw = {};
const info = {};
const compilers = {};
for (const suite of options.suites) {
  let compiled = { error: 'C not requested' };
  const suiteRows = ROWS.filter((row) => row.suite === suite);
  const cNotApplicable = suiteRows.every((row) => row.notApplicable?.c);
  if (options.impls.includes('c') && !cNotApplicable) {
    try {
      if (!include) throw new Error('no cuda.h found (set CUDA_HOME)');
      compiled = compileC(suite, include);
      compilers[suite] = compiled.compiler;
    } catch (error) {
      compiled = { error: error.message };
      log(error.message);
    }
  }
  raw[suite] = {};
  const runs = {};
  for (let round = 0; round < options.rounds; round++) {
    for (const impl of options.impls) {
      if (impl === 'c' && cNotApplicable) continue; // no C program for this suite (rows.mjs says why)
      runs[impl] = [...(runs[impl] ?? []), runImplementation(suite, impl, compiled)];
    }
  }
  const unitOf = (id) => suiteRows.find((row) => row.id === id || row.cFrom === id)?.unit;
  for (const [impl, implRuns] of Object.entries(runs)) {
    raw[suite][impl] = bestOfRounds(implRuns, unitOf);
    info[`${suite}.${impl}`] = {
      ...(raw[suite][impl].info ?? {}),
      ...(raw[suite][impl].error ? { error: raw[suite][impl].error } : {}),
    };
  }
  if (options.singleThreadC.includes(suite) && runs.c && !compiled.error) {
    raw[suite].cSingleThread = runImplementation(suite, 'c', compiled, undefined, {
      BENCH_C_SINGLE_THREAD: '1',
    });
    if (raw[suite].cSingleThread.error)
      info[`${suite}.cSingleThread`] = { error: raw[suite].cSingleThread.error };
  }
  // The small-call rows' floor once more, after the others (see `floorBeforeAndAfter` in rows.mjs).
  const again = [
    ...new Set(
      ROWS.filter((row) => row.suite === suite && row.floorBeforeAndAfter).map((row) => row.cFrom ?? row.id),
    ),
  ];
  if (options.impls.includes('c') && options.impls.length > 1 && again.length && !compiled.error) {
    raw[suite].cAfter = runImplementation(suite, 'c', compiled, again);
    if (raw[suite].cAfter.error) info[`${suite}.cAfter`] = { error: raw[suite].cAfter.error };
  }
}

const cInfo = Object.values(raw).find((suite) => suite.c?.info)?.c.info ?? {};
const deviceName = gpu.name ?? cInfo.device ?? 'unknown device';
const measured = ROWS.filter((row) => options.suites.includes(row.suite)).map((row) =>
  mergeRow(row, raw[row.suite], deviceName),
);
const merged = options.merge ? JSON.parse(readFileSync(options.merge, 'utf8')) : undefined;
const kept = (merged?.rows ?? []).filter((row) => !options.suites.includes(row.suite));
// Rows in rows.mjs order, whichever run measured them.
const rows = ROWS.map(
  (row) => measured.find((entry) => entry.id === row.id) ?? kept.find((entry) => entry.id === row.id),
).filter(Boolean);
const results = {
  schema: 1,
  commit: commit(),
  device: deviceName,
  driverVersion: gpu.driverVersion ?? null,
  cudaDriverVersion: cInfo.driverVersion ?? null,
  date: new Date().toISOString(),
  seconds: Math.round((Date.now() - started) / 1000) + (merged?.seconds ?? 0),
  environment: {
    node: process.version,
    gpuMemory: gpu.memoryTotal ?? null,
    rounds: options.rounds,
    cProcess: 'one idle thread (bench/c/bench.h); single-threaded C as the variant singleThreadedProcess',
    processGate: options.processGate
      ? {
          rule: `the processes of ${Object.keys(GATED_SUITES).join(', ')} run in the host's fast mode (bench/process-gate.mjs): limit = margin x an implementation's fastest of up to ${MAX_CALIBRATIONS} calibrations`,
          loops: LOOPS,
          suites: GATED_SUITES,
          limits: { ...(merged?.environment?.processGate?.limits ?? {}), ...gateLimits },
          calibrations: { ...(merged?.environment?.processGate?.calibrations ?? {}), ...gateCalibrations },
        }
      : 'off',
    compilers: { ...(merged?.environment?.compilers ?? {}), ...compilers },
    implementations: { ...(merged?.environment?.implementations ?? {}), ...info },
    ...(merged
      ? {
          mergedFrom: {
            commit: merged.commit,
            date: merged.date,
            rounds: merged.environment?.rounds ?? 1,
            suites: [...new Set(kept.map((row) => row.suite))],
          },
        }
      : {}),
  },
  rows,
  summary: {
    rows: rows.length,
    passed: rows.filter((row) => row.pass).length,
    failed: rows.filter((row) => row.pass === false).length,
    skipped: rows.filter((row) => row.skipped).map((row) => row.id),
    withErrors: rows.filter((row) => row.errors).map((row) => row.id),
    protocolMismatch: rows.filter((row) => row.protocolMismatch).map((row) => row.id),
  },
};
mkdirSync(dirname(options.out), { recursive: true });
writeFileSync(options.out, `${JSON.stringify(results, null, 1)}\n`);
process.stdout.write(`${renderMarkdown(results)}\n`);
const skippedNote = results.summary.skipped.length
  ? `, ${results.summary.skipped.length} skipped as not applicable`
  : '';
log(
  `wrote ${options.out}: ${results.summary.passed}/${results.summary.rows} rows meet their targets${skippedNote}`,
);
const measuredAll = rows.every(
  (row) =>
    row.skipped || options.impls.every((impl) => row.results[impl] !== null || row.notApplicable?.[impl]),
);
process.exit(measuredAll ? 0 : 1);
