// The N-API adapter from the tarball: its addon must load without compiling (the prebuilt
// binary), so the first call fails for lack of libcuda ("library-missing"), not of the addon.
import { createDriver, nativeAddonInfo } from '@cumem/driver-napi';

const info = nativeAddonInfo();
let reason = 'none';
try {
  createDriver().deviceGetCount();
} catch (error) {
  reason = error.reason ?? error.message;
}
console.log(JSON.stringify({ info, reason }));
