/**
 * cuda.core's pool IPC test with two children (the IPCChannel era), translated into an
 * acceptance suite for sharing one pool's buffers with several processes.
 *
 * Upstream: NVIDIA/cuda-python, `cuda_core/tests/ipc/test_ipc_mempool_multiple.py`, as read at
 * commit 476349ee68e087ad729ce8c47940bf57101346ed (fixtures as in cuda-core-ipc-test-ipc-mempool).
 *
 * How cuda.core's Python maps here (see cuda-core-ipc-support.ts for the
 * child process and the stand-in): two channels of one resource, each sent both buffers
 * (`channel.send_buffer`, `receive_buffer` setting up the pool implicitly) -> the pool's
 * allocation handle as each child's fd 3 and both buffers' descriptors, opened through the
 * registry by the exporter's uuid.
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
  buffers: { size: number }[];
}

describeEachDriver(
  adapters,
  'cuda.core ipc/test_ipc_mempool_multiple.py',
  (entry) => {
    beforeAll(() => useSharingDriver(entry));

    it('test_ipc_mempool_multiple: two children receive both buffers; child 1 writes the first, child 2 the second (flipped)', async () => {
      const mr = devicePoolKind.make();
      const buffers = [mr.allocate(NBYTES), mr.allocate(NBYTES)];
      const fd = mr.getAllocationHandle().fileDescriptor;
      const writes = [toBase64(countingBytes(false)), toBase64(countingBytes(true))];
      const reports = await Promise.all(
        [0, 1].map((index) =>
          importElsewhere<FillReport>(
            entry,
            {
              role: 'fillShared',
              pools: [poolOf(devicePoolKind, mr)],
              buffers: buffers.map((buffer, i) => ({
                pool: 0,
                viaRegistry: true,
                descriptor: buffer.ipcDescriptor,
                expect: null,
                write: i === index ? writes[i] : null,
              })),
            },
            [fd],
          ),
        ),
      );
      for (const report of reports) expect(report.buffers.map((b) => b.size)).toEqual([NBYTES, NBYTES]);
      const [first, second] = buffers as [(typeof buffers)[number], (typeof buffers)[number]];
      expect(contents(first)).toEqual(countingBytes(false));
      expect(contents(second)).toEqual(countingBytes(true));
      for (const buffer of buffers) buffer.close();
      mr.close();
    });
  },
  { requires: devicePoolKind.requires },
);
