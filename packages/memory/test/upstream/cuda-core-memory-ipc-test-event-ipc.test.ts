/**
 * cuda.core's interprocess event tests, translated case by case into an acceptance suite for
 * `Event.create(device, { interprocess: true })`, `event.ipcHandle` and `Event.fromIpcHandle`.
 *
 * Upstream: NVIDIA/cuda-python, `cuda_core/tests/memory_ipc/test_event_ipc.py`, as read at commit
 * 05b1e61e4759b2bd7532c68e7115dad6c6aed796. Each case title starts with the upstream class and
 * function name (and parametrization).
 *
 * How cuda.core's Python maps here:
 * - `stream.record(options=EventOptions(ipc_enabled=True, busy_waited_sync=b))` ->
 *   `stream.record(Event.create(0, { interprocess: true, blockingSync: b }))`; an Event put on a
 *   queue -> its `ipcHandle` bytes (base64), opened in the child with `Event.fromIpcHandle`.
 * - TestEventIpc holds the parent's stream with a latch kernel (kernels live in
 *   `@cumem/compute`, above this package): here a long queue of large device copies holds it, and
 *   the child reports that the event was still pending when it queued its wait, so the case shows
 *   the wait orders the child's copy after the parent's.
 * - Opening an event handle needs another process and a GPU: those cases run on GPU drivers only.
 *
 * Deviation (documented: README "Interprocess events: `Event.create(device?, { interprocess: true })`"):
 * cumem makes an interprocess event with `Event.create` and records it with `stream.record(event)`,
 * as any event, so test_event_is_monadic checks that creating one unrecorded and recording it
 * twice both work, where cuda.core refuses both.
 *
 * Not ported:
 * - test_event_timing_disabled's two parametrizations (a dict and an `EventOptions`) and
 *   TestIpcEventProperties' `use_options_cls` / `use_option_kw`: Python call shapes; cumem's
 *   options are one plain object, so each case runs once per remaining parameter.
 * - TestIpcEventProperties' `is_timing_disabled` / `is_sync_busy_waited` / `context`: cumem's
 *   Event has no such getters and there is no Context object (see cuda-core-test-event.test.ts).
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { IPC_HANDLE_SIZE } from '@cumem/core-types';
import {
  type Buffer,
  DeviceMemoryResource,
  Event,
  type PoolMemoryResource,
  Stream,
  useDriver,
} from '@cumem/memory';
import { poolSharingDrivers } from '@cumem/test-support';
import { describeEachDriver } from '@cumem/testing/vitest';
import { beforeAll, expect, it } from 'vitest';
import { adapters } from '../adapters.js';
import { packageRoot, requireBuiltPackage } from '../child-process.js';
import {
  contents,
  importElsewhere,
  ipcPoolKinds,
  NBYTES,
  poolOf,
  toBase64,
} from './cuda-core-ipc-support.js';

const childScript = fileURLToPath(new URL('./cuda-core-ipc-child.mjs', import.meta.url));

describeEachDriver(adapters, 'cuda.core test_event_ipc.py, options', (entry) => {
  beforeAll(() => useDriver(entry.driver));

  it('test_event_is_monadic: an interprocess event may be created unrecorded and recorded twice (documented deviation)', () => {
    using stream = Stream.create();
    using event = Event.create(0, { interprocess: true });
    expect(event.isInterprocess).toBe(true);
    expect(stream.record(event)).toBe(event);
    expect(stream.record(event)).toBe(event);
    event.sync();
    expect(event.isDone).toBe(true);
  });

  it('test_event_timing_disabled: an interprocess event with timing is a TypeError', () => {
    expect(() => Event.create(0, { interprocess: true, enableTiming: true })).toThrow(TypeError);
    expect(() => Event.create(0, { interprocess: true, enableTiming: true })).toThrow(
      /^an interprocess event cannot record timing/,
    );
  });
});

/** A child that talks line by line: `ready`, then the event handle from here, then `queued`, then its report. */
function startLatchChild(driverName: string, request: object, fd: number) {
  const child = spawn(process.execPath, [childScript], {
    cwd: packageRoot,
    env: { ...process.env, CUMEM_DRIVER: driverName },
    stdio: ['pipe', 'pipe', 'pipe', fd],
  });
  let errors = '';
  child.stderr?.on('data', (chunk) => {
    errors += chunk;
  });
  const closed = once(child, 'close');
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream })[Symbol.asyncIterator]();
  child.stdin?.write(`${JSON.stringify({ ...request, role: 'writeAfterLateEvent', fdCount: 1 })}\n`);
  return {
    async line(): Promise<string> {
      const next = await lines.next();
      if (next.done) {
        await closed;
        throw new Error(`IPC child ended early: ${errors}`);
      }
      return next.value;
    },
    send(text: string): void {
      child.stdin?.end(`${text}\n`);
    },
    async exitCode(): Promise<number | null> {
      const [code] = (await closed) as [number | null];
      if (code !== 0) throw new Error(`IPC child exited with ${code}: ${errors}`);
      return code;
    },
  };
}

