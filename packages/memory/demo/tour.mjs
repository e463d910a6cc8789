// A short tour of @cumem/memory: run `pnpm demo` (or `node demo/tour.mjs` after `tsc -b`). On a
// machine without a GPU it runs on the reference driver and says so.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import {
  Buffer,
  canAccessPeer,
  currentDriver,
  Device,
  DeviceMemoryResource,
  DriverUnavailableError,
  defaultStream,
  deviceCount,
  deviceProperties,
  Host,
  IpcAllocationHandle,
  ManagedMemoryResource,
  memoryInfo,
  PinnedMemoryResource,
  peerAttributes,
  Stream,
  useDriver,
} from '@cumem/memory';

const gib = (bytes) => `${(bytes / 2 ** 30).toFixed(1)} GiB`;

// The child half of the IPC hand-off: opens the pool from fd 3 and the buffer from a descriptor.
if (process.argv[2] === '--ipc-child') {
  const request = JSON.parse(process.argv[3]);
  const mr = DeviceMemoryResource.fromAllocationHandle(
    0,
    IpcAllocationHandle.fromFileDescriptor(3, { uuid: request.uuid }),
  );
  const buffer = Buffer.fromIpcDescriptor(mr, request.descriptor);
  const bytes = new Uint8Array(buffer.size);
  buffer.copyTo(bytes);
  buffer.fill(bytes[0] + 1);
  buffer.close();
  mr.close();
  process.stdout.write(String(bytes[0]));
  process.exit(0);
}

// Without a GPU the tour runs on cumem's reference driver (@cumem/testing): the whole Driver
// contract in host memory, the same one the test suites use. Every step runs; the figures are
// those of host memory, which the banner says before anything is printed.
let count;
let onReferenceDriver = false;
try {
  count = deviceCount();
} catch (error) {
  if (!DriverUnavailableError.isInstance(error)) throw error;
  const { createReferenceDriver } = await import('@cumem/testing');
  useDriver(createReferenceDriver());
  onReferenceDriver = true;
  count = deviceCount();
  console.log('='.repeat(78));
  console.log('no GPU here: this is the reference driver; figures are host memory');
  console.log(`(${error.message.split('\n')[0]})`);
  console.log('='.repeat(78));
}

const driver = currentDriver();
console.log(
  `driver: ${driver.name} adapter, CUDA ${Math.floor(driver.driverVersion / 1000)}.${(driver.driverVersion % 1000) / 10}`,
);
for (let ordinal = 0; ordinal < count; ordinal++) {
  const properties = deviceProperties(ordinal);
  const { free, total } = memoryInfo(ordinal);
  console.log(
    `device ${ordinal}: ${properties.name}, compute ${properties.computeCapability.join('.')}, ` +
      `${properties.multiProcessorCount} SMs, ${gib(free)} free of ${gib(total)}`,
  );
}

// 1. A stream-ordered pool allocation on the device.
const stream = Stream.create(new Device(0));
const deviceMemory = new DeviceMemoryResource(0);
const size = 256 * 2 ** 20;
const onDevice = deviceMemory.allocate(size, { stream });
console.log(`allocated ${size / 2 ** 20} MiB from the device pool at 0x${onDevice.handle.toString(16)}`);

// 2. Host <-> device round trip from page-locked pool memory, with its bandwidth.
const pinned = new PinnedMemoryResource();
const staging = pinned.allocate(size, { stream });
staging.hostView().fill(42);
onDevice.copyFrom(staging, { stream });
stream.sync();
const start = stream.record();
onDevice.copyFrom(staging, { stream });
const middle = stream.record();
onDevice.copyTo(staging, { stream });
const end = stream.record();
end.sync();
const rate = (ms) => `${(size / (ms / 1000) / 1e9).toFixed(1)} GB/s`;
console.log(
  `host -> device: ${rate(start.elapsedMs(middle))}, device -> host: ${rate(middle.elapsedMs(end))}`,
);
console.log(`round trip intact: ${staging.hostView().every((byte) => byte === 42)}`);

