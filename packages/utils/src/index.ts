export type { BatchOptions } from './batch-arguments.js';
export type { BatchStrategy } from './batch-rule.js';
export { copyBatch } from './copy-batch.js';
export { type CopyPlan, planCopy } from './copy-plan.js';
export type { CudaArrayInterface, ImportInterfaceOptions } from './cuda-array-interface.js';
export { DLPACK_MAX_NDIM, type FromDLPackOptions } from './dlpack-import.js';
export {
  DLDataTypeCode,
  DTYPE_ITEMSIZE,
  DTYPES,
  type DType,
  type DTypeFormats,
  dlpackToDType,
} from './dtype.js';
export type { ConsumerStreamOptions } from './exchange-stream-order.js';
export type { AxisSlice, SliceRange } from './layout-slicing.js';
export { advise } from './managed-advise.js';
export { discardBatch, discardPrefetchBatch, prefetchBatch } from './managed-batch.js';
export {
  discard,
  discardPrefetch,
  type ManagedOperationOptions,
  type ManagedTargets,
  prefetch,
} from './managed-operations.js';
export type { StridedCopyOptions, StridedCopyReport } from './strided-copy.js';
export {
  type LayoutOrder,
  type RepackOptions,
  StridedLayout,
  type StridedLayoutOptions,
} from './strided-layout.js';
export { StridedMemoryView } from './strided-memory-view.js';
export type { FromBufferOptions, FromHostOptions } from './strided-view-options.js';
export {
  TENSOR_DESCRIPTOR_FORMAT,
  type TensorIpcDescriptor,
  type TensorIpcDescriptorOptions,
} from './tensor-descriptor.js';