for (const kind of ipcPoolKinds) {
  describeEachDriver(
    adapters,
    `cuda.core test_event_ipc.py [${kind.id}]`,
    (entry) => {
      beforeAll(() => {
        requireBuiltPackage('the IPC child');
        useDriver(entry.driver);
      });

      it(`TestEventIpc.test_main[${kind.id}]: the child's stream waits for the parent's event, so its copy lands last`, async () => {
        const mr: PoolMemoryResource = kind.make();
        const scratch = new DeviceMemoryResource(0);
        using stream1 = Stream.create();
        const buffer: Buffer = mr.allocate(NBYTES, { stream: stream1 });
        const ones = scratch.allocate(NBYTES);
        ones.fill(1);
        const twos = new Uint8Array(NBYTES).fill(2);
        const child = startLatchChild(
          entry.name,
          { pool: poolOf(kind, mr), descriptor: buffer.ipcDescriptor, write: toBase64(twos) },
          mr.getAllocationHandle().fileDescriptor,
        );
        expect(await child.line()).toBe('ready');
        // The latch: enough queued copies that stream1 is still busy when the child queues its wait.
        const busySize = 256 << 20;
        const busyFrom = scratch.allocate(busySize);
        const busyTo = scratch.allocate(busySize);
        for (let i = 0; i < 2000; i++) busyTo.copyFrom(busyFrom, { stream: stream1 });
        buffer.copyFrom(ones, { stream: stream1 });
        const event = stream1.record(Event.create(0, { interprocess: true }));
        child.send(toBase64(event.ipcHandle));
        expect(await child.line()).toBe('queued');
        const report = JSON.parse(await child.line());
        await child.exitCode();
        expect(report).toEqual({ pendingWhenOpened: true });
        stream1.sync();
        expect(contents(buffer)).toEqual(twos);
        for (const closable of [busyFrom, busyTo, ones, event, buffer, mr]) closable.close();
      });
    },
    { ...poolSharingDrivers, requires: kind.requires },
  );
}

interface EventProperties {
  ipcHandle: string;
  isInterprocess: boolean;
  device: number;
}

describeEachDriver(
  adapters,
  'cuda.core test_event_ipc.py, properties',
  (entry) => {
    beforeAll(() => {
      requireBuiltPackage('the IPC child');
      useDriver(entry.driver);
    });

    for (const blockingSync of [true, false]) {
      it(`TestIpcEventProperties.test_main[busy_waited_sync=${blockingSync}]: the child's event has the parent's handle and is interprocess`, async () => {
        using stream = Stream.create();
        using event = stream.record(Event.create(0, { interprocess: true, blockingSync }));
        const handle = event.ipcHandle;
        expect(handle.byteLength).toBe(IPC_HANDLE_SIZE);
        const report = await importElsewhere<EventProperties>(
          entry,
          { role: 'eventProperties', event: toBase64(handle) },
          [],
        );
        expect(report).toEqual({ ipcHandle: toBase64(event.ipcHandle), isInterprocess: true, device: 0 });
        event.sync();
      });
    }
  },
  poolSharingDrivers,
);
