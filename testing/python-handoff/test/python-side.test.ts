// The Python side's code paths without a GPU: fixtures/python_side_check.py runs the Node ->
// Python scenarios and the helper's descriptor code over host memory standing in for CUDA
// (fixtures/fake_cuda.py), so a wrong name, stride or offset in Python shows here, not first on
// the GPU machine. Needs only python3 with numpy.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { pythonCommand } from './python.js';

const check = fileURLToPath(new URL('./fixtures/python_side_check.py', import.meta.url));
const hasNumpy = spawnSync(pythonCommand, ['-c', 'import numpy'], { timeout: 60_000 }).status === 0;
const title = 'the Python hand-off helper and scenarios run on host-memory stand-ins for CUDA';

if (hasNumpy) {
  it(title, () => {
    const run = spawnSync(pythonCommand, [check], {
      encoding: 'utf8',
      env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1' },
      timeout: 60_000,
    });
    if (run.status !== 0) process.stderr.write(`${run.stdout}\n${run.stderr}\n`);
    expect(run.status).toBe(0);
    expect(run.stdout.trim().split('\n').at(-1)).toBe('ok');
  });
} else {
  it.skip(`${title} — skipped: not applicable: no python3 with numpy`, () => undefined);
}
