import { CU_DEVICE_CPU, MemAttachFlags, MemLocationType, MemRangeAttribute } from '@cumem/core-types';
import { describe, expect } from 'vitest';
import type { SuiteContext } from './suite-context.js';
import { expectCudaError, expectSameBytes, MiB, randomBytes, readBack } from './support.js';

const rangeSize = 2 * MiB;

/** Batched prefetch and discard of managed ranges (CUDA 13). */
export function batchCases(suite: SuiteContext): void {
  describe('batch prefetch and discard', () => {
    const host = { type: MemLocationType.Host, id: 0 };
    const device = () => ({ type: MemLocationType.Device, id: suite.device });
    const lastPrefetch = (pointer: bigint) =>
      suite.driver.memRangeGetAttribute(pointer, rangeSize, MemRangeAttribute.LastPrefetchLocation);
    // Three managed ranges, each its own allocation.
    const withRanges = (body: (pointers: bigint[], sizes: BigUint64Array) => void) => {
      const pointers = [0, 1, 2].map(() => suite.driver.memAllocManaged(rangeSize, MemAttachFlags.Global));
      try {
        body(pointers, BigUint64Array.from(pointers.map(() => BigInt(rangeSize))));
      } finally {
        suite.driver.streamSynchronize(suite.stream);
        for (const pointer of pointers) suite.driver.memFree(pointer);
      }
    };

    suite.itWith(
      'batchPrefetchDiscard',
      'memPrefetchBatchAsync applies each location from its start index on',
      () => {
        withRanges((pointers, sizes) => {
          suite.driver.memPrefetchBatchAsync(
            BigUint64Array.from(pointers),
            sizes,
            3,
            [device(), host],
            [0, 2],
            suite.stream,
          );
          suite.driver.streamSynchronize(suite.stream);
          expect(pointers.map(lastPrefetch)).toEqual([suite.device, suite.device, CU_DEVICE_CPU]);
        });
      },
    );

    suite.itWith(
      'batchPrefetchDiscard',
      'memDiscardBatchAsync succeeds, and discarded ranges take new data',
      () => {
        withRanges((pointers, sizes) => {
          suite.driver.memDiscardBatchAsync(BigUint64Array.from(pointers), sizes, 3, suite.stream);
          const data = pointers.map(() => randomBytes(rangeSize));
          pointers.forEach((pointer, index) => {
            suite.driver.memcpyHtoDAsync(pointer, data[index] as Uint8Array, suite.stream);
          });
          suite.driver.streamSynchronize(suite.stream);
          pointers.forEach((pointer, index) => {
            expectSameBytes(readBack(suite.driver, pointer, rangeSize), data[index] as Uint8Array);
          });
        });
      },
    );

    suite.itWith(
      'batchPrefetchDiscard',
      'memDiscardAndPrefetchBatchAsync records the prefetch locations',
      () => {
        withRanges((pointers, sizes) => {
          suite.driver.memDiscardAndPrefetchBatchAsync(
            BigUint64Array.from(pointers),
            sizes,
            3,
            [host, device()],
            [0, 1],
            suite.stream,
          );
          suite.driver.streamSynchronize(suite.stream);
          expect(pointers.map(lastPrefetch)).toEqual([CU_DEVICE_CPU, suite.device, suite.device]);
        });
      },
    );

    suite.itWith(
      'batchPrefetchDiscard',
      'memPrefetchBatchAsync with location starts not beginning at 0 fails',
      () => {
        withRanges((pointers, sizes) => {
          // cuda.h: "the first entry in prefetchLocIdxs must always be 0".
          expectCudaError(
            () =>
              suite.driver.memPrefetchBatchAsync(
                BigUint64Array.from(pointers),
                sizes,
                3,
                [device()],
                [1],
                suite.stream,
              ),
            'cuMemPrefetchBatchAsync',
          );
        });
      },
    );

    suite.itWith('batchPrefetchDiscard', 'memPrefetchBatchAsync on the legacy NULL stream fails', () => {
      withRanges((pointers, sizes) => {
        // cuda.h: hStream "Must not be legacy NULL stream".
        expectCudaError(
          () =>
            suite.driver.memPrefetchBatchAsync(BigUint64Array.from(pointers), sizes, 3, [device()], [0], 0n),
          'cuMemPrefetchBatchAsync',
        );
      });
    });
  });
}
