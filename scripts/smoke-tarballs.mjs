#!/usr/bin/env node
// The tarball smoke test (CI): cumem installed the way a user installs it. The prebuilt N-API
// binaries (linux-x64, and linux-arm64 with Debian's cross compiler) are built and checked
// against the glibc 2.17 baseline (objdump -T); every published package is packed (`pnpm pack`:
// workspace ranges become versions), checked for what it must and must not ship (source maps
// whose sources are in the tarball), linted by publint and @arethetypeswrong/cli (ESM-only
// profile, and node10 resolution of every subpath), and installed into a fresh project four
// times, on a PATH where every C/C++ compiler and make fail (so nothing can be compiled):
//   A. a normal `npm install`: apache-arrow 21 as the peer, apache-arrow 19 as a second copy;
//   B. `npm install --ignore-scripts` (bun): apache-arrow 19 as the peer, 21 second;
//   C. pnpm 10 (from the registry through npx) with the install scripts approved;
//   D. pnpm 10 `--ignore-scripts` (its default for dependencies is not to run them).
// In each: the README's program and a user program run on the public reference driver
// (@cumem/testing), an Arrow table makes the round trip through device memory, a table of the
// second copy is refused with a TypeError naming both versions, the N-API adapter loads from the
// prebuilt binary without compiling (its failure without a GPU is "library-missing", not
// "no-adapter"), and `npx cumem info` reports it. In A the linux-arm64 binary is loaded by an
// arm64 Node under qemu-user (scripts/smoke/arm64-node.sh; CUMEM_ARM64_SYSROOT names its sysroot)
// and must report the missing driver, not a missing addon.
// Usage: node scripts/smoke-tarballs.mjs [--keep]   (needs the registry for apache-arrow, koffi, pnpm)
import { execFileSync, spawnSync } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  realpathSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, posix } from 'node:path';
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
  '@cumem/compute': 'packages/compute',
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
const firstPrograms = join(root, 'examples', 'first-programs');
/** What each README first program prints last (examples/first-programs/, quickstart.mjs for memory). */
const FIRST_PROGRAM_OUTPUT = {
  'core-types.mjs': /^12\.8$/m,
  'driver-kit.mjs': /optional entry points$/m,
  'driver-ffi.mjs': /^(CUDA \d+\.\d+, \d+ device|no driver here \(library-missing\))/m,
  'driver-napi.mjs': /^(CUDA \d+\.\d+, \d+ device|no driver here \(library-missing\))/m,
  'utils.mjs': /transposed: 1,4,2,5,3,6/,
  'interop-arrow.mjs': /3 rows, scores 0\.5,1\.5,2\.5/,
  'testing.mjs': /device 1 of 2 \(reference driver\): read back 7/,
};
/** pnpm 10 from the registry (npx), whatever pnpm the workspace pins. */
const PNPM = 'pnpm@10';

// A PATH on which every compiler and make fail, first: an install that tried to build would fail.
const noCompilerBin = join(scratch, 'no-compiler-bin');
mkdirSync(noCompilerBin);
for (const tool of ['cc', 'c++', 'gcc', 'g++', 'clang', 'clang++', 'make', 'aarch64-linux-gnu-g++']) {
  writeFileSync(
    join(noCompilerBin, tool),
    `#!/bin/sh\necho "${tool}: not installed (smoke test)" >&2\nexit 127\n`,
    {
      mode: 0o755,
    },
  );
}
const noCompiler = { ...process.env, PATH: `${noCompilerBin}:${process.env.PATH}`, CC: '', CXX: '' };

