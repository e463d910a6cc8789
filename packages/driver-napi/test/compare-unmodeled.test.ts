// The ASan step's gate (scripts/compare-unmodeled.mjs): a listed test passes the gate only by
// failing the way the list says, so a listed name cannot hide a new failure.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const script = fileURLToPath(new URL('../scripts/compare-unmodeled.mjs', import.meta.url));

interface Outcome {
  readonly name: string;
  readonly status: 'passed' | 'failed';
  readonly message?: string;
}

function gate(
  outcomes: readonly Outcome[],
  list: string,
  update = false,
): { status: number; output: string; list: string } {
  const folder = mkdtempSync(join(tmpdir(), 'cumem-unmodeled-'));
  const results = join(folder, 'results.json');
  const listPath = join(folder, 'list.txt');
  const assertionResults = outcomes.map((outcome) => ({
    fullName: outcome.name,
    status: outcome.status,
    failureMessages: outcome.message === undefined ? [] : [outcome.message],
  }));
  writeFileSync(results, JSON.stringify({ testResults: [{ assertionResults }] }));
  writeFileSync(listPath, list);
  const environment = { ...process.env, UPDATE_UNMODELED: update ? '1' : '' };
  try {
    const output = execFileSync(process.execPath, [script, results, listPath], {
      encoding: 'utf8',
      env: environment,
    });
    return { status: 0, output, list: readFileSync(listPath, 'utf8') };
  } catch (error) {
    const failure = error as { status: number; stdout: string };
    return { status: failure.status, output: failure.stdout, list: readFileSync(listPath, 'utf8') };
  }
}

const expectedFailure = 'Error: expected cuMemAdvise to fail with a CudaError, but it returned';

describe('compare-unmodeled', () => {
  it('passes when each listed test fails as listed', () => {
    const result = gate(
      [
        { name: 'a', status: 'failed', message: `${expectedFailure}\n    at stack` },
        { name: 'b', status: 'passed' },
      ],
      `a\t${expectedFailure}\n`,
    );
    expect(result.status).toBe(0);
  });

  it('fails when a listed test fails otherwise than listed', () => {
    const result = gate(
      [{ name: 'a', status: 'failed', message: 'TypeError: Cannot read properties of undefined' }],
      `a\t${expectedFailure}\n`,
    );
    expect(result.status).toBe(1);
    expect(result.output).toContain('FAILS OTHERWISE: a');
  });

  it('fails on an unlisted failure, a listed test that passes, and a listed test that did not run', () => {
    expect(gate([{ name: 'new', status: 'failed', message: 'x' }], '').output).toContain(
      'FAILS, not listed: new',
    );
    expect(gate([{ name: 'a', status: 'passed' }], `a\t${expectedFailure}\n`).output).toContain(
      'passes, listed',
    );
    expect(gate([], `a\t${expectedFailure}\n`).status).toBe(1);
  });

  it('refuses a list line without its expected failure', () => {
    expect(gate([{ name: 'a', status: 'failed', message: 'x' }], 'a\n').status).toBe(2);
  });

  it('writes the list with each failure, numbers left out', () => {
    const result = gate(
      [{ name: 'a', status: 'failed', message: 'expected 0x7f00aa to be 123456789' }],
      '',
      true,
    );
    expect(result.status).toBe(0);
    expect(result.list).toBe('a\texpected # to be #\n');
  });
});
