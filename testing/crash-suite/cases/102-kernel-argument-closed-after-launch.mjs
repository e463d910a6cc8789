// Class 12: a buffer closed (or dropped) right after the launch that uses it is not reused
// before the kernel ran: its free waits for the launch's stream, so an allocation made at once
// from the same pool, filled on another stream, never sees the kernel's writes.
// needs: kernels
import { float32, LaunchConfig, launch, ObjectCode, uint32 } from '@cumem/compute';
import { referenceKernelsPTX } from '@cumem/testing';
import { check, collectGarbage, memory, setUp } from './support.mjs';

await setUp();
const launchStream = memory.Stream.create(0);
const other = memory.Stream.create(0);
const pool = new memory.DeviceMemoryResource(0);
const code = ObjectCode.fromPTX(referenceKernelsPTX);
const fill = code.getKernel('fill_f32');
const n = 1 << 22;
for (let round = 0; round < 8; round++) {
  let argument = pool.allocate(n * 4, { stream: other });
  launch(
    launchStream,
    new LaunchConfig({ grid: n / 256, block: 256 }),
    fill,
    argument,
    float32(round + 1),
    uint32(n),
  );
  if (round % 2 === 0) argument.close();
  else {
    argument = undefined;
    await collectGarbage(2);
  }
  const next = pool.allocate(n * 4, { stream: other });
  next.fill(0, { stream: other });
  other.sync();
  launchStream.sync();
  const head = new Uint8Array(64);
  next.slice(0, 64).copyTo(head);
  check(
    head.every((byte) => byte === 0),
    `round ${round}: the new allocation shows the kernel's writes`,
  );
  next.close();
}
code.close();
