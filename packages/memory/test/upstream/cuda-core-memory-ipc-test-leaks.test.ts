/**
 * cuda.core's file-descriptor leak tests, translated case by case into an acceptance suite for
 * `@cumem/memory`'s allocation handles and descriptors handed to child processes.
 *
 * Upstream: NVIDIA/cuda-python, `cuda_core/tests/memory_ipc/test_leaks.py`, as read at commit
 * 06754bef8dae76d308e5537521943b71c204c3be. Each case title starts with the upstream function
 * name and its parametrization (`launcher`, `getobject`, `ipc_memory_resource`).
 *
 * How cuda.core's Python maps here:
 * - `psutil.Process().num_fds()` -> the entries of /proc/self/fd; `prime()` (a first launch
 *   opens a descriptor for good) -> one child launched before any count.
 * - an object passed as a `multiprocessing.Process` argument -> what cumem sends for it: the
 *   pool's allocation handle as the child's inherited fd 3 (`alloc_handle`; `mr`, with the
 *   exporter's uuid beside it; `buffer`, with its descriptor) and a buffer's JSON descriptor on
 *   the command line (`buffer`, `buffer_desc`).
 * - launchers: `exec_success` -> a child that exits 0; `exec_launch_failure` -> a child that
 *   starts and exits 1; `exec_reduce_failure` (the launch fails after the object was prepared,
 *   before any child runs) -> a spawn of a program that does not exist (the 'error' event).
 * - The children import nothing of cumem, so every case runs on every driver (the reference
 *   driver's IPC-enabled pools come from the stand-in, test/ipc-emulation.ts).
 *
 * Not ported: nothing.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readdirSync } from 'node:fs';
import type { Buffer, PoolMemoryResource } from '@cumem/memory';
import { describeEachDriver } from '@cumem/testing/vitest';
import { beforeAll, expect, it } from 'vitest';
import { adapters } from '../adapters.js';
import { ipcPoolKinds, NBYTES, useSharingDriver } from './cuda-core-ipc-support.js';

const openDescriptors = () => readdirSync('/proc/self/fd').length;
const isOpen = (fd: number) => existsSync(`/proc/self/fd/${fd}`);

/**
 * The process's descriptor count once it has stopped moving (the same for 200 ms; 3 s at most).
 * A real driver opens descriptors of its own for an exported pool, and on the GPU the count also
 * fell by a few while children ran (likely descriptors of earlier pools that the driver closes
 * late), so a count read at once is not the process's own doing.
 */
async function settledDescriptors(): Promise<number> {
  let count = openDescriptors();
  let stableSince = Date.now();
  for (const started = Date.now(); Date.now() - started < 3000 && Date.now() - stableSince < 200; ) {
    await new Promise((resolve) => setTimeout(resolve, 10));
    const now = openDescriptors();
    if (now !== count) {
      count = now;
      stableSince = Date.now();
    }
  }
  return count;
}

/** What is sent for one upstream object: file descriptors to inherit, and JSON for the command line. */
interface Sent {
  readonly fds: number[];
  readonly json: unknown;
}

type Launcher = (sent: Sent) => Promise<void>;

function launch(program: string, code: number, sent: Sent) {
  return spawn(program, ['-e', `process.exit(${code})`, JSON.stringify(sent.json)], {
    stdio: ['ignore', 'ignore', 'ignore', ...sent.fds],
  });
}

const launchers: Record<string, Launcher> = {
  exec_success: async (sent) => {
    const [code] = await once(launch(process.execPath, 0, sent), 'close');
    expect(code).toBe(0);
  },
  exec_launch_failure: async (sent) => {
    const [code] = await once(launch(process.execPath, 1, sent), 'close');
    expect(code).not.toBe(0);
  },
  exec_reduce_failure: async (sent) => {
    const [error] = await once(launch('/nonexistent/cumem-ipc-child', 0, sent), 'error');
    expect((error as NodeJS.ErrnoException).code).toBe('ENOENT');
  },
};

/** upstream's `getobject` parametrization: makes the object on `mr` and says what is sent for it. */
const objects: Record<string, (mr: PoolMemoryResource, made: Buffer[]) => Sent> = {
  alloc_handle: (mr) => ({ fds: [mr.getAllocationHandle().fileDescriptor], json: null }),
  mr: (mr) => ({ fds: [mr.getAllocationHandle().fileDescriptor], json: { uuid: mr.uuid } }),
  buffer: (mr, made) => {
    const buffer = mr.allocate(NBYTES);
    made.push(buffer);
    return { fds: [mr.getAllocationHandle().fileDescriptor], json: buffer.ipcDescriptor };
  },
  buffer_desc: (mr, made) => {
    const buffer = mr.allocate(NBYTES);
    made.push(buffer);
    return { fds: [], json: buffer.ipcDescriptor };
  },
};

for (const kind of ipcPoolKinds) {
  describeEachDriver(
    adapters,
    `cuda.core test_leaks.py [${kind.id}]`,
    (entry) => {
      beforeAll(async () => {
        useSharingDriver(entry);
        // upstream's prime(): a first launch may keep descriptors of its own. The driver may too,
        // on its first export of a pool: one export before any count.
        await launchers.exec_success?.({ fds: [], json: null });
        const warmUp = kind.make();
        warmUp.getAllocationHandle();
        warmUp.close();
      });

      // upstream counts descriptors around the ten calls only (CheckFDLeaks); here the count also
      // spans close(), which must give back the handle's descriptor and whatever the driver opened
      // for the export. The driver may close its own later and may hold more than one, so the
      // handle's descriptor is checked by number and the count after settling may not exceed it.
      it(`test_alloc_handle[${kind.id}]: asking for the allocation handle ten times opens one descriptor, and close() closes it`, async () => {
        const mr = kind.make();
        const before = await settledDescriptors();
        const first = mr.getAllocationHandle();
        const fd = first.fileDescriptor;
        expect(isOpen(fd)).toBe(true);
        const withHandle = openDescriptors();
        expect(withHandle).toBeGreaterThan(before);
        for (let i = 0; i < 10; i++) expect(mr.getAllocationHandle()).toBe(first);
        expect(openDescriptors()).toBe(withHandle);
        mr.close();
        expect(first.isClosed).toBe(true);
        expect(isOpen(fd)).toBe(false);
        expect(await settledDescriptors()).toBeLessThanOrEqual(before);
      });

      for (const [launcherName, launcher] of Object.entries(launchers)) {
        for (const [objectName, makeObject] of Object.entries(objects)) {
          it(`test_pass_object[${launcherName}-${objectName}-${kind.id}]: sending it to two children leaks no descriptor`, async () => {
            const mr = kind.make();
            const made: Buffer[] = [];
            const sent = makeObject(mr, made);
            // Settled counts (the count fell while children ran on the GPU, see
            // settledDescriptors); a leak is a count above the one before.
            const before = await settledDescriptors();
            for (let i = 0; i < 2; i++) await launcher(sent);
            expect(await settledDescriptors()).toBeLessThanOrEqual(before);
            for (const buffer of made) buffer.close();
            mr.close();
          });
        }
      }
    },
    { requires: kind.requires },
  );
}
