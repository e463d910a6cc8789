// The child process of the translated cuda.core IPC cases: imports the BUILT package, reads the
// parent's request (one JSON line on stdin; `fdCount` pool or chunk descriptors from fd 3 on),
// runs the scenario `request.role` names and prints its report as the last line of stdout.
// Two roles talk with the parent while they run, so they live here rather than in the scenarios:
// 'forward' is upstream's middle process of a re-export (it opens the buffer and sends its own
// descriptor of it, with the pool descriptor it received, to a child of its own), and
// 'writeAfterLateEvent' gets its event only after it said it is ready.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { Buffer, DeviceMemoryResource, Event, Stream } from '@cumem/memory';
import { fromBase64, importPool, scenarios } from './cuda-core-ipc-scenarios.mjs';

const thisScript = fileURLToPath(import.meta.url);

/** Runs this script on `request` with `fds` as its fds 3, 4, ...; its report. */
export async function runChild(request, fds) {
  const child = spawn(process.execPath, [thisScript], {
    env: process.env,
    stdio: ['pipe', 'pipe', 'pipe', ...fds],
  });
  let output = '';
  let errors = '';
  child.stdout.on('data', (chunk) => {
    output += chunk;
  });
  child.stderr.on('data', (chunk) => {
    errors += chunk;
  });
  const closed = once(child, 'close');
  child.stdin.end(`${JSON.stringify(request)}\n`);
  const [code, signal] = await closed;
  if (code !== 0) throw new Error(`child exited with ${code ?? signal}: ${errors}`);
  return JSON.parse(output.trim().split('\n').at(-1));
}

async function forward(request) {
  const mr = importPool(request.pool, 3);
  const buffer = Buffer.fromIpcDescriptor(mr, request.descriptor);
  // This process's own export of the memory it imported.
  const forwarded = buffer.ipcDescriptor;
  const report = await runChild(
    {
      role: 'fillShared',
      fdCount: 1,
      pools: [request.pool],
      buffers: [{ pool: 0, descriptor: forwarded, expect: null, write: request.write }],
    },
    [3],
  );
  // Kept open until the last process is done with the memory, as upstream's middle process does.
  buffer.close();
  mr.close();
  return report;
}

// upstream's TestEventIpc child: opens the buffer and says 'ready'; then reads the handle of the
// parent's interprocess event (recorded after the parent's own copy into the buffer, which busy
// work still holds back), makes its stream wait for it, queues a copy of `write`, says 'queued'
// (upstream's `q_out.put(None)`), and waits for its copy.
async function writeAfterLateEvent(request, nextLine) {
  const mr = importPool(request.pool, 3);
  const buffer = Buffer.fromIpcDescriptor(mr, request.descriptor);
  const scratch = new DeviceMemoryResource(0);
  const twos = scratch.allocate(buffer.size);
  twos.copyFrom(fromBase64(request.write));
  const stream = Stream.create();
  process.stdout.write('ready\n');
  const event = Event.fromIpcHandle(fromBase64(await nextLine()));
  // Whether the parent's work before the event was still running: only then does this case
  // show that the wait orders the copy after it.
  const pendingWhenOpened = !event.isDone;
  stream.wait(event);
  buffer.copyFrom(twos, { stream });
  process.stdout.write('queued\n');
  stream.sync();
  for (const closable of [twos, buffer, event, stream, mr]) closable.close();
  return { pendingWhenOpened };
}

if (process.argv[1] === thisScript) {
  const lines = createInterface({ input: process.stdin })[Symbol.asyncIterator]();
  const nextLine = async () => (await lines.next()).value;
  const request = JSON.parse(await nextLine());
  const fds = Array.from({ length: request.fdCount ?? 0 }, (_, i) => 3 + i);
  let report;
  if (request.role === 'forward') report = await forward(request);
  else if (request.role === 'writeAfterLateEvent') report = await writeAfterLateEvent(request, nextLine);
  else report = scenarios[request.role](request, fds);
  process.stdout.write(`${JSON.stringify(report)}\n`);
  process.stdin.destroy();
}
