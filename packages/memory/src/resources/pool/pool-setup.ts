// How the stream-ordered pool resources (device and pinned) come to be: the pool they own, or
// the one imported from another process, and the checks both make first.
import { randomUUID } from 'node:crypto';
import {
  checkBoolean,
  checkSize,
  type Driver,
  type DriverHandle,
  describeValue,
  MemAllocationType,
  MemHandleType,
  type MemLocation,
  MemPoolAttribute,
  NotSupportedError,
} from '@cumem/core-types';
import { IpcAllocationHandle } from '../../interop/ipc/ipc-allocation-handle.js';
import { activeRuntime, type DriverRuntime } from '../../runtime/driver-runtime.js';
import { lookUpResource } from '../resource-registry.js';
import type { PoolMemoryResource } from './pool-memory-resource.js';

/**
 * Release threshold cumem gives pools by default: "keep everything". With the driver's default
 * of 0 a pool returns its memory to the system at every synchronization and the next allocation
 * maps it again, which costs far more than the allocation itself (cuda.core raises the
 * threshold of the device's current pool the same way). The largest exact number stands for
 * "no limit".
 */
export const keepAllReleaseThreshold = Number.MAX_SAFE_INTEGER;

/** @internal What a pool resource is made of, decided before it is constructed. */
export interface PoolSetup {
  readonly runtime: DriverRuntime;
  readonly pool: DriverHandle;
  readonly owned: boolean;
  readonly ipcEnabled: boolean;
  readonly mapped: boolean;
  /** Device whose context and default stream the pool's work uses. */
  readonly ordinal: number;
  readonly uuid: string | null;
}

/**
 * @internal A pool the resource owns (`cuMemPoolCreate` of pinned memory at `location`) with its
 * release threshold set (default: keep everything); destroyed again when that fails.
 */
export function createOwnedPool(
  driver: Driver,
  location: MemLocation,
  maxSize: number,
  releaseThreshold: number | undefined,
  ipcEnabled: boolean,
): DriverHandle {
  const pool = driver.memPoolCreate({
    allocationType: MemAllocationType.Pinned,
    location,
    handleTypes: ipcEnabled ? MemHandleType.PosixFileDescriptor : MemHandleType.None,
    maxSize,
  });
  try {
    driver.memPoolSetAttribute(
      pool,
      MemPoolAttribute.ReleaseThreshold,
      releaseThreshold ?? keepAllReleaseThreshold,
    );
  } catch (error) {
    driver.memPoolDestroy(pool);
    throw error;
  }
  return pool;
}

/** @internal Checks the options both pool resources take: byte sizes, and a boolean `ipcEnabled`. */
export function checkPoolOptions(
  maxSize: number,
  releaseThreshold: number | undefined,
  ipcEnabled: boolean,
): void {
  checkSize(maxSize, 'maxSize');
  if (releaseThreshold !== undefined) checkSize(releaseThreshold, 'releaseThreshold');
  checkBoolean(ipcEnabled, 'ipcEnabled');
}

/** @internal A new pool the resource owns at `location` ({@link createOwnedPool}), as its setup. */
export function ownedPoolSetup(
  runtime: DriverRuntime,
  ordinal: number,
  location: MemLocation,
  maxSize: number,
  releaseThreshold: number | undefined,
  ipcEnabled: boolean,
): PoolSetup {
  const pool = createOwnedPool(runtime.driver, location, maxSize, releaseThreshold, ipcEnabled);
  return { runtime, pool, owned: true, ipcEnabled, mapped: false, ordinal, uuid: poolUuid(ipcEnabled) };
}

/**
 * @internal The driver's current pool (of a device, or of the host) as a resource's, not owned:
 * a release threshold of 0 (the driver's default: give memory back at every synchronization)
 * becomes "keep everything"; nothing else of the pool changes.
 */
export function currentPoolSetup(runtime: DriverRuntime, pool: DriverHandle, ordinal: number): PoolSetup {
  const driver = runtime.driver;
  if (driver.memPoolGetAttribute(pool, MemPoolAttribute.ReleaseThreshold) === 0) {
    driver.memPoolSetAttribute(pool, MemPoolAttribute.ReleaseThreshold, keepAllReleaseThreshold);
  }
  return { runtime, pool, owned: false, ipcEnabled: false, mapped: false, ordinal, uuid: null };
}

/**
 * @internal The explicit construction path of an imported pool: `fromAllocationHandle` passes
 * one to its class's constructor in place of the options, so the constructor wraps the pool it
 * was handed instead of creating one. Not exported from the package, so no caller outside it
 * can make one.
 */
export class ImportedPool {
  constructor(readonly setup: PoolSetup) {}
}

/**
 * @internal What `fromAllocationHandle` of both pool resources does: the live resource of `kind`
 * already registered under the handle's uuid, or the imported pool (`ordinalOf` names the
 * device whose context imports it) made a resource by `make` and registered under the uuid
 * (`make` disposes of the pool when it fails). An
 * IpcAllocationHandle is consumed (closed) either way; a raw descriptor stays the caller's.
 */
export function importPoolResource<R extends PoolMemoryResource>(
  handle: IpcAllocationHandle | number,
  what: string,
  kind: abstract new (...args: never[]) => R,
  ordinalOf: (runtime: DriverRuntime) => number,
  make: (imported: ImportedPool) => R,
): R {
  const { fd, uuid, consumed } = allocationHandleArgument(handle);
  try {
    const existing = uuid === null ? undefined : lookUpResource(uuid);
    if (existing instanceof kind && !existing.isClosed) return existing;
    const runtime = activeRuntime();
    const ordinal = ordinalOf(runtime);
    checkInterprocess(runtime, what);
    runtime.makeCurrent(ordinal);
    const pool = runtime.driver.memPoolImportFromFileDescriptor(fd);
    const resource = make(
      new ImportedPool({ runtime, pool, owned: true, ipcEnabled: true, mapped: true, ordinal, uuid: null }),
    );
    if (uuid !== null) resource.register(uuid);
    return resource;
  } finally {
    consumed?.close();
  }
}

/** @internal A new uuid for an IPC-enabled pool, null otherwise. */
export function poolUuid(ipcEnabled: boolean): string | null {
  return ipcEnabled ? randomUUID() : null;
}

/** @internal Refuses IPC on drivers without it, before the driver is touched. */
export function checkInterprocess(runtime: DriverRuntime, what: string): void {
  if (!runtime.capabilities.interprocess) {
    throw new NotSupportedError(
      `${what} needs interprocess pool sharing (POSIX file descriptors, Linux), which driver ${runtime.driver.name} ` +
        'does not offer (capabilities.interprocess = false)',
    );
  }
}

/**
 * @internal The descriptor and uuid of an allocation handle argument (an IpcAllocationHandle,
 * or a raw file descriptor number that stays the caller's).
 */
export function allocationHandleArgument(handle: unknown): {
  fd: number;
  uuid: string | null;
  consumed?: IpcAllocationHandle;
} {
  if (handle instanceof IpcAllocationHandle) {
    return { fd: handle.fileDescriptor, uuid: handle.uuid, consumed: handle };
  }
  if (typeof handle === 'number') return { fd: checkSize(handle, 'handle'), uuid: null };
  throw new TypeError(
    `handle must be an IpcAllocationHandle or a file descriptor number, got ${describeValue(handle)}`,
  );
}
