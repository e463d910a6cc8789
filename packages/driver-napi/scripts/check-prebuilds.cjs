#!/usr/bin/env node
// `prepack`: the published package must carry the prebuilt binary of every platform its README
// promises (linux-x64 and linux-arm64), so a user there installs without a compiler. Refuses to
// pack (exit 1, naming what is missing and how to build it) when one is absent.
// `node scripts/prebuild.cjs` builds linux-x64; `node scripts/prebuild.cjs --arch arm64` builds
// linux-arm64 with Debian's cross compiler (g++-aarch64-linux-gnu).
'use strict';

const fs = require('node:fs');
const path = require('node:path');

/** The platforms every published tarball carries a prebuilt binary for. */
const REQUIRED_PLATFORMS = ['linux-x64', 'linux-arm64'];

const prebuilds = path.join(__dirname, '..', 'prebuilds');
const missing = REQUIRED_PLATFORMS.filter((platform) => {
  const directory = path.join(prebuilds, platform);
  return !fs.existsSync(directory) || !fs.readdirSync(directory).some((file) => file.endsWith('.node'));
});
if (missing.length > 0) {
  console.error(
    `[@cumem/driver-napi] prepack: refusing to pack without prebuilds/${missing.join('/, prebuilds/')}/*.node.\n` +
      'Build them first: node scripts/prebuild.cjs (linux-x64) and node scripts/prebuild.cjs --arch arm64 ' +
      '(linux-arm64, needs g++-aarch64-linux-gnu).',
  );
  process.exit(1);
}
console.log(`[@cumem/driver-napi] prepack: prebuilt binaries present for ${REQUIRED_PLATFORMS.join(', ')}`);
