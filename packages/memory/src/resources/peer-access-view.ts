// DeviceMemoryResource.peerAccessibleBy: which other devices may use a pool's memory.
import {
  Device,
  type Driver,
  guardMembers,
  type MemAccessDescriptor,
  MemAccessFlags,
  MemLocationType,
  NotSupportedError,
} from '@cumem/core-types';
import { deviceOrdinal } from '../runtime/device-arguments.js';
import type { DriverRuntime } from '../runtime/driver-runtime.js';
import { LiveSetView } from './live-set-view.js';

/** What the view needs from its pool resource. */
export interface PeerAccessPool {
  /** @internal */ readonly runtime: DriverRuntime;
  /** @internal */ readonly pool: bigint;
  /** The device owning the pool. */
  readonly deviceId: number;
  /** @internal Throws when the resource is closed. */
  checkPeerAccessOpen(): void;
}

/** How a resource that is not one pool (VirtualMemoryResource) reads and changes its devices' access. */
export interface PeerAccessMapping {
  /** Access of device `ordinal` (a pool: `cuMemPoolGetAccess`). */
  accessOf(ordinal: number): number;
  /** Applies `changes` in one driver call per mapping (a pool: one `cuMemPoolSetAccess`). */
  change(changes: readonly MemAccessDescriptor[]): void;
}

// Package-private, not methods of the resource: `change` skips the checks and the wait before a
// revocation (setPeerAccess), so a program calling it could fault work still queued.
const mappings = new WeakMap<PeerAccessPool, PeerAccessMapping>();

/** Called by a resource that is not one pool, from its constructor. */
export function setPeerAccessMapping(resource: PeerAccessPool, mapping: PeerAccessMapping): void {
  mappings.set(resource, mapping);
}

function deviceLocation(ordinal: number) {
  return { type: MemLocationType.Device, id: ordinal };
}

/** The devices other than the owner that have access to `pool` now (`cuMemPoolGetAccess` per device). */
export function readPeerAccess(resource: PeerAccessPool): number[] {
  resource.checkPeerAccessOpen();
  const { runtime, pool, deviceId } = resource;
  const mapping = mappings.get(resource);
  const result: number[] = [];
  for (let ordinal = 0; ordinal < runtime.deviceCount; ordinal++) {
    if (ordinal === deviceId) continue;
    const flags =
      mapping !== undefined
        ? mapping.accessOf(ordinal)
        : runtime.driver.memPoolGetAccess(pool, deviceLocation(ordinal));
    if (flags !== MemAccessFlags.None) result.push(ordinal);
  }
  return result;
}

/**
 * Checks every element of `devices` (kind, existence, peer capability) before any change; the
 * owner is dropped (it always has access).
 * @throws TypeError for a non-iterable or a non-device; RangeError for a device that does not
 *   exist; NotSupportedError for a device that cannot access the owner's memory.
 */
export function checkPeerDevices(
  resource: PeerAccessPool,
  devices: unknown,
  name = 'peerAccessibleBy',
): Set<number> {
  if (
    devices === null ||
    typeof devices === 'string' ||
    typeof (devices as Iterable<unknown>)?.[Symbol.iterator] !== 'function'
  ) {
    throw new TypeError(`${name} must be an iterable of Devices or device ordinals`);
  }
  const { runtime, deviceId } = resource;
  const wanted = new Set<number>();
  let index = 0;
  for (const device of devices as Iterable<unknown>) {
    const ordinal = deviceOrdinal(runtime, device, `${name}[${index++}]`);
    if (ordinal !== deviceId) wanted.add(ordinal);
  }
  for (const ordinal of wanted) checkCanAccess(runtime.driver, ordinal, deviceId);
  return wanted;
}

function checkCanAccess(driver: Driver, ordinal: number, owner: number): void {
  if (!driver.deviceCanAccessPeer(ordinal, owner)) {
    throw new NotSupportedError(
      `device ${ordinal} cannot access device ${owner}'s memory (cuDeviceCanAccessPeer is 0): copies still work, through cuMemcpyPeerAsync`,
    );
  }
}

/**
 * Gives exactly `wanted` access, changing only the difference, in one `cuMemPoolSetAccess` call.
 * A revocation first waits, blocking the calling thread, for all work queued so far on the
 * devices that lose access and on the owner (see {@link waitBeforeRevoking}).
 */
