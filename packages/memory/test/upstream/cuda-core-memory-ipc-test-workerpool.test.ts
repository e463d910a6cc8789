/**
 * cuda.core's worker-pool IPC tests, translated case by case into an acceptance suite for
 * sharing many buffers of several pools with a pool of worker processes.
 *
 * Upstream: NVIDIA/cuda-python, `cuda_core/tests/memory_ipc/test_workerpool.py`, as read at commit
 * 00e64219b08bb42046503b68e6303a39bed36316. Each case title starts with the upstream class and
 * function name and its `nmrs` parametrization.
 *
 * How cuda.core's Python maps here (see cuda-core-ipc-support.ts for the
 * child process and the stand-in):
 * - `multiprocessing.Pool(NWORKERS)` mapping over the buffers -> NWORKERS child processes, task i
 *   going to worker i mod NWORKERS; every worker inherits every pool's allocation handle (fds 3,
 *   4, 5) as the pool's initializer receives every resource.
 * - the three ways upstream sends a buffer: the Buffer itself (its resource travels with it) and
 *   a pickled Buffer matched through the registry -> the descriptor opened through the resource
 *   registered under its uuid; `(mrs.index(mr), descriptor)` -> the descriptor opened through
 *   the import of that pool.
 * - IPCBufferTestHelper's `fill_buffer(flipped=True)` -> `countingBytes(true)`.
 *
 * Not ported: nothing.
 */
import { DeviceMemoryResource } from '@cumem/memory';
import { describeEachDriver } from '@cumem/testing/vitest';
import { beforeAll, expect, it } from 'vitest';
import { adapters } from '../adapters.js';
import {
  contents,
  countingBytes,
  devicePoolKind,
  importElsewhere,
  NBYTES,
  POOL_SIZE,
  poolOf,
  sharingOrStandIn,
  toBase64,
  useSharingDriver,
} from './cuda-core-ipc-support.js';

const NWORKERS = 2;
const NMRS = 3;
const NTASKS = 20;

interface FillReport {
  buffers: { size: number; resourceIsImport: boolean }[];
}

const variants = [
  ['TestIpcWorkerPool', true, 'each buffer sent with its resource'],
  ['TestIpcWorkerPoolUsingIPCDescriptors', false, 'resources sent at start, buffers as (index, descriptor)'],
  ['TestIpcWorkerPoolUsingRegistry', true, 'resources sent at start, buffers matched through the registry'],
] as const;

describeEachDriver(
  adapters,
  'cuda.core test_workerpool.py',
  (entry) => {
    beforeAll(() => useSharingDriver(entry));

    for (const [name, viaRegistry, how] of variants) {
      for (const nmrs of [1, NMRS]) {
        it(`${name}.test_main[nmrs=${nmrs}]: ${NWORKERS} workers write ${NTASKS} buffers of ${nmrs} pools (${how})`, async () => {
          const mrs = Array.from(
            { length: nmrs },
            () => new DeviceMemoryResource(0, { maxSize: POOL_SIZE, ipcEnabled: true }),
          );
          const owners = Array.from({ length: NTASKS }, (_, i) => i % nmrs);
          const buffers = owners.map((owner) => (mrs[owner] as DeviceMemoryResource).allocate(NBYTES));
          const fds = mrs.map((mr) => mr.getAllocationHandle().fileDescriptor);
          const flipped = toBase64(countingBytes(true));
          const reports = await Promise.all(
            Array.from({ length: NWORKERS }, (_, worker) => {
              const tasks = owners.map((_, i) => i).filter((i) => i % NWORKERS === worker);
              return importElsewhere<FillReport>(
                entry,
                {
                  role: 'fillShared',
                  pools: mrs.map((mr) => poolOf(devicePoolKind, mr)),
                  buffers: tasks.map((i) => ({
                    pool: owners[i],
                    viaRegistry,
                    descriptor: buffers[i]?.ipcDescriptor,
                    expect: null,
                    write: flipped,
                  })),
                },
                fds,
              );
            }),
          );
          expect(reports.flatMap((report) => report.buffers)).toEqual(
            buffers.map(() => ({ size: NBYTES, resourceIsImport: true, sawExpected: null })),
          );
          for (const buffer of buffers) {
            expect(contents(buffer)).toEqual(countingBytes(true));
            buffer.close();
          }
          for (const mr of mrs) mr.close();
        });
      }
    }
  },
  sharingOrStandIn,
);
