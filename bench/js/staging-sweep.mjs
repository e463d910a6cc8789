// The staged-copy engine's parameters, measured: chunk size x threads for 256 MiB each way
// (into touched memory, and device-to-host into never-touched memory per thread count), then
// the direct copy against the staged copy (default chunk and threads) for sizes 4 KiB to 1 GiB,
// which gives the size below which the direct copy wins (CUMEM_STAGING_MIN). Prints Markdown
// tables for bench/README.md ("Staging parameters") and writes the numbers as JSON.
//   node --expose-gc bench/js/staging-sweep.mjs --driver napi --out /tmp/staging-sweep.json
// About 40 s on an H200 (16 cores); the FFI adapter's staged copy is the direct copy, so sweep napi.
import { writeFileSync } from 'node:fs';
import { collectGarbage, fillPattern, loadDriverPackage, median, parseArguments } from './harness.mjs';

const MiB = 1024 * 1024;
const SWEEP_BYTES = 256 * MiB;
const CHUNKS = [2, 4, 8, 16].map((m) => m * MiB);
const THREADS = [1, 2, 4, 8];
const DEFAULT = { chunkBytes: 8 * MiB, threads: 4 };

const options = parseArguments();
const { createDriver } = await loadDriverPackage(options.driver);
const driver = createDriver();
driver.contextSetCurrent(driver.primaryContextRetain(0));
const stream = driver.streamCreate(1, 0);
const largest = 1024 * MiB;
const device = driver.memAlloc(largest);
const host = new Uint8Array(largest);
fillPattern(host, 17);

/** GB/s of `copy` moving `bytes`: one untimed run, then the median of `reps`, each `perRep` copies. */
function gbps(copy, bytes, perRep, reps) {
  copy();
  const samples = [];
  for (let rep = 0; rep < reps; rep++) {
    const start = process.hrtime.bigint();
    for (let i = 0; i < perRep; i++) copy();
    samples.push((bytes * perRep) / Number(process.hrtime.bigint() - start));
  }
  return median(samples);
}

const started = Date.now();
const grid = [];
const view = host.subarray(0, SWEEP_BYTES);
for (const chunkBytes of CHUNKS) {
  for (const threads of THREADS) {
    const settings = { chunkBytes, threads };
    const htod = gbps(() => driver.stagedCopyHtoD(device, view, stream, settings), SWEEP_BYTES, 2, 3);
    const dtoh = gbps(() => driver.stagedCopyDtoH(view, device, stream, settings), SWEEP_BYTES, 2, 3);
    grid.push({ chunkMiB: chunkBytes / MiB, threads, htod, dtoh });
  }
}

// Device to host into never-touched memory: page faults spread over the threads.
const fresh = [];
for (const threads of [0, ...THREADS]) {
  const samples = [];
  for (let rep = 0; rep < 3; rep++) {
    collectGarbage();
    const target = new Uint8Array(SWEEP_BYTES);
    const start = process.hrtime.bigint();
    if (threads === 0) driver.memcpyDtoH(target, device);
    else driver.stagedCopyDtoH(target, device, stream, { chunkBytes: DEFAULT.chunkBytes, threads });
    samples.push(SWEEP_BYTES / Number(process.hrtime.bigint() - start));
  }
  fresh.push({ threads: threads === 0 ? 'direct' : threads, dtohNew: median(samples) });
}

// Sizes: direct against staged with the defaults.
const sizes = [];
for (let size = 4096; size <= largest; size *= 4) {
  const part = host.subarray(0, size);
  const perRep = Math.max(1, Math.min(4096, Math.floor((64 * MiB) / size)));
  const reps = size >= 256 * MiB ? 3 : 5;
  sizes.push({
    size,
    htodDirect: gbps(() => driver.memcpyHtoD(device, part), size, perRep, reps),
    htodStaged: gbps(() => driver.stagedCopyHtoD(device, part, stream, DEFAULT), size, perRep, reps),
    dtohDirect: gbps(() => driver.memcpyDtoH(part, device), size, perRep, reps),
    dtohStaged: gbps(() => driver.stagedCopyDtoH(part, device, stream, DEFAULT), size, perRep, reps),
  });
}
// The smallest size from which staging wins in both directions at every larger size.
let minBytes = Number.POSITIVE_INFINITY;
for (let index = sizes.length - 1; index >= 0; index--) {
  const s = sizes[index];
  if (s.htodStaged > s.htodDirect && s.dtohStaged > s.dtohDirect) minBytes = s.size;
  else break;
}

const f = (value) => value.toFixed(1);
const label = (bytes) => (bytes >= MiB ? `${bytes / MiB} MiB` : `${bytes / 1024} KiB`);
const lines = [];
lines.push(
  `Staged copies of 256 MiB, GB/s (host to device / device to host, touched memory), ${options.driver}:`,
  '',
);
lines.push(
  `| chunk \\ threads | ${THREADS.join(' | ')} |`,
  `| --- | ${THREADS.map(() => '---').join(' | ')} |`,
);
for (const chunkBytes of CHUNKS) {
  const cells = THREADS.map((threads) => {
    const cell = grid.find((g) => g.chunkMiB === chunkBytes / MiB && g.threads === threads);
    return `${f(cell.htod)} / ${f(cell.dtoh)}`;
  });
  lines.push(`| ${label(chunkBytes)} | ${cells.join(' | ')} |`);
}
lines.push('', 'Device to host into never-touched memory (new Uint8Array, 256 MiB), GB/s:', '');
lines.push(
  `| | ${fresh.map((x) => (x.threads === 'direct' ? 'direct' : `${x.threads} threads`)).join(' | ')} |`,
);
lines.push(
  `| --- | ${fresh.map(() => '---').join(' | ')} |`,
  `| GB/s | ${fresh.map((x) => f(x.dtohNew)).join(' | ')} |`,
);
lines.push(
  '',
  `Direct against staged (${DEFAULT.chunkBytes / MiB} MiB chunks, ${DEFAULT.threads} threads), GB/s:`,
  '',
);
lines.push(
  '| size | htod direct | htod staged | dtoh direct | dtoh staged |',
  '| --- | --- | --- | --- | --- |',
);
for (const s of sizes)
  lines.push(
    `| ${label(s.size)} | ${f(s.htodDirect)} | ${f(s.htodStaged)} | ${f(s.dtohDirect)} | ${f(s.dtohStaged)} |`,
  );
lines.push(
  '',
  `Staging wins from ${Number.isFinite(minBytes) ? label(minBytes) : 'no size'} up (CUMEM_STAGING_MIN).`,
);
lines.push(`(${((Date.now() - started) / 1000).toFixed(0)} s)`);
process.stdout.write(`${lines.join('\n')}\n`);
writeFileSync(
  options.out,
  `${JSON.stringify({ driver: options.driver, grid, fresh, sizes, minBytes }, null, 1)}\n`,
);
driver.memFree(device);
driver.streamDestroy(stream);
