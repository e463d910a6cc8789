// The JS value the FFI adapter passes for each parameter kind of driver-kit's entry-point table.
import type { MemLocation } from '@cumem/core-types';
import type { ParameterKind } from '@cumem/driver-kit';

/**
 * Parameter kinds and the JS value each takes.
 * - `out`: a number address of the adapter's native scratch memory (`T *` outputs). A typed array
 *   would work too, but koffi converts a plain `uintptr_t` with less work per call (see README,
 *   "Performance").
 * - `hostAddress`: a number address of JS memory (`void *`), see host-memory.ts.
 * - `buffer`: JS memory read or written in place (`void *`), passed as the typed array.
 * - `handle`: a `uint64_t` handle or device pointer: the contract's bigint, or the exact number
 *   that handle-argument.ts makes of it on the hot paths (koffi converts a number faster).
 * - `location`: `CUmemLocation` by value (see location-argument.ts).
 */
export interface ParameterValues extends Record<ParameterKind, unknown> {
  int: number;
  uint: number;
  uint8: number;
  uint16: number;
  ulonglong: number;
  size_t: number;
  intptr: number;
  handle: bigint | number;
  out: number;
  hostAddress: number;
  buffer: ArrayBufferView;
  location: number | bigint | MemLocation;
  'location*': MemLocation;
  'poolProps*': object;
  'memcpy2D*': object;
  'memcpy3D*': object;
  'memcpyAttributes*': object;
  ipcHandle: { reserved: Uint8Array };
  'allocationProp*': object;
}
