#!/usr/bin/env node
// API reports of the published packages (api-extractor over each package's built .d.ts).
//   node scripts/api-report.mjs           check: fails when a report differs from <package>/etc/*.api.md (CI)
//   node scripts/api-report.mjs --update  rewrite the reports (commit them with the API change)
// Needs the packages built (`pnpm build`).
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const packages = [
  'packages/core-types',
  'packages/driver-kit',
  'packages/driver-ffi',
  'packages/driver-napi',
  'packages/memory',
  'packages/utils',
  'packages/interop-arrow',
  'packages/compute',
  'testing/driver-testing',
];
const update = process.argv.includes('--update');
const extractor = join(root, 'node_modules', '@microsoft', 'api-extractor', 'bin', 'api-extractor');
const failed = [];
for (const directory of packages) {
  mkdirSync(join(root, directory, 'etc'), { recursive: true });
  try {
    execFileSync(process.execPath, [extractor, 'run', ...(update ? ['--local'] : [])], {
      cwd: join(root, directory),
      stdio: ['ignore', 'pipe', 'pipe'],
      encoding: 'utf8',
    });
    // The published .d.ts must stand alone with @internal members stripped (no name of a
    // stripped declaration left behind), checked without skipLibCheck as a strict user would.
    execFileSync(
      process.execPath,
      [
        join(root, 'node_modules', 'typescript', 'bin', 'tsc'),
        ...[
          '--noEmit',
          '--skipLibCheck',
          'false',
          '--strict',
          '--module',
          'nodenext',
          '--moduleResolution',
          'nodenext',
        ],
        ...['--target', 'es2022', '--lib', 'es2022,esnext.disposable', '--types', 'node', 'dist/index.d.ts'],
      ],
      { cwd: join(root, directory), stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8' },
    );
    console.log(`api-report: ${directory} ${update ? 'written' : 'unchanged'}, its .d.ts stands alone`);
  } catch (error) {
    failed.push(directory);
    console.error(
      `api-report: ${directory}: ${update ? 'failed' : 'the public API changed'}\n${error.stdout ?? ''}${error.stderr ?? ''}`,
    );
  } finally {
    rmSync(join(root, directory, 'temp'), { recursive: true, force: true });
  }
}
if (failed.length > 0) {
  console.error(
    update
      ? `api-report: ${failed.length} package(s) failed`
      : `api-report: ${failed.length} package(s) differ from their etc/*.api.md: if the change is intended, run \`pnpm api:update\` and commit the reports.`,
  );
  process.exitCode = 1;
}
