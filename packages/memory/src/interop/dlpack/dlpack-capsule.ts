// DLPack export: a capsule owns one native struct (page-locked host memory from the driver) that
// describes memory cumem keeps alive. Native consumers call the struct's deleter from any thread;
// that deleter is the driver's release function (see DriverNativeExchange), which only
// overwrites a word of the struct. cumem sees the change at its next export or import, or by an
// unref'd poll, and only then frees the struct and ends its hold on the memory. No JS runs on
// the consumer's thread, so a consumer blocking the JS thread cannot deadlock the release.
import type { InspectOptionsStylized, inspect } from 'node:util';
import {
  CudaStateError,
  checkOptions,
  describeValue,
  guardMembers,
  hex,
  inspectCustom,
  objectDescription,
} from '@cumem/core-types';
import { queryPointer } from '../../buffer/pointer-info.js';
import { activeRuntime, type DriverRuntime } from '../../runtime/driver-runtime.js';
import { Stream } from '../../stream/stream.js';
import { DLDeviceType, type DLPackTensorFields, structBytes, writeStruct } from './dlpack-struct.js';

/** Options of `toDLPack` (on Buffer, and StridedMemoryView of @cumem/utils). */
export interface ToDLPackOptions {
  /**
   * The consumer's Stream: work pending on the stream the memory was allocated on, open or
   * closed, is ordered before it (an event, no CPU wait). `-1` or omitted: no ordering.
   */
  readonly stream?: Stream | -1;
  /** The newest DLPack version the consumer reads; below `[1, 0]`, a legacy `DLManagedTensor`. Default `[1, 0]`. */
  readonly maxVersion?: readonly [number, number];
}

/**
 * What an export describes: DLPackSource (dlpack-export.ts) without its Buffer, which the
 * export reaches through a {@link DLPackOwner} instead.
 */
export interface ExportedTensor {
  /** Address of element (0, ..., 0). */
  readonly pointer: bigint;
  readonly shape: readonly number[];
  /** In elements. */
  readonly strides: readonly number[];
  /** DLPack's `DLDataType`: type code (kDLInt 0, kDLUInt 1, kDLFloat 2, kDLBfloat 4, ...), bits per lane, lanes. */
  readonly dtype: { readonly code: number; readonly bits: number; readonly lanes: number };
  readonly readonly: boolean;
  /** Kept reachable until the consumer is done (a view of memory with no Buffer). */
  readonly keepAlive: unknown;
  /** Device of the memory (-1 for host memory). */
  readonly deviceId: number;
}

/**
 * What an export needs of the Buffer whose memory it describes (buffer-export-owner.ts makes one
 * from the Buffer's state), so that this module names no Buffer.
 */
export interface DLPackOwner {
  /** The driver runtime the Buffer's memory belongs to: the struct is made and freed through it. */
  readonly runtime: DriverRuntime;
  /** @throws CudaStateError when the Buffer is closed. */
  checkOpen(): void;
  readonly isManaged: boolean;
  readonly isDeviceAccessible: boolean;
  readonly isHostAccessible: boolean;
  /**
   * Records the export of `[start, end)` (so a resize cannot unmap or move those bytes) and holds
   * the memory; the returned function ends both.
   */
  hold(start: bigint, end: bigint): () => void;
  /** The stream the memory was allocated on, whose queued work orders the consumer. */
  readonly allocationStream: Stream | undefined;
}

interface ExportRecord {
  readonly runtime: DriverRuntime;
  readonly struct: bigint;
  bytes: Uint8Array;
  /** The word at offset 0 as written; the release function changes it. */
  readonly initial: number;
  readonly device: number;
  readonly endHold: () => void;
  state: 'exported' | 'consumed' | 'freed';
}

const consumed = new Set<ExportRecord>();
let poll: ReturnType<typeof setInterval> | undefined;
const pollMilliseconds = 20;

function freeRecord(record: ExportRecord): void {
  if (record.state === 'freed') return;
  record.state = 'freed';
  record.bytes = new Uint8Array(0);
  try {
    record.runtime.makeCurrent(record.device);
    record.runtime.driver.memFreeHost(record.struct);
  } catch (error) {
    process.emitWarning(`cumem: freeing a DLPack struct failed: ${(error as Error).message}`, 'CumemWarning');
  } finally {
    record.endHold();
  }
}

/**
 * Frees the structs (and ends the holds) of every consumed export whose deleter has run. Called
 * by each export and import, and on a short timer while any consumed export is outstanding.
 * @returns how many consumed exports are still outstanding.
 */
export function collectReleasedExports(): number {
  for (const record of consumed) {
    const word = new DataView(record.bytes.buffer, record.bytes.byteOffset, 4).getUint32(0, true);
    if (word !== record.initial) {
      consumed.delete(record);
      freeRecord(record);
    }
  }
  if (consumed.size === 0 && poll !== undefined) {
    clearInterval(poll);
    poll = undefined;
  }
  return consumed.size;
}

const unconsumed = new FinalizationRegistry<ExportRecord>((record) => {
  if (record.state === 'exported') freeRecord(record);
});

