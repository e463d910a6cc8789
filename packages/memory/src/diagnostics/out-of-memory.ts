// Out-of-memory recovery (RMM's failure callback adaptor, plus what a garbage collector allows).
// The garbage collector cannot see GPU memory: buffers dropped without close() hold device memory until a
// collection that the JavaScript heap may never ask for. So before an allocation reports
// CUDA_ERROR_OUT_OF_MEMORY (from the driver, or over a resource's limit), cumem
//   1. forces a collection and frees every dropped buffer it finds, at once (buffer-release.ts),
//   2. synchronizes and trims the device's pools (their unused reserve goes back to the device),
//   3. retries; if that fails, asks the user's hooks (resource, then device, then global ones)
//      whether freeing caches is worth another try, up to `maxAttempts` times, releasing again
//      before each retry. Never forever: then the last out-of-memory error is thrown.
import {
  CudaError,
  CudaStateError,
  checkBoolean,
  checkOptions,
  checkSize,
  type Device,
  describeValue,
} from '@cumem/core-types';
import { keepReleaseWeakRefs, releaseDroppedBuffers } from '../buffer/buffer-release.js';
import type { LiveAllocations } from '../buffer/live-allocations.js';
import type { MemoryResource } from '../buffer/memory-resource.js';
import { deviceOrdinal } from '../runtime/device-arguments.js';
import { activeRuntime } from '../runtime/driver-runtime.js';
import type { ResourceAccounting } from './resource-accounting.js';

/** What an out-of-memory hook is told. */
export interface OutOfMemoryInfo {
  /** The resource whose allocation failed. */
  readonly resource: MemoryResource;
  /** Bytes asked for. */
  readonly size: number;
  /** 1 for the first call of this failure, up to `maxAttempts`. */
  readonly attempt: number;
  /** The out-of-memory error the allocation would throw now. */
  readonly error: CudaError;
}

/** Frees what it can (caches, pools of its own) and returns true to have the allocation retried. */
export type OutOfMemoryHook = (info: OutOfMemoryInfo) => boolean;

/** Where a hook applies: one resource, one device's resources, or (neither) every resource. */
export interface OnOutOfMemoryOptions {
  readonly device?: Device | number;
  readonly resource?: MemoryResource;
}

/** Settings of {@link setOutOfMemoryRecovery}. */
export interface OutOfMemoryRecoveryOptions {
  /**
   * Force a garbage collection and free dropped buffers before failing (default true). It costs
   * a WeakRef per buffer that outlives its event-loop turn, and milliseconds per recovery.
   */
  readonly releaseDropped?: boolean;
  /** How many times the hooks are asked per failed allocation (default 3; 0 = never). */
  readonly maxAttempts?: number;
}

/** Process-wide counts of {@link outOfMemoryStatistics}. */
export interface OutOfMemoryStatistics {
  /** Allocations that met out-of-memory (driver or limit) and entered recovery. */
  readonly events: number;
  /** Of those, how many succeeded on a retry. */
  readonly recovered: number;
  /** Of those, how many still threw. */
  readonly failed: number;
  /** Retries of an allocation after releasing memory. */
  readonly retries: number;
  /** Hook calls. */
  readonly hookCalls: number;
  /** Forced garbage collections. */
  readonly collections: number;
  /** Dropped buffers released by recovery before their finalizer ran. */
  readonly releasedBuffers: number;
}

type Hooks = OutOfMemoryHook[];
const resourceHooks = new WeakMap<MemoryResource, Hooks>();
const deviceHooks = new Map<number, Hooks>();
const globalHooks: Hooks = [];
let maxAttempts = 3;
let releaseDropped = true;
let recovering = false;
const counts = {
  events: 0,
  recovered: 0,
  failed: 0,
  retries: 0,
  hookCalls: 0,
  collections: 0,
  releasedBuffers: 0,
};

/**
 * Registers `hook`, called when an allocation runs out of memory after cumem freed what it
 * could on its own. Scope: `resource`, or every resource on `device`, or (neither) all.
 * A hook that throws ends the recovery: its error is thrown from the allocation. A hook may
 * close resources (even the one it was called for): before every retry cumem checks the
 * resource and the allocation's stream again, and a closed one ends the recovery with a
 * `CudaStateError` instead of allocating from a pool that may be gone.
 * @returns a function that unregisters the hook.
 * @throws TypeError for a hook that is not a function or a bad option; RangeError for a
 *   `device` that does not exist (before the hook is registered; checking it asks the current
 *   driver for its device count once, so a `device` hook needs a driver, as every device argument does).
 */
export function onOutOfMemory(hook: OutOfMemoryHook, options?: OnOutOfMemoryOptions): () => void {
  if (typeof hook !== 'function') throw new TypeError(`hook must be a function, got ${describeValue(hook)}`);
  const { device, resource } = checkOptions(options, 'onOutOfMemory options');
  if (device !== undefined && resource !== undefined) {
    throw new TypeError('onOutOfMemory takes device or resource, not both');
  }
  let list: Hooks;
  if (resource !== undefined) {
    if (typeof resource !== 'object' || resource === null || typeof resource.allocate !== 'function')
      throw new TypeError(`resource must be a MemoryResource, got ${describeValue(resource)}`);
    list = resourceHooks.get(resource) ?? [];
    resourceHooks.set(resource, list);
  } else if (device !== undefined) {
    // An ordinal of no device would register a hook that can never run: refuse it, as every
    // device argument is refused (device-arguments.ts; asks the driver for the count once).
    const ordinal = deviceOrdinal(activeRuntime(), device, 'device');
    list = deviceHooks.get(ordinal) ?? [];
    deviceHooks.set(ordinal, list);
  } else list = globalHooks;
  list.push(hook);
  return () => {
    const index = list.indexOf(hook);
    if (index >= 0) list.splice(index, 1);
  };
}

