// handoff.python256MiB: time until Python (PyTorch) can use a 256 MiB float32 tensor Node made,
// zero-copy (the pool's fd once, then a cumem.tensor/1 descriptor per tensor; Python imports and
// wraps it) versus the copy a user would otherwise make (device -> JS memory -> pipe -> Python
// bytes -> device). Both in one run, interleaved; the consumer is bench/python/handoff_consumer.py.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { cappedReps } from '../repetitions.mjs';
import { driverChoice, median, parseArguments, result, Suite } from './harness.mjs';

const ROWS = 16384;
const COLS = 4096;
const BYTES = ROWS * COLS * 4; // 256 MiB
// The same in bench/python/handoff.py and rows.mjs.
const REPS = 7;
const WARMUP_REPS = 1;
const FILL_BYTE = 0x3f;
const FIRST = new Float32Array(new Uint8Array(4).fill(FILL_BYTE).buffer)[0];

const options = parseArguments();
const suite = new Suite('handoff', options);
const consumerScript = fileURLToPath(new URL('../python/handoff_consumer.py', import.meta.url));

let memory;
let utils;
try {
  memory = await import('@cumem/memory');
  utils = await import('@cumem/utils');
  memory.useDriver(await driverChoice(options.driver));
  suite.data.info = { ...suite.data.info, adapter: memory.currentDriver().name };
  suite.save();
} catch (error) {
  suite.fatal(error);
  process.exit(2);
}

/** The consumer, its reply lines, and a way to await the next one. */
function startConsumer(fd) {
  const child = spawn(process.env.CUMEM_PYTHON ?? 'python3', [consumerScript], {
    stdio: ['pipe', 'pipe', 'inherit', fd],
  });
  const queue = [];
  const waiting = [];
  let ended = false;
  createInterface({ input: child.stdout })
    .on('line', (line) => (waiting.length ? waiting.shift()(line) : queue.push(line)))
    .on('close', () => {
      ended = true;
      for (const resolve of waiting.splice(0)) resolve(undefined);
    });
  child.stdin.on('error', () => undefined);
  const next = async () => {
    const line = queue.shift() ?? (ended ? undefined : await new Promise((resolve) => waiting.push(resolve)));
    if (line === undefined) throw new Error('the Python consumer ended (see its stderr above)');
    return JSON.parse(line);
  };
  return { child, next };
}

/**
 * Per part, the median over repetitions in milliseconds (`parts.<name>`), and what they leave of
 * the zero-copy time (`parts.rest`: event-loop and pipe costs not in the ping).
 */
function handoffParts(perRep, zeroMs) {
  const names = [...new Set(perRep.flatMap((entry) => Object.keys(entry)))];
  const medians = Object.fromEntries(
    names.map((name) => [
      `parts.${name}`,
      median(perRep.map((entry) => entry[name]).filter(Number.isFinite)),
    ]),
  );
  const inZero = names
    .filter((name) => name !== 'pipeRoundTrip')
    .reduce((sum, name) => sum + medians[`parts.${name}`], 0);
  return { ...medians, 'parts.rest': zeroMs - inZero };
}

await suite.row('handoff.python256MiB', 'ms', async () => {
  const mr = new memory.DeviceMemoryResource(0, { ipcEnabled: true });
  const tensor = mr.allocate(BYTES);
  tensor.fill(FILL_BYTE);
  const view = utils.StridedMemoryView.fromBuffer(tensor, utils.StridedLayout.dense([ROWS, COLS], 4), {
    dtype: 'float32',
  });
  const { child, next } = startConsumer(mr.getAllocationHandle().fileDescriptor);
  try {
    if ((await next()).ready !== true) throw new Error('the consumer did not say ready');
    // The parts of each zero-copy hand-off (issue 47): this process's export (the descriptor,
    // cuMemPoolExportPointer included) and its JSON, the consumer's import steps (its `parts`),
    // and a ping right after, for the pipe alone. Same split in bench/python/handoff.py.
    const parts = [];
    const zeroCopy = async () => {
      const started = performance.now();
      const descriptor = view.ipcDescriptor;
      const exported = performance.now();
      const line = `${JSON.stringify({ mode: 'zero', fd: 3, descriptor, first: FIRST })}\n`;
      const serialized = performance.now();
      child.stdin.write(line);
      const answer = await next();
      const elapsed = performance.now() - started;
      if (!answer.ok) throw new Error(`zero-copy: Python read ${answer.first}, expected ${FIRST}`);
      await next(); // closed: its mapping is gone, the tensor may be reused
      const pingStarted = performance.now();
      child.stdin.write(`${JSON.stringify({ mode: 'ping' })}\n`);
      await next();
      parts.push({
        export: exported - started,
        descriptor: serialized - exported,
        pipeRoundTrip: performance.now() - pingStarted,
        ...answer.parts,
      });
      return elapsed;
    };
    const hostRoundTrip = async () => {
      const started = performance.now();
      const host = new Uint8Array(BYTES);
      tensor.copyTo(host);
      child.stdin.write(
        `${JSON.stringify({ mode: 'copy', bytes: BYTES, shape: [ROWS, COLS], first: FIRST })}\n`,
      );
      child.stdin.write(host);
      const answer = await next();
      const elapsed = performance.now() - started;
      if (!answer.ok) throw new Error(`host round trip: Python read ${answer.first}, expected ${FIRST}`);
      await next();
      return elapsed;
    };
    const zero = [];
    const copy = [];
    for (let rep = -WARMUP_REPS; rep < cappedReps(REPS); rep++) {
      const z = await zeroCopy();
      const c = await hostRoundTrip();
      if (rep >= 0) {
        zero.push(z);
        copy.push(c);
      }
    }
    child.stdin.end(`${JSON.stringify({ mode: 'exit' })}\n`);
    const zeroMs = median(zero);
    const copyMs = median(copy);
    return result(zero, 'ms', {
      protocol: { reps: REPS, warmupReps: WARMUP_REPS, bytes: BYTES },
      variants: {
        zeroCopy: zeroMs,
        hostRoundTrip: copyMs,
        speedup: copyMs / zeroMs,
        hostRoundTripSamples: copy,
        ...handoffParts(parts.slice(WARMUP_REPS), zeroMs),
      },
      via: 'pool fd + cumem.tensor/1 descriptor -> cuda.core import -> torch.as_tensor (zero copy); vs copyTo(Uint8Array) -> pipe -> torch.frombuffer().cuda()',
    });
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
    tensor.close();
    mr.close();
  }
});
process.exit(0);
