#!/usr/bin/env node
// Builds the prebuilt binary that the published package carries:
//   prebuilds/<platform>-<arch>/@cumem+driver-napi.napi.glibc.node
// with prebuildify (one Node-API build serves every Node version; tagged glibc, so on musl
// node-gyp-build's rules pass it over and the install builds from source). The binary needs
// glibc >= 2.17 only (CUMEM_GLIBC_BASELINE=1, see binding.gyp). Run by the release and by CI's
// tarball smoke test before `npm pack`; `prebuilds/` is not committed (built in CI from source,
// so the shipped binary is always the source's).
// Usage: node scripts/prebuild.cjs [--arch arm64]  (arm64 from x64: g++-aarch64-linux-gnu)
'use strict';

const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const { findNodeGyp, nodeDirArguments } = require('./build-addon.cjs');

/** Debian's cross toolchain prefixes (`apt-get install g++-aarch64-linux-gnu`). */
const CROSS_PREFIX = { arm64: 'aarch64-linux-gnu-' };

const packageRoot = path.join(__dirname, '..');
const nodeGyp = findNodeGyp();
if (!nodeGyp) {
  console.error('[@cumem/driver-napi] prebuild: node-gyp was not found (npm install -g node-gyp).');
  process.exit(1);
}
const archIndex = process.argv.indexOf('--arch');
const arch = archIndex >= 0 ? process.argv[archIndex + 1] : process.arch;
const nodedir = nodeDirArguments()[0]?.slice('--nodedir='.length);
// Cross builds use Debian's cross toolchain (g++-aarch64-linux-gnu) unless CXX names another.
const cross = arch !== process.arch && process.platform === 'linux' ? CROSS_PREFIX[arch] : undefined;
if (arch !== process.arch && process.platform === 'linux' && cross === undefined) {
  console.error(`[@cumem/driver-napi] prebuild: no cross toolchain known for ${arch}.`);
  process.exit(1);
}
const toolchain = cross
  ? {
      CC: process.env.CC ?? `${cross}gcc`,
      CXX: process.env.CXX ?? `${cross}g++`,
      PREBUILD_STRIP_BIN: `${cross}strip`,
    }
  : {};
const prebuildify = require.resolve('prebuildify/bin.js', { paths: [packageRoot] });
const started = Date.now();
// prebuildify compiles in build/: the contributor's own build (what the tests load, and the GPU
// suite's "source build") is set aside and put back, so a prebuild never replaces it.
const build = path.join(packageRoot, 'build');
const setAside = path.join(packageRoot, `build.set-aside-${process.pid}`);
if (fs.existsSync(build)) fs.renameSync(build, setAside);
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
      // binding.gyp: oldest glibc symbol versions, old libstdc++ ABI (scripts/check-glibc-baseline.mjs).
      CUMEM_GLIBC_BASELINE: '1',
      ...toolchain,
      ...(nodedir ? { npm_config_nodedir: nodedir } : {}),
    },
  },
);
fs.rmSync(build, { recursive: true, force: true });
if (fs.existsSync(setAside)) fs.renameSync(setAside, build);
if (result.status !== 0) {
  console.error(`[@cumem/driver-napi] prebuild failed (exit code ${result.status}).`);
  process.exit(1);
}
console.log(
  `[@cumem/driver-napi] prebuilt prebuilds/${process.platform}-${arch}/ in ${((Date.now() - started) / 1000).toFixed(1)} s`,
);
