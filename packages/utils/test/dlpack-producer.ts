// Test support: a "native producer" of DLPack structs written in JS memory (which every driver
// can read at its addressOf), for the import tests on the reference driver and both adapters.
import type { Driver } from '@cumem/core-types';
import { dlpackStruct } from '@cumem/memory/internal';

const { DLDeviceType, dlpackStructSize, writeDLPackStruct } = dlpackStruct;

/** Fields of a produced struct; defaults: a 1-D uint8 tensor of `length` bytes on device 0. */
export interface ProducedTensor {
  readonly element: bigint;
  readonly shape: readonly number[];
  readonly strides?: readonly number[];
  readonly dtype?: { code: number; bits: number; lanes: number };
  readonly deviceType?: number;
  readonly deviceId?: number;
  readonly readonly?: boolean;
  readonly versioned?: boolean;
  readonly deleter: bigint;
}

/** The struct's bytes (keep them reachable while the import may read them) and its address. */
export function produceDLPack(
  driver: Driver,
  tensor: ProducedTensor,
): { bytes: Uint8Array; pointer: bigint } {
  const versioned = tensor.versioned ?? true;
  // 8-byte aligned JS memory: a BigUint64Array's buffer.
  const words = new BigUint64Array(Math.ceil(dlpackStructSize(versioned, tensor.shape.length) / 8));
  const bytes = new Uint8Array(words.buffer);
  const pointer = driver.addressOf(bytes);
  const strides = tensor.strides ?? denseStrides(tensor.shape);
  writeDLPackStruct(
    bytes,
    pointer,
    versioned,
    {
      data: tensor.element,
      byteOffset: 0n,
      deviceType: tensor.deviceType ?? DLDeviceType.CUDA,
      deviceId: tensor.deviceId ?? 0,
      shape: tensor.shape,
      strides,
      dtype: tensor.dtype ?? { code: 1, bits: 8, lanes: 1 },
      readonly: tensor.readonly ?? false,
    },
    tensor.deleter,
  );
  return { bytes, pointer };
}

function denseStrides(shape: readonly number[]): number[] {
  const strides = new Array<number>(shape.length).fill(1);
  for (let axis = shape.length - 2; axis >= 0; axis--) strides[axis] = strides[axis + 1]! * shape[axis + 1]!;
  return strides;
}
