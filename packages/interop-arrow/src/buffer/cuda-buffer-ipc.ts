// CudaBuffer.exportForIpc's rules (pyarrow.cuda's `export_for_ipc`), kept apart to keep
// cuda-buffer.ts short.
import { NotSupportedError } from '@cumem/core-types';
import type { MemoryResource } from '@cumem/memory';
import { contextState, enterContext } from '../context/context-internals.js';
import { ContextMemoryResource } from '../context/context-memory-resource.js';
import type { CudaBuffer } from './cuda-buffer.js';
import { type IpcMemHandle, makeIpcMemHandle } from './ipc-mem-handle.js';

/**
 * @internal `cuIpcGetMemHandle` of `buffer`, a non-empty open CudaBuffer whose first ancestor is
 * `root` (with `rootResource`, its memory's resource): only a whole allocation this package made.
 */
export function exportWholeAllocation(
  buffer: CudaBuffer,
  root: CudaBuffer,
  rootResource: MemoryResource | null,
): IpcMemHandle {
  if (!(rootResource instanceof ContextMemoryResource)) {
    throw new TypeError(
      'only memory allocated by Context.deviceBuffer/bufferFromData can be exported with exportForIpc (for pool memory use @cumem/memory IPC)',
    );
  }
  if (buffer.address !== root.address) {
    throw new TypeError(
      'cuIpcGetMemHandle exports whole allocations: export the parent buffer, not a slice at an offset',
    );
  }
  const state = contextState(buffer.context);
  if (!state.driver.capabilities.interprocess) {
    throw new NotSupportedError(
      `the ${state.driver.name} driver has no CUDA IPC (capabilities.interprocess is false)`,
    );
  }
  enterContext(state);
  return makeIpcMemHandle(buffer.size, state.driver.ipcGetMemHandle(buffer.address));
}
