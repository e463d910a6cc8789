// StridedMemoryView.toDLPack: the view's layout as a DLPack struct (@cumem/memory writes it).
import { type Buffer, type DLPackCapsule, exportDLPack, type ToDLPackOptions } from '@cumem/memory';
import { DTYPES } from '../strided/dtype.js';
import type { StridedMemoryView } from '../strided/strided-memory-view.js';

/**
 * Exports `view` (whose Buffer, if any, is `buffer`): the Buffer's memory is held until the
 * consumer is done; a view of other device memory keeps the view (and its exporting object) reachable.
 * @throws TypeError for a view of JS host memory: the engine may move or free it behind a consumer.
 */
export function exportView(
  view: StridedMemoryView,
  buffer: Buffer | undefined,
  options?: ToDLPackOptions,
): DLPackCapsule {
  if (!view.isDeviceAccessible) {
    throw new TypeError(
      'a view of JS host memory has no DLPack export (the engine may free or move it while native code reads it): copy it into a pinned Buffer first',
    );
  }
  const source = {
    pointer: view.ptr,
    shape: view.shape,
    strides: view.strides,
    dtype: DTYPES[view.dtype].dlpack,
    readonly: view.readonly,
  };
  return exportDLPack({ ...source, buffer, keepAlive: view, deviceId: view.deviceId }, options);
}
