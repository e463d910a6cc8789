/**
 * cuda.core's tests of sending many buffers, and of re-exporting one, translated case by case
 * into an acceptance suite for `@cumem/memory`'s pool IPC.
 *
 * Upstream: NVIDIA/cuda-python, `cuda_core/tests/memory_ipc/test_send_buffers.py`, as read at
 * commit 068e5700e7968687aec7de5cb180a7b407c64cf2. Each case title starts with the upstream class
 * and function name (and parametrization).
 *
 * How cuda.core's Python maps here (see cuda-core-ipc-support.ts for the rest):
 * - a list of Buffers from several resources sent as a process argument -> each resource's
 *   allocation handle as one inherited fd (3, 4, 5) and each buffer's `ipcDescriptor`, opened
 *   through the registry by its uuid.
 * - TestIpcReexport's process B forwards the buffer it received: here B opens it, makes its own
 *   `ipcDescriptor` of the imported buffer and hands that, with the pool's fd it inherited, to a
 *   child of its own (C). That needs two real processes: GPU drivers only.
 *
 * Not ported: nothing.
 */
import { type Buffer, DeviceMemoryResource } from '@cumem/memory';
import { poolSharingDrivers } from '@cumem/test-support';
import { describeEachDriver } from '@cumem/testing/vitest';
import { beforeAll, expect, it } from 'vitest';
import { adapters } from '../adapters.js';
import {
  contents,
  devicePoolKind,
  importElsewhere,
  ipcPoolKinds,
  NBYTES,
  POOL_SIZE,
  pattern,
  patternText,
  poolOf,
  runIpcChild,
  sharingOrStandIn,
  useSharingDriver,
} from './cuda-core-ipc-support.js';

const NMRS = 3;
const NTASKS = 7;

interface FillReport {
  buffers: { size: number; resourceIsImport: boolean; sawExpected: boolean | null }[];
}

describeEachDriver(
  adapters,
  'cuda.core test_send_buffers.py',
  (entry) => {
    beforeAll(() => useSharingDriver(entry));

    for (const nmrs of [1, NMRS]) {
      it(`TestIpcSendBuffers.test_main[nmrs=${nmrs}]: ${NTASKS} buffers of ${nmrs} pools, read and rewritten by a child`, async () => {
        const mrs = Array.from(
          { length: nmrs },
          () => new DeviceMemoryResource(0, { maxSize: POOL_SIZE, ipcEnabled: true }),
        );
        const owners = Array.from({ length: NTASKS }, (_, i) => i % nmrs);
        const buffers = owners.map((owner) => (mrs[owner] as DeviceMemoryResource).allocate(NBYTES));
        for (const buffer of buffers) buffer.copyFrom(pattern(0));
        const report = await importElsewhere<FillReport>(
          entry,
          {
            role: 'fillShared',
            pools: mrs.map((mr) => poolOf(devicePoolKind, mr)),
            buffers: buffers.map((buffer, i) => ({
              pool: owners[i],
              viaRegistry: true,
              descriptor: buffer.ipcDescriptor,
              expect: patternText(0),
              write: patternText(1),
            })),
          },
          mrs.map((mr) => mr.getAllocationHandle().fileDescriptor),
        );
        expect(report.buffers).toEqual(
          buffers.map(() => ({ size: NBYTES, resourceIsImport: true, sawExpected: true })),
        );
        for (const buffer of buffers) {
          expect(contents(buffer)).toEqual(pattern(1));
          buffer.close();
        }
        for (const mr of mrs) mr.close();
      });
    }
  },
  sharingOrStandIn,
);

for (const kind of ipcPoolKinds) {
  describeEachDriver(
    adapters,
    `cuda.core test_send_buffers.py, re-export [${kind.id}]`,
    (entry) => {
      beforeAll(() => useSharingDriver(entry));

      it(`TestIpcReexport.test_main[${kind.id}]: A shares a buffer with B, B re-exports it to C, and A sees C's bytes`, async () => {
        const mr = kind.make();
        const buffer: Buffer = mr.allocate(NBYTES);
        buffer.copyFrom(pattern(0));
        const report = await runIpcChild<FillReport>(
          entry.name,
          {
            role: 'forward',
            pool: poolOf(kind, mr),
            descriptor: buffer.ipcDescriptor,
            write: patternText(1),
          },
          [mr.getAllocationHandle().fileDescriptor],
        );
        expect(report.buffers).toEqual([{ size: NBYTES, resourceIsImport: true, sawExpected: null }]);
        expect(contents(buffer)).toEqual(pattern(1));
        buffer.close();
        mr.close();
      });
    },
    {
      ...poolSharingDrivers,
      requires: (driver) => poolSharingDrivers.requires(driver) ?? kind.requires(driver),
    },
  );
}
