#!/usr/bin/env node
// The tarball smoke test (CI): cumem installed the way a user installs it. Every published
// package is packed (`pnpm pack`: workspace ranges become versions), checked for what it must
// and must not ship, and installed with npm into a fresh project twice:
//   A. a normal `npm install`: apache-arrow 21 as the peer, apache-arrow 19 as a second copy;
//   B. `npm install --ignore-scripts` (pnpm 10, bun): apache-arrow 19 as the peer, 21 second.
// In each: the README's program and a user program run on the public reference driver
// (@cumem/testing), an Arrow table makes the round trip through device memory, a table of the
// second copy is refused with a TypeError naming both versions, the N-API adapter loads from the
// prebuilt binary without compiling (its failure without a GPU is "library-missing", not
// "no-adapter"), and `npx cumem info` reports it.
// Usage: node scripts/smoke-tarballs.mjs [--keep]   (needs the registry for apache-arrow, koffi)
import { execFileSync } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const here = join(root, 'scripts', 'smoke');
const started = Date.now();
const packages = {
  '@cumem/core-types': 'packages/core-types',
  '@cumem/driver-kit': 'packages/driver-kit',
  '@cumem/driver-ffi': 'packages/driver-ffi',
  '@cumem/driver-napi': 'packages/driver-napi',
  '@cumem/memory': 'packages/memory',
  '@cumem/utils': 'packages/utils',
  '@cumem/interop-arrow': 'packages/interop-arrow',
  '@cumem/testing': 'testing/driver-testing',
};
const failures = [];
const step = (message) => console.log(`smoke: ${message} (${((Date.now() - started) / 1000).toFixed(0)} s)`);
const check = (condition, message) => {
  if (!condition) failures.push(message);
  console.log(`  ${condition ? 'ok  ' : 'FAIL'} ${message}`);
};
const run = (command, args, options = {}) =>
  execFileSync(command, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], ...options });

