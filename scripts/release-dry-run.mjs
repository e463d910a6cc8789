#!/usr/bin/env node
// The release workflow's publish step, dry run (issue 46): `pnpm publish --dry-run` in every
// published package, as `changeset publish` runs it (prepack included: driver-napi refuses to
// pack without both prebuilt binaries), and what the driver-napi tarball would hold: both
// prebuilt binaries, linux-x64 and linux-arm64. Private packages must not be publishable.
// Usage: node scripts/release-dry-run.mjs   (after `pnpm build` and both prebuilt binaries)
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const failures = [];
const check = (condition, message) => {
  if (!condition) failures.push(message);
  console.log(`  ${condition ? 'ok  ' : 'FAIL'} ${message}`);
};

const folders = ['packages', 'testing'].flatMap((parent) =>
  readdirSync(join(root, parent))
    .map((entry) => join(parent, entry))
    .filter((folder) => existsSync(join(root, folder, 'package.json'))),
);
for (const folder of folders) {
  const manifest = JSON.parse(readFileSync(join(root, folder, 'package.json'), 'utf8'));
  if (manifest.private) {
    check(true, `${manifest.name}: private, never published`);
    continue;
  }
  const result = spawnSync('pnpm', ['publish', '--dry-run', '--no-git-checks', '--access', 'public'], {
    cwd: join(root, folder),
    encoding: 'utf8',
  });
  const output = `${result.stdout}${result.stderr}`;
  const files = output.split('\n').filter((line) => /npm notice \d/.test(line)).length;
  check(result.status === 0, `${manifest.name}: pnpm publish --dry-run (${files} files)`);
  if (result.status !== 0) console.log(output.split('\n').slice(-15).join('\n'));
  if (manifest.name === '@cumem/driver-napi') {
    for (const platform of ['linux-x64', 'linux-arm64']) {
      const line = output
        .split('\n')
        .find((entry) => entry.includes(`prebuilds/${platform}/`) && entry.endsWith('.node'));
      check(
        line !== undefined,
        `${manifest.name}: the tarball holds ${line?.replace(/^.*npm notice\s+/, '') ?? `prebuilds/${platform}/*.node`}`,
      );
    }
  }
}
console.log(failures.length === 0 ? 'release dry run: ok' : `release dry run: ${failures.length} failed`);
process.exitCode = failures.length === 0 ? 0 : 1;
