#!/usr/bin/env node
// The local-registry test (issue 46): cumem installed BY NAME, as the READMEs say, from a
// verdaccio registry that this test starts on the loopback interface and stops again (packages
// it does not hold, such as koffi or apache-arrow, it fetches from the npm registry). Every
// published package is packed (`pnpm pack`: workspace ranges become versions; driver-napi's
// prepack refuses a tarball without both prebuilt binaries) and published to it; then:
//   1. npm, ESM project, install scripts on: each README's install block run line by line,
//      exactly as written, then each README's first program as written;
//   2. npm / pnpm 10 / yarn 1, ESM with scripts on and CommonJS with scripts off: the same
//      packages installed by name (`pnpm add`, `yarn add`), every first program, and the
//      root README's CommonJS block as a .cjs program;
//   3. npm `--os darwin --cpu arm64` and `--os win32 --cpu x64`: every pure-JS package installs
//      (no EBADPLATFORM), and the Linux-only addon is skipped as @cumem/memory's optional
//      dependency;
//   4. a consumer type-check: every entry point of every package imported in a TypeScript file
//      checked with `skipLibCheck: false` (the published .d.ts files must compile as shipped).
// A first program runs on the reference driver where its README says so for a machine without a
// GPU (`node --import ./use-reference.mjs`), or when it imports @cumem/memory.
// Usage: node scripts/registry/registry-test.mjs [--keep] [--only npm|pnpm|yarn]
//   (after `pnpm build` and both prebuilt binaries: node packages/driver-napi/scripts/prebuild.cjs
//   [--arch arm64]); bounded: the whole run stops after TIME_LIMIT_S.
import { AsyncLocalStorage } from 'node:async_hooks';
import { execFile, execFileSync, spawn } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { codeBlocks } from '../readme-blocks.mjs';

const root = fileURLToPath(new URL('../..', import.meta.url));
const TIME_LIMIT_S = 900;
const VERDACCIO = 'verdaccio@6';
const PNPM = 'pnpm@10';
const YARN = 'yarn@1.22.22';
/** Projects installing at the same time: installs mostly wait on the registry. */
const PROJECTS_AT_ONCE = 3;
const started = Date.now();
const seconds = () => ((Date.now() - started) / 1000).toFixed(0);
// The projects install at the same time (most of an install is waiting on the registry); each
// one's lines are kept and printed together when it is done.
const projectLines = new AsyncLocalStorage();
const print = (line) => {
  const lines = projectLines.getStore();
  if (lines) lines.push(line);
  else console.log(line);
};
const step = (message) => print(`registry: ${message} (${seconds()} s)`);
const failures = [];
const check = (condition, message) => {
  if (!condition) failures.push(message);
  print(`  ${condition ? 'ok  ' : 'FAIL'} ${message}`);
};
/** At most `limit` of `jobs` (async functions) at a time; each one's lines printed in order. */
async function inParallel(jobs, limit) {
  const outputs = jobs.map(() => []);
  let next = 0;
  const worker = async () => {
    while (next < jobs.length) {
      const index = next++;
      await projectLines.run(outputs[index], jobs[index]);
    }
  };
  await Promise.all(Array.from({ length: limit }, worker));
  for (const lines of outputs) for (const line of lines) console.log(line);
}
const only = process.argv.includes('--only') ? process.argv[process.argv.indexOf('--only') + 1] : undefined;

/** Published packages in dependency order, with their folders. */
const PACKAGES = [
  ['@cumem/core-types', 'packages/core-types'],
  ['@cumem/driver-kit', 'packages/driver-kit'],
  ['@cumem/driver-ffi', 'packages/driver-ffi'],
  ['@cumem/driver-napi', 'packages/driver-napi'],
  ['@cumem/memory', 'packages/memory'],
  ['@cumem/utils', 'packages/utils'],
  ['@cumem/interop-arrow', 'packages/interop-arrow'],
  ['@cumem/compute', 'packages/compute'],
  ['@cumem/testing', 'testing/driver-testing'],
];
const LINUX_ONLY = new Set(['@cumem/driver-napi']);

