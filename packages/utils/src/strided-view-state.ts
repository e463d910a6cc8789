// What a StridedMemoryView is made from (its ViewState) for each kind of memory, and the checks
// every state passes before a view holds it; the class (strided-memory-view.ts) calls these.
import { CudaStateError, checkBoolean, checkOptions, describeValue, viewBytes } from '@cumem/core-types';
import { type Buffer, bufferBrand, currentDriver } from '@cumem/memory';
import {
  bufferByteSize,
  bufferDeviceId,
  bufferIsClosed,
  bufferIsDeviceAccessible,
  bufferPointer,
} from '@cumem/memory/internal';
import { checkDType, DTYPE_ITEMSIZE, defaultDTypeFor, dtypeOfTypedArray } from './dtype.js';
import { StridedLayout } from './strided-layout.js';
import type { FromBufferOptions, FromHostOptions, ViewState } from './strided-view-options.js';

/** @internal The state of StridedMemoryView.fromBuffer's view, its arguments checked. */
export function bufferViewState(
  buffer: Buffer,
  layout: StridedLayout,
  options?: FromBufferOptions,
): ViewState {
  bufferBrand.check(buffer, 'buffer');
  if (!StridedLayout.isInstance(layout))
    throw new TypeError(`layout must be a StridedLayout, got ${describeValue(layout)}`);
  const { dtype, isReadonly = false } = checkOptions(options);
  checkBoolean(isReadonly, 'isReadonly');
  if (bufferIsClosed(buffer)) throw CudaStateError.closed('Buffer');
  return {
    layout,
    dtype: dtype === undefined ? defaultDTypeFor(layout.itemsize) : checkDType(dtype),
    readonly: isReadonly,
    deviceId: bufferDeviceId(buffer),
    isDeviceAccessible: bufferIsDeviceAccessible(buffer),
    exportingObject: buffer,
    base: bufferPointer(buffer),
    hostBytes: undefined,
    capacity: bufferByteSize(buffer),
    buffer,
  };
}

/** @internal The state of StridedMemoryView.fromHost's view. */
export function hostViewState(array: ArrayBufferView, options?: FromHostOptions): ViewState {
  const dtype = dtypeOfTypedArray(array);
  const itemsize = DTYPE_ITEMSIZE[dtype];
  const { shape, strides = null } = checkOptions(options);
  // The memory as V8 counts it: the array's own byteLength, byteOffset or buffer properties
  // (Object.defineProperty on the instance) must not size or place the view.
  const bytes = viewBytes(array);
  const length = bytes.byteLength / itemsize;
  const layout = new StridedLayout(shape ?? [length], strides, itemsize);
  return {
    layout,
    dtype,
    readonly: false,
    deviceId: -1,
    isDeviceAccessible: false,
    exportingObject: array,
    base: currentDriver().addressOf(bytes),
    hostBytes: bytes,
    capacity: bytes.byteLength,
    buffer: undefined,
  };
}

/** @internal Refuses a state whose dtype and layout disagree, or whose layout needs more memory than there is. */
export function checkViewState(state: ViewState): void {
  if (DTYPE_ITEMSIZE[state.dtype] !== state.layout.itemsize) {
    throw new TypeError(
      `dtype ${state.dtype} has ${DTYPE_ITEMSIZE[state.dtype]}-byte elements, the layout ${state.layout.itemsize}`,
    );
  }
  if (state.capacity !== undefined && state.layout.requiredSizeInBytes() > state.capacity) {
    throw new RangeError(
      `the layout needs ${state.layout.requiredSizeInBytes()} bytes, the memory has ${state.capacity}`,
    );
  }
}
