// What a CudaBuffer is made of (cuda-buffer.ts's private constructor takes it), kept apart to
// keep the class file short.
import type { Buffer as MemoryBuffer } from '@cumem/memory';
import type { Context } from '../context/context.js';
import type { CudaBuffer } from './cuda-buffer.js';

/** How a CudaBuffer came to be; internal to the package. */
export interface CudaBufferInit {
  readonly context: Context;
  readonly address: bigint;
  readonly size: number;
  readonly parent: CudaBuffer | null;
  /**
   * The @cumem/memory Buffer this CudaBuffer is: the allocation itself for the buffer that owns
   * memory, else a derived Buffer (of the parent's, or of foreign memory following `base`).
   * Closing it is closing this CudaBuffer; it is closed when what it derives from is.
   */
  readonly memory: MemoryBuffer;
  /** An object kept alive as long as this buffer (foreign memory's owner). */
  readonly base: unknown;
  readonly mutable: boolean;
}
