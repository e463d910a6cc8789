import {
  CudaError,
  checkInteger,
  checkOptions,
  DeviceAttribute,
  type DriverHandle,
  MemAccessFlags,
  MemAllocationType,
  type MemLocation,
  MemLocationType,
  NotSupportedError,
} from '@cumem/core-types';
import type { Buffer } from '../buffer/buffer.js';
import { pageLockedMemoryFacts } from '../buffer/memory-facts.js';
import { freezeBuiltIn, guardResourceMembers } from '../buffer/memory-resource.js';
import type { IpcAllocationHandle } from '../interop/ipc/ipc-allocation-handle.js';
import { activeRuntime, type DriverRuntime } from '../runtime/driver-runtime.js';
import { PoolMemoryResource } from './pool/pool-memory-resource.js';
import {
  checkInterprocess,
  checkPoolOptions,
  currentPoolSetup,
  ImportedPool,
  importPoolResource,
  ownedPoolSetup,
  type PoolSetup,
} from './pool/pool-setup.js';

/** Options for {@link PinnedMemoryResource}. */
export interface PinnedMemoryResourceOptions {
  /** Host NUMA node to place the memory on; -1 (default) lets the OS place it. */
  readonly numaId?: number;
  /** Largest size the pool may reach, in bytes; 0 (default) = the driver's limit. */
  readonly maxSize?: number;
  /** Bytes the pool keeps reserved at a synchronization. Default: all of it (no release). */
  readonly releaseThreshold?: number;
  /** Allow sharing the pool with other processes (Linux file descriptors). Default false. */
  readonly ipcEnabled?: boolean;
}

/**
 * A stream-ordered pool of page-locked host memory (CUDA 13.0 drivers). With options, a pool of
 * its own (`cuMemPoolCreate` with a host location). Without options, as cuda.core: the driver's
 * current host pool (`cuMemGetMemPool` with a Host location), which it does not own
 * (`isHandleOwned === false`, `close()` leaves the pool); on a driver that cannot name that
 * pool (no `capabilities.memoryPoolQueries`) it makes a pool of its own instead. Every device
 * is granted read-write access to the pool (on the driver's pool too: access is only added,
 * never removed): without that grant the driver stages copies through a bounce buffer, several
 * times slower than direct access (bench/README.md has the figures).
 */
export class PinnedMemoryResource extends PoolMemoryResource {
  private readonly numaNode: number;

  /**
   * @throws TypeError / RangeError for bad options (numaId below -1 is a RangeError);
   *   NotSupportedError on a driver without host memory pools, NUMA locations or IPC as asked.
   */
  constructor(options?: PinnedMemoryResourceOptions);
  /** @internal An imported pool (see {@link PinnedMemoryResource.fromAllocationHandle}). */
  constructor(imported: ImportedPool);
  constructor(options?: PinnedMemoryResourceOptions | ImportedPool) {
    const made =
      options instanceof ImportedPool ? { setup: options.setup, numaId: -1 } : createPinnedPool(options);
    super(made.setup);
    this.numaNode = made.numaId;
    freezeBuiltIn(this, new.target, PinnedMemoryResource, pageLockedMemoryFacts);
  }

  /**
   * Imports the pinned pool another process exported. An IpcAllocationHandle is consumed
   * (closed after the import); a raw descriptor number stays the caller's. The driver cannot
   * tell an imported pool's kind (no call returns its location), so a device pool's handle is
   * not refused here: {@link Buffer.fromIpcDescriptor} checks each buffer's memory and refuses
   * memory the host cannot access (TypeError) before any Buffer is handed out; from then on every
   * use of the resource is refused with that TypeError, and only `close()` works.
   * @throws NotSupportedError on a driver without interprocess sharing.
   */
  static fromAllocationHandle(handle: IpcAllocationHandle | number): PinnedMemoryResource {
    return importPoolResource(
      handle,
      'PinnedMemoryResource.fromAllocationHandle',
      PinnedMemoryResource,
      (runtime) => runtime.currentDevice,
      (imported) => {
        grantEveryDevice(imported.setup.runtime, imported.setup.pool);
        return new PinnedMemoryResource(imported);
      },
    );
  }

  /** The host NUMA node the memory is on, or -1 when the OS places it. */
  get numaId(): number {
    return this.numaNode;
  }

  /** Always -1: host memory belongs to no device. */
  get deviceId(): number {
    return pageLockedMemoryFacts.deviceId;
  }

  /** Always true. */
  get isDeviceAccessible(): boolean {
    return pageLockedMemoryFacts.isDeviceAccessible;
  }

  /** Always true: {@link Buffer.hostView} works. */
  get isHostAccessible(): boolean {
    return pageLockedMemoryFacts.isHostAccessible;
  }
}