/** Every `.map` in the tarball names sources that the tarball holds. */
function checkSourceMaps(name, tarball, listing) {
  const maps = listing.filter((path) => path.endsWith('.map'));
  const missing = new Set();
  for (const map of maps) {
    const { sources } = JSON.parse(run('tar', ['xzf', tarball, '-O', map]));
    for (const source of sources) {
      const resolved = posix.normalize(posix.join(posix.dirname(map), source));
      if (!listing.includes(resolved)) missing.add(resolved);
    }
  }
  check(
    missing.size === 0,
    `${name}: its ${maps.length} source maps name only files it ships${missing.size ? ` (missing ${[...missing].slice(0, 3).join(', ')})` : ''}`,
  );
}

// npm's own platform check (npm-install-checks, bundled with npm), on the developer systems
// this Linux CI is not: every package installs there except the addon, which @cumem/memory
// lists as optional, so npm skips it instead of failing with EBADPLATFORM.
const npmRoot = dirname(dirname(realpathSync(run('which', ['npm']).trim())));
const { checkPlatform } = createRequire(join(npmRoot, 'package.json'))('npm-install-checks');
function checkPlatforms(name, manifest) {
  for (const [os, cpu] of [
    ['darwin', 'arm64'],
    ['win32', 'x64'],
  ]) {
    let refused = '';
    try {
      checkPlatform(manifest, false, { os, cpu });
    } catch (error) {
      refused = error.code;
    }
    const expected = name === '@cumem/driver-napi' ? 'EBADPLATFORM' : '';
    check(refused === expected, `${name}: npm's platform check on ${os}-${cpu}: ${refused || 'installs'}`);
  }
}

/** publint, and attw: the ESM-only profile, and node10 resolution of every subpath (typesVersions). */
function lintTarball(name, tarball) {
  const lint = (command, args) =>
    spawnSync('npx', ['--no-install', command, ...args], { cwd: root, encoding: 'utf8' });
  const publint = lint('publint', [tarball]);
  check(publint.status === 0 && !/warning|error/i.test(publint.stdout), `${name}: publint clean`);
  const esmOnly = lint('attw', ['--profile', 'esm-only', '--format', 'ascii', tarball]);
  check(esmOnly.status === 0, `${name}: attw --profile esm-only clean`);
  const node10 = lint('attw', ['--format', 'ascii', '--ignore-rules', 'cjs-resolves-to-esm', '--', tarball]);
  check(node10.status === 0, `${name}: attw resolves every entry under node10 (typesVersions)`);
  if (publint.status !== 0 || esmOnly.status !== 0 || node10.status !== 0)
    console.log(`${publint.stdout}${esmOnly.stdout}${node10.stdout}`);
}

