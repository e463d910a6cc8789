import { defaultAddon, isPrebuilt } from './load-addon.js';

/** Where the native addon of this package came from, for diagnostics (`cumem info`). */
export type NativeAddonInfo =
  | {
      readonly loaded: true;
      /** The `.node` file loaded. */
      readonly path: string;
      /** True for a binary shipped in the package (`prebuilds/`), false for one built from source at install. */
      readonly prebuilt: boolean;
    }
  | {
      readonly loaded: false;
      /** Why no addon loaded, with the possible solutions. */
      readonly message: string;
    };

/** Finds and loads the addon (once per process) and says where it came from. Never throws. */
export function nativeAddonInfo(): NativeAddonInfo {
  const result = defaultAddon();
  if (result.addon === undefined) return { loaded: false, message: result.error.message };
  return { loaded: true, path: result.path, prebuilt: isPrebuilt(result.path) };
}