// The brand (one private-field test), which a Proxy or an object inheriting from a capsule
// fails; `isInstance` also answers for capsules of another copy of the package.
let isCapsule: (value: unknown) => value is DLPackCapsule;

const capsuleToken = Symbol('DLPackCapsule');
const capsuleMarker = Symbol.for('cumem.memory.DLPackCapsule');

/**
 * A DLPack export: `pointer` is the address of a `DLManagedTensorVersioned` (or, when
 * `version[0]` is 0, a legacy `DLManagedTensor`) in native memory. Hand it to native code with
 * {@link consume}; that code then owns it and calls its deleter (from any thread) when done,
 * and cumem keeps the memory allocated until then, even if the Buffer is closed in JS. A
 * capsule never consumed is released by {@link close}, `using`, or garbage collection.
 */
export class DLPackCapsule {
  /** Address of the struct. */
  readonly pointer: bigint;
  /** The DLPack version of the struct: `[1, 0]`, or `[0, 8]` for a legacy `DLManagedTensor`. */
  readonly version: readonly [number, number];
  readonly #record: ExportRecord;

  private constructor(token: symbol, record: ExportRecord, versioned: boolean) {
    if (token !== capsuleToken)
      throw new TypeError('DLPackCapsule has no public constructor: use toDLPack()');
    this.#record = record;
    this.pointer = record.struct;
    this.version = Object.freeze(versioned ? [1, 0] : [0, 8]) as readonly [number, number];
    unconsumed.register(this, record, record);
    Object.freeze(this);
  }

  /** True for a DLPackCapsule, also one made by another copy of this package. */
  static isInstance(value: unknown): value is DLPackCapsule {
    return (
      typeof value === 'object' &&
      value !== null &&
      (value as Record<symbol, unknown>)[capsuleMarker] === true
    );
  }

  /** True once consumed or closed. */
  get isClosed(): boolean {
    return this.#record.state !== 'exported';
  }

  /**
   * Hands the struct to native code, which must call its deleter exactly once.
   * @returns {@link pointer}.
   * @throws CudaStateError when already consumed or closed.
   */
  consume(): bigint {
    const record = this.#record;
    if (record.state !== 'exported')
      throw new CudaStateError('the DLPack capsule was already consumed or closed');
    record.state = 'consumed';
    unconsumed.unregister(record);
    consumed.add(record);
    poll ??= setInterval(collectReleasedExports, pollMilliseconds).unref();
    return this.pointer;
  }

  /** Releases an unconsumed capsule (frees the struct, ends the hold); nothing once consumed. Idempotent. */
  close(): void {
    const record = this.#record;
    if (record.state !== 'exported') return;
    unconsumed.unregister(record);
    freeRecord(record);
  }

  [Symbol.dispose](): void {
    this.close();
  }

  get [capsuleMarker](): true {
    return true;
  }

  static readonly #description = objectDescription(
    'DLPackCapsule',
    (value): value is DLPackCapsule => isCapsule(value),
    (capsule) => {
      const state = capsule.#record.state;
      return {
        pointer: hex(capsule.pointer),
        version: capsule.version.join('.'),
        state,
        closed: state !== 'exported',
      };
    },
  );

  /** `DLPackCapsule(pointer: 0x…, version: 1.0, state: exported, closed: false)`: the struct's address, and whether a consumer took it (`consumed`) or it was released (`freed`). */
  toString(): string {
    return DLPackCapsule.#description.text(this);
  }

  /** What `util.inspect` shows: the facts of {@link DLPackCapsule.toString}. */
  [inspectCustom](depth: number, options: InspectOptionsStylized, nodeInspect: typeof inspect): string {
    return DLPackCapsule.#description.inspect(this, depth, options, nodeInspect);
  }

  static {
    isCapsule = (value) => typeof value === 'object' && value !== null && #record in value;
  }
}

guardMembers(DLPackCapsule, (value) => isCapsule(value), ['toString', inspectCustom]);

interface ExportOptions {
  readonly versioned: boolean;
  readonly stream: Stream | undefined;
}

// What `toDLPack()` without options asks for: the current struct version, no stream ordering.
const defaultExport: ExportOptions = Object.freeze({ versioned: true, stream: undefined });

/** Checks `toDLPack` options before any driver call. */
function checkExportOptions(options: ToDLPackOptions | undefined): ExportOptions {
  if (options === undefined) return defaultExport;
  const { stream, maxVersion } = checkOptions(options);
  let versioned = true;
  if (maxVersion !== undefined) {
    if (
      !Array.isArray(maxVersion) ||
      maxVersion.length !== 2 ||
      !maxVersion.every((part) => Number.isSafeInteger(part) && part >= 0)
    ) {
      throw new TypeError(
        `maxVersion must be [major, minor] (non-negative integers), got ${describeValue(maxVersion)}`,
      );
    }
    versioned = maxVersion[0] >= 1;
  }
  if (stream === undefined || stream === -1) return { versioned, stream: undefined };
  if (!Stream.isStream(stream)) {
    throw new TypeError(`stream must be a Stream of @cumem/memory or -1, got ${describeValue(stream)}`);
  }
  if (stream.isClosed) throw CudaStateError.closed('Stream');
  return { versioned, stream };
}

