// worker.terminate() while that Worker awaits stream.syncAsync() / event.syncAsync() aborted the
// whole process in both adapters (FATAL ERROR ... napi_throw). The scenario runs in a child process
// (test/fixtures/terminate-wait-child.mjs), so an abort shows as a failed exit, not a dead vitest.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { buildFakeLibcuda, fakeUnavailable } from '@cumem/fake-libcuda';
import { describeEachDriver } from '@cumem/testing/vitest';
import { beforeAll, describe, expect, it } from 'vitest';
import { adapters } from '../test/adapters.js';
import { packageRoot, requireBuiltPackage, runDriverChild } from '../test/child-process.js';

const childScript = fileURLToPath(new URL('../test/fixtures/terminate-wait-child.mjs', import.meta.url));
const fakeChild = fileURLToPath(new URL('../test/fixtures/terminate-fake-child.mjs', import.meta.url));
const fakeProblem = fakeUnavailable();

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

// The same teardown on any machine: the fake libcuda (testing/fake-libcuda) with waits of 0.8 s
// (FAKE_CUDA_SYNC_US, FAKE_CUDA_BUSY_MS). Before the fix this aborted the child in both adapters.
describe.skipIf(fakeProblem !== undefined)(
  `Worker terminated mid-wait, over the fake libcuda${fakeProblem ? ` — skipped: not applicable: ${fakeProblem}` : ''}`,
  () => {
    let library = '';
    beforeAll(() => {
      library = buildFakeLibcuda();
    });

    for (const adapter of ['napi', 'ffi']) {
      it(`${adapter}: the process survives three terminated waits and still waits afterwards`, () => {
        const result = spawnSync(process.execPath, [fakeChild], {
          cwd: packageRoot,
          env: {
            ...process.env,
            ADAPTER: adapter,
            LIBCUDA: library,
            FAKE_CUDA_SYNC_US: '800000',
            FAKE_CUDA_BUSY_MS: '800',
          },
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
        // The fake's wait lasts 0.8 s: the last one really waited, and was not stuck.
        expect(report.lastWaitMs).toBeGreaterThan(700);
        expect(report.lastWaitMs).toBeLessThan(5000);
      });
    }
  },
);
