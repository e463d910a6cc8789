// Host-to-device upload of an IPC layout's chunks into one device range.
//
// Page-locked memory is what the copy engine reads at full speed; pageable JS memory is staged
// by the driver through its own small pinned buffers. So chunks are gathered into pinned
// staging in windows, and each window's copy is enqueued as soon as it is full: the CPU fills
// window k+1 while the DMA engine moves window k. Chunks that already live in pinned memory
// (newHostArray columns, a HostBuffer's `bytes`, a table read back with tableFromDevice) are copied straight
// from where they are, with no staging at all.

import { checkOptions, EventFlags } from '@cumem/core-types';
import { isRegisteredHostMemory, stagingSettings } from '@cumem/memory/internal';
import { type ContextState, contextState, enterContext, finishOn } from './context-internals.js';
import type { CudaBuffer } from './cuda-buffer.js';
import { type HostBuffer, hostBufferBrand, newHostBuffer, pinnedOwnerOf } from './host-buffer.js';
import type { IpcChunk } from './ipc-layout.js';

/**
 * How host bytes reach the device:
 * - `'auto'` (default): chunks of 256 KiB or more already in pinned memory (columns built with
 *   `newHostArray` or over a HostBuffer's `bytes`, a table from `tableFromDevice`) go straight to
 *   the device, one copy each (back-to-back ones merged), with no CPU copy; the rest (IPC
 *   metadata, padding, pageable columns) through a pinned staging ring of at most
 *   {@link UploadOptions.stagingBytes}, sized to what needs staging (1 MiB when that is little).
 * - `'pinned'`: everything through the staging ring, pinned sources included.
 * - `'pageable'`: no staging; each chunk is copied from JS memory (the driver stages it).
 * - a {@link HostBuffer}: as `'auto'`, staging through that buffer (reuse it across calls to
 *   avoid pinning memory each time); as large as the staged bytes, it is filled once with no waits.
 *
 * Staging pageable memory costs a CPU copy (9-10 GB/s measured on an H200 host, one core), so only pinned columns
 * reach the copy engine's limit.
 */
export type StagingChoice = 'auto' | 'pinned' | 'pageable' | HostBuffer;

/** Options of uploads (`serializeRecordBatch`, `tableToDevice`). */
export interface UploadOptions {
  /** See {@link StagingChoice}. Default `'auto'`. */
  readonly staging?: StagingChoice;
  /** Bytes of the pinned staging ring allocated for `'auto'`/`'pinned'`. Default 64 MiB (two 32 MiB windows). */
  readonly stagingBytes?: number;
}

/** Copies of at least this size run at full PCIe bandwidth; windows are this large when staging allows. */
const windowBytes = 32 * 1024 * 1024;
const defaultStagingBytes = 2 * windowBytes;
// Below this, a pageable copy's fixed cost dominates: small chunks are gathered first.
const smallChunkBytes = 256 * 1024;
/** The shared ring allocated when little needs staging (pinning costs about as much per byte as copying). */
const smallRingBytes = 1024 * 1024;

/** Checks the options before any driver call. */
export function checkUploadOptions(options: UploadOptions | undefined): Required<UploadOptions> {
  const { staging = 'auto', stagingBytes = defaultStagingBytes } = checkOptions(options);
  if (!hostBufferBrand.has(staging) && staging !== 'auto' && staging !== 'pinned' && staging !== 'pageable') {
    throw new TypeError(
      `staging must be 'auto', 'pinned', 'pageable' or a HostBuffer, got ${String(staging)}`,
    );
  }
  if (!Number.isSafeInteger(stagingBytes) || stagingBytes < 1) {
    throw new RangeError(`stagingBytes must be a positive integer, got ${String(stagingBytes)}`);
  }
  return { staging, stagingBytes };
}

