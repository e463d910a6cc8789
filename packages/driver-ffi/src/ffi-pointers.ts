// cuPointerGetAttribute. The driver writes values of different widths (unsigned int, int, a
// boolean, size_t, a handle); the scratch slot is zeroed first and read at the attribute's width.

import type { DevicePointer } from '@cumem/core-types';
import type { DriverState } from './driver-state.js';
import { handleArgument, intArgument } from './handle-argument.js';

const CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL = 9;
const CU_POINTER_ATTRIBUTE_RANGE_SIZE = 12;
const CU_POINTER_ATTRIBUTE_ALLOWED_HANDLE_TYPES = 14;

function query(state: DriverState, pointer: DevicePointer, attribute: number): void {
  const attributeChecked = intArgument(attribute, 'attribute');
  const { address, u64 } = state.scratch;
  u64[0] = 0n;
  state.check(
    state.native.cuPointerGetAttribute(address, attributeChecked, handleArgument(pointer, 'pointer')),
    'cuPointerGetAttribute',
  );
}

export function pointerGetAttribute(state: DriverState, pointer: DevicePointer, attribute: number): number {
  query(state, pointer, attribute);
  const { u64, i32, u32 } = state.scratch;
  switch (attribute) {
    case CU_POINTER_ATTRIBUTE_RANGE_SIZE:
    case CU_POINTER_ATTRIBUTE_ALLOWED_HANDLE_TYPES:
      return Number(u64[0]);
    case CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL:
      return i32[0]!;
    default:
      // unsigned int values and booleans (1 or 4 bytes, little-endian, over a zeroed slot).
      return u32[0]!;
  }
}

export function pointerGetHandleAttribute(
  state: DriverState,
  pointer: DevicePointer,
  attribute: number,
): bigint {
  query(state, pointer, attribute);
  return state.scratch.u64[0]!;
}
