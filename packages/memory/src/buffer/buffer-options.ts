// The options of Buffer's factories (kept apart to keep buffer.ts short).
import type { MemoryResource } from '../resources/memory-resource.js';

/** Options for {@link Buffer.fromHandle}. */
export interface FromHandleOptions {
  /** The resource that owns the memory: `close()` (or GC) calls its `deallocate`. */
  readonly mr?: MemoryResource;
  /**
   * An object kept alive as long as the buffer, which owns the memory instead. When it is a
   * Buffer, or any object with a boolean `isClosed`, the new buffer is closed (and refuses all
   * work) once the owner is; host views taken through it belong to the owner's memory.
   */
  readonly owner?: unknown;
}