const scratch = mkdtempSync(join(tmpdir(), 'cumem-registry-'));
// Every child process gets this environment: the scratch npm config (registry, token, cache),
// nothing from the user's.
const npmrc = join(scratch, 'npmrc');
const baseEnv = {
  ...process.env,
  npm_config_userconfig: npmrc,
  npm_config_cache: join(scratch, 'npm-cache'),
  npm_config_update_notifier: 'false',
  npm_config_fund: 'false',
  npm_config_audit: 'false',
  COREPACK_ENABLE_STRICT: '0',
};
for (const key of Object.keys(baseEnv))
  if (/^npm_(lifecycle|package|config_registry$)/.test(key)) delete baseEnv[key];
const run = (command, args, options = {}) =>
  execFileSync(command, args, {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    env: baseEnv,
    timeout: 300_000,
    ...options,
  });
/** Output and exit status of a command that may fail (without blocking the other projects). */
function attempt(command, args, options = {}) {
  return new Promise((resolve) => {
    execFile(
      command,
      args,
      { encoding: 'utf8', env: baseEnv, timeout: 300_000, maxBuffer: 64 * 2 ** 20, ...options },
      (error, stdout, stderr) => {
        const output = `${stdout ?? ''}${stderr ?? ''}`;
        resolve(
          error
            ? { status: typeof error.code === 'number' ? error.code : 1, output: `${output}${error.message}` }
            : { status: 0, output },
        );
      },
    );
  });
}

const freePort = () =>
  new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });

let verdaccio;
const deadline = setTimeout(() => {
  console.log(`registry: over ${TIME_LIMIT_S} s, stopping`);
  verdaccio?.kill('SIGTERM');
  process.exit(1);
}, TIME_LIMIT_S * 1000);

