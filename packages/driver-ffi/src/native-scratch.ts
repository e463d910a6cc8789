// Output parameters land in one block of native memory owned by the driver object, read back
// through typed-array views over it. Calls are synchronous on the thread that owns the driver,
// so one block serves every call; asynchronous calls (run on koffi worker threads) take no outputs.

import type { Koffi } from './koffi-module.js';

/** Bytes of scratch: room for `cuMemRangeGetAttribute(ACCESSED_BY)` on 1023 devices and the CPU. */
export const SCRATCH_BYTES = 4096;

/** Native scratch memory and views over it. */
export interface NativeScratch {
  /** Address of the first byte, as a number (koffi `uintptr_t`). */
  readonly address: number;
  readonly u64: BigUint64Array;
  readonly i64: BigInt64Array;
  readonly i32: Int32Array;
  readonly u32: Uint32Array;
  readonly u8: Uint8Array;
  readonly f32: Float32Array;
  /** koffi's handle of the block; kept referenced so the memory lives as long as the views. */
  readonly pointer: unknown;
}

/** Allocates a scratch block with koffi (never freed: one per loaded driver). */
export function createNativeScratch(koffi: Koffi): NativeScratch {
  const pointer = koffi.alloc('uint8_t', SCRATCH_BYTES);
  const buffer = koffi.view(pointer, SCRATCH_BYTES);
  const address = Number(koffi.address(pointer));
  return {
    address,
    u64: new BigUint64Array(buffer),
    i64: new BigInt64Array(buffer),
    i32: new Int32Array(buffer),
    u32: new Uint32Array(buffer),
    u8: new Uint8Array(buffer),
    f32: new Float32Array(buffer),
    pointer,
  };
}
