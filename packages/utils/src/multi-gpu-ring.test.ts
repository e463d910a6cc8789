// Every device of the machine, whatever their number (issue 21, item 9): a ring of copies
// 0 -> 1 -> ... -> n-1 -> 0 on streams of the source, of the destination and of a third device;
// one copyBatch mixing every device and pinned memory; a device-1 -> device-2 copy ordered on a
// device-0 stream. Reference driver with 2 and with 4 devices here; the real adapters where
// there are 2 GPUs or more. A part that needs 3 devices says `not applicable` on 2.
import {
  type Buffer,
  DeviceMemoryResource,
  defaultStream,
  deviceCount,
  PinnedMemoryResource,
  Stream,
  useDriver,
} from '@cumem/memory';
import { download, expectBytes } from '@cumem/test-support';
import {
  createReferenceDriver,
  describeEachDriverWithDevices,
  describeGated,
  type TestDriver,
} from '@cumem/testing/vitest';
import { afterAll, beforeAll, it } from 'vitest';
import { adapters, patternBytes } from '../test/support.js';
import { copyBatch } from './batch/copy-batch.js';

const size = 1 << 20;

// The device count a block will see, read while collecting (titles must say `not applicable`
// then); 0 for a driver that cannot run here (its block is skipped anyway).
function devicesOf(entry: TestDriver): number {
  if (entry.skipReason !== undefined) return 0;
  try {
    return entry.driver.deviceGetCount();
  } catch {
    return 0;
  }
}

const needsThree = (count: number) => (count >= 3 ? '' : ' — skipped: not applicable: needs 3 GPUs');

function everyDevice(entry: TestDriver): void {
  const count = devicesOf(entry);
  let resources: DeviceMemoryResource[] = [];
  let pinned: PinnedMemoryResource;
  beforeAll(() => {
    useDriver(entry.driver);
    resources = Array.from({ length: deviceCount() }, (_, device) => new DeviceMemoryResource(device, {}));
    pinned = new PinnedMemoryResource();
  });
  afterAll(() => {
    for (const mr of resources) mr.close();
  });

  // Allocations are ordered on each device's default stream: done before work on other streams.
  const allocated = () => {
    for (let device = 0; device < resources.length; device++) defaultStream(device).sync();
  };

  // hop i copies device i's buffer into device (i+1) % n's; `streamOf` picks the stream's device.
  const ring = (streamOf: (from: number, to: number, n: number) => number, how: 'copyBatch' | 'copyTo') => {
    const n = resources.length;
    const data = patternBytes(size, 7 * n + (how === 'copyTo' ? 1 : 0));
    // n + 1 buffers: the ring ends on a second buffer of device 0.
    const buffers = Array.from({ length: n + 1 }, (_, i) => resources[i % n]!.allocate(size));
    allocated();
    buffers[0]!.copyFrom(data);
    for (let hop = 0; hop < n; hop++) {
      const from = buffers[hop]!;
      const to = buffers[hop + 1]!;
      using stream = Stream.create(streamOf(hop, (hop + 1) % n, n));
      if (how === 'copyBatch') copyBatch(stream, [to], [from]);
      else from.copyTo(to, { stream });
      // The next hop runs on another stream: this one must be done first.
      stream.sync();
    }
    buffers.forEach((buffer) => {
      expectBytes(download(buffer), data);
    });
    for (const buffer of buffers) buffer.close();
  };

  for (const how of ['copyBatch', 'copyTo'] as const) {
    it(`a ring of ${how} over every device on streams of the source and of the destination`, () => {
      ring((from) => from, how);
      ring((_, to) => to, how);
    });

    it.skipIf(count > 0 && count < 3)(
      `a ring of ${how} over every device on streams of a third device${needsThree(count)}`,
      () => {
        ring((from, _, n) => (from + 2) % n, how);
      },
    );
  }

  it('one copyBatch mixing every device and pinned memory, on a stream of the first and of the last device', () => {
    const n = resources.length;
    for (const on of [0, n - 1]) {
      const dsts: Buffer[] = [];
      const srcs: Buffer[] = [];
      const data: Uint8Array[] = [];
      for (let device = 0; device < n; device++) {
        const next = (device + 1) % n;
        // device -> pinned, pinned -> next device, device -> next device, device -> itself.
        for (const [to, from] of [
          [pinned, resources[device]!],
          [resources[next]!, pinned],
          [resources[next]!, resources[device]!],
          [resources[device]!, resources[device]!],
        ] as const) {
          const bytes = patternBytes(4096 + data.length * 97, data.length + 100 * on + 1);
          const src = from.allocate(bytes.length);
          srcs.push(src);
          dsts.push(to.allocate(bytes.length));
          data.push(bytes);
        }
      }
      allocated();
      srcs.forEach((src, i) => {
        src.copyFrom(data[i]!);
      });
      using stream = Stream.create(on);
      copyBatch(stream, dsts, srcs);
      stream.sync();
      dsts.forEach((dst, i) => {
        expectBytes(download(dst), data[i]!);
      });
      for (const buffer of [...dsts, ...srcs]) buffer.close();
    }
  });

  it.skipIf(count > 0 && count < 3)(
    `a device-1 -> device-2 copy ordered on a device-0 stream${needsThree(count)}`,
    () => {
      const data = patternBytes(size, 12);
      const src = resources[1]!.allocate(size);
      const viaBatch = resources[2]!.allocate(size);
      const viaCopyTo = resources[2]!.allocate(size);
      allocated();
      src.copyFrom(data);
      using stream = Stream.create(0);
      copyBatch(stream, [viaBatch], [src]);
      src.copyTo(viaCopyTo, { stream });
      stream.sync();
      expectBytes(download(viaBatch), data);
      expectBytes(download(viaCopyTo), data);
      for (const buffer of [src, viaBatch, viaCopyTo]) buffer.close();
    },
  );
}

describeEachDriverWithDevices(adapters, 2, 'Every GPU of the machine', everyDevice);

// The reference driver with 4 devices: the parts that need 3 or more run here too.
const fourDevices: TestDriver = {
  name: 'reference, 4 devices',
  isReference: true,
  driver: createReferenceDriver({ deviceCount: 4 }),
  skipReason: undefined,
};
describeGated(fourDevices, 'Every GPU of the machine [reference, 4 devices]', undefined, () =>
  everyDevice(fourDevices),
);
