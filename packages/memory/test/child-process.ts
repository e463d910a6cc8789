// Cases that run a child Node process over the built package (packages/memory/dist).
import { type SpawnSyncReturns, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';

/** packages/memory: where a child runs, so that it resolves @cumem/memory to the built package. */
export const packageRoot = fileURLToPath(new URL('..', import.meta.url));

/** Fails with what to do unless dist/`file` is built: `who` imports the built package. */
export function requireBuiltPackage(who = 'the child', file = 'index.js'): void {
  if (!existsSync(new URL(`../dist/${file}`, import.meta.url))) {
    throw new Error(`${who} imports the built package: run \`tsc -b\` in packages/memory first`);
  }
}

/**
 * Runs the fixture `script` in a child Node process with the adapter `driverName` selected
 * (CUMEM_DRIVER), requires it to exit 0 without a signal (its stderr is the failure's message),
 * and returns the JSON report on the last line of its standard output.
 */
export function runDriverChild(script: string, driverName: string): unknown {
  const result: SpawnSyncReturns<string> = spawnSync(process.execPath, [script], {
    cwd: packageRoot,
    env: { ...process.env, CUMEM_DRIVER: driverName },
    encoding: 'utf8',
    timeout: 110_000,
  });
  expect({ signal: result.signal, status: result.status }, result.stderr).toEqual({
    signal: null,
    status: 0,
  });
  return JSON.parse(result.stdout.trim().split('\n').at(-1) as string);
}
