import {
  checkOptions,
  type Device,
  DeviceAttribute,
  MemLocationType,
  NotSupportedError,
} from '@cumem/core-types';
import type { Buffer } from '../buffer/buffer.js';
import { deviceMemoryFacts } from '../buffer/memory-facts.js';
import { freezeBuiltIn, guardResourceMembers } from '../buffer/memory-resource.js';
import type { IpcAllocationHandle } from '../interop/ipc/ipc-allocation-handle.js';
import { checkDeviceKind, deviceOrdinal } from '../runtime/device-arguments.js';
import { activeRuntime, type DriverRuntime } from '../runtime/driver-runtime.js';
import { checkPeerDevices, PeerAccessView, setPeerAccess } from './peer-access-view.js';
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

/** Options for {@link DeviceMemoryResource}. Giving any (even `{}`) creates a pool the resource owns. */
export interface DeviceMemoryResourceOptions {
  /** Largest size the pool may reach, in bytes; 0 (default) = the driver's limit. */
  readonly maxSize?: number;
  /** Bytes the pool keeps reserved at a synchronization. Default: all of it (no release). */
  readonly releaseThreshold?: number;
  /** Allow sharing the pool with other processes (Linux file descriptors). Default false. */
  readonly ipcEnabled?: boolean;
}

/**
 * A stream-ordered pool of device memory (`cuMemAllocFromPoolAsync`). Without options it uses
 * the device's current pool and does not own it (`isHandleOwned` false, `close()` leaves the
 * pool alone); with options it creates a pool of its own.
 */
export class DeviceMemoryResource extends PoolMemoryResource {
  /**
   * @param device a Device or ordinal.
   * @throws TypeError / RangeError for bad arguments; NotSupportedError when the device has no
   *   memory pools or IPC is asked of a driver without it.
   */
  constructor(device: Device | number, options?: DeviceMemoryResourceOptions);
  /** @internal An imported pool (see {@link DeviceMemoryResource.fromAllocationHandle}). */
  constructor(device: Device | number, imported: ImportedPool);
  constructor(device: Device | number, options?: DeviceMemoryResourceOptions | ImportedPool) {
    super(options instanceof ImportedPool ? options.setup : createDevicePool(device, options));
    freezeBuiltIn(this, new.target, DeviceMemoryResource, deviceMemoryFacts(this.ordinal));
  }

  /**
   * Imports the pool another process exported (`getAllocationHandle()`), on `device`. An
   * IpcAllocationHandle is consumed (closed after the import); a raw descriptor number stays
   * the caller's. With a uuid, the result is registered under it, and a live resource already
   * registered there is returned instead. The driver cannot tell an imported pool's kind or
   * device (no call returns its location), so a pinned pool's handle is not refused here:
   * {@link Buffer.fromIpcDescriptor} checks each buffer's memory (device memory of `device`)
   * and refuses anything else (TypeError) before any Buffer is handed out; from then on every
   * use of the resource (buffer imports, `attributes`, `peerAccessibleBy`) is refused with
   * that TypeError, and only `close()` works.
   * @throws NotSupportedError on a driver without interprocess sharing.
   */
  static fromAllocationHandle(
    device: Device | number,
    handle: IpcAllocationHandle | number,
  ): DeviceMemoryResource {
    checkDeviceKind(device);
    if (device === undefined) throw new TypeError('fromAllocationHandle needs the device the pool lives on');
    return importPoolResource(
      handle,
      'DeviceMemoryResource.fromAllocationHandle',
      DeviceMemoryResource,
      (runtime) => deviceOrdinal(runtime, device),
      (imported) => new DeviceMemoryResource(imported.setup.ordinal, imported),
    );
  }

  /** The device's ordinal. */
  get deviceId(): number {
    return this.ordinal;
  }

  /** Always true. */
  get isDeviceAccessible(): boolean {
    return true;
  }

  /** Always false: copy to the host, or use pinned or managed memory. */
  get isHostAccessible(): boolean {
    return false;
  }

  /**
   * The other devices that may use this pool's memory directly: a live, Set-like view read
   * from `cuMemPoolGetAccess` (owned pools, the device's current pool and imported ones alike).
   * Copies between devices work without it (through `cuMemcpyPeerAsync`); granting access
   * makes them run at the link's full speed. cumem never grants it on its own.
   */
  get peerAccessibleBy(): PeerAccessView {
    this.checkOpen();
    return PeerAccessView.of(this);
  }

  /**
   * Gives exactly these devices (Devices or ordinals; the owner is ignored) access. Every
   * element is checked first; then only the difference changes, in one `cuMemPoolSetAccess`
   * call, since the driver can take seconds per change. Taking access away first waits (blocking
   * the thread, `cuCtxSynchronize`) for the work queued so far on the devices losing it and on
   * the owner: work still using the mapping would fault and lose the context for the process.
   * @throws TypeError / RangeError for a bad element; NotSupportedError for a device that
   *   cannot access this device's memory (`cuDeviceCanAccessPeer`).
   */
  set peerAccessibleBy(devices: Iterable<Device | number>) {
    this.checkPeerAccessOpen();
    setPeerAccess(this, checkPeerDevices(this, devices));
  }

  /** @internal Refuses a closed resource and binds the owner's context for the pool calls. */
  checkPeerAccessOpen(): void {
    this.checkOpen();
    this.runtime.makeCurrent(this.ordinal);
  }
}

guardResourceMembers(DeviceMemoryResource);

function createDevicePool(
  device: Device | number,
  options: DeviceMemoryResourceOptions | undefined,
): PoolSetup {
  checkDeviceKind(device);
  if (device === undefined)
    throw new TypeError('DeviceMemoryResource needs a device (a Device or an ordinal)');
  const {
    maxSize = 0,
    releaseThreshold,
    ipcEnabled = false,
  } = checkOptions(options, 'DeviceMemoryResource options');
  checkPoolOptions(maxSize, releaseThreshold, ipcEnabled);
  const runtime = activeRuntime();
  const ordinal = deviceOrdinal(runtime, device);
  if (ipcEnabled) checkInterprocess(runtime, 'DeviceMemoryResource({ ipcEnabled: true })');
  runtime.makeCurrent(ordinal);
  checkPoolsSupported(runtime, ordinal);
  if (options === undefined)
    return currentPoolSetup(runtime, runtime.driver.deviceGetMemPool(ordinal), ordinal);
  const location = { type: MemLocationType.Device, id: ordinal };
  return ownedPoolSetup(runtime, ordinal, location, maxSize, releaseThreshold, ipcEnabled);
}

function checkPoolsSupported(runtime: DriverRuntime, ordinal: number): void {
  if (runtime.driver.deviceGetAttribute(DeviceAttribute.MemoryPoolsSupported, ordinal) === 0) {
    throw new NotSupportedError(
      `device ${ordinal} has no stream-ordered memory pools (CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED = 0)`,
    );
  }
}
