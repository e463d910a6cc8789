// Exporting a pool or a VMM allocation as a POSIX file descriptor: the two
// `cu*ExportToShareableHandle` entry points take the same arguments.

import { type DriverHandle, MemHandleType } from '@cumem/core-types';
import type { DriverState } from './driver-state.js';
import { handleArgument } from './handle-argument.js';

/** Calls entry point `call` for `handle`; returns the file descriptor it wrote, owned by the caller. */
export function exportFileDescriptor(
  state: DriverState,
  call: 'cuMemPoolExportToShareableHandle' | 'cuMemExportToShareableHandle',
  handle: DriverHandle,
): number {
  const handleChecked = handleArgument(handle, 'handle');
  const { address, i32 } = state.scratch;
  i32[0] = -1;
  state.check(state.native[call](address, handleChecked, MemHandleType.PosixFileDescriptor, 0), call);
  return i32[0]!;
}
