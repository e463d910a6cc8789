import { DeviceMemoryResource, Stream, useDriver } from '@cumem/memory';
import { describeEachDriver } from '@cumem/testing/vitest';
import { expect, it } from 'vitest';
import { adapters } from '../test/support.js';
import { StridedMemoryView } from './strided-memory-view.js';

// On the reference driver streams run work at once, so a busy stream needs a GPU; the order of
// driver calls (event record + wait, no synchronize) is tested in cuda-array-interface.test.ts.
describeEachDriver(
  adapters,
  'CUDA Array Interface import from a busy producer stream',
  (entry) => {
    it('orders the consumer after the producer on the GPU: final bytes seen, the CPU did not wait', () => {
      useDriver(entry.driver);
      const mr = new DeviceMemoryResource(0);
      const size = 256 * 1024 * 1024;
      const a = mr.allocate(size);
      const b = mr.allocate(size);
      const target = mr.allocate(64);
      const producer = Stream.create(0);
      const consumer = Stream.create(0);
      target.fill(1, { stream: producer });
      // About 50 GiB of device copies queued: tens of milliseconds on any GPU.
      for (let round = 0; round < 100; round++) {
        b.copyFrom(a, { stream: producer });
        a.copyFrom(b, { stream: producer });
      }
      // The final bytes, last on the producer's stream.
      target.fill(9, { stream: producer });
      const exported = { cudaArrayInterface: { ...target.cudaArrayInterface, stream: producer } };
      const start = performance.now();
      const view = StridedMemoryView.from(exported, { stream: consumer });
      const elapsed = performance.now() - start;
      const producerBusy = !entry.driver.streamQuery(producer.handle);
      const host = new Uint8Array(64);
      view.copyTo(StridedMemoryView.fromHost(host), { stream: consumer });
      consumer.sync();
      // The CPU did not wait: the import returned while the producer still worked, in well under
      // the time the queued copies take.
      expect(producerBusy).toBe(true);
      expect(elapsed).toBeLessThan(5);
      expect(host.every((byte) => byte === 9)).toBe(true);
      producer.sync();
      for (const each of [a, b, target]) each.close();
      producer.close();
      consumer.close();
    });
  },
  { gpuOnly: true },
);
