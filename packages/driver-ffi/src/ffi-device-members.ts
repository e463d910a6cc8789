// The FFI adapter's lazy loading and the members that manage no memory: devices, contexts,
// streams and events. Loading happens on the first member that needs libcuda and is retried
// never: a failure is kept and thrown again, so a half-loaded driver is never used.

import type { DriverCapabilities, DriverHandle } from '@cumem/core-types';
import type { CheckedDriverOptions } from '@cumem/driver-kit';
import type { DriverState } from './driver-state.js';
import * as devices from './ffi-devices.js';
import * as peers from './ffi-peers.js';
import * as streams from './ffi-streams.js';
import { loadDriver } from './library-loader.js';

// Each member reads the state as `this[loaded] ?? this[load]()`: a property load, as a private
// field would be, that subclasses can reach. Symbols, so that `bindMembers` (which copies the
// string-named members) does not make them members of the driver.
/** The loaded state, once a member has needed it. */
export const loaded = Symbol('loaded driver state');
/** Loads the driver (or throws the kept failure). */
export const load = Symbol('load the driver');

/** The base of `FfiDriver`: loading, devices, contexts, streams and events. */
export class FfiDeviceMembers {
  // This and [load] are not protected: ffi-pools.ts's hot calls use them (the package does not
  // export the symbols, and createDriver hands out bound members, never the instance).
  [loaded]: DriverState | undefined;
  #failure: unknown;
  readonly #libraryPath: string;
  readonly #legacy: boolean;

  /** `options` as driver-kit's checkDriverOptions returned them (createDriver checks them). */
  constructor(options: CheckedDriverOptions) {
    this.#libraryPath = options.libraryPath;
    this.#legacy = options.legacy;
  }

  [load](): DriverState {
    if (this.#failure !== undefined) throw this.#failure;
    try {
      this[loaded] = loadDriver(this.#libraryPath, this.#legacy);
    } catch (error) {
      this.#failure = error;
      throw error;
    }
    return this[loaded];
  }

  /** A wait that fails before it starts (loading, a bad handle) rejects instead of throwing. */
  #settle(wait: (state: DriverState, handle: DriverHandle) => Promise<void>, handle: DriverHandle) {
    try {
      return wait(this[loaded] ?? this[load](), handle);
    } catch (error) {
      return Promise.reject(error);
    }
  }

  get driverVersion(): number {
    return (this[loaded] ?? this[load]()).driverVersion;
  }
  get capabilities(): DriverCapabilities {
    return (this[loaded] ?? this[load]()).capabilities;
  }

  // --- Devices and contexts ---------------------------------------------------------------
  deviceGetCount(): number {
    return devices.deviceGetCount(this[loaded] ?? this[load]());
  }
  deviceGetName(ordinal: number): string {
    return devices.deviceGetName(this[loaded] ?? this[load](), ordinal);
  }
  deviceGetUuid(ordinal: number): Uint8Array {
    return devices.deviceGetUuid(this[loaded] ?? this[load](), ordinal);
  }
  deviceTotalMem(ordinal: number): number {
    return devices.deviceTotalMem(this[loaded] ?? this[load](), ordinal);
  }
  deviceGetAttribute(attribute: number, ordinal: number): number {
    return devices.deviceGetAttribute(this[loaded] ?? this[load](), attribute, ordinal);
  }
  deviceGetDefaultMemPool(ordinal: number): DriverHandle {
    return devices.deviceGetDefaultMemPool(this[loaded] ?? this[load](), ordinal);
  }
  deviceGetMemPool(ordinal: number): DriverHandle {
    return devices.deviceGetMemPool(this[loaded] ?? this[load](), ordinal);
  }
  deviceCanAccessPeer(ordinal: number, peerOrdinal: number): boolean {
    return peers.deviceCanAccessPeer(this[loaded] ?? this[load](), ordinal, peerOrdinal);
  }
  deviceGetP2PAttribute(attribute: number, srcOrdinal: number, dstOrdinal: number): number {
    return peers.deviceGetP2PAttribute(this[loaded] ?? this[load](), attribute, srcOrdinal, dstOrdinal);
  }
  primaryContextRetain(ordinal: number): DriverHandle {
    return devices.primaryContextRetain(this[loaded] ?? this[load](), ordinal);
  }
  primaryContextRelease(ordinal: number): void {
    devices.primaryContextRelease(this[loaded] ?? this[load](), ordinal);
  }
  contextSetCurrent(context: DriverHandle): void {
    devices.contextSetCurrent(this[loaded] ?? this[load](), context);
  }
  contextGetCurrent(): DriverHandle {
    return devices.contextGetCurrent(this[loaded] ?? this[load]());
  }
  contextGetDevice(): number {
    return devices.contextGetDevice(this[loaded] ?? this[load]());
  }
  contextSynchronize(): void {
    devices.contextSynchronize(this[loaded] ?? this[load]());
  }
  memGetInfo(): { free: number; total: number } {
    return devices.memGetInfo(this[loaded] ?? this[load]());
  }
  contextGetStreamPriorityRange(): { least: number; greatest: number } {
    return devices.contextGetStreamPriorityRange(this[loaded] ?? this[load]());
  }
  contextEnablePeerAccess(peerContext: DriverHandle): void {
    peers.contextEnablePeerAccess(this[loaded] ?? this[load](), peerContext);
  }

  // --- Streams and events ------------------------------------------------------------------
  streamCreate(flags: number, priority: number): DriverHandle {
    return streams.streamCreate(this[loaded] ?? this[load](), flags, priority);
  }
  streamDestroy(stream: DriverHandle): void {
    streams.streamDestroy(this[loaded] ?? this[load](), stream);
  }
  streamSynchronize(stream: DriverHandle): void {
    streams.streamSynchronize(this[loaded] ?? this[load](), stream);
  }
  streamSynchronizeAsync(stream: DriverHandle): Promise<void> {
    return this.#settle(streams.streamSynchronizeAsync, stream);
  }
  streamQuery(stream: DriverHandle): boolean {
    return streams.streamQuery(this[loaded] ?? this[load](), stream);
  }
  streamWaitEvent(stream: DriverHandle, event: DriverHandle): void {
    streams.streamWaitEvent(this[loaded] ?? this[load](), stream, event);
  }
  eventCreate(flags: number): DriverHandle {
    return streams.eventCreate(this[loaded] ?? this[load](), flags);
  }
  eventDestroy(event: DriverHandle): void {
    streams.eventDestroy(this[loaded] ?? this[load](), event);
  }
  eventRecord(event: DriverHandle, stream: DriverHandle): void {
    streams.eventRecord(this[loaded] ?? this[load](), event, stream);
  }
  eventSynchronize(event: DriverHandle): void {
    streams.eventSynchronize(this[loaded] ?? this[load](), event);
  }
  eventSynchronizeAsync(event: DriverHandle): Promise<void> {
    return this.#settle(streams.eventSynchronizeAsync, event);
  }
  eventQuery(event: DriverHandle): boolean {
    return streams.eventQuery(this[loaded] ?? this[load](), event);
  }
  eventElapsedTime(start: DriverHandle, end: DriverHandle): number {
    return streams.eventElapsedTime(this[loaded] ?? this[load](), start, end);
  }
}
