#!/usr/bin/env node
// Builds the prebuilt binary that the published package carries:
//   prebuilds/<platform>-<arch>/@cumem+driver-napi.napi.glibc.node
// with prebuildify (one Node-API build serves every Node version; tagged glibc, so on musl
// node-gyp-build's rules pass it over and the install builds from source). Run by the release
// and by CI's tarball smoke test before `npm pack`; `prebuilds/` is not committed.
// Usage: node scripts/prebuild.cjs [--arch arm64]  (cross builds need a cross compiler in CXX)
'use strict';

const { spawnSync } = require('node:child_process');
const path = require('node:path');
const { findNodeGyp, nodeDirArguments } = require('./build-addon.cjs');

const packageRoot = path.join(__dirname, '..');
const nodeGyp = findNodeGyp();
if (!nodeGyp) {
  console.error('[@cumem/driver-napi] prebuild: node-gyp was not found (npm install -g node-gyp).');
  process.exit(1);
}
const archIndex = process.argv.indexOf('--arch');
const arch = archIndex >= 0 ? process.argv[archIndex + 1] : process.arch;
const nodedir = nodeDirArguments()[0]?.slice('--nodedir='.length);
const prebuildify = require.resolve('prebuildify/bin.js', { paths: [packageRoot] });
const started = Date.now();
const result = spawnSync(
  process.execPath,
  [
    prebuildify,
    '--napi',
    '--strip',
    '--tag-libc',
    `--arch=${arch}`,
    '--target',
    `node@${process.versions.node}`,
  ],
  {
    cwd: packageRoot,
    stdio: 'inherit',
    // node-gyp.js is run by this Node; the headers come from its own installation when present,
    // so nothing is downloaded.
    env: {
      ...process.env,
      PREBUILD_NODE_GYP: nodeGyp,
      ...(nodedir ? { npm_config_nodedir: nodedir } : {}),
    },
  },
);
if (result.status !== 0) {
  console.error(`[@cumem/driver-napi] prebuild failed (exit code ${result.status}).`);
  process.exit(1);
}
console.log(
  `[@cumem/driver-napi] prebuilt prebuilds/${process.platform}-${arch}/ in ${((Date.now() - started) / 1000).toFixed(1)} s`,
);
