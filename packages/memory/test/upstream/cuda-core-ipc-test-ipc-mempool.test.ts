/**
 * cuda.core's first pool IPC test (the IPCChannel era), translated into an acceptance suite for
 * sharing a `DeviceMemoryResource` buffer with a child process.
 *
 * Upstream: NVIDIA/cuda-python, `cuda_core/tests/ipc/test_ipc_mempool.py`, as read at commit
 * 238db00c33ff185e54565799920797929a68d43e (fixtures: `cuda_core/tests/ipc/conftest.py`, a
 * DeviceMemoryResource of `max_size` 2 MiB with IPC enabled; `utility.py`'s IPCBufferTestHelper).
 *
 * How cuda.core's Python maps here (see cuda-core-ipc-support.ts for the
 * child process and the stand-in): `mr.create_ipc_channel()` and `channel.export(buffer)` /
 * `channel.import_()` (an API cuda.core later replaced) -> the pool's allocation handle as the
 * child's fd 3 and the buffer's `ipcDescriptor`; IPCBufferTestHelper's `fill_buffer(flipped)` /
 * `verify_buffer(flipped)` -> `countingBytes(flipped)` copied in and compared.
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
  buffers: { size: number; sawExpected: boolean | null }[];
}

describeEachDriver(
  adapters,
  'cuda.core ipc/test_ipc_mempool.py',
  (entry) => {
    beforeAll(() => useSharingDriver(entry));

    it('test_ipc_mempool: the child verifies the parent’s pattern and writes the flipped one, which the parent reads', async () => {
      const mr = devicePoolKind.make();
      const buffer = mr.allocate(NBYTES);
      buffer.copyFrom(countingBytes(false));
      const report = await importElsewhere<FillReport>(
        entry,
        {
          role: 'fillShared',
          pools: [poolOf(devicePoolKind, mr)],
          buffers: [
            {
              pool: 0,
              viaRegistry: false,
              descriptor: buffer.ipcDescriptor,
              expect: toBase64(countingBytes(false)),
              write: toBase64(countingBytes(true)),
            },
          ],
        },
        [mr.getAllocationHandle().fileDescriptor],
      );
      expect(report.buffers).toMatchObject([{ size: NBYTES, sawExpected: true }]);
      expect(contents(buffer)).toEqual(countingBytes(true));
      buffer.close();
      mr.close();
    });
  },
  { requires: devicePoolKind.requires },
);
