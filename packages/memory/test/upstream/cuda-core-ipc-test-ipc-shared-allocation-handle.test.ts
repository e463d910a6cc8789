/**
 * cuda.core's tests of one allocation handle shared with two processes (the IPCChannel era),
 * translated into an acceptance suite for `mr.getAllocationHandle()` and
 * `DeviceMemoryResource.fromAllocationHandle`.
 *
 * Upstream: NVIDIA/cuda-python, `cuda_core/tests/ipc/test_ipc_shared_allocation_handle.py`, as
 * read at commit 476349ee68e087ad729ce8c47940bf57101346ed (fixtures as in
 * cuda-core-ipc-test-ipc-mempool). Each case title starts with the upstream function name.
 *
 * How cuda.core's Python maps here (see cuda-core-ipc-support.ts for the
 * child process and the stand-in): `channel.send_allocation_handle(handle)` to two channels ->
 * the same handle's fd inherited by both children; `buf.export()` on a queue and
 * `Buffer.import_(mr, descriptor)` -> `ipcDescriptor` and `Buffer.fromIpcDescriptor` through the
 * imported resource; `channel.send_buffer(buf)` / `receive_buffer()` (the second case) -> the
 * descriptor opened through the registry by the exporter's uuid.
 *
 * Not ported: nothing.
 */
import { describeEachDriver } from '@cumem/testing/vitest';
import { beforeAll, expect, it } from 'vitest';
import { adapters } from '../adapters.js';
import {
  contents,
  countingBytes,
  devicePoolKind,
  importElsewhere,
  NBYTES,
  poolOf,
  toBase64,
  useSharingDriver,
} from './cuda-core-ipc-support.js';

interface FillReport {
  pools: { isMapped: boolean }[];
}

describeEachDriver(
  adapters,
  'cuda.core ipc/test_ipc_shared_allocation_handle.py',
  (entry) => {
    beforeAll(() => useSharingDriver(entry));

    for (const [name, viaRegistry] of [
      ['test_ipc_shared_allocation_handle', false],
      ['test_ipc_shared_allocation_handle2', true],
    ] as const) {
      const how = viaRegistry ? 'buffers found through the registry' : 'buffers sent as descriptors';
      it(`${name}: one allocation handle serves two children, ${how}; child n writes the pattern starting at n`, async () => {
        const mr = devicePoolKind.make();
        const handle = mr.getAllocationHandle();
        const buffers = [mr.allocate(NBYTES), mr.allocate(NBYTES)];
        const reports = await Promise.all(
          buffers.map((buffer, i) =>
            importElsewhere<FillReport>(
              entry,
              {
                role: 'fillShared',
                pools: [
                  viaRegistry ? poolOf(devicePoolKind, mr) : { ...poolOf(devicePoolKind, mr), uuid: null },
                ],
                buffers: [
                  {
                    pool: 0,
                    viaRegistry,
                    descriptor: buffer.ipcDescriptor,
                    expect: null,
                    write: toBase64(countingBytes(false, i + 1)),
                  },
                ],
              },
              [handle.fileDescriptor],
            ),
          ),
        );
        for (const report of reports) expect(report.pools[0]?.isMapped).toBe(true);
        buffers.forEach((buffer, i) => {
          expect(contents(buffer)).toEqual(countingBytes(false, i + 1));
        });
        for (const buffer of buffers) buffer.close();
        mr.close();
      });
    }
  },
  { requires: devicePoolKind.requires },
);
