import type { DriverCapabilities } from '@cumem/core-types';
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