async function startRegistry() {
  const port = await freePort();
  const upstream = execFileSync('npm', ['config', 'get', 'registry'], { encoding: 'utf8' }).trim();
  const config = join(scratch, 'verdaccio.yaml');
  writeFileSync(
    config,
    [
      `storage: ${join(scratch, 'storage')}`,
      `auth: { htpasswd: { file: ${join(scratch, 'htpasswd')}, max_users: 10 } }`,
      `uplinks: { upstream: { url: ${JSON.stringify(upstream)}, timeout: 60s } }`,
      'packages:',
      "  '@cumem/*': { access: $all, publish: $authenticated }",
      "  '**': { access: $all, proxy: upstream }",
      `listen: 127.0.0.1:${port}`,
      'log: { type: stdout, format: pretty, level: warn }',
      '',
    ].join('\n'),
  );
  const url = `http://127.0.0.1:${port}/`;
  writeFileSync(npmrc, `registry=${upstream}\n`);
  verdaccio = spawn('npx', ['--yes', VERDACCIO, '--config', config, '--listen', `127.0.0.1:${port}`], {
    env: baseEnv,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let log = '';
  verdaccio.stdout.on('data', (chunk) => (log += chunk));
  verdaccio.stderr.on('data', (chunk) => (log += chunk));
  for (let tries = 0; ; tries++) {
    try {
      if ((await fetch(`${url}-/ping`)).ok) break;
    } catch {}
    if (tries > 240 || verdaccio.exitCode !== null) throw new Error(`verdaccio did not start:\n${log}`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  // A user for publishing (verdaccio's htpasswd): its token goes into the scratch npmrc.
  const user = await fetch(`${url}-/user/org.couchdb.user:cumem`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'cumem', password: 'cumem-local-test', type: 'user', roles: [] }),
  });
  const { token } = await user.json();
  const host = url.replace(/^http:/, '');
  writeFileSync(npmrc, `registry=${url}\n${host}:_authToken=${token}\n`);
  return url;
}

function stopRegistry() {
  if (verdaccio && verdaccio.exitCode === null) {
    try {
      process.kill(-verdaccio.pid, 'SIGTERM'); // npx and verdaccio under it
    } catch {}
  }
}

/** The Install block (shell lines) and the first program (code, language) of a README. */
function readmeParts(readme) {
  const text = readFileSync(readme, 'utf8');
  const section = (title) => {
    const start = text.search(new RegExp(`^## ${title}\\s*$`, 'm'));
    if (start < 0) return undefined;
    const rest = text.slice(start + 1);
    const end = rest.search(/^## /m);
    return end < 0 ? rest : rest.slice(0, end);
  };
  const install = codeBlocks(section('Install') ?? '').find((block) => block.language === 'sh');
  const firstProgram = section('A first program') ?? '';
  const program = codeBlocks(firstProgram).find((block) => /^(js|mjs|ts)$/.test(block.language));
  const commonJs = codeBlocks(section('CommonJS and TypeScript') ?? '').find(
    (block) => block.language === 'js',
  );
  return {
    install: install?.code.split('\n').filter((line) => /^\s*npm install /.test(line)) ?? [],
    program: program?.code,
    // Its README says to run it with `node --import ./use-reference.mjs` where there is no GPU.
    onReference:
      /--import \.\/use-reference\.mjs/.test(firstProgram) || /@cumem\/memory/.test(program?.code ?? ''),
    commonJs: commonJs?.code,
  };
}

const readmes = [
  ['root', join(root, 'README.md')],
  ...PACKAGES.map(([name, folder]) => [name, join(root, folder, 'README.md')]),
]
  .map(([name, file]) => ({ name, ...readmeParts(file) }))
  .filter((readme) => readme.install.length > 0 || readme.program);

const USE_REFERENCE = `import { useDriver } from '@cumem/memory';
import { createReferenceDriver } from '@cumem/testing';

useDriver(createReferenceDriver());
`;

/** Runs every README's first program in a project; `label` names the project. */
async function runFirstPrograms(label, directory, { commonJsBlock }) {
  writeFileSync(join(directory, 'use-reference.mjs'), USE_REFERENCE);
  for (const readme of readmes) {
    if (!readme.program) continue;
    const file = `first-${readme.name.replace(/^@cumem\//, '')}.mjs`;
    writeFileSync(join(directory, file), `${readme.program}\n`);
    const preload = readme.onReference ? ['--import', './use-reference.mjs'] : [];
    const result = await attempt('node', [...preload, file], { cwd: directory, timeout: 60_000 });
    const last = result.output.trim().split('\n').pop();
    check(result.status === 0, `${label}: ${readme.name}'s first program runs (${last})`);
  }
  if (commonJsBlock) {
    writeFileSync(
      join(directory, 'commonjs.cjs'),
      `${commonJsBlock}\nconsole.log(typeof DeviceMemoryResource);\n`,
    );
    const result = await attempt('node', ['commonjs.cjs'], { cwd: directory, timeout: 60_000 });
    check(
      result.status === 0 && /function/.test(result.output),
      `${label}: the root README's CommonJS block runs (require)`,
    );
  }
}

/** Every package named by some README's install line (the union a project installs). */
function namedPackages() {
  const names = new Set();
  for (const readme of readmes)
    for (const line of readme.install)
      for (const word of line.trim().split(/\s+/).slice(2)) if (!word.startsWith('-')) names.add(word);
  return [...names];
}

function newProject(label, type) {
  const directory = join(scratch, label);
  mkdirSync(directory);
  writeFileSync(
    join(directory, 'package.json'),
    `${JSON.stringify({ name: `cumem-registry-${label}`, version: '1.0.0', private: true, ...(type === 'module' ? { type } : {}) }, null, 2)}\n`,
  );
  return directory;
}

/** npm, pnpm or yarn adding `names`, scripts on or off. */
async function add(manager, directory, names, scripts, development = false) {
  const off = scripts ? [] : ['--ignore-scripts'];
  if (manager === 'npm')
    return attempt('npm', ['install', ...(development ? ['--save-dev'] : []), ...off, ...names], {
      cwd: directory,
    });
  if (manager === 'pnpm') {
    // pnpm 10 runs no dependency's install script unless approved: approve the addon's when scripts are on.
    if (scripts) {
      const manifest = JSON.parse(readFileSync(join(directory, 'package.json'), 'utf8'));
      manifest.pnpm = { onlyBuiltDependencies: ['@cumem/driver-napi', 'koffi'] };
      writeFileSync(join(directory, 'package.json'), JSON.stringify(manifest, null, 2));
    }
    return attempt('npx', ['--yes', PNPM, 'add', ...(development ? ['-D'] : []), ...off, ...names], {
      cwd: directory,
    });
  }
  // Its own cache: yarn 1's shared cache is not safe for two installs at once.
  return attempt(
    'npx',
    ['--yes', YARN, 'add', '--non-interactive', ...(development ? ['-D'] : []), ...off, ...names],
    { cwd: directory, env: { ...baseEnv, YARN_CACHE_FOLDER: join(directory, '.yarn-cache') } },
  );
}

try {
  const registry = await startRegistry();
  step(`verdaccio at ${registry} (stopped at the end)`);

  step('packing and publishing every package');
  const tarballs = join(scratch, 'tarballs');
  mkdirSync(tarballs);
  for (const [name, folder] of PACKAGES) {
    const before = new Set(readdirSync(tarballs));
    run('pnpm', ['pack', '--pack-destination', tarballs], { cwd: join(root, folder), env: process.env });
    const tarball = join(
      tarballs,
      readdirSync(tarballs).find((entry) => !before.has(entry)),
    );
    const listing = run('tar', ['tzf', tarball]);
    if (name === '@cumem/driver-napi') {
      for (const platform of ['linux-x64', 'linux-arm64'])
        check(
          new RegExp(`^package/prebuilds/${platform}/.*\\.node$`, 'm').test(listing),
          `${name}: the tarball holds prebuilds/${platform}/*.node`,
        );
    }
    const manifest = JSON.parse(run('tar', ['xzf', tarball, '-O', 'package/package.json']));
    check(
      LINUX_ONLY.has(name)
        ? manifest.os?.join() === 'linux'
        : manifest.os === undefined && manifest.cpu === undefined,
      `${name}: ${LINUX_ONLY.has(name) ? 'declares os linux' : 'pure JavaScript: no os or cpu field'}`,
    );
    const published = await attempt('npm', [
      'publish',
      tarball,
      '--registry',
      registry,
      '--tag',
      'latest',
      '--access',
      'public',
    ]);
    check(published.status === 0, `${name}@${manifest.version} published`);
    if (published.status !== 0) print(published.output);
  }

  const jobs = [];
  if (!only || only === 'npm') {
    jobs.push(async () => {
      step('npm, ESM, scripts on: each README install line exactly as written');
      const directory = newProject('npm-readme-lines', 'module');
      for (const readme of readmes) {
        for (const line of readme.install) {
          const words = line.trim().split(/\s+/);
          const result = await attempt(words[0], words.slice(1), { cwd: directory });
          check(
            result.status === 0 && !/EBADPLATFORM/.test(result.output),
            `${readme.name}: \`${line.trim()}\``,
          );
          if (result.status !== 0) print(result.output.split('\n').slice(-15).join('\n'));
        }
      }
      check(
        existsSync(join(directory, 'node_modules/@cumem/driver-napi/prebuilds/linux-x64')),
        'npm: @cumem/memory brought the addon with its prebuilt binaries',
      );
      check(
        !existsSync(join(directory, 'node_modules/@cumem/driver-napi/build')),
        'npm: the addon was not compiled at install',
      );
      await runFirstPrograms('npm ESM', directory, { commonJsBlock: undefined });

      step('consumer type-check: every entry point, skipLibCheck false');
      const installed = await attempt(
        'npm',
        ['install', '--save-dev', 'typescript@~5.9.3', '@types/node@^20.19.0', 'vitest@^3.2.4'],
        { cwd: directory },
      );
      check(installed.status === 0, 'typescript, @types/node and vitest installed for the type-check');
      const imports = [];
      for (const [name] of PACKAGES) {
        const { exports } = JSON.parse(
          readFileSync(join(directory, 'node_modules', name, 'package.json'), 'utf8'),
        );
        for (const subpath of Object.keys(exports)) {
          if (subpath === './package.json') continue;
          imports.push(`${name}${subpath.slice(1)}`);
        }
      }
      writeFileSync(
        join(directory, 'every-entry-point.ts'),
        `${imports.map((specifier, index) => `import * as entry${index} from '${specifier}';`).join('\n')}\n\nexport const entries = [${imports.map((_, index) => `entry${index}`).join(', ')}];\n`,
      );
      writeFileSync(
        join(directory, 'tsconfig.json'),
        JSON.stringify({
          compilerOptions: {
            module: 'nodenext',
            target: 'es2022',
            lib: ['es2022', 'esnext.disposable', 'dom'],
            types: ['node'],
            strict: true,
            skipLibCheck: false,
            noEmit: true,
          },
          files: ['every-entry-point.ts'],
        }),
      );
      const typecheck = await attempt('npx', ['--no-install', 'tsc', '-p', 'tsconfig.json'], {
        cwd: directory,
      });
      check(
        typecheck.status === 0,
        `tsc with skipLibCheck: false over ${imports.length} entry points (${imports.join(', ')})`,
      );
      if (typecheck.status !== 0) print(typecheck.output.split('\n').slice(0, 40).join('\n'));
    });
  }

  const names = namedPackages();
  for (const manager of ['npm', 'pnpm', 'yarn']) {
    if (only && only !== manager) continue;
    for (const [type, scripts] of [
      ['module', true],
      ['commonjs', false],
    ]) {
      jobs.push(async () => {
        const label = `${manager} ${type === 'module' ? 'ESM' : 'CommonJS'}, scripts ${scripts ? 'on' : 'off'}`;
        step(`${label}: ${manager} ${manager === 'npm' ? 'install' : 'add'} ${names.join(' ')}`);
        const directory = newProject(`${manager}-${type}`, type);
        const result = await add(manager, directory, names, scripts);
        check(result.status === 0 && !/EBADPLATFORM/.test(result.output), `${label}: installed by name`);
        if (result.status !== 0) {
          print(result.output.split('\n').slice(-20).join('\n'));
          return;
        }
        check(
          !/warning: the native addon was not built/.test(result.output),
          `${label}: no addon warning at install`,
        );
        await runFirstPrograms(label, directory, {
          commonJsBlock: type === 'commonjs' ? readmes.find((r) => r.name === 'root')?.commonJs : undefined,
        });
      });
    }
  }

  if (!only || only === 'npm') {
    for (const [os, cpu] of [
      ['darwin', 'arm64'],
      ['win32', 'x64'],
    ]) {
      jobs.push(async () => {
        step(`npm install --os ${os} --cpu ${cpu}: the pure-JS packages`);
        const directory = newProject(`npm-${os}`, 'module');
        const pure = PACKAGES.map(([name]) => name).filter((name) => !LINUX_ONLY.has(name));
        const result = await attempt(
          'npm',
          ['install', '--os', os, '--cpu', cpu, '--ignore-scripts', ...pure, 'apache-arrow'],
          { cwd: directory },
        );
        check(
          result.status === 0 && !/EBADPLATFORM/.test(result.output),
          `${os}-${cpu}: ${pure.length} pure-JS packages install, no EBADPLATFORM`,
        );
        if (result.status !== 0) print(result.output.split('\n').slice(-15).join('\n'));
        check(
          !existsSync(join(directory, 'node_modules/@cumem/driver-napi')),
          `${os}-${cpu}: the Linux-only addon skipped as an optional dependency`,
        );
      });
    }
  }
  step(`${jobs.length} projects, ${PROJECTS_AT_ONCE} at a time (each one's lines printed when it is done)`);
  // pnpm and yarn fetched by npx once, before projects run them at the same time.
  for (const tool of [PNPM, YARN]) {
    const fetched = await attempt('npx', ['--yes', tool, '--version'], { cwd: scratch });
    check(fetched.status === 0, `${tool} ready (${fetched.output.trim().split('\n').pop()})`);
  }
  await inParallel(jobs, PROJECTS_AT_ONCE);
} finally {
  stopRegistry();
  clearTimeout(deadline);
  if (process.argv.includes('--keep')) console.log(`registry: kept ${scratch}`);
  else rmSync(scratch, { recursive: true, force: true });
}
step(
  failures.length === 0
    ? 'all checks passed'
    : `${failures.length} check(s) failed:\n  ${failures.join('\n  ')}`,
);
process.exitCode = failures.length === 0 ? 0 : 1;