/**
 * Changes how allocations recover from out-of-memory (process-wide).
 * @throws TypeError / RangeError for bad options.
 */
export function setOutOfMemoryRecovery(options: OutOfMemoryRecoveryOptions): void {
  const { releaseDropped: release, maxAttempts: attempts } = checkOptions(options, 'recovery options');
  if (release !== undefined) {
    checkBoolean(release, 'releaseDropped');
    releaseDropped = release;
    keepReleaseWeakRefs(release);
  }
  if (attempts !== undefined) {
    checkSize(attempts, 'maxAttempts');
    if (attempts > 100) throw new RangeError(`maxAttempts must be at most 100, got ${attempts}`);
    maxAttempts = attempts;
  }
}

/** What out-of-memory recovery has done in this process so far. */
export function outOfMemoryStatistics(): OutOfMemoryStatistics {
  return { ...counts };
}

/** @internal True for the driver's (or a limit's) out-of-memory error. */
export function isOutOfMemory(error: unknown): error is CudaError {
  return CudaError.isInstance(error) && error.codeName === 'CUDA_ERROR_OUT_OF_MEMORY';
}

/** @internal The error of an allocation over the resource's limit: the driver's code and class. */
export function limitError(
  resource: MemoryResource,
  accounting: ResourceAccounting,
  size: number,
  call: string,
): CudaError {
  return new CudaError({
    code: 2,
    codeName: 'CUDA_ERROR_OUT_OF_MEMORY',
    call,
    description:
      `${size} bytes would pass the limit of ${accounting.limitBytes} bytes of this ` +
      `${resource.constructor.name} (${accounting.currentBytes} in use)`,
  });
}

/**
 * @internal Recovery path of a failed allocation: `attempt` allocates (checking the limit),
 * `relieve` synchronizes and trims pools. Returns the pointer of a successful retry.
 * @throws the allocation's error when it is not out-of-memory or recovery does not help.
 */
export function recoverAllocation(
  resource: MemoryResource,
  accounting: ResourceAccounting | null,
  error: unknown,
  size: number,
  attempt: () => bigint,
  relieve: () => void,
): bigint {
  // A hook that allocates and fails again gets the plain error: recovery does not nest.
  if (!isOutOfMemory(error) || recovering) return fail(accounting, error);
  counts.events++;
  recovering = true;
  try {
    let last: CudaError = error;
    for (let round = 0; round <= maxAttempts; round++) {
      if (round > 0 && !askHooks(resource, size, round, last)) break;
      if (releaseDropped) {
        const released = releaseDroppedBuffers();
        if (released >= 0) {
          counts.collections++;
          counts.releasedBuffers += released;
        }
      }
      relieve();
      // A hook (or a finalizer the collection ran) may have closed the resource, and the free of
      // its last buffer above may have destroyed its pool: never allocate from it then.
      if (round > 0 && resource.isClosed) {
        counts.failed++;
        return fail(accounting, closedDuringRecovery(resource));
      }
      counts.retries++;
      try {
        const pointer = attempt();
        counts.recovered++;
        return pointer;
      } catch (retryError) {
        if (!isOutOfMemory(retryError)) return fail(accounting, retryError);
        last = retryError;
      }
    }
    counts.failed++;
    return fail(accounting, last);
  } finally {
    recovering = false;
  }
}

function closedDuringRecovery(resource: MemoryResource): CudaStateError {
  return new CudaStateError(
    `${resource.constructor.name} was closed by an out-of-memory hook: the allocation is not retried`,
  );
}

function fail(accounting: ResourceAccounting | null, error: unknown): never {
  if (accounting !== null) accounting.failures++;
  throw error;
}

function askHooks(resource: MemoryResource, size: number, attempt: number, error: CudaError): boolean {
  const info: OutOfMemoryInfo = { resource, size, attempt, error };
  const lists = [resourceHooks.get(resource), deviceHooks.get(resource.deviceId), globalHooks];
  for (const list of lists) {
    if (list === undefined) continue;
    for (const hook of [...list]) {
      counts.hookCalls++;
      if (hook(info) === true) return true;
    }
  }
  return false;
}

/**
 * @internal Allocation with limit and recovery for resources off the pool hot path (managed,
 * legacy pinned): `allocate` calls the driver; the frees of these resources are synchronous,
 * so recovery has nothing to synchronize or trim.
 */
export function allocateWithRecovery(
  resource: MemoryResource,
  live: LiveAllocations,
  size: number,
  call: string,
  allocate: () => bigint,
): bigint {
  const attempt = () => {
    const accounting = live.accounting;
    if (accounting !== null && !accounting.fits(size)) throw limitError(resource, accounting, size, call);
    return allocate();
  };
  try {
    return attempt();
  } catch (error) {
    return recoverAllocation(resource, live.accounting, error, size, attempt, () => {});
  }
}
