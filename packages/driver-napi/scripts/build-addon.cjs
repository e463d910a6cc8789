#!/usr/bin/env node
// Builds build/Release/cumem_napi.node from source with node-gyp against the local Node headers
// (the CUDA toolkit is not needed: native/cuda-types.h declares what the addon uses). Exit
// codes: 0 built; 1 failed; 2 skipped because a prerequisite is missing (no compiler, no
// node-gyp) — install.cjs turns 2 into a warning.
// `--if-possible` (used by `pnpm build`) turns a skip into exit 0, so a monorepo build on a
// machine without a compiler still builds the TypeScript; a real compile error still fails.
// `--if-stale` (used by `pnpm build` and the workspace install) compiles only when
// build/Release/cumem_napi.node is missing or older than a native source, so the addon that
// `pnpm install` built is not compiled again by the first `pnpm build`.
'use strict';

const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const packageRoot = path.join(__dirname, '..');
const SKIPPED = 2;

/** node-gyp's CLI: this package's devDependency, the one npm/pnpm hands to scripts, or npm's bundled copy. */
function findNodeGyp() {
  const candidates = [];
  try {
    candidates.push(require.resolve('node-gyp/bin/node-gyp.js', { paths: [packageRoot] }));
  } catch {}
  if (process.env.npm_config_node_gyp) candidates.push(process.env.npm_config_node_gyp);
  const prefix = path.dirname(path.dirname(process.execPath));
  candidates.push(
    path.join(prefix, 'lib', 'node_modules', 'npm', 'node_modules', 'node-gyp', 'bin', 'node-gyp.js'),
  );
  return candidates.find((candidate) => fs.existsSync(candidate));
}

/** `--nodedir=<prefix>` when Node's own headers are installed there: no download from nodejs.org. */
function nodeDirArguments() {
  if (process.env.npm_config_nodedir) return [`--nodedir=${process.env.npm_config_nodedir}`];
  const prefix = path.dirname(path.dirname(process.execPath));
  return fs.existsSync(path.join(prefix, 'include', 'node', 'node_api.h')) ? [`--nodedir=${prefix}`] : [];
}

function hasCompiler() {
  const compiler = process.env.CXX || 'c++';
  return spawnSync(compiler, ['--version'], { stdio: 'ignore' }).status === 0;
}

/** The native sources: what the addon is compiled from (also turbo's inputs for `build:addon`). */
function nativeSources() {
  const native = path.join(packageRoot, 'native');
  return [
    path.join(packageRoot, 'binding.gyp'),
    __filename,
    ...fs.readdirSync(native).map((file) => path.join(native, file)),
  ];
}

/** True when the built addon exists and is newer than every native source. */
function isUpToDate() {
  const addon = path.join(packageRoot, 'build', 'Release', 'cumem_napi.node');
  if (!fs.existsSync(addon)) return false;
  const builtAt = fs.statSync(addon).mtimeMs;
  return nativeSources().every((file) => fs.statSync(file).mtimeMs <= builtAt);
}

function main() {
  if (process.argv.includes('--if-stale') && isUpToDate()) return 0;
  if (!hasCompiler()) {
    console.error('[@cumem/driver-napi] not built: no C++ compiler (set CXX, or install g++ / clang++).');
    return SKIPPED;
  }
  const nodeGyp = findNodeGyp();
  if (!nodeGyp) {
    console.error('[@cumem/driver-napi] not built: node-gyp was not found (npm install -g node-gyp).');
    return SKIPPED;
  }
  const started = Date.now();
  const result = spawnSync(process.execPath, [nodeGyp, 'rebuild', '--jobs=max', ...nodeDirArguments()], {
    cwd: packageRoot,
    stdio: 'inherit',
  });
  if (result.status !== 0) {
    console.error(`[@cumem/driver-napi] node-gyp rebuild failed (exit code ${result.status}).`);
    return 1;
  }
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  console.log(`[@cumem/driver-napi] built build/Release/cumem_napi.node from source in ${seconds} s`);
  return 0;
}

module.exports = { findNodeGyp, nodeDirArguments, hasCompiler, isUpToDate };

if (require.main === module) {
  const status = main();
  process.exitCode = status === SKIPPED && process.argv.includes('--if-possible') ? 0 : status;
}
