/**
 * cuda.core's first IPC error tests (the IPCChannel era), translated into an acceptance suite for
 * what an importing process is refused.
 *
 * Upstream: NVIDIA/cuda-python, `cuda_core/tests/ipc/test_ipc_errors.py`, as read at commit
 * 476349ee68e087ad729ce8c47940bf57101346ed (fixtures as in cuda-core-ipc-test-ipc-mempool). Each
 * case title starts with the upstream function name.
 *
 * How cuda.core's Python maps here (see cuda-core-ipc-support.ts for the
 * child process and the stand-in): a channel is bound to the pool that made it, so
 * `channel1.send_buffer(buffer2)` of another pool's buffer -> that buffer's descriptor opened
 * through the import of the channel's pool (a CudaError from the driver, as upstream's CUDAError);
 * `DeviceMemoryResource.from_shared_channel(device, channel)` ->
 * `DeviceMemoryResource.fromAllocationHandle(0, handle)` in the child.
 *
 * Not ported: nothing.
 */
import { DeviceMemoryResource } from '@cumem/memory';
import { describeEachDriver } from '@cumem/testing/vitest';
import { beforeAll, expect, it } from 'vitest';
import { adapters } from '../adapters.js';
import {
  devicePoolKind,
  importElsewhere,
  NBYTES,
  poolOf,
  useSharingDriver,
} from './cuda-core-ipc-support.js';

interface FillReport {
  buffers: { size: number }[];
}

describeEachDriver(
  adapters,
  'cuda.core ipc/test_ipc_errors.py',
  (entry) => {
    beforeAll(() => useSharingDriver(entry));

    it('test_share_to_wrong_channel: a buffer of the pool opens; a buffer of another pool is a CudaError', async () => {
      const mr1 = devicePoolKind.make();
      const mr2 = new DeviceMemoryResource(0, { ipcEnabled: true });
      const buffer1 = mr1.allocate(NBYTES);
      const buffer2 = mr2.allocate(NBYTES);
      const fd = mr1.getAllocationHandle().fileDescriptor;
      const ok = await importElsewhere<FillReport>(
        entry,
        {
          role: 'fillShared',
          pools: [{ ...poolOf(devicePoolKind, mr1), uuid: null }],
          buffers: [
            { pool: 0, viaRegistry: false, descriptor: buffer1.ipcDescriptor, expect: null, write: null },
          ],
        },
        [fd],
      );
      expect(ok.buffers).toMatchObject([{ size: NBYTES }]);
      const wrong = await importElsewhere<{ error: string | null }>(
        entry,
        {
          role: 'importError',
          action: 'otherPool',
          pool: poolOf(devicePoolKind, mr1),
          descriptor: buffer2.ipcDescriptor,
        },
        [fd],
      );
      expect(wrong.error).toMatch(/^CudaError: /);
      for (const closable of [buffer1, buffer2, mr1, mr2]) closable.close();
    });

    it('test_ipc_child_errors: allocating from the imported pool is a TypeError', async () => {
      const mr = devicePoolKind.make();
      const report = await importElsewhere<{ error: string | null }>(
        entry,
        { role: 'importError', action: 'allocate', pool: poolOf(devicePoolKind, mr) },
        [mr.getAllocationHandle().fileDescriptor],
      );
      expect(report.error).toMatch(
        /^TypeError: .*imported from another process \(isMapped\): it cannot allocate$/,
      );
      mr.close();
    });
  },
  { requires: devicePoolKind.requires },
);
