// Every C struct the adapter hands to libcuda, with the layout of cuda.h (CUDA 13.0). Structs are
// anonymous koffi types: named ones live in one process-wide registry, and a second copy of this
// module (a test runner re-importing it, a nested install) would fail on a duplicate name.
//
// Pointer and handle members are declared as 64-bit integers rather than `void *`: the adapter
// holds addresses as bigint, and on the 64-bit targets libcuda supports the two have one layout.
// `test/struct-layout.test.ts` compares every size and offset with the C compiler's view of cuda.h.

import type { Koffi } from './koffi-module.js';

/** The koffi types of the C structs the adapter uses. */
export type DriverStructs = ReturnType<typeof defineStructs>;

let cached: { koffi: Koffi; structs: DriverStructs } | undefined;

/** The struct types, defined once per koffi instance. */
export function driverStructs(koffi: Koffi): DriverStructs {
  if (cached?.koffi !== koffi) cached = { koffi, structs: defineStructs(koffi) };
  return cached.structs;
}

function defineStructs(koffi: Koffi) {
  /** `CUmemLocation`: `{ CUmemLocationType type; int id; }`, 8 bytes. */
  const CUmemLocation = koffi.struct({ type: 'int', id: 'int' });

  /** `CUmemAccessDesc`: a location and its `CUmemAccess_flags`, 12 bytes. */
  const CUmemAccessDesc = koffi.struct({ location: CUmemLocation, flags: 'int' });

  /** `CUmemPoolProps` (88 bytes); `reserved` must be zero, which koffi writes for omitted members. */
  const CUmemPoolProps = koffi.struct({
    allocType: 'int',
    handleTypes: 'int',
    location: CUmemLocation,
    win32SecurityAttributes: 'uint64_t',
    maxSize: 'size_t',
    usage: 'uint16_t',
    reserved: koffi.array('uint8_t', 54),
  });

  /** `CUDA_MEMCPY2D` (the `_v2` layout with `size_t` members), 128 bytes. */
  const CUDA_MEMCPY2D = koffi.struct({
    srcXInBytes: 'size_t',
    srcY: 'size_t',
    srcMemoryType: 'int',
    srcHost: 'uint64_t',
    srcDevice: 'uint64_t',
    srcArray: 'uint64_t',
    srcPitch: 'size_t',
    dstXInBytes: 'size_t',
    dstY: 'size_t',
    dstMemoryType: 'int',
    dstHost: 'uint64_t',
    dstDevice: 'uint64_t',
    dstArray: 'uint64_t',
    dstPitch: 'size_t',
    WidthInBytes: 'size_t',
    Height: 'size_t',
  });

  /** `CUDA_MEMCPY3D` (the `_v2` layout), 200 bytes. `reserved0`/`reserved1` must be NULL. */
  const CUDA_MEMCPY3D = koffi.struct({
    srcXInBytes: 'size_t',
    srcY: 'size_t',
    srcZ: 'size_t',
    srcLOD: 'size_t',
    srcMemoryType: 'int',
    srcHost: 'uint64_t',
    srcDevice: 'uint64_t',
    srcArray: 'uint64_t',
    reserved0: 'uint64_t',
    srcPitch: 'size_t',
    srcHeight: 'size_t',
    dstXInBytes: 'size_t',
    dstY: 'size_t',
    dstZ: 'size_t',
    dstLOD: 'size_t',
    dstMemoryType: 'int',
    dstHost: 'uint64_t',
    dstDevice: 'uint64_t',
    dstArray: 'uint64_t',
    reserved1: 'uint64_t',
    dstPitch: 'size_t',
    dstHeight: 'size_t',
    WidthInBytes: 'size_t',
    Height: 'size_t',
    Depth: 'size_t',
  });

  /** `CUmemcpyAttributes` (CUDA 12.8): source access order, two location hints, flags. 24 bytes. */
  const CUmemcpyAttributes = koffi.struct({
    srcAccessOrder: 'int',
    srcLocHint: CUmemLocation,
    dstLocHint: CUmemLocation,
    flags: 'uint32_t',
  });

  /** `CUipcMemHandle`: 64 opaque bytes, passed by value to `cuIpcOpenMemHandle`. */
  const CUipcMemHandle = koffi.struct({ reserved: koffi.array('uint8_t', 64) });

  /** `CUmemAllocationProp` (32 bytes): `cuMemCreate`'s properties; win32HandleMetaData stays 0. */
  const CUmemAllocationProp = koffi.struct({
    type: 'int',
    requestedHandleTypes: 'int',
    location: CUmemLocation,
    win32HandleMetaData: 'uint64_t',
    allocFlags: koffi.struct({
      compressionType: 'uint8_t',
      gpuDirectRDMACapable: 'uint8_t',
      usage: 'uint16_t',
      reserved: koffi.array('uint8_t', 4),
    }),
  });

  return {
    CUmemLocation,
    CUmemAccessDesc,
    CUmemPoolProps,
    CUDA_MEMCPY2D,
    CUDA_MEMCPY3D,
    CUmemcpyAttributes,
    CUipcMemHandle,
    CUmemAllocationProp,
  };
}
