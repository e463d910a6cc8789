// Node producer: fills a float32 tensor in GPU memory and hands it to a Python consumer
// (PyTorch) without copying. Run from the repository root after `pnpm build`:
//   node examples/node-to-python/producer.mjs
// Environment: CUMEM_PYTHON (default python3), CUMEM_DRIVER (napi | ffi, default auto).
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { DeviceMemoryResource, Event, Stream } from '@cumem/memory';
import { StridedLayout, StridedMemoryView } from '@cumem/utils';

const rows = 1024;
const cols = 512;

// 1. An IPC-enabled pool: its buffers can be opened by other processes (cuda.core, cumem).
const mr = new DeviceMemoryResource(0, { ipcEnabled: true });
const tensor = mr.allocate(rows * cols * 4);

// 2. Produce the data on a stream: here a host-to-device copy (a kernel would do the same).
const host = new Float32Array(rows * cols);
for (let i = 0; i < rows; i++) for (let j = 0; j < cols; j++) host[i * cols + j] = (i % 7) - j / cols;
const stream = Stream.create(0);
tensor.copyFrom(host, { stream });

// 3. An interprocess event after the producer's work: Python waits on it, so we need not
//    synchronise before sending (the copy may still be running when Python gets the tensor).
const ready = Event.create(0, { interprocess: true });
stream.record(ready);

// 4. The typed, shaped view and its wire form (JSON): dtype, shape, strides, offset, the
//    buffer's 64-byte pool export and the event's 64-byte handle.
const view = StridedMemoryView.fromBuffer(tensor, StridedLayout.dense([rows, cols], 4), { dtype: 'float32' });
const descriptor = view.toIpcDescriptor({ event: ready });

// 5. The pool travels as a file descriptor: the child's fd 3.
const python = process.env.CUMEM_PYTHON ?? 'python3';
const consumer = fileURLToPath(new URL('./consumer.py', import.meta.url));
const child = spawn(python, [consumer], {
  stdio: ['pipe', 'pipe', 'inherit', mr.getAllocationHandle().fileDescriptor],
});
let output = '';
child.stdout.on('data', (chunk) => {
  output += chunk;
});
child.stdin.end(`${JSON.stringify({ fd: 3, descriptor })}\n`);
const [code] = await once(child, 'exit');
if (code !== 0) {
  console.error(`consumer.py exited with ${code}`);
  process.exit(1);
}
const answer = JSON.parse(output.trim().split('\n').at(-1));

// 6. Lifetime: the tensor stays allocated until Python has answered (it closed its mapping).
//    Python normalised the tensor in place: check it here, through the same memory.
const back = new Float32Array(rows * cols);
tensor.copyTo(back);
let expectedSum = 0;
for (const value of host) expectedSum += value;
const mean = expectedSum / host.length;
let maxError = 0;
for (let k = 0; k < host.length; k++) maxError = Math.max(maxError, Math.abs(back[k] - (host[k] - mean)));
const ok = Math.abs(answer.sum - expectedSum) <= 1e-3 * Math.abs(expectedSum) + 1e-2 && maxError < 1e-3;
console.log(
  JSON.stringify({
    ok,
    pythonSum: answer.sum,
    nodeSum: expectedSum,
    maxError,
    device: answer.device,
    torch: answer.torch,
  }),
);
ready.close();
stream.close();
tensor.close();
mr.close();
process.exit(ok ? 0 : 1);