const scratch = mkdtempSync(join(tmpdir(), 'cumem-smoke-'));
try {
  step('building the packages and the prebuilt linux-x64 binary');
  run('pnpm', ['--silent', 'turbo', 'run', 'build', '--output-logs=errors-only'], {
    cwd: root,
    stdio: 'inherit',
  });
  // Rebuilt when missing or older than any native source: a stale binary would be packed otherwise.
  const napiRoot = join(root, 'packages/driver-napi');
  const prebuilds = join(napiRoot, 'prebuilds', `${process.platform}-${process.arch}`);
  const binaries = existsSync(prebuilds)
    ? readdirSync(prebuilds).filter((file) => file.endsWith('.node'))
    : [];
  const builtAt = Math.min(...binaries.map((file) => statSync(join(prebuilds, file)).mtimeMs));
  const sources = [
    join(napiRoot, 'binding.gyp'),
    ...readdirSync(join(napiRoot, 'native')).map((file) => join(napiRoot, 'native', file)),
  ];
  if (binaries.length === 0 || sources.some((file) => statSync(file).mtimeMs > builtAt)) {
    run('node', ['scripts/prebuild.cjs'], { cwd: napiRoot, stdio: 'inherit' });
  }

  step('packing');
  const tarballs = join(scratch, 'tarballs');
  mkdirSync(tarballs);
  const tarballOf = {};
  for (const [name, directory] of Object.entries(packages)) {
    const before = new Set(readdirSync(tarballs));
    run('pnpm', ['pack', '--pack-destination', tarballs], { cwd: join(root, directory) });
    const file = readdirSync(tarballs).find((entry) => !before.has(entry));
    tarballOf[name] = join(tarballs, file);
    const listing = run('tar', ['tzf', tarballOf[name]]).split('\n');
    check(listing.includes('package/LICENSE'), `${name}: ships LICENSE`);
    check(
      !listing.some((path) => /\.tsbuildinfo$|\.test\.[jt]s$|(^|\/)build\/|\.turbo/.test(path)),
      `${name}: ships no build artefacts or tests`,
    );
    if (name === '@cumem/driver-napi') {
      check(
        listing.some((path) => /^package\/prebuilds\/linux-x64\/.*\.node$/.test(path)),
        `${name}: ships prebuilds/linux-x64/*.node`,
      );
      check(
        listing.includes('package/native/cuda-types.h'),
        `${name}: ships the sources for the from-source fallback`,
      );
    }
  }

  const project = (label, peer, other, installArguments) => {
    step(
      `project ${label}: npm install ${installArguments.join(' ')} (apache-arrow ${peer}, second copy ${other})`,
    );
    const directory = join(scratch, label);
    mkdirSync(directory);
    const dependencies = Object.fromEntries(
      Object.entries(tarballOf).map(([name, file]) => [name, `file:${file}`]),
    );
    writeFileSync(
      join(directory, 'package.json'),
      JSON.stringify({
        name: `cumem-smoke-${label}`,
        private: true,
        type: 'module',
        dependencies: { ...dependencies, 'apache-arrow': peer, 'arrow-other': `npm:apache-arrow@${other}` },
      }),
    );
    for (const file of ['user-program.mjs', 'use-reference.mjs', 'napi-load.mjs'])
      copyFileSync(join(here, file), join(directory, file));
    copyFileSync(join(root, 'examples/quickstart/quickstart.mjs'), join(directory, 'quickstart.mjs'));
    const install = run(
      'npm',
      ['install', '--no-audit', '--no-fund', '--loglevel=error', ...installArguments],
      { cwd: directory },
    );
    const napi = join(directory, 'node_modules/@cumem/driver-napi');
    check(!existsSync(join(napi, 'build')), `${label}: the addon was not compiled at install`);
    check(
      !/warning: the native addon was not built/.test(install),
      `${label}: install printed no addon warning`,
    );

    const quickstart = run('node', ['--import', './use-reference.mjs', 'quickstart.mjs'], { cwd: directory });
    check(
      /read back 256 floats, first 1\.5/.test(quickstart),
      `${label}: the README's program runs on the reference driver`,
    );

    const user = JSON.parse(run('node', ['user-program.mjs'], { cwd: directory }).trim().split('\n').pop());
    check(user.bufferRoundTrip === true, `${label}: a device buffer round trip`);
    check(
      user.arrowRows === 4 && user.arrowSum === 8,
      `${label}: an Arrow table through device memory (${user.arrowRows} rows)`,
    );
    check(
      user.foreign.accepted
        ? user.foreign.rows === 3
        : user.foreign.type === 'TypeError' && user.foreign.message.includes('apache-arrow'),
      `${label}: a table of the second copy: ${user.foreign.accepted ? `accepted, ${user.foreign.rows} rows` : user.foreign.message.split(':')[0]}`,
    );

    const load = JSON.parse(run('node', ['napi-load.mjs'], { cwd: directory }).trim());
    check(
      load.info.loaded && load.info.prebuilt,
      `${label}: the N-API addon loads from the prebuilt binary (${load.info.path ?? load.info.message})`,
    );
    check(
      load.reason !== 'no-adapter',
      `${label}: without a GPU the N-API adapter fails with "${load.reason}", not "no-adapter"`,
    );

    let info;
    try {
      info = run('npx', ['--no-install', 'cumem', 'info'], { cwd: directory });
    } catch (error) {
      info = `${error.stdout ?? ''}`; // exit 1 without a GPU: the report is still printed
    }
    check(
      /napi: @cumem\/driver-napi .*: loads/.test(info) && /prebuilt binary/.test(info),
      `${label}: cumem info reports the prebuilt addon`,
    );
    check(/chosen: napi/.test(info), `${label}: cumem info says which adapter is chosen`);
  };
  project('A-normal', '^21.1.0', '19', []);
  project('B-ignore-scripts', '19', '^21.1.0', ['--ignore-scripts']);
} finally {
  if (!process.argv.includes('--keep')) rmSync(scratch, { recursive: true, force: true });
  else console.log(`smoke: kept ${scratch}`);
}
step(
  failures.length === 0
    ? 'all checks passed'
    : `${failures.length} check(s) failed:\n  ${failures.join('\n  ')}`,
);
process.exitCode = failures.length === 0 ? 0 : 1;
