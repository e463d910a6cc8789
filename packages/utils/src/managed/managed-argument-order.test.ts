// Issue 45, item 5: prefetch / discard / discardPrefetch / advise and their *Batch forms read every
// argument once, into locals, before any check, and check the buffers last, right before the
// driver. A getter among the locations or the options that closes a buffer (and allocates another,
// perhaps at its address) then finds the closed buffer refused, and no driver call touches the
// new one.
import { CudaStateError, Device, Host, type Location } from '@cumem/core-types';
import { type ManagedBuffer, ManagedMemoryResource, Stream, useDriver } from '@cumem/memory';
import { withCountingDriver } from '@cumem/test-support';
import { describeEachDriver } from '@cumem/testing/vitest';
import { beforeAll, expect, it } from 'vitest';
import { adapters } from '../../test/support.js';
import { advise } from './managed-advise.js';
import { discardPrefetchBatch, prefetchBatch } from './managed-batch.js';
import { discard, discardPrefetch, prefetch } from './managed-operations.js';

const managedCalls = /^mem(Prefetch|Discard|Advise)/;

describeEachDriver(
  adapters,
  'managed operations read their arguments before checking the buffers',
  (entry) => {
    beforeAll(() => useDriver(entry.driver));

    /**
     * Runs `call` with two fresh managed buffers and a hook that closes the first and allocates a
     * replacement filled with 7s; the call must refuse the closed buffer before any managed-memory
     * driver call, and the replacement keep its bytes.
     */
    function closedByHook(
      what: string,
      call: (buffers: ManagedBuffer[], hook: () => void, stream: Stream) => void,
    ): void {
      withCountingDriver(useDriver, entry.driver, (log) => {
        const managed = new ManagedMemoryResource();
        const stream = Stream.create(0);
        const buffers = [managed.allocate(64 * 1024), managed.allocate(64 * 1024)];
        let replacement: ManagedBuffer | undefined;
        const hook = () => {
          if (replacement !== undefined) return;
          buffers[0]!.close();
          replacement = managed.allocate(64 * 1024);
          replacement.fill(7);
        };
        try {
          log.reset();
          expect(() => call(buffers, hook, stream), what).toThrow(CudaStateError);
          expect(replacement, `${what}: the hook ran`).toBeDefined();
          expect(
            log.calls.filter((name) => managedCalls.test(name)),
            what,
          ).toEqual([]);
          const bytes = new Uint8Array(64 * 1024);
          replacement!.copyTo(bytes);
          expect(
            bytes.every((byte) => byte === 7),
            `${what}: the new buffer's bytes`,
          ).toBe(true);
        } finally {
          stream.sync();
          replacement?.close();
          for (const buffer of buffers) buffer.close();
          stream.close();
        }
      });
    }

    /** `[first, rest]` where reading index 0 runs `hook` first. */
    function locationsWithGetter(hook: () => void, first: Location, rest: Location): Location[] {
      const locations: Location[] = [first, rest];
      Object.defineProperty(locations, 0, {
        get() {
          hook();
          return first;
        },
      });
      return locations;
    }

    const device = new Device(0);
    const host = new Host();

    it('a getter in the locations closes the first buffer: refused, nothing discarded', () => {
      closedByHook('discardPrefetch', (buffers, hook, stream) =>
        discardPrefetch(buffers, locationsWithGetter(hook, device, host), { stream }),
      );
      closedByHook('prefetch', (buffers, hook, stream) =>
        prefetch(buffers, locationsWithGetter(hook, host, device), { stream }),
      );
      closedByHook('discardPrefetchBatch', (buffers, hook, stream) =>
        discardPrefetchBatch(stream, buffers, locationsWithGetter(hook, device, device)),
      );
      closedByHook('prefetchBatch', (buffers, hook, stream) =>
        prefetchBatch(stream, buffers, locationsWithGetter(hook, device, host)),
      );
      // advise takes one Location (a frozen Device or Host): its user code is in the targets.
      closedByHook('advise (a later target getter)', (buffers, hook) => {
        const targets = [...buffers];
        Object.defineProperty(targets, 1, {
          get() {
            hook();
            return buffers[1];
          },
        });
        advise(targets, 'setPreferredLocation', device);
      });
    });

    it('a getter in the options, or in the targets, closes a buffer: refused, nothing discarded', () => {
      closedByHook('discard (options getter)', (buffers, hook, stream) =>
        discard(buffers, {
          get stream() {
            hook();
            return stream;
          },
        }),
      );
      closedByHook('discardPrefetch (a later target getter)', (buffers, hook, stream) => {
        const targets = [...buffers];
        Object.defineProperty(targets, 1, {
          get() {
            hook();
            return buffers[1];
          },
        });
        discardPrefetch(targets, device, { stream });
      });
    });
  },
);
