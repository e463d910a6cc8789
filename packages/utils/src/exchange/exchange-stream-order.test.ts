import { DeviceMemoryResource, Stream, useDriver } from '@cumem/memory';
import { countingDriver, createReferenceDriver, describeEachDriver } from '@cumem/testing/vitest';
import { describe, expect, it } from 'vitest';
import { adapters, strictTypeError } from '../../test/support.js';
import { StridedMemoryView } from '../strided/strided-memory-view.js';

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

/**
 * A producer stream with 64 bytes filled with 1, then with 9 behind 200 copies of 256 MiB,
 * and an idle consumer stream: a consumer ordered on the CPU, or not at all, would see the 1s.
 */
function busyProducer() {
  const mr = new DeviceMemoryResource(0);
  const size = 256 * 1024 * 1024;
  const producer = Stream.create(0);
  const consumer = Stream.create(0);
  const a = mr.allocate(size, { stream: producer });
  const b = mr.allocate(size, { stream: producer });
  const target = mr.allocate(64, { stream: producer });
  target.fill(1, { stream: producer });
  for (let round = 0; round < 100; round++) {
    b.copyFrom(a, { stream: producer });
    a.copyFrom(b, { stream: producer });
  }
  target.fill(9, { stream: producer });
  return { producer, consumer, a, b, target };
}

// Issue 45, item 2: a Buffer given to from() is viewed directly, its producer (the stream it was
// allocated on) ordered before the consumer on the GPU, as toDLPack orders it, never on the CPU.
describeEachDriver(
  adapters,
  'StridedMemoryView.from(buffer) of a busy producer stream',
  (entry) => {
    it('orders the consumer after the allocation stream on the GPU: final bytes seen, the CPU did not wait', () => {
      useDriver(entry.driver);
      const { producer, consumer, a, b, target } = busyProducer();
      const view = StridedMemoryView.from(target, { stream: consumer });
      const producerBusy = !entry.driver.streamQuery(producer.handle);
      const host = new Uint8Array(64);
      view.copyTo(StridedMemoryView.fromHost(host), { stream: consumer });
      consumer.sync();
      expect(producerBusy).toBe(true);
      expect(host.every((byte) => byte === 9)).toBe(true);
      producer.sync();
      for (const each of [a, b, target]) each.close();
      producer.close();
      consumer.close();
    });

    it('still orders the consumer when the producer stream was closed with work queued', () => {
      useDriver(entry.driver);
      const { producer, consumer, a, b, target } = busyProducer();
      producer.close();
      const view = StridedMemoryView.from(target, { stream: consumer });
      const host = new Uint8Array(64);
      view.copyTo(StridedMemoryView.fromHost(host), { stream: consumer });
      consumer.sync();
      expect(host.every((byte) => byte === 9)).toBe(true);
      for (const each of [a, b, target]) each.close({ stream: consumer });
      consumer.close();
    });
  },
  { gpuOnly: true },
);

describe('StridedMemoryView.from(buffer, { stream }): the driver calls of the ordering', () => {
  it('an event recorded on the allocation stream and waited on by the consumer; no synchronize, no DLPack struct', () => {
    const { driver, log } = countingDriver(createReferenceDriver());
    useDriver(driver);
    try {
      const mr = new DeviceMemoryResource(0);
      const producer = Stream.create(0);
      const consumer = Stream.create(0);
      const buffer = mr.allocate(64, { stream: producer });
      const waits = () => log.calls.filter((call) => call === 'streamWaitEvent').length;
      const forbidden = (call: string) => /ynchronize|memHostAlloc|memAllocHost|memFreeHost/.test(call);
      log.reset();
      const view = StridedMemoryView.from(buffer, { stream: consumer });
      expect(log.calls).toContain('eventRecord');
      expect(waits()).toBe(1);
      expect(log.calls.filter(forbidden)).toEqual([]);
      expect([view.exportingObject === buffer, view.shape, view.dtype]).toEqual([true, [64], 'uint8']);
      log.reset();
      // Omitted: the device's default stream waits; -1: nothing is ordered.
      StridedMemoryView.from(buffer);
      expect(waits()).toBe(1);
      log.reset();
      StridedMemoryView.from(buffer, { stream: -1 });
      expect(log.calls.filter((call) => call.startsWith('event') || call === 'streamWaitEvent')).toEqual([]);
      // Bad stream options are refused before any driver call.
      log.reset();
      for (const bad of [0, 'x', {}, Object.create(consumer)]) {
        expect(() => StridedMemoryView.from(buffer, { stream: bad as never })).toThrow(strictTypeError);
      }
      expect(log.calls).toEqual([]);
      consumer.close();
      log.reset();
      expect(() => StridedMemoryView.from(buffer, { stream: consumer })).toThrow(/closed/);
      expect(log.calls).toEqual([]);
      buffer.close();
      expect(() => StridedMemoryView.from(buffer, { stream: -1 })).toThrow(/closed/);
      // A closed producer still orders (through what its close recorded), and is no error.
      const late = mr.allocate(64, { stream: producer });
      producer.close();
      const another = Stream.create(0);
      log.reset();
      expect(StridedMemoryView.from(late, { stream: another }).shape).toEqual([64]);
      expect(log.calls.filter((call) => /ynchronize/.test(call))).toEqual([]);
      late.close({ stream: another });
      another.close();
    } finally {
      useDriver(createReferenceDriver());
    }
  });
});
