// The handle types every area of the Driver contract passes.

/** A device or unified-address pointer (`CUdeviceptr`, or a host pointer under UVA). */
export type DevicePointer = bigint;
/** An opaque driver handle: `CUcontext`, `CUstream`, `CUevent` or `CUmemoryPool`. `0n` is the null handle. */
export type DriverHandle = bigint;
/** Either end of a 2D/3D copy: a unified-address pointer, or JS host memory (its first byte). */
export type CopyEndpoint = DevicePointer | ArrayBufferView;