// The device a consumer reads the memory on, from what can access it, as cuda.core's
// `__dlpack_device__`: managed memory is kDLCUDAManaged; memory the device and the CPU can both
// use (page-locked) kDLCUDAHost; the device only, kDLCUDA; the CPU only (pageable memory
// wrapped by Buffer.fromHandle), kDLCPU, which a consumer must not hand to a kernel. Memory
// neither can access (a virtual range without access) is refused: no device type describes it.
function deviceOf(
  runtime: DriverRuntime,
  source: ExportedTensor,
  owner: DLPackOwner | undefined,
): { deviceType: number; deviceId: number } {
  const { isManaged, isDeviceAccessible, isHostAccessible } = owner ?? queryPointer(runtime, source.pointer);
  if (isManaged) return { deviceType: DLDeviceType.CUDAManaged, deviceId: Math.max(source.deviceId, 0) };
  if (isDeviceAccessible && isHostAccessible) return { deviceType: DLDeviceType.CUDAHost, deviceId: 0 };
  if (isDeviceAccessible) return { deviceType: DLDeviceType.CUDA, deviceId: source.deviceId };
  if (isHostAccessible) return { deviceType: DLDeviceType.CPU, deviceId: 0 };
  throw new TypeError(
    'toDLPack: no device and no host can access this memory, so no DLPack device describes it',
  );
}

// The bytes the tensor's elements cover, `[start, end)` (negative strides reach below the
// pointer), for the export registry.
function tensorExtent(source: ExportedTensor): { start: bigint; end: bigint } {
  const { pointer, shape, strides, dtype } = source;
  const elementBytes = BigInt(Math.ceil((dtype.bits * dtype.lanes) / 8));
  let low = 0n;
  let high = 0n;
  for (let axis = 0; axis < shape.length; axis++) {
    const extent = shape[axis] as number;
    if (extent === 0) return { start: pointer, end: pointer };
    const reach = BigInt(extent - 1) * BigInt(strides[axis] as number) * elementBytes;
    if (reach < 0n) low += reach;
    else high += reach;
  }
  return { start: pointer + low, end: pointer + high + elementBytes };
}

/**
 * Exports checked `source` as a DLPack struct (see {@link DLPackCapsule}), the memory of
 * `owner`'s Buffer or, without one, kept alive through `source.keepAlive`. The device it names
 * follows what can access the memory (`kDLCPU` for pageable memory). An export of a Buffer is
 * recorded in the export registry until released, so a resize cannot unmap or move its bytes.
 * @throws TypeError for bad options or memory neither a device nor the host can access;
 *   CudaStateError for a closed buffer or stream.
 */
export function exportTensor(
  source: ExportedTensor,
  owner: DLPackOwner | undefined,
  options: ToDLPackOptions | undefined,
): DLPackCapsule {
  const { versioned, stream } = checkExportOptions(options);
  if (owner !== undefined) owner.checkOpen();
  collectReleasedExports();
  // A Buffer's export goes through its own driver, whichever useDriver() chose since.
  const runtime = owner?.runtime ?? activeRuntime();
  const driver = runtime.driver;
  const device = deviceOf(runtime, source, owner);
  // data 256-byte aligned as dlpack.h asks, the rest in byte_offset. For a legacy struct the low
  // word of data is what the release function overwrites: it must differ from what it writes.
  let data = source.pointer & ~255n;
  if (!versioned && Number(data & 0xffff_ffffn) === driver.driverVersion) data -= 256n;
  const fields: DLPackTensorFields = { ...source, ...device, data, byteOffset: source.pointer - data };
  const size = structBytes(versioned, source.shape.length);
  const contextDevice = Math.max(source.deviceId, 0);
  runtime.makeCurrent(contextDevice);
  const releaseFunction = driver.nativeReleaseFunction();
  const struct = driver.memHostAlloc(size, 0);
  let endHold: () => void = () => {};
  try {
    const bytes = driver.hostView(struct, size);
    writeStruct(bytes, struct, versioned, fields, releaseFunction);
    const initial = new DataView(bytes.buffer, bytes.byteOffset, 4).getUint32(0, true);
    if (owner !== undefined) {
      const { start, end } = tensorExtent(source);
      endHold = owner.hold(start, end);
    } else {
      let kept: unknown = source.keepAlive;
      endHold = () => {
        kept = undefined;
        return kept;
      };
    }
    if (stream !== undefined) {
      const producer = owner?.allocationStream;
      // Closed or open, the producer's queued work orders the consumer (Stream.wait's rule).
      if (producer !== undefined) stream.wait(producer);
    }
    const record: ExportRecord = {
      runtime,
      struct,
      bytes,
      initial,
      device: contextDevice,
      endHold,
      state: 'exported',
    };
    return new (DLPackCapsule as unknown as new (t: symbol, r: ExportRecord, v: boolean) => DLPackCapsule)(
      capsuleToken,
      record,
      versioned,
    );
  } catch (error) {
    endHold();
    driver.memFreeHost(struct);
    throw error;
  }
}