/** The linux-arm64 binary from project A's node_modules, loaded by an arm64 Node under qemu-user. */
function loadArm64(directory) {
  const sysroot = process.env.CUMEM_ARM64_SYSROOT;
  const qemu = spawnSync('qemu-aarch64', ['--version'], { stdio: 'ignore' }).status === 0;
  if (!sysroot || !qemu || !existsSync(join(sysroot, 'usr/bin/node'))) {
    check(!process.env.CI, 'arm64 under qemu: no CUMEM_ARM64_SYSROOT / qemu-aarch64 (skipped outside CI)');
    return;
  }
  const output = run('qemu-aarch64', ['-L', sysroot, join(sysroot, 'usr/bin/node'), 'napi-load.mjs'], {
    cwd: directory,
  });
  const load = JSON.parse(output.trim().split('\n').pop());
  check(
    load.info.loaded && /prebuilds\/linux-arm64\//.test(load.info.path),
    `arm64 under qemu: the N-API addon loads from prebuilds/linux-arm64 (${load.info.path ?? load.info.message})`,
  );
  check(
    load.reason === 'library-missing',
    `arm64 under qemu: without a driver it fails with "${load.reason}" (libcuda.so.1 named), not "no-adapter"`,
  );
}

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
  // linux-arm64 from Debian's cross compiler: required in CI, visibly skipped elsewhere without it.
  const crossCompiler = spawnSync('aarch64-linux-gnu-g++', ['--version'], { stdio: 'ignore' }).status === 0;
  if (crossCompiler) {
    step('building the prebuilt linux-arm64 binary (aarch64-linux-gnu-g++)');
    run('node', ['scripts/prebuild.cjs', '--arch', 'arm64'], { cwd: napiRoot, stdio: 'inherit' });
  } else {
    check(!process.env.CI, 'linux-arm64 prebuild: no aarch64-linux-gnu-g++ (skipped outside CI)');
  }
  step('the glibc baseline of every prebuilt binary (objdump -T)');
  const baseline = spawnSync('node', ['scripts/check-glibc-baseline.mjs'], {
    cwd: napiRoot,
    encoding: 'utf8',
  });
  process.stdout.write(baseline.stdout);
  check(baseline.status === 0, 'every prebuilt binary needs glibc <= 2.17, GLIBCXX <= 3.4.19');

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
    checkSourceMaps(name, tarballOf[name], listing);
    checkPlatforms(name, JSON.parse(run('tar', ['xzf', tarballOf[name], '-O', 'package/package.json'])));
    lintTarball(name, tarballOf[name]);
    if (name === '@cumem/driver-napi') {
      for (const platform of crossCompiler ? ['linux-x64', 'linux-arm64'] : ['linux-x64']) {
        check(
          listing.some((path) => path.startsWith(`package/prebuilds/${platform}/`) && path.endsWith('.node')),
          `${name}: ships prebuilds/${platform}/*.node`,
        );
      }
      check(
        listing.includes('package/native/cuda-types.h'),
        `${name}: ships the sources for the from-source fallback`,
      );
    }
  }

  const project = (label, manager, peer, other, installArguments) => {
    step(
      `project ${label}: ${manager} install ${installArguments.join(' ')} (apache-arrow ${peer}, second copy ${other})`,
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
        // pnpm 10 runs no dependency's install script unless approved: approve them in C.
        // pnpm resolves the packages' own @cumem/* dependencies from the registry unless overridden.
        ...(manager === 'pnpm'
          ? { pnpm: { onlyBuiltDependencies: ['@cumem/driver-napi', 'koffi'], overrides: dependencies } }
          : {}),
      }),
    );
    for (const file of ['user-program.mjs', 'use-reference.mjs', 'napi-load.mjs', 'require-program.cjs'])
      copyFileSync(join(here, file), join(directory, file));
    for (const file of readdirSync(firstPrograms))
      copyFileSync(join(firstPrograms, file), join(directory, file));
    copyFileSync(join(root, 'examples/quickstart/quickstart.mjs'), join(directory, 'quickstart.mjs'));
    const install =
      manager === 'npm'
        ? run('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error', ...installArguments], {
            cwd: directory,
            env: noCompiler,
          })
        : run('npx', ['--yes', PNPM, 'install', '--config.confirmModulesPurge=false', ...installArguments], {
            cwd: directory,
            env: noCompiler,
          });
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

    // Each package README's first program, on the reference driver (the GPU ones) or as is.
    for (const [file, expected] of Object.entries(FIRST_PROGRAM_OUTPUT)) {
      const output = run('node', ['--import', './use-reference.mjs', file], { cwd: directory });
      check(
        expected.test(output),
        `${label}: README first program ${file} runs (${output.trim().split('\n').pop()})`,
      );
    }
    const required = JSON.parse(run('node', ['require-program.cjs'], { cwd: directory }).trim());
    check(required.value === 3, `${label}: require('@cumem/memory') from CommonJS (Node >= 20.19)`);

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
    if (label.startsWith('A')) loadArm64(directory);
  };
  project('A-npm', 'npm', '^21.1.0', '19', []);
  project('B-npm-ignore-scripts', 'npm', '19', '^21.1.0', ['--ignore-scripts']);
  project('C-pnpm10', 'pnpm', '^21.1.0', '19', []);
  project('D-pnpm10-ignore-scripts', 'pnpm', '19', '^21.1.0', ['--ignore-scripts']);
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
