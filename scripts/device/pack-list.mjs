#!/usr/bin/env node
// Prints, one per line and relative to the repository root, what workspace.tar.xz must hold for
// the GPU machine: each package's dist/, the N-API addon's compiled .node files and prebuilds,
// and the node_modules that running the tests and benchmarks needs — the pnpm layout (symlinks
// into node_modules/.pnpm) kept, but only the .pnpm entries reachable from the kept packages.
// Development-only trees (biome, turbo, dependency-cruiser, changesets, node-gyp, type
// declarations) are left out (typescript stays: scripts/readme-blocks.mjs compiles TypeScript blocks), and koffi 2 keeps only its linux_x64 binary.
//
//   node scripts/device/pack-list.mjs > list   (used by pack.sh; --verbose explains on stderr)
import { existsSync, lstatSync, readdirSync, readlinkSync, realpathSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const store = join(root, 'node_modules', '.pnpm');
const verbose = process.argv.includes('--verbose');

/** Package names never needed to run tests or benchmarks on the GPU machine. */
const DEV_ONLY = [
  /^@biomejs\//,
  /^turbo(-.*)?$/,
  /^@turbo\//,
  /^dependency-cruiser$/,
  /^@changesets\//,
  /^prettier$/,
  /^@types\//,
  /^node-gyp$/,
];
const isDevOnly = (name) => DEV_ONLY.some((pattern) => pattern.test(name));

const out = new Set();
const add = (path) => out.add(relative(root, path).split(sep).join('/'));

function workspaceDirectories() {
  const found = [];
  for (const group of ['packages', 'testing']) {
    const base = join(root, group);
    if (!existsSync(base)) continue;
    for (const name of readdirSync(base)) {
      if (existsSync(join(base, name, 'package.json'))) found.push(join(base, name));
    }
  }
  found.push(join(root, 'bench'));
  return found;
}

/** `{ name, path }` for every entry of a node_modules folder (scoped names included). */
function entries(nodeModules) {
  const list = [];
  if (!existsSync(nodeModules)) return list;
  for (const name of readdirSync(nodeModules)) {
    if (name.startsWith('.')) continue;
    const path = join(nodeModules, name);
    if (name.startsWith('@') && lstatSync(path).isDirectory() && !lstatSync(path).isSymbolicLink()) {
      for (const inner of readdirSync(path)) list.push({ name: `${name}/${inner}`, path: join(path, inner) });
    } else list.push({ name, path });
  }
  return list;
}

const keptStoreEntries = new Set();

/** Marks the .pnpm entry holding `packagePath` (a real path) and, recursively, its dependencies. */
function keepStoreEntry(realPath) {
  if (!realPath.startsWith(store + sep)) return;
  const entry = realPath.slice(store.length + 1).split(sep)[0];
  if (keptStoreEntries.has(entry)) return;
  keptStoreEntries.add(entry);
  for (const dependency of entries(join(store, entry, 'node_modules'))) {
    if (isDevOnly(dependency.name)) continue;
    try {
      keepStoreEntry(realpathSync(dependency.path));
    } catch {
      // A dangling link (an optional dependency for another platform): nothing to keep.
    }
  }
}

/** Keeps the links of a node_modules folder whose targets are kept, and follows them. */
function keepLinks(nodeModules) {
  for (const { name, path } of entries(nodeModules)) {
    if (isDevOnly(name)) {
      if (verbose) process.stderr.write(`left out ${relative(root, path)} (development only)\n`);
      continue;
    }
    let real;
    try {
      real = realpathSync(path);
    } catch {
      continue;
    }
    add(path);
    keepStoreEntry(real);
  }
  const bin = join(nodeModules, '.bin');
  if (existsSync(bin)) add(bin);
}

for (const directory of workspaceDirectories()) {
  for (const folder of ['dist', 'prebuilds']) {
    if (existsSync(join(directory, folder))) add(join(directory, folder));
  }
  const release = join(directory, 'build', 'Release');
  if (existsSync(release)) {
    for (const name of readdirSync(release)) if (name.endsWith('.node')) add(join(release, name));
  }
  keepLinks(join(directory, 'node_modules'));
}
keepLinks(join(root, 'node_modules'));
for (const file of ['.modules.yaml', '.pnpm/lock.yaml']) {
  if (existsSync(join(root, 'node_modules', file))) add(join(root, 'node_modules', file));
}

for (const entry of [...keptStoreEntries].sort()) {
  const path = join(store, entry);
  const koffiBuilds = join(path, 'node_modules', 'koffi', 'build', 'koffi');
  if (entry.startsWith('koffi@') && existsSync(koffiBuilds)) {
    // koffi 2 ships a binary for every platform (~26 MB); the GPU machine is linux x86-64 (glibc).
    // koffi 3 has none in its own package: the installed @koromix/koffi-<platform> is kept whole.
    const packageDir = join(path, 'node_modules', 'koffi');
    for (const name of readdirSync(packageDir)) {
      if (name !== 'build') add(join(packageDir, name));
    }
    for (const name of readdirSync(koffiBuilds)) if (name === 'linux_x64') add(join(koffiBuilds, name));
    for (const link of entries(join(path, 'node_modules'))) if (link.name !== 'koffi') add(link.path);
    continue;
  }
  add(path);
}

// The hoisted links pnpm keeps for undeclared imports, where their targets are kept.
for (const { name, path } of entries(join(store, 'node_modules'))) {
  if (isDevOnly(name)) continue;
  try {
    const real = realpathSync(path);
    const entry = real.slice(store.length + 1).split(sep)[0];
    if (keptStoreEntries.has(entry)) add(path);
  } catch {
    // dangling: leave out
  }
}

if (verbose) {
  let bytes = 0;
  const sizeOf = (path) => {
    const stat = lstatSync(path);
    if (stat.isSymbolicLink() || !stat.isDirectory()) return stat.size;
    return readdirSync(path).reduce((sum, name) => sum + sizeOf(join(path, name)), 0);
  };
  for (const path of out) bytes += sizeOf(join(root, path));
  process.stderr.write(
    `${out.size} paths, ${(bytes / 2 ** 20).toFixed(1)} MiB before compression; store entries kept: ${keptStoreEntries.size}\n`,
  );
}
process.stdout.write(`${[...out].sort().join('\n')}\n`);
void readlinkSync;
void statSync;
