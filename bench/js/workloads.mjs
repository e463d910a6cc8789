// Workload rows (issue 47): what users run, not one call in a loop. The same work as
// bench/c/workloads.c (which says what each row does) with the same concurrency, through
// @cumem/memory and @cumem/compute as a user would write it; the kernels are
// bench/kernels/workloads.ptx, the file the C floor loads.
import { spawnSync } from 'node:child_process';
import { closeSync, openSync, readFileSync, readSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { cappedReps } from '../repetitions.mjs';
import { driverChoice, fillPattern, median, parseArguments, result, Suite } from './harness.mjs';

const MiB = 1024 * 1024;
const BATCH_BYTES = 8 * MiB;
const DOWNLOAD_BYTES = MiB;
const MODEL_PASSES = 8;
const BLOCK = 256;
const STREAM_COUNTS = [1, 2, 4];
// The same in bench/c/workloads.c.
const REQUESTS = process.env.BENCH_QUICK === '1' ? 32 : 256;
const REPS = 5;

const options = parseArguments();
const suite = new Suite('workloads', options);
const ptxPath =
  process.env.BENCH_KERNELS_PTX ?? fileURLToPath(new URL('../kernels/workloads.ptx', import.meta.url));

let memory;
let compute;
let kernels;
try {
  memory = await import('@cumem/memory');
  compute = await import('@cumem/compute');
  memory.useDriver(await driverChoice(options.driver));
  const code = compute.ObjectCode.fromPTX(readFileSync(ptxPath, 'utf8'));
  kernels = {
    normalize: code.getKernel('normalize_u8'),
    model: code.getKernel('model_pass'),
    filter: code.getKernel('filter_gt'),
  };
  suite.data.info = { ...suite.data.info, adapter: memory.currentDriver().name, requests: REQUESTS };
  suite.save();
} catch (error) {
  suite.fatal(error);
  process.exit(2);
}

const { float32, float64, LaunchConfig, launch, uint32 } = compute;
const gridFor = (n) => new LaunchConfig({ grid: Math.ceil(n / BLOCK), block: BLOCK });

// --- Inference-server loop -----------------------------------------------------------------

function makeSlots(count) {
  const pinned = new memory.PinnedMemoryResource();
  const device = new memory.DeviceMemoryResource(0);
  const slots = [];
  for (let s = 0; s < count; s++) {
    const hostIn = pinned.allocate(BATCH_BYTES);
    fillPattern(hostIn.hostView(), 11 + s);
    slots.push({
      stream: memory.Stream.create(0, { nonBlocking: true }),
      hostIn,
      hostOut: pinned.allocate(DOWNLOAD_BYTES),
      input: device.allocate(BATCH_BYTES),
      x: device.allocate(BATCH_BYTES * 4),
      pending: false,
    });
  }
  const close = () => {
    for (const slot of slots) {
      slot.stream.sync();
      for (const buffer of [slot.hostIn, slot.hostOut, slot.input, slot.x]) buffer.close();
    }
    pinned.close();
    device.close();
  };
  return { slots, close };
}

// Scalars wrapped once, as a server launching in a loop would.
const n = uint32(BATCH_BYTES);
const scale = float32(1 / 255);
const bias = float32(-0.5);
const a = float32(0.999);
const b = float32(0.001);
const config = gridFor(BATCH_BYTES);

/** One request on `slot`; `parts`: 1 copies only, 2 kernels only, 3 both (as bench/c/workloads.c). */
function enqueueRequest(slot, parts) {
  const onStream = { stream: slot.stream };
  if (parts & 1) slot.input.copyFrom(slot.hostIn, onStream);
  if (parts & 2) {
    launch(slot.stream, config, kernels.normalize, slot.input, slot.x, n, scale, bias);
    for (let pass = 0; pass < MODEL_PASSES; pass++)
      launch(slot.stream, config, kernels.model, slot.x, n, a, b);
  }
  if (parts & 1) slot.hostOut.copyFrom(slot.firstMiB, onStream);
}

/** Seconds for REQUESTS requests over the first `streams` slots. */
function serve(slots, streams, parts) {
  let seen = 0;
  const start = process.hrtime.bigint();
  for (let i = 0; i < REQUESTS; i++) {
    const slot = slots[i % streams];
    if (slot.pending) {
      slot.stream.sync();
      seen += slot.answer[0]; // the answer is read, as a server would
    }
    enqueueRequest(slot, parts);
    slot.pending = true;
  }
  for (let s = 0; s < streams; s++) {
    if (slots[s].pending) slots[s].stream.sync();
    slots[s].pending = false;
  }
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  return { seconds, seen };
}

function requestsPerSecond(slots, streams, parts) {
  const samples = [];
  for (let rep = -1; rep < cappedReps(REPS); rep++) {
    const { seconds } = serve(slots, streams, parts);
    if (rep >= 0) samples.push(REQUESTS / seconds);
  }
  return samples;
}

const inference = {};
{
  let made;
  try {
    made = makeSlots(Math.max(...STREAM_COUNTS));
    for (const slot of made.slots) {
      slot.firstMiB = slot.x.slice(0, DOWNLOAD_BYTES);
      slot.answer = new Float32Array(slot.hostOut.hostView().buffer, slot.hostOut.hostView().byteOffset, 1);
    }
  } catch (error) {
    inference.error = error;
  }
  for (const streams of STREAM_COUNTS) {
    const id = streams === 1 ? 'workload.inference1Stream' : `workload.inference${streams}Streams`;
    await suite.row(id, 'req/s', () => {
      if (inference.error) throw inference.error;
      const samples = requestsPerSecond(made.slots, streams, 3);
      inference[streams] = median(samples);
      const extra = { protocol: { requests: REQUESTS, streams, reps: samples.length, warmupReps: 1 } };
      if (streams === Math.max(...STREAM_COUNTS)) {
        // What overlap can give (variants, as bench/c/workloads.c): copies alone, kernels alone.
        const copyMs = 1e3 / median(requestsPerSecond(made.slots, 1, 1));
        const kernelMs = 1e3 / median(requestsPerSecond(made.slots, 1, 2));
        const oneMs = 1e3 / inference[1];
        const fourMs = 1e3 / inference[streams];
        const bestMs = Math.max(copyMs, kernelMs);
        extra.variants = {
          copiesOnlyMsPerRequest: copyMs,
          kernelsOnlyMsPerRequest: kernelMs,
          overOneStream: inference[streams] / inference[1],
          ...(oneMs > bestMs ? { overlapAchieved: (oneMs - fourMs) / (oneMs - bestMs) } : {}),
        };
      }
      return result(samples, 'req/s', {
        ...extra,
        via: 'PinnedMemoryResource + Buffer.copyFrom + launch() on 1-4 Streams',
      });
    });
  }
  made?.close();
}

// --- Arrow from disk -----------------------------------------------------------------------

/** Drops the file from the page cache (GNU dd asks posix_fadvise DONTNEED for the whole file). */
function dropFromPageCache(path) {
  const run = spawnSync('dd', [`if=${path}`, 'iflag=nocache', 'count=0', 'status=none']);
  if (run.status !== 0) throw new Error(`dd iflag=nocache of ${path} failed: ${run.stderr}`);
}

function readInto(path, view) {
  const fd = openSync(path, 'r');
  try {
    let done = 0;
    while (done < view.byteLength) {
      const got = readSync(fd, view, done, Math.min(64 * MiB, view.byteLength - done), done);
      if (got <= 0) throw new Error(`${path} ended after ${done} of ${view.byteLength} bytes`);
      done += got;
    }
  } finally {
    closeSync(fd);
  }
}

await suite.row('workload.arrowFromDisk', 'GB/s', async () => {
  const path = process.env.BENCH_ARROW_FILE;
  if (!path) throw new Error('BENCH_ARROW_FILE is not set (bench/run.mjs makes the file)');
  const { tableFromArrays, tableFromIPC } = await import('apache-arrow');
  const [rowsText, , , bytesText, thresholdText] = readFileSync(`${path}.layout`, 'utf8').trim().split(' ');
  const rows = Number(rowsText);
  const fileBytes = Number(bytesText);
  const threshold = float64(Number(thresholdText));
  const pinned = new memory.PinnedMemoryResource();
  const device = new memory.DeviceMemoryResource(0);
  const stream = memory.Stream.create(0, { nonBlocking: true });
  const onStream = { stream };
  const file = pinned.allocate(fileBytes);
  const ids = device.allocate(rows * 4);
  const values = device.allocate(rows * 8);
  const keptIds = device.allocate(rows * 4);
  const keptValues = device.allocate(rows * 8);
  const count = device.allocate(4);
  const outIds = pinned.allocate(rows * 4);
  const outValues = pinned.allocate(rows * 8);
  const countHost = pinned.allocate(4);
  const fileView = file.hostView();
  const counted = new Uint32Array(countHost.hostView().buffer, countHost.hostView().byteOffset, 1);
  const filter = gridFor(rows);
  let keptRows = 0;
  try {
    const samples = [];
    for (let rep = -1; rep < cappedReps(REPS); rep++) {
      dropFromPageCache(path);
      const start = process.hrtime.bigint();
      readInto(path, fileView);
      // The table over the page-locked bytes (no copy); its column bodies are copied to the device.
      const table = tableFromIPC(fileView);
      const body = (name) => {
        const column = table.getChild(name).data[0].values;
        return file.slice(column.byteOffset - fileView.byteOffset, column.byteLength);
      };
      ids.copyFrom(body('id'), onStream);
      values.copyFrom(body('value'), onStream);
      count.fill(0, onStream);
      launch(
        stream,
        filter,
        kernels.filter,
        ids,
        values,
        uint32(rows),
        threshold,
        keptIds,
        keptValues,
        count,
      );
      countHost.copyFrom(count, onStream);
      stream.sync();
      keptRows = counted[0];
      if (keptRows > 0) {
        outIds.slice(0, keptRows * 4).copyFrom(keptIds.slice(0, keptRows * 4), onStream);
        outValues.slice(0, keptRows * 8).copyFrom(keptValues.slice(0, keptRows * 8), onStream);
      }
      stream.sync();
      const kept = tableFromArrays({
        id: new Int32Array(outIds.hostView().buffer, outIds.hostView().byteOffset, keptRows),
        value: new Float64Array(outValues.hostView().buffer, outValues.hostView().byteOffset, keptRows),
      });
      const seconds = Number(process.hrtime.bigint() - start) / 1e9;
      if (kept.numRows !== keptRows) throw new Error('the filtered table has the wrong length');
      if (rep >= 0) samples.push(fileBytes / seconds / 1e9);
    }
    return result(samples, 'GB/s', {
      protocol: { reps: samples.length, warmupReps: 1, pageCache: 'dropped' },
      variants: { fileBytes, keptRows },
      via: 'fs.readSync into PinnedMemoryResource memory, tableFromIPC, Buffer.copyFrom, launch(filter_gt), tableFromArrays over the pinned result',
    });
  } finally {
    stream.sync();
    for (const buffer of [file, ids, values, keptIds, keptValues, count, outIds, outValues, countHost])
      buffer.close();
    pinned.close();
    device.close();
  }
});
process.exit(0);
