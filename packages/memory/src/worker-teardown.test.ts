// worker.terminate() while that Worker awaits stream.syncAsync() / event.syncAsync() aborted the
// whole process in both adapters (FATAL ERROR ... napi_throw). The scenario runs in a child process
// (test/fixtures/terminate-wait-child.mjs), so an abort shows as a failed exit, not a dead vitest.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describeEachDriver } from '@cumem/testing/vitest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adapters } from '../test/adapters.js';
import { packageRoot, requireBuiltPackage, runDriverChild } from '../test/child-process.js';

const childScript = fileURLToPath(new URL('../test/fixtures/terminate-wait-child.mjs', import.meta.url));
const standInSource = fileURLToPath(new URL('../test/fixtures/stand-in-libcuda.c', import.meta.url));
const standInChild = fileURLToPath(new URL('../test/fixtures/terminate-stand-in-child.mjs', import.meta.url));
const hasCompiler = spawnSync('cc', ['--version']).status === 0;

interface KindReport {
  kind: 'stream' | 'event' | 'null';
  inFlight: boolean;
  settledBeforeTerminate: boolean;
  exitCode: number;
}

describeEachDriver(
  adapters,
  'Worker terminated mid-wait (child process)',
  (entry) => {
    beforeAll(() => {
      requireBuiltPackage();
    });

    it('the process survives, and its main thread keeps waiting, copying and reading back', () => {
      // The child's stderr is the failure's message, so a failure says what the child saw.
      const report = runDriverChild(childScript, entry.name) as {
        kinds: KindReport[];
        dataIntact: boolean;
      };
      expect(report.dataIntact).toBe(true);
      expect(report.kinds.map((kind) => kind.kind)).toEqual(['stream', 'event', 'null']);
      for (const kind of report.kinds) {
        // 80 copies of 256 MiB (20 GiB) were still running when the Worker started its wait ...
        expect(kind, kind.kind).toMatchObject({ inFlight: true });
        // ... and the Stream / Event waits had not settled when it was terminated (exit code 1).
        // (How long the NULL-stream wait lasts is the driver's business: it is only run.)
        if (kind.kind !== 'null') {
          expect(kind, kind.kind).toMatchObject({ settledBeforeTerminate: false, exitCode: 1 });
        }
      }
    });
  },
  { gpuOnly: true },
);

// The same teardown on any machine: a stand-in libcuda.so.1 (test/fixtures/stand-in-libcuda.c)
// whose waits take 0.8 s. Before the fix this aborted the child in both adapters.
describe.skipIf(!hasCompiler)(
  `Worker terminated mid-wait, over a stand-in libcuda${hasCompiler ? '' : ' — skipped: not applicable: no C compiler (cc)'}`,
  () => {
    let directory = '';
    let library = '';
    beforeAll(() => {
      directory = mkdtempSync(join(tmpdir(), 'cumem-stand-in-'));
      library = join(directory, 'libcuda.so.1');
      const built = spawnSync('cc', ['-shared', '-fPIC', '-O1', '-o', library, standInSource], {
        encoding: 'utf8',
      });
      if (built.status !== 0) throw new Error(`cc failed: ${built.stderr}`);
    });
    afterAll(() => rmSync(directory, { recursive: true, force: true }));

    for (const adapter of ['napi', 'ffi']) {
      it(`${adapter}: the process survives three terminated waits and still waits afterwards`, () => {
        const result = spawnSync(process.execPath, [standInChild], {
          cwd: packageRoot,
          env: { ...process.env, ADAPTER: adapter, LIBCUDA: library },
          encoding: 'utf8',
          timeout: 60_000,
        });
        expect({ signal: result.signal, status: result.status, stderr: result.stderr }).toMatchObject({
          signal: null,
          status: 0,
        });
        const report = JSON.parse(result.stdout.trim().split('\n').at(-1) as string);
        expect(report.kinds).toEqual(
          ['stream', 'event', 'null'].map((kind) => ({ kind, settledBeforeTerminate: false, exitCode: 1 })),
        );
        // The stand-in's wait lasts 0.8 s: the last one really waited, and was not stuck.
        expect(report.lastWaitMs).toBeGreaterThan(700);
        expect(report.lastWaitMs).toBeLessThan(5000);
      });
    }
  },
);
