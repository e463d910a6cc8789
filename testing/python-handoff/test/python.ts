// Finding Python and talking to the hand-off child (test/fixtures/handoff_child.py): one JSON
// line per message each way, diagnostics on stderr, which a failing test prints whole.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { createInterface, type Interface } from 'node:readline';
import { fileURLToPath } from 'node:url';

export const repositoryRoot = fileURLToPath(new URL('../../..', import.meta.url));
export const childScript = fileURLToPath(new URL('./fixtures/handoff_child.py', import.meta.url));
export const nodeImporter = fileURLToPath(new URL('./fixtures/node-import.mjs', import.meta.url));

/** `CUMEM_PYTHON`, else `python3` from PATH. */
export const pythonCommand = process.env.CUMEM_PYTHON ?? 'python3';

let probed: string | undefined | null = null;

/**
 * Undefined when `python3 -c "import cuda.core"` works (probed once per test file), else the
 * skip reason every Python case gives. `CUMEM_REQUIRE_PYTHON=1` turns a missing Python into a
 * failure, for the GPU machine.
 */
export function pythonSkipReason(): string | undefined {
  if (probed !== null) return probed;
  const result = spawnSync(pythonCommand, ['-c', 'import cuda.core'], { encoding: 'utf8', timeout: 60_000 });
  probed = result.status === 0 ? undefined : 'not applicable: no python3 with cuda.core';
  if (probed !== undefined) {
    const why = result.error?.message ?? result.stderr.trim().split('\n').at(-1) ?? `exit ${result.status}`;
    process.stderr.write(`python hand-off tests: ${pythonCommand} cannot import cuda.core (${why})\n`);
    if (process.env.CUMEM_REQUIRE_PYTHON === '1') throw new Error(`CUMEM_REQUIRE_PYTHON=1 but ${why}`);
  }
  return probed;
}

/** The skip reason for a driver: no IPC, or no Python with cuda.core. */
export function handOffRequirement(driver: { capabilities: { interprocess: boolean } }): string | undefined {
  if (!driver.capabilities.interprocess)
    return 'not applicable: the driver cannot share memory between processes';
  return pythonSkipReason();
}

/** The adapter the built packages should load in a Node grandchild. */
export function builtPackagesPresent(): void {
  for (const name of ['memory', 'utils']) {
    if (!existsSync(new URL(`../../../packages/${name}/dist/index.js`, import.meta.url))) {
      throw new Error(`the Node importer loads the built @cumem/${name}: run \`tsc -b\` first`);
    }
  }
}

/** A running hand-off child. */
export class PythonChild {
  readonly process: ChildProcess;
  readonly #lines: Interface;
  readonly #queue: string[] = [];
  readonly #waiting: ((line: string | undefined) => void)[] = [];
  #stderr = '';
  #ended = false;

  /** Starts the child; `fds` become its fds 3, 4, ... */
  constructor(fds: number[] = [], environment: NodeJS.ProcessEnv = {}) {
    this.process = spawn(pythonCommand, [childScript], {
      stdio: ['pipe', 'pipe', 'pipe', ...fds],
      env: { ...process.env, PYTHONUNBUFFERED: '1', ...environment },
    });
    this.process.stderr!.on('data', (chunk) => {
      this.#stderr = (this.#stderr + chunk).slice(-20_000);
    });
    this.#lines = createInterface({ input: this.process.stdout! });
    this.#lines.on('line', (line) => {
      const waiter = this.#waiting.shift();
      if (waiter) waiter(line);
      else this.#queue.push(line);
    });
    this.#lines.on('close', () => {
      this.#ended = true;
      for (const waiter of this.#waiting.splice(0)) waiter(undefined);
    });
    // A child that dies before reading makes stdin writes fail with EPIPE; its exit says why.
    this.process.stdin!.on('error', () => undefined);
  }

  /** What the child wrote on stderr (the last 20 kB). */
  get stderr(): string {
    return this.#stderr;
  }

  /** The next JSON message; throws with the child's stderr when it ended or reported an error. */
  async receive<T = Record<string, unknown>>(): Promise<T> {
    const line =
      this.#queue.shift() ??
      (this.#ended
        ? undefined
        : await new Promise<string | undefined>((resolve) => this.#waiting.push(resolve)));
    if (line === undefined) {
      throw new Error(`the Python child ended without replying; its stderr:\n${this.#stderr}`);
    }
    const message = JSON.parse(line) as { error?: string };
    if (message.error !== undefined) throw new Error(`Python: ${message.error}\n${this.#stderr}`);
    return message as T;
  }

  /** Sends one JSON message. */
  send(message: unknown): void {
    this.process.stdin!.write(`${JSON.stringify(message)}\n`);
  }

  /** Waits for the "ready" line (modules loaded). */
  async ready(): Promise<void> {
    const message = await this.receive<{ ready?: boolean }>();
    if (message.ready !== true) throw new Error(`expected the ready line, got ${JSON.stringify(message)}`);
  }

  /** The `result` of the scenario; then waits for the child to exit with status 0. */
  async result<T>(): Promise<T> {
    const exited =
      this.process.exitCode !== null ? Promise.resolve([this.process.exitCode]) : once(this.process, 'exit');
    const { result } = await this.receive<{ result: T }>();
    this.process.stdin!.end();
    const [code] = (await exited) as [number | null];
    if (code !== 0) throw new Error(`the Python child exited with ${code}:\n${this.#stderr}`);
    return result;
  }

  /** Kills the child if it is still running (after a failed test). */
  kill(): void {
    if (this.process.exitCode === null && this.process.signalCode === null) this.process.kill('SIGKILL');
  }
}

/** Starts a child, waits for its ready line, sends `request`, and returns it. */
export async function startScenario(request: object, fds: number[] = []): Promise<PythonChild> {
  const child = new PythonChild(fds);
  try {
    await child.ready();
    child.send(request);
    return child;
  } catch (error) {
    child.kill();
    throw error;
  }
}
