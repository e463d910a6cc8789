// koffi is loaded on first use, not at import: importing the adapter must work anywhere, and a
// platform without a koffi build then fails as DriverUnavailableError, like a missing libcuda.

import { createRequire } from 'node:module';

/** The koffi module's type. */
export type Koffi = typeof import('koffi');

let koffi: Koffi | undefined;

/** koffi, loaded once. Throws what `require('koffi')` throws. */
export function loadKoffi(): Koffi {
  koffi ??= createRequire(import.meta.url)('koffi') as Koffi;
  return koffi;
}