export function setPeerAccess(resource: PeerAccessPool, wanted: ReadonlySet<number>): void {
  const now = new Set(readPeerAccess(resource));
  const changes: MemAccessDescriptor[] = [];
  const revoked: number[] = [];
  for (const ordinal of wanted) {
    if (!now.has(ordinal))
      changes.push({ location: deviceLocation(ordinal), flags: MemAccessFlags.ReadWrite });
  }
  for (const ordinal of now) {
    if (wanted.has(ordinal)) continue;
    changes.push({ location: deviceLocation(ordinal), flags: MemAccessFlags.None });
    revoked.push(ordinal);
  }
  if (changes.length === 0) return;
  if (revoked.length > 0) waitBeforeRevoking(resource, revoked);
  const mapping = mappings.get(resource);
  if (mapping !== undefined) mapping.change(changes);
  else resource.runtime.driver.memPoolSetAccessMany(resource.pool, changes);
}

/**
 * Unmapping a pool from a device while work queued there may still read or write it makes that
 * work fault, and a fault is sticky: the context is lost for every caller in the process
 * (CUDA_ERROR_LAUNCH_FAILED ever after). `cuMemPoolSetAccess` does not wait for queued work, so
 * cumem does: `cuCtxSynchronize` in the primary context of every device losing access (the
 * work that uses a mapping runs on the device it maps to) and of the owner (a copy between two
 * devices may run on either's engines). A context-wide wait covers every stream, cumem's own
 * and the legacy default stream or those of other code sharing the primary context, which
 * waiting on cumem's known streams would not. It blocks the calling thread: revocation is rare,
 * and refusing it while any work is queued would make it fail at random. Work that another
 * thread (a Worker) queues after this wait is that thread's to order.
 */
function waitBeforeRevoking(resource: PeerAccessPool, revoked: readonly number[]): void {
  const runtime = resource.runtime;
  for (const ordinal of [...revoked, resource.deviceId]) {
    runtime.makeCurrent(ordinal);
    runtime.driver.contextSynchronize();
  }
}

const viewToken = Symbol('cumem.peerAccessView');

/**
 * The devices, besides the owner, that may use a pool's memory: a live, Set-like view. Every
 * read asks the driver (`cuMemPoolGetAccess`), so access granted by other code shows; every
 * change is one `cuMemPoolSetAccess` call. Elements are `Device`s; `has` / `add` / `delete`
 * also take ordinals.
 */
export class PeerAccessView extends LiveSetView<Device> {
  /**
   * Not for use: a DeviceMemoryResource's `peerAccessibleBy` is the view. Called directly, it
   * throws a TypeError saying so.
   */
  private constructor(
    token: symbol,
    private readonly resource: PeerAccessPool,
  ) {
    super();
    if (token !== viewToken) {
      throw new TypeError(
        "PeerAccessView has no public constructor: use a DeviceMemoryResource's peerAccessibleBy",
      );
    }
    // Frozen: `view.resource = { pool: x }` would hand the driver a pool it never made.
    Object.freeze(this);
  }

  /** @internal The view of `resource`'s peer access. */
  static of(resource: PeerAccessPool): PeerAccessView {
    return new PeerAccessView(viewToken, resource);
  }

  /** @internal The devices with access now, besides the owner. */
  protected elements(): Device[] {
    return readPeerAccess(this.resource).map((ordinal) => new Device(ordinal));
  }

  /** True when `device` (a Device or ordinal) has access; false for the owner and for non-devices. */
  has(device: unknown): boolean {
    const ordinal = Device.isInstance(device) ? device.ordinal : device;
    if (typeof ordinal !== 'number') return false;
    return readPeerAccess(this.resource).includes(ordinal);
  }

  /**
   * Grants `device` read-write access to the pool (no change for the owner or a device that has it).
   * @throws as the `peerAccessibleBy` setter.
   */
  add(device: Device | number): this {
    const wanted = new Set(readPeerAccess(this.resource));
    for (const ordinal of checkPeerDevices(this.resource, [device])) wanted.add(ordinal);
    setPeerAccess(this.resource, wanted);
    return this;
  }

  /**
   * Revokes `device`'s access; false (and no driver change) when it had none. Blocks until the
   * work queued so far on `device` and on the owner has finished (as the setter does).
   */
  delete(device: unknown): boolean {
    const ordinal = Device.isInstance(device) ? device.ordinal : device;
    const now = new Set(readPeerAccess(this.resource));
    if (typeof ordinal !== 'number' || !now.has(ordinal)) return false;
    now.delete(ordinal);
    setPeerAccess(this.resource, now);
    return true;
  }

  /** Revokes every peer's access in one driver call, after the queued work (as {@link delete}). */
  clear(): void {
    setPeerAccess(this.resource, new Set());
  }

  get [Symbol.toStringTag](): string {
    return 'PeerAccessView';
  }
}

// The brand in front of every member: a Proxy of a view, or an object inheriting from one, gets a
// TypeError naming the member, not the engine's private-field error. The tag answers any receiver:
// describing an imitation must not throw.
guardMembers(PeerAccessView, LiveSetView.brandOf(PeerAccessView), [Symbol.toStringTag]);
