#!/usr/bin/env node
// Every import in the repository resolves through a declared dependency (part of `pnpm lint`).
// dependency-cruiser checks the layering, but it cannot tell whether a workspace package is
// declared (it resolves them to their sources), so this walks packages/, testing/, bench/ and
// scripts/ and checks each file's imports against the package.json nearest to it:
// - a bare import names the file's own package, or one of its dependencies (dev dependencies
//   too, except in published source: packages/*/src, tests excluded), or, outside published
//   source, a dev dependency of the repository root (the shared tooling: vitest, fast-check);
// - a relative import stays inside the file's package (another package is imported by name,
//   through a workspace dependency).
// Left out: examples/ and scripts/smoke/, which are user programs that smoke-tarballs.mjs runs in
// a project of their own, installing what they import from the packed tarballs.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const roots = ['packages', 'testing', 'bench', 'scripts'];
const skipped = new Set(['node_modules', 'dist', 'build', 'results', 'temp', '.venv', '__pycache__']);
const leftOut = [join('scripts', 'smoke')];
const sourceFile = /\.(?:[cm]?js|[cm]?ts)$/;
// import/export ... from 'x' (statements), import 'x', import('x'), require('x'), createRequire(...)('x').
const specifiers =
  /(?:^\s*(?:import|export)\b[^;'"]*?\bfrom\s*|^\s*import\s*|\bimport\(\s*|\brequire\(\s*|\bcreateRequire\([^)]*\)\(\s*)['"]([^'"\n]+)['"]/gm;
const builtins = new Set(builtinModules);
const rootManifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
// The root's external tools; its workspace packages are for its own scripts, not for every package.
const rootTooling = new Set(
  Object.keys(rootManifest.devDependencies ?? {}).filter((name) => !name.startsWith('@cumem/')),
);

const manifests = new Map();
/** The directory and contents of the package.json nearest to `directory`. */
function manifestOf(directory) {
  if (!manifests.has(directory)) {
    const file = join(directory, 'package.json');
    manifests.set(
      directory,
      existsSync(file)
        ? { directory, manifest: JSON.parse(readFileSync(file, 'utf8')) }
        : manifestOf(dirname(directory)),
    );
  }
  return manifests.get(directory);
}

function* files(directory) {
  for (const entry of readdirSync(directory, { withFileTypes: true })) {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) {
      if (!skipped.has(entry.name) && !leftOut.includes(relative(root, path))) yield* files(path);
    } else if (sourceFile.test(entry.name) && !entry.name.endsWith('.d.ts')) yield path;
  }
}

/** The package name of a bare specifier: '@scope/name' or 'name'. */
const packageName = (specifier) =>
  specifier
    .split('/')
    .slice(0, specifier.startsWith('@') ? 2 : 1)
    .join('/');
/** Published code: what a package ships, where dev dependencies are not installed. */
const isPublished = (path) => /^packages\/[^/]+\/src\//.test(path) && !/\.test\.[cm]?[jt]s$/.test(path);

const problems = [];
for (const top of roots) {
  for (const file of files(join(root, top))) {
    const path = relative(root, file).split(sep).join('/');
    const { directory, manifest } = manifestOf(dirname(file));
    const published = isPublished(path);
    const declared = new Set([
      manifest.name,
      ...Object.keys(manifest.dependencies ?? {}),
      ...Object.keys(manifest.optionalDependencies ?? {}),
      ...Object.keys(manifest.peerDependencies ?? {}),
      ...(published ? [] : Object.keys(manifest.devDependencies ?? {})),
      ...(published ? [] : rootTooling),
    ]);
    // Whole-line comments only: an import written in a comment is not an import.
    const text = readFileSync(file, 'utf8').replace(/^\s*(?:\/\/|\*|\/\*).*$/gm, '');
    for (const [, specifier] of text.matchAll(specifiers)) {
      if (specifier.startsWith('.')) {
        const target = resolve(dirname(file), specifier);
        if (!`${target}${sep}`.startsWith(`${directory}${sep}`))
          problems.push(
            `${path}: '${specifier}' leaves its package: import it by name, as a workspace dependency`,
          );
      } else if (!specifier.startsWith('node:') && !builtins.has(packageName(specifier))) {
        if (!declared.has(packageName(specifier)))
          problems.push(
            `${path}: '${specifier}' is not a declared dependency of ${relative(root, directory) || 'the root'}`,
          );
      }
    }
  }
}
if (problems.length > 0) {
  console.error(
    `check-imports: ${problems.length} import(s) outside the declared dependencies:\n${problems.join('\n')}`,
  );
  process.exitCode = 1;
} else {
  console.log('check-imports: every import resolves through a declared dependency');
}
