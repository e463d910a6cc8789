#!/usr/bin/env node
// The package's "install" script. The addon is optional — the FFI adapter needs no compiler —
// so installing never fails: a prebuilt binary is used when present, otherwise a build is
// tried, and when it cannot or does not succeed this prints one warning and exits 0.
'use strict';

const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const packageRoot = path.join(__dirname, '..');
const prebuilds = path.join(packageRoot, 'prebuilds', `${process.platform}-${process.arch}`);

function warn(reason) {
  console.warn(
    `[@cumem/driver-napi] warning: the native addon was not built (${reason}). ` +
      'createDriver() will throw DriverUnavailableError with the fixes; @cumem/driver-ffi works without it.',
  );
}

if (fs.existsSync(prebuilds) && fs.readdirSync(prebuilds).some((file) => file.endsWith('.node'))) {
  process.exit(0);
}
if (process.env.CUMEM_SKIP_NATIVE_BUILD === '1') {
  warn('CUMEM_SKIP_NATIVE_BUILD=1');
  process.exit(0);
}
const result = spawnSync(process.execPath, [path.join(__dirname, 'build-addon.cjs')], { stdio: 'inherit' });
if (result.status === 2) warn('a build prerequisite is missing, see above');
else if (result.status !== 0) warn('the build failed, see above');
process.exit(0);
