/**
 * `@cumem/driver-napi`: the cumem Driver contract as a node-addon-api C++ addon that opens
 * `libcuda.so.1` at run time. Import never fails; the first driver call does when there is no
 * addon, no driver library or no device.
 */

export type { Driver, DriverCapabilities, DriverOptions, EntryPointMode } from '@cumem/core-types';
export { type NativeAddonInfo, nativeAddonInfo } from './addon-info.js';
export { createDriver } from './napi-driver.js';
