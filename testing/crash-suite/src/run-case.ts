// Runs one case program in its own node process and turns what happened into a verdict: a
// crash is a failure that names its signal, with the tail of the child's stderr.
import { spawn } from 'node:child_process';
import type { CrashCase } from './crash-cases.js';

/** How a case program is run: which driver, over which libcuda. */
export interface CaseTarget {
  /** 'napi' | 'ffi' | 'reference'. */
  readonly driver: string;
  /** The library the adapter loads (the fake), or undefined for libcuda.so.1. */
  readonly libcuda: string | undefined;
  /** Run the fake in its hostile (unmap-on-free) mode. */
  readonly hostile: boolean;
}

/**
 * Per case; a case that hangs fails with 'timed out'. The fuzzing cases (41: ~1,200 corrupted
 * messages) take about 15 s alone over the hostile fake and passed 30 s on a loaded two-core
 * machine, so the limit leaves room for load while still catching a hang.
 */
export const caseTimeoutMs = 90_000;

function tail(text: string, lines = 30): string {
  return text.split('\n').slice(-lines).join('\n');
}

/** The failure message of a run, or undefined when the case passed. */
export async function runCase(crashCase: CrashCase, target: CaseTarget): Promise<string | undefined> {
  const env: NodeJS.ProcessEnv = { ...process.env, CUMEM_CRASH_DRIVER: target.driver };
  if (target.driver === 'reference') delete env.CUMEM_DRIVER;
  else env.CUMEM_DRIVER = target.driver;
  if (target.libcuda) env.CUMEM_CRASH_LIBCUDA = target.libcuda;
  else delete env.CUMEM_CRASH_LIBCUDA;
  if (target.hostile) env.FAKE_CUDA_HOSTILE = '1';
  else delete env.FAKE_CUDA_HOSTILE;
  // Asynchronous, so the test worker keeps answering vitest while a case runs (a blocking
  // spawnSync made vitest's worker RPC time out on a loaded machine).
  const result = await runProcess(crashCase.file, env);
  const output = `${result.stdout ?? ''}${result.stderr ?? ''}`;
  if (result.timedOut) {
    return `${crashCase.name} timed out after ${caseTimeoutMs} ms\n${tail(output)}`;
  }
  if (result.error) return `${crashCase.name} could not run: ${result.error.message}`;
  if (crashCase.expectedSignal !== undefined) {
    if (result.signal === crashCase.expectedSignal) return undefined;
    return `${crashCase.name} should have died of ${crashCase.expectedSignal}, got ${result.signal ?? `exit code ${result.status}`}\n${tail(output)}`;
  }
  if (result.signal) return `${crashCase.name} CRASHED with ${result.signal}\n${tail(output)}`;
  if (result.status !== 0) return `${crashCase.name} failed (exit code ${result.status})\n${tail(output)}`;
  return undefined;
}

interface ProcessResult {
  readonly status: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly error?: Error;
  readonly timedOut: boolean;
}

/** `node --expose-gc file` with `env`, killed (SIGKILL) after {@link caseTimeoutMs}. */
function runProcess(file: string, env: NodeJS.ProcessEnv): Promise<ProcessResult> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--expose-gc', file], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    let error: Error | undefined;
    const keep = (text: string, chunk: Buffer) => (text + chunk.toString('utf8')).slice(-(1 << 20));
    child.stdout.on('data', (chunk: Buffer) => {
      stdout = keep(stdout, chunk);
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr = keep(stderr, chunk);
    });
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, caseTimeoutMs);
    child.on('error', (cause) => {
      error = cause;
    });
    child.on('close', (status, signal) => {
      clearTimeout(timer);
      resolve({ status, signal, stdout, stderr, error, timedOut });
    });
  });
}
