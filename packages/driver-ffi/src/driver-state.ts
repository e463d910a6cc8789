import type { Driver, DriverCapabilities } from '@cumem/core-types';
import type { Bindings } from './bindings.js';
import type { DescribeResult, ErrorCheck } from './error-check.js';
import type { Koffi } from './koffi-module.js';
import type { NativeScratch } from './native-scratch.js';

/** Everything a loaded driver needs; the area modules take it as their first argument. */
export interface DriverState {
  readonly koffi: Koffi;
  /** The koffi library object; referenced so the library stays loaded. */
  readonly library: unknown;
  readonly native: Bindings;
  readonly check: ErrorCheck;
  readonly describe: DescribeResult;
  /** `cuDriverGetVersion`. */
  readonly driverVersion: number;
  /** `entryPoints: 'legacy'`. */
  readonly legacy: boolean;
  readonly capabilities: DriverCapabilities;
  readonly scratch: NativeScratch;
  /** `CUdevice` of each ordinal, filled by `cuDeviceGet` on first use. */
  readonly devices: number[];
  /** The library path koffi loaded (the staging workers load the same one). */
  readonly libraryPath: string;
}

/**
 * The type of an area module's function for contract member `K`: the loaded state, then the
 * member's parameters. The parameter lists live once, in the contract; a type only, so the area
 * functions stay plain functions (nothing added per call).
 */
export type StateMember<K extends keyof Driver> = Driver[K] extends (...args: infer A) => infer R
  ? (state: DriverState, ...args: A) => R
  : never;
