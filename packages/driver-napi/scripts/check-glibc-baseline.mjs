#!/usr/bin/env node
// CI: every prebuilt binary (prebuilds/linux-*/*.node) needs nothing newer than the baseline
// the README promises, read from its dynamic symbol table with `objdump -T`:
//   GLIBC_2.17 (RHEL/CentOS 7, Amazon Linux 2; arm64's oldest glibc version anyway),
//   GLIBCXX_3.4.19 and CXXABI_1.3.7 (libstdc++ of GCC 4.8, RHEL 7's system compiler),
//   GCC_4.8.0 (libgcc_s of the same).
// How the binaries meet it: binding.gyp's cumem_glibc_baseline and native/glibc-baseline.h.
// A new libc call in native/ with a newer default version fails here; pin it there.
// Usage: node scripts/check-glibc-baseline.mjs [file.node ...]   (default: every prebuild)
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The highest version of each symbol-version family a binary may need. */
export const BASELINE = { GLIBC: '2.17', GLIBCXX: '3.4.19', CXXABI: '1.3.7', GCC: '4.8.0' };

const compare = (a, b) => {
  const left = a.split('.').map(Number);
  const right = b.split('.').map(Number);
  for (let index = 0; index < Math.max(left.length, right.length); index++) {
    const difference = (left[index] ?? 0) - (right[index] ?? 0);
    if (difference !== 0) return difference;
  }
  return 0;
};

/** Highest version needed per family, and the symbols above the baseline, of one binary. */
export function symbolVersions(file) {
  const table = execFileSync('objdump', ['-T', file], { encoding: 'utf8' });
  const highest = {};
  const above = [];
  for (const line of table.split('\n')) {
    const match = /\((GLIBC|GLIBCXX|CXXABI|GCC)_([0-9.]+)\)\s+(\S+)/.exec(line);
    if (!match) continue;
    const [, family, version, symbol] = match;
    if (highest[family] === undefined || compare(version, highest[family]) > 0) highest[family] = version;
    if (compare(version, BASELINE[family]) > 0) above.push(`${symbol}@${family}_${version}`);
  }
  return { highest, above };
}

function defaultBinaries() {
  const prebuilds = fileURLToPath(new URL('../prebuilds', import.meta.url));
  if (!existsSync(prebuilds)) return [];
  return readdirSync(prebuilds)
    .filter((platform) => platform.startsWith('linux-'))
    .flatMap((platform) =>
      readdirSync(join(prebuilds, platform))
        .filter((file) => file.endsWith('.node') && !file.includes('musl'))
        .map((file) => join(prebuilds, platform, file)),
    );
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const files = process.argv.length > 2 ? process.argv.slice(2) : defaultBinaries();
  if (files.length === 0) {
    console.error('check-glibc-baseline: no prebuilt binary found (node scripts/prebuild.cjs first)');
    process.exit(1);
  }
  let failed = false;
  for (const file of files) {
    const { highest, above } = symbolVersions(file);
    const summary = Object.entries(highest)
      .map(([family, version]) => `${family}_${version}`)
      .join(', ');
    console.log(`${above.length === 0 ? 'ok  ' : 'FAIL'} ${file}: needs ${summary}`);
    for (const symbol of above) console.log(`       above the baseline: ${symbol}`);
    failed ||= above.length > 0 || highest.GLIBC === undefined;
  }
  process.exitCode = failed ? 1 : 0;
}
