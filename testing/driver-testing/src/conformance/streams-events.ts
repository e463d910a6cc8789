import { type DriverHandle, EventFlags, StreamFlags } from '@cumem/core-types';
import { describe, expect, it } from 'vitest';
import type { SuiteContext } from './suite-context.js';
import { expectCudaError, expectSameBytes, MiB, randomBytes, readBack, withDeviceMemory } from './support.js';

/** Streams and events: creation, ordering, queries, timing and the asynchronous waits. */
export function streamEventCases(suite: SuiteContext): void {
  /** Runs `body` with a start event of `startFlags` and a default end event, both destroyed after. */
  const withEventPair = (
    startFlags: number,
    body: (start: DriverHandle, end: DriverHandle) => void,
  ): void => {
    const start = suite.driver.eventCreate(startFlags);
    const end = suite.driver.eventCreate(EventFlags.Default);
    try {
      body(start, end);
    } finally {
      suite.driver.eventDestroy(start);
      suite.driver.eventDestroy(end);
    }
  };

  describe('streams and events', () => {
    it('streamCreate gives distinct non-null handles for both flags and any priority in range; streamDestroy frees them', () => {
      const { least, greatest } = suite.driver.contextGetStreamPriorityRange();
      const streams = [
        suite.driver.streamCreate(StreamFlags.Default, least),
        suite.driver.streamCreate(StreamFlags.NonBlocking, greatest),
        suite.driver.streamCreate(StreamFlags.NonBlocking, least),
      ];
      expect(new Set(streams).size).toBe(3);
      for (const stream of streams) {
        expect(stream).not.toBe(0n);
        expect(suite.driver.streamQuery(stream)).toBe(true);
        suite.driver.streamDestroy(stream);
      }
    });

    it('streamCreate with unknown flags fails', () => {
      expectCudaError(() => suite.driver.streamCreate(0x100, 0), 'cuStreamCreateWithPriority');
    });

    it('work enqueued on a stream is done after streamSynchronize, and streamQuery is then true', () => {
      const size = MiB;
      const data = randomBytes(size);
      const pointer = suite.driver.memAlloc(size);
      try {
        suite.driver.memcpyHtoDAsync(pointer, data, suite.stream);
        suite.driver.streamSynchronize(suite.stream);
        expect(suite.driver.streamQuery(suite.stream)).toBe(true);
        expectSameBytes(readBack(suite.driver, pointer, size), data);
      } finally {
        suite.driver.memFree(pointer);
      }
    });

    it('streamSynchronizeAsync returns a Promise that resolves once the stream is idle, also for the default stream', async () => {
      const size = MiB;
      const data = randomBytes(size);
      const result = new Uint8Array(size);
      const pointer = suite.driver.memAlloc(size);
      try {
        suite.driver.memcpyHtoDAsync(pointer, data, suite.stream);
        suite.driver.memcpyDtoHAsync(result, pointer, suite.stream);
        const waiting = suite.driver.streamSynchronizeAsync(suite.stream);
        expect(waiting).toBeInstanceOf(Promise);
        await expect(waiting).resolves.toBeUndefined();
        expect(suite.driver.streamQuery(suite.stream)).toBe(true);
        expectSameBytes(result, data);
        await expect(suite.driver.streamSynchronizeAsync(0n)).resolves.toBeUndefined();
      } finally {
        suite.driver.memFree(pointer);
      }
    });

    it('streamWaitEvent makes a second stream wait for work recorded on the first', () => {
      const size = 4 * MiB;
      const data = randomBytes(size);
      const other = suite.driver.streamCreate(StreamFlags.NonBlocking, 0);
      const event = suite.driver.eventCreate(EventFlags.DisableTiming);
      const first = suite.driver.memAlloc(size);
      const second = suite.driver.memAlloc(size);
      try {
        suite.driver.memcpyHtoDAsync(first, data, suite.stream);
        suite.driver.eventRecord(event, suite.stream);
        suite.driver.streamWaitEvent(other, event);
        suite.driver.memcpyAsync(second, first, size, other);
        suite.driver.streamSynchronize(other);
        expectSameBytes(readBack(suite.driver, second, size), data);
      } finally {
        suite.driver.streamSynchronize(suite.stream);
        suite.driver.memFree(first);
        suite.driver.memFree(second);
        suite.driver.eventDestroy(event);
        suite.driver.streamDestroy(other);
      }
    });

    it('eventRecord / eventSynchronize / eventQuery: a recorded event completes', () => {
      const event = suite.driver.eventCreate(EventFlags.Default);
      try {
        expect(event).not.toBe(0n);
        suite.driver.eventRecord(event, suite.stream);
        suite.driver.eventSynchronize(event);
        expect(suite.driver.eventQuery(event)).toBe(true);
      } finally {
        suite.driver.eventDestroy(event);
      }
    });

    it('eventSynchronizeAsync returns a Promise that resolves once the event completes', async () => {
      const event = suite.driver.eventCreate(EventFlags.BlockingSync);
      try {
        suite.driver.eventRecord(event, suite.stream);
        const waiting = suite.driver.eventSynchronizeAsync(event);
        expect(waiting).toBeInstanceOf(Promise);
        await expect(waiting).resolves.toBeUndefined();
        expect(suite.driver.eventQuery(event)).toBe(true);
      } finally {
        suite.driver.eventDestroy(event);
      }
    });

    it('eventElapsedTime between two recorded events is a finite, non-negative number of milliseconds', () => {
      withEventPair(EventFlags.Default, (start, end) => {
        withDeviceMemory(suite.driver, 4 * MiB, (pointer) => {
          suite.driver.eventRecord(start, suite.stream);
          suite.driver.memsetD32Async(pointer, 0xdeadbeef, MiB, suite.stream);
          suite.driver.eventRecord(end, suite.stream);
          suite.driver.eventSynchronize(end);
          const elapsed = suite.driver.eventElapsedTime(start, end);
          expect(Number.isFinite(elapsed)).toBe(true);
          expect(elapsed).toBeGreaterThanOrEqual(0);
        });
      });
    });

    it('eventElapsedTime of events never recorded fails with CUDA_ERROR_INVALID_HANDLE', () => {
      withEventPair(EventFlags.Default, (start, end) => {
        // cuda.h: "If cuEventRecord() has not been called on either event then CUDA_ERROR_INVALID_HANDLE".
        expectCudaError(
          () => suite.driver.eventElapsedTime(start, end),
          'cuEventElapsedTime',
          'CUDA_ERROR_INVALID_HANDLE',
        );
      });
    });

    it('eventElapsedTime with a DisableTiming event fails with CUDA_ERROR_INVALID_HANDLE', () => {
      withEventPair(EventFlags.DisableTiming, (start, end) => {
        suite.driver.eventRecord(start, suite.stream);
        suite.driver.eventRecord(end, suite.stream);
        suite.driver.eventSynchronize(end);
        // cuda.h: "If either event was created with the CU_EVENT_DISABLE_TIMING flag ... CUDA_ERROR_INVALID_HANDLE".
        expectCudaError(
          () => suite.driver.eventElapsedTime(start, end),
          'cuEventElapsedTime',
          'CUDA_ERROR_INVALID_HANDLE',
        );
      });
    });

    it('eventCreate with Interprocess but without DisableTiming fails', () => {
      // cuda.h: CU_EVENT_INTERPROCESS must be specified along with CU_EVENT_DISABLE_TIMING.
      expectCudaError(() => suite.driver.eventCreate(EventFlags.Interprocess), 'cuEventCreate');
    });

    // The FFI adapter polls cuStreamQuery on these handles in the caller's context; the N-API
    // adapter runs cuStreamSynchronize in it on a pool thread. Either way the wait covers what a
    // synchronize of that stream covers here: the legacy stream's wait includes earlier work of
    // blocking streams, and 2 is this thread's per-thread stream, not the waiting thread's.
    it("streamSynchronizeAsync on 0, 1 and 2 waits for work queued before it: on blocking streams (0, 1), on this thread's per-thread stream (2)", async () => {
      const size = suite.isReference ? MiB : 256 * MiB;
      const rounds = suite.isReference ? 2 : 40;
      const data = randomBytes(MiB);
      const blocking = suite.driver.streamCreate(StreamFlags.Default, 0);
      const first = suite.driver.memAlloc(size);
      const second = suite.driver.memAlloc(size);
      try {
        for (const [special, queueOn] of [
          [0n, blocking],
          [1n, blocking],
          [2n, 2n],
        ] as const) {
          suite.driver.memsetD8Async(first, 0, size, queueOn);
          suite.driver.memcpyHtoDAsync(first, data, queueOn);
          for (let round = 0; round < rounds; round++) {
            suite.driver.memcpyAsync(second, first, size, queueOn);
            suite.driver.memcpyAsync(first, second, size, queueOn);
          }
          await suite.driver.streamSynchronizeAsync(special);
          expect(suite.driver.streamQuery(queueOn), `stream ${special}`).toBe(true);
          expectSameBytes(readBack(suite.driver, second, MiB), data);
        }
      } finally {
        suite.driver.streamSynchronize(blocking);
        suite.driver.streamSynchronize(2n);
        suite.driver.memFree(first);
        suite.driver.memFree(second);
        suite.driver.streamDestroy(blocking);
      }
    });
  });
}