/** Writes `chunks` (offsets relative to the target's start) into `target`; returns when done. */
export function uploadChunks(
  target: CudaBuffer,
  chunks: readonly IpcChunk[],
  byteLength: number,
  options: Required<UploadOptions>,
): void {
  if (byteLength === 0) return;
  const state = contextState(target.context);
  const stream = enterContext(state);
  const driver = state.driver;
  const base = target.address;
  const { staging } = options;

  if (staging === 'pageable') {
    const gather = new Gatherer(smallChunkBytes, (offset, bytes) =>
      driver.memcpyHtoDAsync(base + BigInt(offset), bytes, stream),
    );
    for (const chunk of chunks) {
      if (chunk.bytes.byteLength >= smallChunkBytes) {
        gather.flush();
        driver.memcpyHtoDAsync(base + BigInt(chunk.offset), chunk.bytes, stream);
      } else {
        gather.push(chunk.offset, chunk.bytes);
      }
    }
    gather.flush();
    finishOn(state, stream);
    return;
  }

  // Pinned bodies are copied from where they are; only the rest (IPC metadata, padding, pageable
  // columns) is gathered in the ring, which is sized to that rest, not to the whole stream.
  // Registered JS memory (registerHostMemory) copies at pinned speed from where it is, too.
  const isDirect = (chunk: IpcChunk): boolean =>
    staging !== 'pinned' &&
    chunk.bytes.byteLength >= smallChunkBytes &&
    (pinnedOwnerOf(chunk.bytes.buffer) !== undefined || isRegisteredHostMemory(chunk.bytes));
  // Large pageable columns go through the driver's staged copy (pinned chunks on several native
  // threads), which beats this ring's one-thread CPU copy; the rest is gathered in the ring.
  const settings = stagingSettings();
  const isEngine = (chunk: IpcChunk): boolean =>
    staging !== 'pinned' &&
    chunk.bytes.byteLength >= Math.max(settings.minBytes, smallChunkBytes) &&
    !isDirect(chunk);
  let stagedBytes = 0;
  for (const chunk of chunks) if (!isDirect(chunk) && !isEngine(chunk)) stagedBytes += chunk.bytes.byteLength;
  const enqueue = (offset: number, bytes: Uint8Array): void =>
    driver.memcpyHtoDAsync(base + BigInt(offset), bytes, stream);
  const direct = new DirectCopies(enqueue);
  const ring =
    stagedBytes === 0
      ? undefined
      : new StagingRing(
          hostBufferBrand.has(staging) ? staging : sharedStaging(state, stagedBytes, options),
          stagedBytes,
          {
            enqueue,
            record: (event) => driver.eventRecord(event, stream),
            createEvent: () => driver.eventCreate(EventFlags.DisableTiming),
            waitEvent: (event) => driver.eventSynchronize(event),
            destroyEvent: (event) => driver.eventDestroy(event),
          },
        );
  try {
    for (const chunk of chunks) {
      if (isEngine(chunk)) {
        // Everything enqueued before it goes first: the staged copy waits for the stream.
        ring?.flush();
        direct.flush();
        driver.stagedCopyHtoD(base + BigInt(chunk.offset), chunk.bytes, stream, settings);
      } else if (isDirect(chunk)) {
        // Staged bytes before this chunk are enqueued first; neither call waits for the device.
        ring?.flush();
        direct.push(chunk.offset, chunk.bytes);
      } else {
        direct.flush();
        ring?.push(chunk.offset, chunk.bytes);
      }
    }
    direct.flush();
    ring?.flush();
    finishOn(state, stream);
  } finally {
    ring?.dispose();
  }
}

/**
 * Copies straight from pinned memory, merging chunks that continue each other both in the
 * target and in one HostBuffer (columns allocated back to back become one DMA).
 */
class DirectCopies {
  #offset = 0;
  #bytes: Uint8Array | undefined;

  constructor(private readonly enqueue: (offset: number, bytes: Uint8Array) => void) {}

  push(offset: number, bytes: Uint8Array): void {
    const pending = this.#bytes;
    if (
      pending &&
      pending.buffer === bytes.buffer &&
      offset === this.#offset + pending.byteLength &&
      bytes.byteOffset === pending.byteOffset + pending.byteLength
    ) {
      this.#bytes = new Uint8Array(pending.buffer, pending.byteOffset, pending.byteLength + bytes.byteLength);
      return;
    }
    this.flush();
    this.#offset = offset;
    this.#bytes = bytes;
  }

