// What a StridedMemoryView is made from (its ViewState) for each kind of memory, and the checks
// every state passes before a view holds it; the class (strided-memory-view.ts) calls these.
import {
  CudaStateError,
  checkBoolean,
  checkOptions,
  describeValue,
  viewByteLength,
  viewBytes,
} from '@cumem/core-types';
import { type Buffer, bufferBrand, currentDriver } from '@cumem/memory';
import { bufferState } from '@cumem/memory/internal';
import { refuseLookalike } from '../brand-guard.js';
import { checkConsumerStream, orderAfterBuffer } from '../exchange/exchange-stream-order.js';
import { checkDType, DTYPE_ITEMSIZE, defaultDTypeFor, dtypeOfTypedArray } from './dtype.js';
import { StridedLayout } from './strided-layout.js';
import type { FromBufferOptions, FromHostOptions, ViewState } from './strided-view-options.js';

/** @internal The state of StridedMemoryView.fromBuffer's view, its arguments checked. */
export function bufferViewState(
  buffer: Buffer,
  layout: StridedLayout,
  options?: FromBufferOptions,
): ViewState {
  if (!bufferBrand.has(buffer)) refuseLookalike(buffer, 'buffer');
  bufferBrand.check(buffer, 'buffer');
  if (!StridedLayout.isInstance(layout))
    throw new TypeError(`layout must be a StridedLayout, got ${describeValue(layout)}`);
  const { dtype, isReadonly = false } = checkOptions(options);
  checkBoolean(isReadonly, 'isReadonly');
  if (bufferState(buffer).isClosed) throw CudaStateError.closed('Buffer');
  return {
    layout,
    dtype: dtype === undefined ? defaultDTypeFor(layout.itemsize) : checkDType(dtype),
    readonly: isReadonly,
    deviceId: bufferState(buffer).deviceId,
    isDeviceAccessible: bufferState(buffer).isDeviceAccessible,
    exportingObject: buffer,
    base: bufferState(buffer).pointer,
    hostBytes: undefined,
    capacity: bufferState(buffer).size,
    buffer,
  };
}

/**
 * @internal The state of StridedMemoryView.from's view of a whole Buffer (uint8, every byte),
 * with the consumer stream of `options` ordered after the buffer's producer on the GPU: every
 * argument checked first, then the one driver call of the ordering.
 */
export function orderedBufferViewState(buffer: Buffer, options: unknown): ViewState {
  const consumer = checkConsumerStream(options);
  const state = bufferViewState(buffer, StridedLayout.dense([bufferState(buffer).size], 1));
  orderAfterBuffer(buffer, consumer, state.deviceId);
  return state;
}

/** @internal The state of StridedMemoryView.fromHost's view. */
export function hostViewState(array: ArrayBufferView, options?: FromHostOptions): ViewState {
  const dtype = dtypeOfTypedArray(array);
  const itemsize = DTYPE_ITEMSIZE[dtype];
  const { shape, strides = null } = checkOptions(options);
  // The array's real memory (viewBytes): byteLength, byteOffset or buffer properties a program
  // defined on the instance must not size or place the view.
  const bytes = viewBytes(array);
  const length = viewByteLength(bytes) / itemsize;
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
    capacity: viewByteLength(bytes),
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
