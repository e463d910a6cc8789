/**
 * cuda.core's tests of sending IPC objects to another process, translated case by case into an
 * acceptance suite for what `@cumem/memory` sends: an allocation handle's file descriptor and
 * JSON buffer descriptors.
 *
 * Upstream: NVIDIA/cuda-python, `cuda_core/tests/memory_ipc/test_serialize.py`, as read at commit
 * 05b1e61e4759b2bd7532c68e7115dad6c6aed796. Each case title starts with the upstream class and
 * function name and the `ipc_memory_resource` parametrization (DeviceMR / PinnedMR).
 *
 * How cuda.core's Python maps here (see cuda-core-ipc-support.ts for the
 * child process and the stand-in):
 * - `multiprocessing.reduction.send_handle(conn, fd)` / `recv_handle` -> the fd inherited as the
 *   child's fd 3; `from_allocation_handle(device, fd)` with the bare number, which stays the
 *   caller's (cuda.core's child closes it itself: here the child checks it is still open).
 * - `conn.send(buffer)` (pickled) and `conn.send(buffer.get_ipc_descriptor())` -> the buffer's
 *   `ipcDescriptor` JSON both times: cumem sends no Buffer objects (README deviation "IPC
 *   descriptors are JSON-safe plain objects rather than pickled objects"); the first is opened
 *   through the registry, the second through the imported resource.
 * - `queue.put(mr)` -> the handle's fd with the exporter's uuid; the child reports the uuid of the
 *   resource it imported (upstream's `pipe[1].put(mr.uuid)`).
 *
 * TestObjectPassing: the child imports the pool twice (`mr1`, `mr2`) and opens one descriptor
 * through each. The driver maps an imported pointer once per process, so cumem counts its opens per
 * runtime (imported-pointer-counts.ts): the mapping stays until the last close, whichever import it
 * comes through. Upstream runs the case for DeviceMR and skips PinnedMR (a host pool's pointer
 * imported through a second import of the pool is CUDA_ERROR_ALREADY_MAPPED); so does this file on
 * the GPU drivers. The reference driver's stand-in runs both.
 *
 * Not ported: nothing.
 */
import { describeEachDriver } from '@cumem/testing/vitest';
import { beforeAll, expect, it } from 'vitest';
import { adapters } from '../adapters.js';
import {
  contents,
  importElsewhere,
  ipcPoolKinds,
  NBYTES,
  pattern,
  patternText,
  poolOf,
  useSharingDriver,
} from './cuda-core-ipc-support.js';

interface FillReport {
  pools: { uuid: string | null; isMapped: boolean; fdStillOpen: boolean; registered: boolean | null }[];
  buffers: { size: number; resourceIsImport: boolean; sawExpected: boolean | null }[];
}

for (const kind of ipcPoolKinds) {
  describeEachDriver(
    adapters,
    `cuda.core test_serialize.py [${kind.id}]`,
    (entry) => {
      beforeAll(() => useSharingDriver(entry));

      it(`TestObjectSerializationDirect.test_main[${kind.id}]: the pool's bare fd and two buffers' descriptors; the child writes both`, async () => {
        const mr = kind.make();
        const buffers = [mr.allocate(NBYTES), mr.allocate(NBYTES)];
        const report = await importElsewhere<FillReport>(
          entry,
          {
            role: 'fillShared',
            pools: [{ ...poolOf(kind, mr), uuid: null, rawFd: true }],
            buffers: buffers.map((buffer) => ({
              pool: 0,
              viaRegistry: false,
              descriptor: buffer.ipcDescriptor,
              expect: null,
              write: patternText(1),
            })),
          },
          [mr.getAllocationHandle().fileDescriptor],
        );
        expect(report.pools[0]).toMatchObject({ isMapped: true, fdStillOpen: true });
        expect(report.buffers.map((b) => b.size)).toEqual([NBYTES, NBYTES]);
        for (const buffer of buffers) {
          expect(contents(buffer)).toEqual(pattern(1));
          buffer.close();
        }
        mr.close();
      });

      it(`TestObjectSerializationWithMR.test_main[${kind.id}]: the child's resource has the exporter's uuid and its buffer is that resource's`, async () => {
        const mr = kind.make();
        const buffer = mr.allocate(NBYTES);
        const report = await importElsewhere<FillReport>(
          entry,
          {
            role: 'fillShared',
            pools: [poolOf(kind, mr)],
            buffers: [
              {
                pool: 0,
                viaRegistry: true,
                descriptor: buffer.ipcDescriptor,
                expect: null,
                write: patternText(1),
              },
            ],
          },
          [mr.getAllocationHandle().fileDescriptor],
        );
        expect(report.pools[0]).toMatchObject({ uuid: mr.uuid, registered: true });
        expect(report.buffers[0]?.resourceIsImport).toBe(true);
        expect(contents(buffer)).toEqual(pattern(1));
        buffer.close();
        mr.close();
      });

      const hostPoolOnGpu = kind.id !== 'DeviceMR' && !entry.isReference;
      it.skipIf(hostPoolOnGpu)(
        `TestObjectPassing.test_main[${kind.id}]: one pointer opened through two imports of one pool stays mapped until its last close${
          hostPoolOnGpu
            ? ' — skipped: not applicable: a host pool pointer imported through a second import of its pool is CUDA_ERROR_ALREADY_MAPPED (cuda.core skips it too)'
            : ''
        }`,
        async () => {
          const mr = kind.make();
          const handle = mr.getAllocationHandle();
          const buffer = mr.allocate(NBYTES);
          buffer.copyFrom(pattern(0));
          const report = await importElsewhere<{ rounds: boolean[] }>(
            entry,
            {
              role: 'threeAliases',
              pool: poolOf(kind, mr),
              descriptor: buffer.ipcDescriptor,
              expect: patternText(0),
              write: patternText(1),
            },
            [handle.fileDescriptor, handle.fileDescriptor],
          );
          expect(report.rounds).toEqual([true, true, true, true]);
          // The last write, through the second import, was seed 1.
          expect(contents(buffer)).toEqual(pattern(1));
          buffer.close();
          mr.close();
        },
      );
    },
    { requires: kind.requires },
  );
}
