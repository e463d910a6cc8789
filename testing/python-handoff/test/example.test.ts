// examples/node-to-python runs from its README's command, with each adapter: the Node producer
// hands a tensor to the PyTorch consumer and checks what Python computed and wrote back.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describeEachDriver } from '@cumem/testing/vitest';
import { expect, it } from 'vitest';
import { adapters } from './adapters.js';
import { builtPackagesPresent, handOffRequirement, pythonCommand, repositoryRoot } from './python.js';

const example = join(repositoryRoot, 'examples', 'node-to-python');
const command = 'node examples/node-to-python/producer.mjs';

describeEachDriver(
  adapters,
  'examples/node-to-python',
  (entry) => {
    it("runs from its README's command: PyTorch computes on Node's tensor in place", () => {
      builtPackagesPresent();
      expect(readFileSync(join(example, 'README.md'), 'utf8')).toContain(command);
      const [, script] = command.split(' ');
      const run = spawnSync(process.execPath, [script!], {
        cwd: repositoryRoot,
        encoding: 'utf8',
        env: { ...process.env, CUMEM_DRIVER: entry.name, CUMEM_PYTHON: pythonCommand },
        timeout: 120_000,
      });
      if (run.status !== 0) process.stderr.write(`${run.stdout}\n${run.stderr}\n`);
      expect(run.status).toBe(0);
      const report = JSON.parse(run.stdout.trim().split('\n').at(-1)!);
      expect(report).toMatchObject({ ok: true, device: 'cuda:0' });
      expect(report.maxError).toBeLessThan(1e-3);
    });
  },
  { gpuOnly: true, requires: handOffRequirement },
);
