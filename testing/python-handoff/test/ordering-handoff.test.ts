// Stream order across the boundary, with a kernel-free producer: Node queues large copies and
// then the final write on a stream, records an interprocess event, and sends the descriptor
// with the event while the copies are still running. Python waits on the event before reading:
// every byte must be the final value. Without the wait it would read the old bytes.
import { DeviceMemoryResource, Event, PinnedMemoryResource, Stream } from '@cumem/memory';
import { StridedLayout, StridedMemoryView } from '@cumem/utils';
import { expect, it } from 'vitest';
import { describeHandOff } from './adapters.js';
import { PythonChild } from './python.js';

const MiB = 1 << 20;

describeHandOff('hand-off ordering', (_entry) => {
  it('Node -> Python: the consumer waits on the exported event while a 10 GiB copy chain is in flight', async () => {
    const shared = new DeviceMemoryResource(0, { ipcEnabled: true });
    const target = shared.allocate(64 * MiB);
    target.fill(0x00);
    const device = new DeviceMemoryResource(0);
    const pinned = new PinnedMemoryResource();
    const staging = pinned.allocate(256 * MiB);
    const scratch = device.allocate(256 * MiB);
    const final = device.allocate(64 * MiB);
    final.fill(0x77);
    const child = new PythonChild([shared.getAllocationHandle().fileDescriptor]);
    const stream = Stream.create(0);
    try {
      await child.ready();
      // 40 host-to-device copies of 256 MiB (about 0.2 s at the pinned copy rate), then the write.
      for (let round = 0; round < 40; round++) staging.copyTo(scratch, { stream });
      final.copyTo(target, { stream });
      const event = Event.create(0, { interprocess: true });
      stream.record(event);
      const view = StridedMemoryView.fromBuffer(target, StridedLayout.dense([64 * MiB], 1), {
        dtype: 'uint8',
      });
      const descriptor = view.toIpcDescriptor({ event });
      const inFlight = !event.isDone;
      child.send({ scenario: 'import-ordered', fd: 3, descriptor, expect: 0x77 });
      const result = await child.result<{ sawFinal: boolean; eventDoneBeforeWait: boolean }>();
      process.stderr.write(`ordering: in flight when sent ${inFlight}, ${JSON.stringify(result)}\n`);
      expect(inFlight).toBe(true);
      expect(result.sawFinal).toBe(true);
      event.close();
    } finally {
      child.kill();
      stream.sync();
      stream.close();
    }
    for (const buffer of [target, staging, scratch, final]) buffer.close();
    pinned.close();
    shared.close();
  });
});