  flush(): void {
    if (!this.#bytes) return;
    this.enqueue(this.#offset, this.#bytes);
    this.#bytes = undefined;
  }
}

// Pinning memory costs far more than copying it (the OS locks every page), so the default
// staging ring is allocated once per driver and device and reused by later uploads.
const sharedRings = new WeakMap<object, Map<number, HostBuffer>>();

function sharedStaging(
  state: ContextState,
  byteLength: number,
  options: Required<UploadOptions>,
): HostBuffer {
  const size = Math.min(byteLength, options.stagingBytes);
  let rings = sharedRings.get(state.driver);
  if (!rings) {
    rings = new Map();
    sharedRings.set(state.driver, rings);
  }
  const ordinal = state.device.ordinal;
  const cached = rings.get(ordinal);
  // Reuse a ring that is large enough, unless it is much larger than this caller asked for.
  if (
    cached &&
    !cached.isClosed &&
    cached.size >= size &&
    cached.size <= Math.max(2 * size, options.stagingBytes)
  ) {
    return cached;
  }
  cached?.close();
  // A few KiB of IPC metadata (a table whose columns are pinned) gets a small ring, not 64 MiB.
  const freshSize =
    size <= smallRingBytes
      ? smallRingBytes
      : Math.max(size, Math.min(options.stagingBytes, defaultStagingBytes));
  const fresh = newHostBuffer(Math.min(freshSize, options.stagingBytes), {
    device: state.device,
    allocator: 'pool',
  });
  rings.set(ordinal, fresh);
  return fresh;
}

/** Gathers small contiguous chunks into one host array before one copy. */
class Gatherer {
  readonly #scratch: Uint8Array;
  #start = -1;
  #fill = 0;

  constructor(
    capacity: number,
    private readonly send: (offset: number, bytes: Uint8Array) => void,
  ) {
    this.#scratch = new Uint8Array(capacity);
  }

  push(offset: number, bytes: Uint8Array): void {
    if (
      this.#fill > 0 &&
      (offset !== this.#start + this.#fill || this.#fill + bytes.byteLength > this.#scratch.byteLength)
    ) {
      this.flush();
    }
    if (this.#fill === 0) this.#start = offset;
    this.#scratch.set(bytes, this.#fill);
    this.#fill += bytes.byteLength;
  }

  flush(): void {
    if (this.#fill === 0) return;
    // A copy, not a view: the scratch array is refilled while the driver may still read it.
    this.send(this.#start, this.#scratch.slice(0, this.#fill));
    this.#fill = 0;
  }
}

interface RingDriver {
  enqueue(offset: number, bytes: Uint8Array): void;
  record(event: bigint): void;
  createEvent(): bigint;
  waitEvent(event: bigint): void;
  destroyEvent(event: bigint): void;
}

/**
 * Pinned staging cut into windows. Bytes fill the current window; a full window (or a gap in
 * the target offsets) enqueues its copy and records an event; a window is refilled only after
 * its event, so the CPU and the copy engine work on different windows.
 */
class StagingRing {
  readonly #bytes: Uint8Array;
  readonly #window: number;
  readonly #count: number;
  readonly #events: (bigint | null)[];
  #slot = 0;
  #fill = 0;
  #start = 0;

  constructor(
    staging: HostBuffer,
    total: number,
    private readonly driver: RingDriver,
  ) {
    this.#bytes = staging.bytes;
    const size = this.#bytes.byteLength;
    if (size === 0) throw new RangeError('the staging HostBuffer is empty');
    this.#window = size >= total ? Math.min(windowBytes, size) : Math.max(1, Math.floor(size / 2));
    this.#count = Math.max(1, Math.floor(size / this.#window));
    this.#events = new Array<bigint | null>(this.#count).fill(null);
  }

  push(offset: number, bytes: Uint8Array): void {
    let consumed = 0;
    while (consumed < bytes.byteLength) {
      if (this.#fill > 0 && offset + consumed !== this.#start + this.#fill) this.flush();
      if (this.#fill === 0) {
        this.#start = offset + consumed;
        this.#waitSlot();
      }
      const room = this.#window - this.#fill;
      const take = Math.min(room, bytes.byteLength - consumed);
      const at = this.#slot * this.#window + this.#fill;
      this.#bytes.set(bytes.subarray(consumed, consumed + take), at);
      this.#fill += take;
      consumed += take;
      if (this.#fill === this.#window) this.flush();
    }
  }

  flush(): void {
    if (this.#fill === 0) return;
    const at = this.#slot * this.#window;
    this.driver.enqueue(this.#start, this.#bytes.subarray(at, at + this.#fill));
    let event = this.#events[this.#slot] ?? null;
    if (event === null) {
      event = this.driver.createEvent();
      this.#events[this.#slot] = event;
    }
    this.driver.record(event);
    this.#fill = 0;
    this.#slot = (this.#slot + 1) % this.#count;
  }

  #waitSlot(): void {
    const event = this.#events[this.#slot];
    if (event !== null && event !== undefined) this.driver.waitEvent(event);
  }

  dispose(): void {
    for (const event of this.#events) if (event !== null) this.driver.destroyEvent(event);
  }
}
