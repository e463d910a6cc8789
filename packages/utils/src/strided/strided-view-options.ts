// The options and the internal state of a StridedMemoryView (kept apart to keep the class file short).
import type { Buffer } from '@cumem/memory';
import type { ImportHold } from '../exchange/cuda-array-interface.js';
import type { DType } from './dtype.js';
import type { StridedMemoryView } from './strided-memory-view.js';

/** Options of {@link StridedMemoryView.fromBuffer}. */
export interface FromBufferOptions {
  /** Element type; default the unsigned integer of the layout's itemsize. Its size must equal the layout's itemsize. */
  readonly dtype?: DType;
  /** Refuse writes through this view (copyFrom). Default false. */
  readonly isReadonly?: boolean;
}

/** Options of {@link StridedMemoryView.fromHost}. */
export interface FromHostOptions {
  /** Elements per axis; default `[array.length]`. */
  readonly shape?: readonly number[];
  /** Strides in elements; default dense C order. */
  readonly strides?: readonly number[] | null;
}

/** @internal What a view is made from: its public fields (typed as the class declares them) and the memory. */
export interface ViewState
  extends Pick<
    StridedMemoryView,
    'layout' | 'dtype' | 'readonly' | 'deviceId' | 'isDeviceAccessible' | 'exportingObject'
  > {
  /** Address of element offset 0 of the layout. */
  readonly base: bigint;
  /** JS memory from `base` on, for views of host arrays. */
  readonly hostBytes: Uint8Array | undefined;
  /** Bytes available from `base`, when known. */
  readonly capacity: number | undefined;
  /** The Buffer whose closing invalidates the view. */
  readonly buffer: Buffer | undefined;
  /** A CUDA Array Interface import's hold on its bytes (released by close()), shared by derived views. */
  readonly importHold?: ImportHold | undefined;
}
