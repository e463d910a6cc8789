// Finds and loads the native addon with node-gyp-build (its documented `path(dir)`), the way
// sharp and better-sqlite3 do: a search that ends, when nothing is found, in an error listing
// the fixes — never in a throw at import.
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DriverUnavailableError } from '@cumem/core-types';
import { unsupportedPlatformError } from '@cumem/driver-kit';
import { createNativeError } from './error-factory.js';
import type { NativeAddon } from './native-binding.js';

const require = createRequire(import.meta.url);

/** File name node-gyp gives the addon (binding.gyp's target_name). */
export const ADDON_FILE = 'cumem_napi.node';

/** The package root: one level above `src/` (tests) or `dist/` (published). */
const defaultPackageRoot = fileURLToPath(new URL('..', import.meta.url));

/** The result of {@link loadAddon}: the addon, or why there is none. @internal */
export type AddonLoadResult =
  | { readonly addon: NativeAddon; readonly path: string; readonly error?: undefined }
  | { readonly addon?: undefined; readonly error: DriverUnavailableError };

/** Internal options, for tests. @internal */
export interface LoadAddonOptions {
  /** Where to look for `prebuilds/` and `build/Release/`. Default: this package's root. */
  readonly packageRoot?: string;
}

/** node-gyp-build's `path(dir)`: the binary it would load, or a throw when none matches. */
interface NodeGypBuild {
  path(directory: string): string;
}

/** True when this package's warnings are off (`CUMEM_NO_WARNINGS=1`; Node's `NODE_NO_WARNINGS` works too). */
const warningsOff = () => process.env.CUMEM_NO_WARNINGS === '1';

/**
 * The binary node-gyp-build picks — `build/Release/` (a build made here, on purpose), then the
 * best `prebuilds/<platform>-<arch>/` match (platform, arch, libc, Node-API tags; with
 * `PREBUILDS_ONLY=1` the prebuilt one only) — or undefined when there is none.
 */
function findBinary(packageRoot: string): string | undefined {
  try {
    return (require('node-gyp-build') as NodeGypBuild).path(packageRoot);
  } catch {
    return undefined;
  }
}

/** Whether `path` is a binary shipped in the package (not one built here). */
export const isPrebuilt = (path: string): boolean => /[\\/]prebuilds[\\/]/.test(path);

function solutions(): string {
  return [
    'Possible solutions:',
    `- The package carries prebuilt binaries for linux-x64 and linux-arm64 (glibc); on ${process.platform}-${process.arch} it builds`,
    '  from source at install: run `npm rebuild @cumem/driver-napi` (or `pnpm rebuild @cumem/driver-napi`) where',
    '  a C++ compiler, python3 and make are installed, and with install scripts allowed (pnpm 10: `pnpm approve-builds`).',
    "- Use the FFI adapter instead: @cumem/driver-ffi needs no compiler (CUMEM_DRIVER=ffi, or useDriver('ffi')).",
    '- `npx cumem info` shows which adapter loads, and why the other does not.',
  ].join('\n');
}

/**
 * Finds the addon with node-gyp-build (`build/Release/` first, then `prebuilds/`), loads it and
 * registers the error factory with it. Never throws. A prebuilt binary that exists but does not
 * load (an older glibc, a foreign architecture, a damaged file) emits one warning naming the
 * cause and the FFI fallback, since nothing else would say why the slower adapter runs;
 * `CUMEM_NO_WARNINGS=1` (or Node's `NODE_NO_WARNINGS=1`) silences it.
 * @internal
 */
export function loadAddon(options: LoadAddonOptions = {}): AddonLoadResult {
  const packageRoot = options.packageRoot ?? defaultPackageRoot;
  const elsewhere = unsupportedPlatformError('napi');
  if (elsewhere) return { error: elsewhere };
  const build = join(packageRoot, 'build', 'Release', ADDON_FILE);
  const path = findBinary(packageRoot);
  if (path === undefined) {
    return {
      error: new DriverUnavailableError(
        'no-adapter',
        'The native addon of @cumem/driver-napi is not built: neither ' +
          `${join(packageRoot, 'prebuilds', `${process.platform}-${process.arch}`)}/*.node nor ${build} exists.\n` +
          solutions(),
      ),
    };
  }
  try {
    const addon = require(path) as NativeAddon;
    addon.setErrorFactory(createNativeError);
    return { addon, path };
  } catch (cause) {
    // Found but not loadable (wrong architecture, too old a glibc, corrupt file): say so, with the cause.
    const firstLine = String((cause as Error).message).split('\n')[0];
    if (isPrebuilt(path) && !warningsOff()) {
      process.emitWarning(
        `The prebuilt binary ${path} does not load here (${firstLine}); cumem falls back to the ` +
          'FFI adapter (@cumem/driver-ffi) where installed. `npx cumem info` says more; ' +
          'CUMEM_NO_WARNINGS=1 silences this.',
        { type: 'CumemWarning', code: 'CUMEM_PREBUILD_NOT_LOADED' },
      );
    }
    return {
      error: new DriverUnavailableError(
        'no-adapter',
        `The native addon ${path} could not be loaded: ${(cause as Error).message}\n${solutions()}`,
        { cause },
      ),
    };
  }
}

let defaultResult: AddonLoadResult | undefined;

/** {@link loadAddon} for this package's own location, done once. @internal */
export function defaultAddon(): AddonLoadResult {
  defaultResult ??= loadAddon();
  return defaultResult;
}
