// Finds and loads the native addon, the node-gyp-build / sharp way: an ordered search that
// ends, when nothing is found, in an error listing the fixes — never in a throw at import.
import { existsSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DriverUnavailableError } from '@cumem/core-types';
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

interface PrebuildTags {
  readonly file: string;
}
interface NodeGypBuildHelpers {
  parseTags(file: string): PrebuildTags | undefined;
  matchTags(runtime: string, abi: string): (tags: PrebuildTags | undefined) => boolean;
  compareTags(runtime: string): (a: PrebuildTags, b: PrebuildTags) => number;
}

/** The best `prebuilds/<platform>-<arch>/*.node` for this Node (Node-API builds match every ABI). */
function findPrebuild(packageRoot: string): string | undefined {
  const directory = join(packageRoot, 'prebuilds', `${process.platform}-${process.arch}`);
  if (!existsSync(directory)) return undefined;
  // node-gyp-build's own tag rules (napi, abi, libc, armv), so prebuildify's names just work.
  const helpers = require('node-gyp-build') as NodeGypBuildHelpers;
  const candidates = readdirSync(directory)
    .map((file) => helpers.parseTags(file))
    .filter(helpers.matchTags('node', process.versions.modules))
    .filter((tags): tags is PrebuildTags => tags !== undefined)
    .sort(helpers.compareTags('node'));
  return candidates[0] ? join(directory, candidates[0].file) : undefined;
}

function solutions(): string {
  return [
    'Possible solutions:',
    `- The package carries prebuilt binaries for linux-x64 (glibc); on ${process.platform}-${process.arch} it builds`,
    '  from source at install: run `npm rebuild @cumem/driver-napi` (or `pnpm rebuild @cumem/driver-napi`) where',
    '  a C++ compiler, python3 and make are installed, and with install scripts allowed (pnpm 10: `pnpm approve-builds`).',
    "- Use the FFI adapter instead: @cumem/driver-ffi needs no compiler (CUMEM_DRIVER=ffi, or useDriver('ffi')).",
    '- `npx cumem info` shows which adapter loads, and why the other does not.',
  ].join('\n');
}

/**
 * Looks for the addon in `build/Release/cumem_napi.node` and then `prebuilds/<platform>-<arch>/`
 * (node-gyp-build's order: a binary built here, from source at install or by a contributor, was
 * built on purpose and is newer than the shipped one), loads the first found and registers the
 * error factory with it. Never throws.
 * @internal
 */
export function loadAddon(options: LoadAddonOptions = {}): AddonLoadResult {
  const packageRoot = options.packageRoot ?? defaultPackageRoot;
  const build = join(packageRoot, 'build', 'Release', ADDON_FILE);
  const path = existsSync(build) ? build : findPrebuild(packageRoot);
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
    // Found but not loadable (wrong architecture, missing libstdc++, corrupt file): say so, with the cause.
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
