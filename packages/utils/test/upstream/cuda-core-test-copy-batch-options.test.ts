// cuda.core's tests of copy_batch's argument checks, translated case by case; its CopyOptions
// cases have no counterpart in cumem.
//
// Upstream: NVIDIA/cuda-python, cuda_core/tests/memory/test_copy_batch_options.py at commit
// 1bb36254397cd0264af7add7d334dfb75c8dd495. Each case's title starts with the upstream test name
// (`Class.test_name`). cumem's copyBatch takes the destinations first (`copyBatch(stream, dsts,
// srcs, sizes?, options?)`); its errors are cumem's kinds (TypeError for a wrong kind, RangeError
// for a length or size mismatch), all raised before any driver call, which each case checks.
//
// Not ported (cumem has no per-copy CopyOptions: no source access order, location hints or
// overlap mode; its options are the BatchOptions of every batch operation, one object per call):
// - TestOptionsEncoding (test_scalar_broadcasts_to_every_copy, test_none_broadcasts_defaults,
//   test_sequence_is_never_broadcast, test_equal_but_distinct_instances_collapse,
//   test_all_distinct_yields_one_run_each, test_adjacent_runs_are_grouped, test_single_element).
// - TestRejectUnsupportedDuringApiCall (test_during_api_call_raises,
//   test_during_api_call_message_names_requirement_and_index,
//   test_during_api_call_message_omits_index_when_not_given, test_stream_and_any_do_not_raise).
// - TestCopyBatchOptions (test_src_access_order, test_during_api_call, test_per_copy_options,
//   test_location_hints_do_not_corrupt_copy, test_host_numa_location_hint,
//   test_host_numa_current_location_hint, test_overlap_mode_copies_correctly,
//   test_default_overlap_mode_does_not_warn, test_options_on_per_thread_default_stream).
// - TestCopyOptionsValidation (test_type_hints_resolvable, test_invalid_access_order,
//   test_invalid_overlap_mode).
// - TestCopyBatchValidation.test_options_length_mismatch and .test_rejects_bad_options_element:
//   no per-copy options list.
import {
  type Buffer,
  DeviceMemoryResource,
  LegacyPinnedMemoryResource,
  Stream,
  useDriver,
} from '@cumem/memory';
import { withCountingDriver } from '@cumem/test-support';
import { type DriverCallLog, describeEachDriver } from '@cumem/testing/vitest';
import { beforeAll, expect, it } from 'vitest';
import { copyBatch } from '../../src/index.js';
import { adapters, strictTypeError } from '../support.js';

// Upstream's COPY_BATCH_SIZE and COPY_BATCH_COUNT.
const SIZE = 4096;
const COUNT = 4;

describeEachDriver(adapters, 'cuda.core test_copy_batch_options.py', (entry) => {
  beforeAll(() => {
    useDriver(entry.driver);
  });

  /** Upstream's h2d_bufs (pinned sources, device destinations) and a stream. */
  interface Pairs {
    readonly stream: Stream;
    readonly srcs: Buffer[];
    readonly dsts: Buffer[];
  }

  /**
   * Runs `body` with a stream and buffers made on a counting driver (copyBatch calls the stream's
   * own driver), then checks that no copy reached the driver.
   */
  function refusedBeforeAnyCopy(
    body: (log: DriverCallLog, pairs: Pairs) => void,
    sizes?: [number, number],
  ): void {
    withCountingDriver(useDriver, entry.driver, (log) => {
      const stream = Stream.create(0);
      const pinned = new LegacyPinnedMemoryResource();
      const device = new DeviceMemoryResource(0);
      const srcs = sizes
        ? [pinned.allocate(sizes[0])]
        : Array.from({ length: COUNT }, () => pinned.allocate(SIZE));
      const dsts = sizes
        ? [device.allocate(sizes[1])]
        : Array.from({ length: COUNT }, () => device.allocate(SIZE));
      try {
        log.reset();
        body(log, { stream, srcs, dsts });
        expect(log.calls.filter((call) => call.startsWith('memcpy'))).toEqual([]);
      } finally {
        stream.sync();
        for (const buffer of [...srcs, ...dsts]) buffer.close();
        stream.close();
      }
    });
  }

  it('TestCopyBatchValidation.test_rejects_single_buffer: a bare Buffer on either side is a TypeError', () => {
    refusedBeforeAnyCopy((_, { stream, srcs, dsts }) => {
      expect(() => copyBatch(stream, dsts, srcs[0]! as never)).toThrow(/single Buffer/);
      expect(() => copyBatch(stream, dsts[0]! as never, srcs)).toThrow(/single Buffer/);
      expect(() => copyBatch(stream, dsts[0]! as never, srcs)).toThrow(strictTypeError);
    });
  });

  it('TestCopyBatchValidation.test_rejects_empty_sequence: two empty lists do nothing (documented: an empty batch is no error), one empty list is a length mismatch', () => {
    refusedBeforeAnyCopy((log, { stream, srcs }) => {
      copyBatch(stream, [], []);
      expect(log.calls).toEqual([]);
      expect(() => copyBatch(stream, [], srcs)).toThrow(RangeError);
    });
  });

  it('TestCopyBatchValidation.test_rejects_non_buffer_element: a number or null among the buffers is a TypeError', () => {
    refusedBeforeAnyCopy((_, { stream, srcs, dsts }) => {
      expect(() => copyBatch(stream, dsts.slice(0, 2), [srcs[0]!, 42] as never)).toThrow(strictTypeError);
      expect(() => copyBatch(stream, [dsts[0]!, null] as never, srcs.slice(0, 2))).toThrow(strictTypeError);
    });
  });

  it('TestCopyBatchValidation.test_rejects_non_sequence: a number or null instead of a list is a TypeError', () => {
    refusedBeforeAnyCopy((_, { stream, srcs, dsts }) => {
      expect(() => copyBatch(stream, dsts, 42 as never)).toThrow(/srcs must be an array of Buffers/);
      expect(() => copyBatch(stream, null as never, srcs)).toThrow(/dsts must be an array of Buffers/);
    });
  });

  it('TestCopyBatchValidation.test_length_mismatch: 2 sources for 3 destinations is a RangeError', () => {
    refusedBeforeAnyCopy((_, { stream, srcs, dsts }) => {
      expect(() => copyBatch(stream, dsts.slice(0, 3), srcs.slice(0, 2))).toThrow(/3 buffers and srcs 2/);
      expect(() => copyBatch(stream, dsts.slice(0, 3), srcs.slice(0, 2))).toThrow(RangeError);
    });
  });

  for (const [srcSize, dstSize] of [
    [1024, 2048],
    [2048, 1024],
  ] as const) {
    it(`TestCopyBatchValidation.test_size_mismatch: a ${srcSize}-byte source and a ${dstSize}-byte destination are a RangeError (sizes come from the buffers)`, () => {
      refusedBeforeAnyCopy(
        (_, { stream, srcs, dsts }) => {
          expect(() => copyBatch(stream, dsts, srcs)).toThrow(RangeError);
        },
        [srcSize, dstSize],
      );
    });
  }

  it('TestCopyBatchValidation.test_rejects_bad_options_type: options that are no object are a TypeError', () => {
    refusedBeforeAnyCopy((_, { stream, srcs, dsts }) => {
      expect(() => copyBatch(stream, dsts, srcs, undefined, 42 as never)).toThrow(strictTypeError);
      expect(() => copyBatch(stream, dsts, srcs, undefined, { strategy: 'fastest' } as never)).toThrow(
        strictTypeError,
      );
    });
  });
});
