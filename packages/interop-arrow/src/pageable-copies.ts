// Copies between device memory and JS memory that pick the staged-copy engine for large
// pageable memory (@cumem/memory's staging settings), and the plain stream-ordered copy for
// small copies and for page-locked memory (HostBuffers, registered memory), which the DMA
// engine reads at full speed where it is.
import type { Driver } from '@cumem/core-types';
import { isRegisteredHostMemory, stagingSettings } from '@cumem/memory/internal';
import { pinnedOwnerOf } from './host-buffer.js';

function isLargePageable(view: Uint8Array): boolean {
  return (
    view.byteLength >= stagingSettings().minBytes &&
    pinnedOwnerOf(view.buffer) === undefined &&
    !isRegisteredHostMemory(view)
  );
}

/** `src` to device memory at `dst`, ordered on `stream` (staged copies are complete on return). */
export function copyHostToDevice(driver: Driver, dst: bigint, src: Uint8Array, stream: bigint): void {
  if (isLargePageable(src)) driver.stagedCopyHtoD(dst, src, stream, stagingSettings());
  else driver.memcpyHtoDAsync(dst, src, stream);
}

/** Device memory at `src` into `dst`, ordered on `stream` (staged copies are complete on return). */
export function copyDeviceToHost(driver: Driver, dst: Uint8Array, src: bigint, stream: bigint): void {
  if (isLargePageable(dst)) driver.stagedCopyDtoH(dst, src, stream, stagingSettings());
  else driver.memcpyDtoHAsync(dst, src, stream);
}
