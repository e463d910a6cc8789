// DLPack import: take ownership of a DLManagedTensorVersioned (or legacy DLManagedTensor) made
// by native code, check it against the driver, and call the producer's deleter exactly once,
// when the view is closed or collected. Every field is read with the driver's readNativeMemory,
// so a dangling pointer is a RangeError, not a crash. Until every check passed, ownership stays
// with the caller (the deleter is not called).
import {
  CudaStateError,
  checkAddress,
  checkBoolean,
  type Driver,
  MemoryType,
  NotSupportedError,
  PointerAttribute,
} from '@cumem/core-types';
import { collectReleasedExports, currentDriver, DLPackCapsule, Buffer as MemoryBuffer } from '@cumem/memory';
import { bufferState, dlpackStruct } from '@cumem/memory/internal';
import { DTYPES, type DType, dlpackToDType } from '../strided/dtype.js';
import type { StridedLayout } from '../strided/strided-layout.js';
import { importInterface } from './cuda-array-interface.js';
import { type ConsumerStreamOptions, checkConsumerStream } from './exchange-stream-order.js';

const { DLDeviceType, DLPACK_FLAG_READ_ONLY, LegacyField, TensorField, VersionedField } = dlpackStruct;

/** Options of `StridedMemoryView.fromDLPack`. */
export interface FromDLPackOptions extends ConsumerStreamOptions {
  /**
   * For a raw pointer: true (default) when it points to a `DLManagedTensorVersioned`, false for
   * a legacy `DLManagedTensor`. A {@link DLPackCapsule} says itself.
   */
  readonly versioned?: boolean;
}

/** The most axes an imported tensor may have (as cuda.core and NumPy). */
export const DLPACK_MAX_NDIM = 32;

/** Who owns an imported struct: closed (and the deleter called) once. */
class ImportedStruct {
  isClosed = false;
  constructor(
    private readonly driver: Driver,
    private readonly deleter: bigint,
    private readonly pointer: bigint,
  ) {}

  release(): void {
    if (this.isClosed) return;
    this.isClosed = true;
    if (this.deleter !== 0n) this.driver.callNativeFunction(this.deleter, this.pointer);
  }
}

const collected = new FinalizationRegistry<ImportedStruct>((owner) => {
  try {
    owner.release();
  } catch (error) {
    process.emitWarning(`cumem: a DLPack deleter failed: ${(error as Error).message}`, 'CumemWarning');
  }
});

/** What {@link importDLPack} returns: a Buffer (its owner is the struct) and how to view it. */
export interface ImportedDLPack {
  readonly buffer: MemoryBuffer;
  readonly layout: StridedLayout;
  readonly dtype: DType;
  readonly readonly: boolean;
  /**
   * For a tensor of no elements, whose empty buffer has no byte to ask the driver about: the
   * device its struct names, which the view reports (as cuda.core's view of it does).
   */
  readonly empty?: { readonly deviceId: number; readonly isDeviceAccessible: boolean };
}

/** Calls the deleter of the DLPack struct behind `buffer`, if it is one; idempotent. */
export function closeImportedStruct(buffer: MemoryBuffer | undefined): void {
  const owner = buffer === undefined ? undefined : bufferState(buffer).owner;
  if (owner instanceof ImportedStruct) {
    collected.unregister(owner);
    owner.release();
  }
}

function int64(view: DataView, offset: number, what: string): number {
  const value = view.getBigInt64(offset, true);
  if (value > BigInt(Number.MAX_SAFE_INTEGER) || value < -BigInt(Number.MAX_SAFE_INTEGER)) {
    throw new RangeError(`DLPack ${what} ${value} is outside the safe integer range (2**53)`);
  }
  return Number(value);
}

function readInt64s(driver: Driver, address: bigint, count: number, what: string): number[] {
  if (address === 0n) throw new RangeError(`DLPack ${what} is a null pointer for ${count} axes`);
  const view = new DataView(driver.readNativeMemory(address, 8 * count).buffer);
  return Array.from({ length: count }, (_, axis) => int64(view, 8 * axis, `${what}[${axis}]`));
}

// The driver must know the memory as the device type says.
function checkDeviceType(driver: Driver, pointer: bigint, deviceType: number, deviceId: number): void {
  const managed = driver.pointerGetAttribute(pointer, PointerAttribute.IsManaged) !== 0;
  const host = driver.pointerGetAttribute(pointer, PointerAttribute.MemoryType) === MemoryType.Host;
  const ok =
    deviceType === DLDeviceType.CUDAManaged
      ? managed
      : deviceType === DLDeviceType.CUDA
        ? !managed &&
          !host &&
          driver.pointerGetAttribute(pointer, PointerAttribute.DeviceOrdinal) === deviceId
        : host && !managed;
  if (!ok) {
    throw new TypeError(
      `DLPack device (type ${deviceType}, id ${deviceId}) does not match the memory the driver knows at 0x${pointer.toString(16)}`,
    );
  }
}

/**
 * Reads, checks and takes ownership of a DLPack struct (see {@link FromDLPackOptions}).
 * @throws TypeError (unknown dtype or device type, memory of another kind), RangeError (null,
 *   unaligned or unreadable pointers, ndim over 32, sizes past 2**53, elements outside the
 *   allocation), NotSupportedError (a DLPack major version other than 1), CudaStateError (a consumed capsule).
 */
