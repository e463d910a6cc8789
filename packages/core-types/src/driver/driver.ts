// The Driver contract: one interface per area (devices, streams, pools, memory, copies, virtual
// memory, compute, exchange), each in its own file here, which Driver joins; the contract's
// version and the options every adapter's factory takes.
import type { DriverCapabilities } from './capabilities.js';
import type { DriverCompute } from './compute.js';
import type { DriverCopies } from './copies.js';
import type { DriverDevices } from './devices.js';
import type { DriverInterprocess, DriverNativeExchange } from './exchange.js';
import type { DriverMemory, DriverPageableMemory } from './memory.js';
import type { DriverPoolQueries, DriverPools } from './pools.js';
import type { DriverStreams } from './streams.js';
import type { DriverVirtualMemory } from './vmm.js';

/**
 * Version of the contract below. Adapters report the version they implement; a higher layer
 * refuses an adapter of another major version with a clear error instead of misbehaving.
 */
export const DRIVER_CONTRACT_VERSION = 2;

/** How the adapter resolves versioned entry points. */
export type EntryPointMode = 'auto' | 'legacy';

/** Options every adapter's `createDriver(options?)` accepts. */
export interface DriverOptions {
  /**
   * `'auto'` (default): the newest form of each entry point this driver has. `'legacy'`: the
   * forms of a CUDA 12.0 driver (advise and prefetch by `CUdevice`, no batch or NUMA entry
   * points), to test the fallbacks on a newer driver; where the driver no longer exports a CUDA 12.0
   * form, its newer form stands in for it. `capabilities` reflects the choice.
   */
  readonly entryPoints?: EntryPointMode;
  /** Path of the driver library. Default `'libcuda.so.1'`, found by the system loader. */
  readonly libraryPath?: string;
}

/** What each adapter package exports. */
export type CreateDriver = (options?: DriverOptions) => Driver;

/**
 * The driver contract: a thin, typed, synchronous mirror of the CUDA driver entry points that
 * cumem's higher layers use. Implemented by `@cumem/driver-napi`, `@cumem/driver-ffi` and
 * the test-only reference driver; all pass one conformance suite.
 *
 * Rules every adapter keeps:
 * - Loading is lazy: constructing an adapter never touches `libcuda.so.1`. The first member
 *   used loads it and calls `cuInit(0)`; failure is a `DriverUnavailableError`, every time.
 * - A driver error becomes a `CudaError` with the code, its `cuGetErrorName`, the entry point
 *   and `cuGetErrorString`. Nothing is retried or swallowed.
 * - Sizes and counts are numbers (bytes unless named otherwise); addresses and handles are bigint.
 *   The contract does not validate user input: `@cumem/memory` does, before calling it.
 * - Calls that need a context (allocation, copies, streams, `memGetInfo`) use the calling
 *   thread's current context: the caller makes one current with `contextSetCurrent`.
 * - Every call is synchronous and returns when the driver returns, except the `*Async`
 *   waits that return a Promise and keep the event loop free. Driver `...Async` entry points
 *   are mirrored as synchronous calls that enqueue work, exactly as the driver does.
 * - JS memory passed in (`ArrayBufferView`) is read or written in place: for `*Async` copies
 *   the caller keeps it alive until the stream has passed the copy.
 */
export interface Driver
  extends DriverDevices,
    DriverStreams,
    DriverPools,
    DriverPoolQueries,
    DriverMemory,
    DriverPageableMemory,
    DriverCopies,
    DriverVirtualMemory,
    DriverCompute,
    DriverInterprocess,
    DriverNativeExchange {
  /** Adapter name: `'napi'`, `'ffi'`, `'reference'`, or another adapter's own. */
  readonly name: string;
  /** The `DRIVER_CONTRACT_VERSION` this adapter implements. Reading it never loads the driver. */
  readonly contractVersion: number;
  /** `cuDriverGetVersion`: 1000 * major + 10 * minor (13000 = CUDA 13.0). Loads the driver. */
  readonly driverVersion: number;
  /** What the loaded driver can do. Loads the driver. */
  readonly capabilities: DriverCapabilities;
}
