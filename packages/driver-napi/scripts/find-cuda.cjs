#!/usr/bin/env node
// Finds the CUDA headers the addon compiles against (cuda.h and cudaTypedefs.h; libcuda is
// never linked). Order: CUDA_PATH, CUDA_HOME, /usr/local/cuda. Used by binding.gyp (prints the
// include directory) and by build-addon.cjs (to fail early with a clear message).
'use strict';

const fs = require('node:fs');
const path = require('node:path');

/** The candidates, in the order they are tried, with where each came from. */
function cudaCandidates(env = process.env) {
  const candidates = [];
  if (env.CUDA_PATH) candidates.push({ root: env.CUDA_PATH, from: 'CUDA_PATH' });
  if (env.CUDA_HOME) candidates.push({ root: env.CUDA_HOME, from: 'CUDA_HOME' });
  candidates.push({ root: '/usr/local/cuda', from: 'the default location' });
  return candidates;
}

/** `{ include, version }` of the first candidate with cuda.h and cudaTypedefs.h, or `{ error }`. */
function findCuda(env = process.env) {
  const tried = [];
  for (const { root, from } of cudaCandidates(env)) {
    const include = path.join(root, 'include');
    const header = path.join(include, 'cuda.h');
    if (fs.existsSync(header) && fs.existsSync(path.join(include, 'cudaTypedefs.h'))) {
      const match = /#define\s+CUDA_VERSION\s+(\d+)/.exec(fs.readFileSync(header, 'utf8'));
      return { include, version: match ? Number(match[1]) : 0 };
    }
    tried.push(`${include} (${from})`);
  }
  return {
    error:
      'No CUDA headers found: @cumem/driver-napi compiles against cuda.h and cudaTypedefs.h ' +
      `(CUDA 12.0 or newer) but found none in:\n  ${tried.join('\n  ')}\n` +
      'Install the CUDA toolkit headers (e.g. the cuda-cudart-dev / cuda-toolkit package) and set ' +
      'CUDA_PATH or CUDA_HOME to its root, or use @cumem/driver-ffi, which needs no compiler.',
  };
}

module.exports = { findCuda, cudaCandidates };

if (require.main === module) {
  const found = findCuda();
  if (found.error) {
    process.stderr.write(`${found.error}\n`);
    process.exit(1);
  }
  if (found.version && found.version < 12000) {
    process.stderr.write(
      `The CUDA headers in ${found.include} are version ${found.version}; 12.0 or newer is needed.\n`,
    );
    process.exit(1);
  }
  process.stdout.write(found.include);
}