export function importDLPack(source: unknown, options?: FromDLPackOptions): ImportedDLPack {
  checkConsumerStream(options);
  const { versioned: versionedOption = true } = options ?? {};
  checkBoolean(versionedOption, 'versioned');
  const capsule = DLPackCapsule.isInstance(source) ? source : undefined;
  if (capsule?.isClosed) throw new CudaStateError('the DLPack capsule was already consumed or closed');
  const pointer = capsule ? capsule.pointer : checkAddress(source, 'pointer');
  const versioned = capsule ? capsule.version[0] >= 1 : versionedOption;
  if (pointer === 0n) throw new RangeError('the DLPack pointer is null');
  if (pointer % 8n !== 0n)
    throw new RangeError(`the DLPack pointer 0x${pointer.toString(16)} is not 8-byte aligned`);
  collectReleasedExports();
  const driver = currentDriver();
  const header = new DataView(
    driver.readNativeMemory(pointer, versioned ? VersionedField.size : LegacyField.size).buffer,
  );
  let tensor: number = LegacyField.tensor;
  let deleterAt: number = LegacyField.deleter;
  let readonly = false;
  if (versioned) {
    const major = header.getUint32(VersionedField.major, true);
    if (major !== 1) throw new NotSupportedError(`DLPack major version ${major} (cumem reads 1)`);
    readonly = (header.getBigUint64(VersionedField.flags, true) & DLPACK_FLAG_READ_ONLY) !== 0n;
    tensor = VersionedField.tensor;
    deleterAt = VersionedField.deleter;
  }
  const deleter = header.getBigUint64(deleterAt, true);
  const ndim = header.getInt32(tensor + TensorField.ndim, true);
  if (ndim < 0 || ndim > DLPACK_MAX_NDIM)
    throw new RangeError(`DLPack ndim ${ndim} is not from 0 to ${DLPACK_MAX_NDIM}`);
  const dtype = dlpackToDType(
    header.getUint8(tensor + TensorField.dtypeCode),
    header.getUint8(tensor + TensorField.dtypeBits),
    header.getUint16(tensor + TensorField.dtypeLanes, true),
  );
  const deviceType = header.getInt32(tensor + TensorField.deviceType, true);
  const deviceId = header.getInt32(tensor + TensorField.deviceId, true);
  if (
    ![DLDeviceType.CPU, DLDeviceType.CUDA, DLDeviceType.CUDAHost, DLDeviceType.CUDAManaged].includes(
      deviceType as 1,
    )
  ) {
    throw new TypeError(
      `DLPack device type ${deviceType} is not one cumem maps (kDLCPU 1, kDLCUDA 2, kDLCUDAHost 3, kDLCUDAManaged 13)`,
    );
  }
  const shape =
    ndim === 0
      ? []
      : readInt64s(driver, header.getBigUint64(tensor + TensorField.shape, true), ndim, 'shape');
  const stridesAt = header.getBigUint64(tensor + TensorField.strides, true);
  const itemsize = DTYPES[dtype].itemsize;
  const strides =
    ndim === 0 || stridesAt === 0n
      ? null
      : readInt64s(driver, stridesAt, ndim, 'strides').map((s) => s * itemsize);
  const data = header.getBigUint64(tensor + TensorField.data, true);
  const element =
    (data + header.getBigUint64(tensor + TensorField.byteOffset, true)) & 0xffff_ffff_ffff_ffffn;
  // The CUDA Array Interface importer checks shape, strides and the allocation range.
  const cudaArrayInterface = {
    shape,
    typestr: DTYPES[dtype].typestr,
    data: [element, readonly],
    strides,
    version: 3,
  };
  const imported = importInterface({ cudaArrayInterface }, { stream: -1 });
  const span = imported.layout.volume === 0 ? 0 : imported.layout.requiredSizeInBytes();
  if (span > 0) checkDeviceType(driver, element, deviceType, deviceId);
  // Every check passed: the struct is ours from here.
  capsule?.consume();
  const owner = new ImportedStruct(driver, deleter, pointer);
  let buffer: MemoryBuffer;
  try {
    buffer = MemoryBuffer.fromHandle(span === 0 ? 0n : imported.base, span, { owner });
  } catch (error) {
    owner.release();
    throw error;
  }
  collected.register(buffer, owner, owner);
  if (span > 0) return { buffer, layout: imported.layout, dtype, readonly };
  // No byte to query the driver about: the struct's device type and id are the facts.
  const onDevice = deviceType === DLDeviceType.CUDA || deviceType === DLDeviceType.CUDAManaged;
  const empty = { deviceId: onDevice ? deviceId : -1, isDeviceAccessible: deviceType !== DLDeviceType.CPU };
  return { buffer, layout: imported.layout, dtype, readonly, empty };
}

/**
 * What `value.toDLPack({ stream, maxVersion: [1, 0] })` returns when `value` has that method
 * (the consumer stream passed on, so the producer orders its work before it), else undefined.
 * A Buffer of @cumem/memory never comes here: StridedMemoryView.from views it directly.
 */
export function producerDLPack(value: unknown, options: unknown): unknown {
  const toDLPack = (value as { toDLPack?: unknown } | null)?.toDLPack;
  if (typeof toDLPack !== 'function') return undefined;
  const stream = checkConsumerStream(options);
  const request = { stream: stream === null ? -1 : stream, maxVersion: [1, 0] as const };
  return (toDLPack as (this: unknown, request: unknown) => unknown).call(value, request);
}
