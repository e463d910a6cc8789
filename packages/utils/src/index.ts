export type { BatchOptions } from './batch/batch-arguments.js';
export type { BatchStrategy } from './batch/batch-rule.js';
export { copyBatch } from './batch/copy-batch.js';
export type { CudaArrayInterface, ImportInterfaceOptions } from './exchange/cuda-array-interface.js';
export { DLPACK_MAX_NDIM, type FromDLPackOptions } from './exchange/dlpack-import.js';
export type { ConsumerStreamOptions } from './exchange/exchange-stream-order.js';
export {
  TENSOR_DESCRIPTOR_FORMAT,
  type TensorIpcDescriptor,
  type TensorIpcDescriptorOptions,
} from './exchange/tensor-descriptor.js';
export { advise } from './managed/managed-advise.js';
export { discardBatch, discardPrefetchBatch, prefetchBatch } from './managed/managed-batch.js';
export {
  discard,
  discardPrefetch,
  type ManagedOperationOptions,
  type ManagedTargets,
  prefetch,
} from './managed/managed-operations.js';
export { type CopyPlan, planCopy } from './strided/copy-plan.js';
export {
  DLDataTypeCode,
  DTYPE_ITEMSIZE,
  DTYPES,
  type DType,
  type DTypeFormats,
  dlpackToDType,
} from './strided/dtype.js';
export type { AxisSlice, SliceRange } from './strided/layout-slicing.js';
export type { StridedCopyOptions, StridedCopyReport } from './strided/strided-copy.js';
export {
  type LayoutOrder,
  type RepackOptions,
  StridedLayout,
  type StridedLayoutOptions,
} from './strided/strided-layout.js';
export { StridedMemoryView } from './strided/strided-memory-view.js';
export type { FromBufferOptions, FromHostOptions } from './strided/strided-view-options.js';
