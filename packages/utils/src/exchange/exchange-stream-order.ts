// Stream order between the producer of exchanged memory (a CUDA Array Interface's `stream`, a
// DLPack export's producer stream) and the consumer's Stream, as cuda.core establishes it: an
// event recorded on the producer's stream, waited on by the consumer's. The GPU orders the two;
// the CPU never waits.
import { CudaStateError, checkOptions, describeValue } from '@cumem/core-types';
import { type Buffer, currentDriver, defaultStream, Event, Stream } from '@cumem/memory';
import { bufferState, makeDeviceCurrent } from '@cumem/memory/internal';

/** Options of the importers that take a consumer stream (`StridedMemoryView.from`, `fromDLPack`). */
export interface ConsumerStreamOptions {
  /**
   * The Stream that will use the memory: the producer's pending work is ordered before it on
   * the GPU. `-1` opts out (no ordering, as cuda.core's `stream_ptr=-1`: the caller orders the
   * work). Default: the per-device default stream of the memory's device.
   */
  readonly stream?: Stream | -1;
}

/** The consumer: a Stream, null to opt out, undefined for the default stream. */
export type ConsumerStream = Stream | null | undefined;

/**
 * Checks `options.stream` before any driver call.
 * @throws TypeError for anything but a Stream or -1; CudaStateError for a closed Stream.
 */
export function checkConsumerStream(options: unknown): ConsumerStream {
  const { stream } = checkOptions(options as ConsumerStreamOptions | undefined);
  if (stream === undefined) return undefined;
  if (stream === -1) return null;
  if (!Stream.isStream(stream)) {
    throw new TypeError(
      `stream must be a Stream of @cumem/memory or -1 (no ordering), got ${describeValue(stream)}`,
    );
  }
  if (stream.isClosed) throw CudaStateError.closed('Stream');
  return stream;
}

/**
 * Orders `consumer` after the work queued so far on `producer` (a Stream, or a raw `CUstream`
 * handle of the context of device `deviceId`, the current one when -1). Enqueues only: the
 * CPU does not wait. Nothing happens for an opted-out consumer or the producer's own stream.
 */
export function orderAfterProducer(
  producer: Stream | bigint,
  consumer: ConsumerStream,
  deviceId: number,
): void {
  if (consumer === null) return;
  const target = consumer ?? defaultStream(deviceId >= 0 ? deviceId : undefined);
  if (Stream.isStream(producer)) {
    target.wait(producer);
    return;
  }
  // A raw handle names a stream of the data's context: record there, wait on the consumer's.
  if (deviceId >= 0) makeDeviceCurrent(deviceId);
  const marker = Event.create(deviceId >= 0 ? deviceId : undefined, { enableTiming: false });
  try {
    currentDriver().eventRecord(marker.handle, producer);
    target.wait(marker);
  } finally {
    // The driver keeps a recorded event alive until the wait is resolved.
    marker.close();
  }
}

/**
 * Orders `consumer` after the work queued on the stream `buffer`'s memory was allocated on (its
 * producer), as `Buffer.toDLPack({ stream })` does: `stream.wait(producer)`, on the GPU, whether
 * the producer's Stream is still open or was closed with work still queued. Enqueues only.
 * Nothing to order for memory allocated without a stream, or for an opted-out consumer.
 */
export function orderAfterBuffer(buffer: Buffer, consumer: ConsumerStream, deviceId: number): void {
  const producer = bufferState(bufferState(buffer).memoryOwner).allocationStream;
  if (consumer === null || producer === undefined) return;
  const target = consumer ?? defaultStream(deviceId >= 0 ? deviceId : undefined);
  target.wait(producer);
}