guardResourceMembers(PinnedMemoryResource);

/** A pool made for {@link PinnedMemoryResource}'s constructor, and the NUMA node it is on. */
interface PinnedPool {
  readonly setup: PoolSetup;
  readonly numaId: number;
}

function createPinnedPool(options: PinnedMemoryResourceOptions | undefined): PinnedPool {
  const {
    numaId = -1,
    maxSize = 0,
    releaseThreshold,
    ipcEnabled = false,
  } = checkOptions(options, 'PinnedMemoryResource options');
  checkInteger(numaId, 'numaId');
  if (numaId < -1)
    throw new RangeError(`numaId must be a NUMA node (>= 0) or -1 for "placed by the OS", got ${numaId}`);
  checkPoolOptions(maxSize, releaseThreshold, ipcEnabled);
  const runtime = activeRuntime();
  const capabilities = runtime.capabilities;
  if (!capabilities.hostMemoryPools) {
    throw new NotSupportedError(
      `PinnedMemoryResource needs pools of host memory, which need a CUDA 13.0 driver (driver ${runtime.driver.name} ` +
        'reports capabilities.hostMemoryPools = false; a CUDA 12 driver has no host pool of its own to use either); ' +
        'LegacyPinnedMemoryResource works on older drivers',
    );
  }
  if (ipcEnabled) checkInterprocess(runtime, 'PinnedMemoryResource({ ipcEnabled: true })');
  const ordinal = runtime.currentDevice;
  runtime.makeCurrent(ordinal);
  if (options === undefined && capabilities.memoryPoolQueries) {
    const named = driverHostPool(runtime, ordinal);
    if (named !== undefined) return named;
  }
  // Shareable host pools are placed on a NUMA node, as cuda.core does: the node nearest the
  // current device when the caller did not choose one.
  let node = numaId;
  if (node === -1 && ipcEnabled)
    node = Math.max(0, runtime.driver.deviceGetAttribute(DeviceAttribute.HostNumaId, ordinal));
  if (node >= 0 && !capabilities.hostNumaLocations) {
    throw new NotSupportedError(
      `a pinned pool on host NUMA node ${node} needs host NUMA locations (CUDA 13.0 driver; driver ${runtime.driver.name} ` +
        'reports capabilities.hostNumaLocations = false)',
    );
  }
  const location: MemLocation =
    node >= 0 ? { type: MemLocationType.HostNuma, id: node } : { type: MemLocationType.Host, id: 0 };
  const setup = ownedPoolSetup(runtime, ordinal, location, maxSize, releaseThreshold, ipcEnabled);
  grantEveryDevice(runtime, setup.pool);
  return { setup, numaId: node };
}

/**
 * The driver's current host pool (`cuMemGetMemPool`, Host location, pinned), not owned. As
 * DeviceMemoryResource does with a device's current pool, a release threshold of 0 (the
 * driver's default: give memory back at every synchronization) becomes "keep everything", and
 * every device gets read-write access; nothing else of the pool is changed. Undefined when the
 * driver refuses to name the pool or to grant access to it (CudaError): the caller then makes a
 * pool of its own, which copies at page-locked speed for sure.
 */
function driverHostPool(runtime: DriverRuntime, ordinal: number): PinnedPool | undefined {
  let setup: PoolSetup;
  try {
    const host = { type: MemLocationType.Host, id: 0 };
    setup = currentPoolSetup(runtime, runtime.driver.memGetMemPool(host, MemAllocationType.Pinned), ordinal);
    grantAccess(runtime, setup.pool);
  } catch (error) {
    if (error instanceof CudaError) return undefined;
    throw error;
  }
  return { setup, numaId: -1 };
}

/**
 * Read-write access for every device. A host pool starts with no device access, and copies to
 * or from memory the device cannot map are staged by the driver at a fraction of the speed.
 * A pool that cannot be granted is destroyed (it is the caller's to give up).
 */
function grantEveryDevice(runtime: DriverRuntime, pool: DriverHandle): void {
  try {
    grantAccess(runtime, pool);
  } catch (error) {
    runtime.driver.memPoolDestroy(pool);
    throw error;
  }
}

function grantAccess(runtime: DriverRuntime, pool: DriverHandle): void {
  const driver = runtime.driver;
  for (let ordinal = 0; ordinal < runtime.deviceCount; ordinal++) {
    const location: MemLocation = { type: MemLocationType.Device, id: ordinal };
    if (driver.memPoolGetAccess(pool, location) !== MemAccessFlags.ReadWrite) {
      driver.memPoolSetAccess(pool, location, MemAccessFlags.ReadWrite);
    }
  }
}
