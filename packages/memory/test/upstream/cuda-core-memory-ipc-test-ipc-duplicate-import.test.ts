/**
 * cuda.core's duplicate-import test, translated into an acceptance suite for opening one IPC
 * buffer descriptor twice with `Buffer.fromIpcDescriptor`.
 *
 * Upstream: NVIDIA/cuda-python, `cuda_core/tests/memory_ipc/test_ipc_duplicate_import.py`, as
 * read at commit 1d5c0ce8406e2b236c3e9d5ca31788121c276291. The case title starts with the
 * upstream class and function name and the `ipc_memory_resource` parametrization.
 *
 * How cuda.core's Python maps here (see cuda-core-ipc-support.ts for the
 * child process and the stand-in): the resource and the descriptor, sent twice on a queue, are
 * the pool's fd and the same JSON descriptor opened twice through one imported resource. The
 * driver returns one pointer for both imports and unmaps it at its first free; cumem frees it at
 * the last close (README "one descriptor opened twice is freed at the last close"), which the
 * stand-in counts on the reference driver.
 *
 * Not ported: nothing (the `spawn` start method and logging are Python harness).
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
  poolOf,
  useSharingDriver,
} from './cuda-core-ipc-support.js';

for (const kind of ipcPoolKinds) {
  describeEachDriver(
    adapters,
    `cuda.core test_ipc_duplicate_import.py [${kind.id}]`,
    (entry) => {
      beforeAll(() => useSharingDriver(entry));

      it(`TestIpcDuplicateImport.test_main[${kind.id}]: one descriptor imported twice gives one handle, and both closes succeed`, async () => {
        const mr = kind.make();
        const buffer = mr.allocate(NBYTES);
        buffer.copyFrom(pattern(3));
        const report = await importElsewhere<Record<string, unknown>>(
          entry,
          { role: 'duplicateImport', pool: poolOf(kind, mr), descriptor: buffer.ipcDescriptor },
          [mr.getAllocationHandle().fileDescriptor],
        );
        expect(report).toEqual({ sameHandle: true, firstClose: null, secondClose: null });
        // The exporter's memory is untouched by the importer's two closes.
        expect(contents(buffer)).toEqual(pattern(3));
        buffer.close();
        mr.close();
      });
    },
    { requires: kind.requires },
  );
}
