#!/usr/bin/env node
// The package's "install" script. The addon is optional — the FFI adapter needs no compiler —
// so installing never fails. A prebuilt binary for this platform (prebuilds/, picked by
// node-gyp-build's rules: platform, arch, libc) that loads is used as is; otherwise the addon is
// built from source, and when that cannot or does not succeed this prints one warning and exits 0.
// With install scripts off (`--ignore-scripts`, pnpm 10, bun) the prebuilt binary is still found
// at run time: this script only adds the from-source fallback.
'use strict';

const { spawnSync } = require('node:child_process');
const path = require('node:path');

const packageRoot = path.join(__dirname, '..');

function warn(reason) {
  console.warn(
    `[@cumem/driver-napi] warning: the native addon was not built (${reason}). ` +
      'createDriver() will throw DriverUnavailableError with the fixes; @cumem/driver-ffi works without it.',
  );
}

/** The path of a prebuilt (or already built) addon that loads in this process, or why none does. */
function usableBinary() {
  let found;
  try {
    found = require('node-gyp-build').path(packageRoot);
  } catch {
    return { reason: `no prebuilt binary for ${process.platform}-${process.arch}` };
  }
  try {
    require(found);
    return { path: found };
  } catch (error) {
    return { reason: `${found} does not load here: ${error.message.split('\n')[0]}` };
  }
}

const binary = usableBinary();
if (binary.path && process.env.CUMEM_BUILD_FROM_SOURCE !== '1') process.exit(0);
if (process.env.CUMEM_SKIP_NATIVE_BUILD === '1') {
  warn(`${binary.reason ?? 'CUMEM_BUILD_FROM_SOURCE=1'}, and CUMEM_SKIP_NATIVE_BUILD=1`);
  process.exit(0);
}
if (binary.reason) console.log(`[@cumem/driver-napi] ${binary.reason}: building from source.`);
// In a clone of the cumem repository the build is `pnpm build`'s (turbo's `build:addon`), which
// compiles only when a native source changed: built here once, it is not compiled again there.
const inWorkspace = !packageRoot.split(path.sep).includes('node_modules');
const result = spawnSync(
  process.execPath,
  [path.join(__dirname, 'build-addon.cjs'), ...(inWorkspace ? ['--if-stale'] : [])],
  { stdio: 'inherit' },
);
if (result.status === 2) warn('a build prerequisite is missing, see above');
else if (result.status !== 0) warn('the build failed, see above');
process.exit(0);