// 3. A managed buffer, advised and prefetched.
const managed = new ManagedMemoryResource().allocate(64 * 2 ** 20);
managed.readMostly = true;
managed.preferredLocation = new Device(0);
managed.accessedBy.add(new Host());
managed.prefetch(new Device(0), { stream });
stream.sync();
console.log(
  `managed buffer: readMostly=${managed.readMostly}, preferredLocation=${managed.preferredLocation}, ` +
    `accessedBy=[${[...managed.accessedBy].join(', ')}], prefetched to Device(0)`,
);

// 4. An IPC hand-off: the pool travels as a file descriptor, the buffer as a JSON descriptor.
if (driver.capabilities.interprocess) {
  const shared = new DeviceMemoryResource(0, { ipcEnabled: true });
  const buffer = shared.allocate(4096);
  buffer.fill(7);
  const request = JSON.stringify({ uuid: shared.uuid, descriptor: buffer.ipcDescriptor });
  const script = fileURLToPath(import.meta.url);
  const child = spawn(process.execPath, [script, '--ipc-child', request], {
    stdio: ['ignore', 'pipe', 'inherit', shared.getAllocationHandle().fileDescriptor],
    env: { ...process.env, CUMEM_DRIVER: driver.name },
  });
  let seen = '';
  child.stdout.on('data', (chunk) => {
    seen += chunk;
  });
  await new Promise((resolve, reject) =>
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`child exited ${code}`)))),
  );
  const back = new Uint8Array(4096);
  buffer.copyTo(back);
  console.log(`IPC: a child process read ${seen} from our buffer and wrote ${back[0]} back`);
  buffer.close();
  shared.close();
} else {
  console.log('IPC: skipped, this driver cannot share pools between processes');
}

// 5. Two GPUs: a peer copy, first between pools without peer access (cuMemcpyPeerAsync), then
// with each pool accessible by the other device (cuMemcpyAsync over the link).
if (count >= 2) {
  const link = peerAttributes(0, 1);
  console.log(
    `devices 0 -> 1: canAccessPeer=${canAccessPeer(0, 1)}, native atomics=${link.nativeAtomicSupported}, ` +
      `performance rank ${link.performanceRank}`,
  );
  const mr0 = new DeviceMemoryResource(0, {});
  const mr1 = new DeviceMemoryResource(1, {});
  const from = mr0.allocate(size, { stream });
  const to = mr1.allocate(size);
  defaultStream(1).sync(); // allocated in device 1's default stream order: done before the copies
  from.copyFrom(staging, { stream });
  const timePeerCopy = () => {
    to.copyFrom(from, { stream }); // warm-up
    const begin = stream.record();
    to.copyFrom(from, { stream });
    const finish = stream.record();
    finish.sync();
    return rate(begin.elapsedMs(finish));
  };
  const withoutAccess = timePeerCopy();
  let withAccess = 'n/a (the devices cannot access each other)';
  if (canAccessPeer(0, 1) && canAccessPeer(1, 0)) {
    mr0.peerAccessibleBy = [1];
    mr1.peerAccessibleBy = [0];
    withAccess = timePeerCopy();
  }
  const check = new Uint8Array(size);
  to.copyTo(check);
  console.log(
    `peer copy device 0 -> 1: ${withoutAccess} without pool access, ${withAccess} with it; ` +
      `intact: ${check.every((byte) => byte === 42)}; mr0.peerAccessibleBy = [${[...mr0.peerAccessibleBy].join(', ')}]`,
  );
  for (const object of [from, to, mr0, mr1]) object.close();
} else {
  console.log('peer copy: skipped, one GPU here');
}

for (const object of [managed, staging, onDevice, pinned, deviceMemory, stream]) object.close();
console.log('done: everything closed');
console.log(
  onReferenceDriver
    ? 'next: the first program in packages/memory/README.md runs here as it is; on a machine with an ' +
        'NVIDIA GPU and driver, `pnpm demo` runs this same tour on the device.'
    : 'next: the first program in packages/memory/README.md, then the guides of each package ' +
        '(packages/*/README.md).',
);
