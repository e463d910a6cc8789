// What the classes of this package share about a Context without making it public API: the
// driver it was created with, how to make its device's primary context current, and its
// allocation counter. Kept in a WeakMap so `Context` has no undocumented public members.

import type { Device, Driver, DriverHandle } from '@cumem/core-types';
import { defaultStream } from '@cumem/memory';
import { makeDeviceCurrent } from '@cumem/memory/internal';
import type { Context } from './context.js';

/** Internal state of one Context. */
export interface ContextState {
  readonly driver: Driver;
  readonly device: Device;
  bytesAllocated: number;
}

const states = new WeakMap<object, ContextState>();

/** Registers the state of a new Context. */
export function registerContext(context: object, state: ContextState): void {
  states.set(context, state);
}

// Set by context.ts when it loads, so that buffer code can make a Context without importing
// the module that imports it (a run-time import cycle).
let makeContext: ((deviceNumber: number) => Context) | undefined;

/** Called once by context.ts: how to make the Context of a device. */
export function setContextMaker(maker: (deviceNumber: number) => Context): void {
  makeContext = maker;
}

/** The Context of device `deviceNumber`. */
export function contextForDevice(deviceNumber: number): Context {
  if (!makeContext) throw new Error('@cumem/interop-arrow: context.ts was not loaded');
  return makeContext(deviceNumber);
}

/** The state of `context`; a TypeError when it is not a Context of this package. */
export function contextState(context: object): ContextState {
  const state = states.get(context);
  if (!state) throw new TypeError('expected a Context of @cumem/interop-arrow');
  return state;
}

/**
 * Makes the device's primary context current on this thread (through @cumem/memory, which
 * retains it) without changing @cumem/memory's default device, and returns the stream copies go to: the library's per-device default stream,
 * so work is ordered with @cumem/memory's own default-stream work.
 */
export function enterContext(state: ContextState): DriverHandle {
  makeDeviceCurrent(state.device);
  return defaultStream(state.device).handle;
}
