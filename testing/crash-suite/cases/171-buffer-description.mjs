// Issue 46, "Debuggable objects" (Buffer): String(buffer) and util.inspect(buffer) show the kind,
// size, device, address and whether it is closed, and nothing of the driver's state: for every
// kind of buffer, open and closed, for a wrapper whose owner freed the memory (no driver
// question about freed memory), and for objects that only stand for a buffer (a Proxy, a
// revoked Proxy, an heir, a Proxy whose every trap throws), which show as imitations and never throw.
import { inspect } from 'node:util';
import { check, memory, setUp } from './support.mjs';

await setUp();
const device = new memory.DeviceMemoryResource(0);
const pinned = new memory.PinnedMemoryResource();
const buffers = [
  device.allocate(4096),
  pinned.allocate(256),
  new memory.ManagedMemoryResource().allocate(128),
];
buffers.push(buffers[0].slice(64, 64));
const forbidden = /runtime|driver|resource|record|views|knownStreams|context|#/i;

function checkDescription(buffer, closed) {
  const text = String(buffer);
  const shown = inspect(buffer, { showHidden: true, depth: 8 });
  const kind = buffer instanceof memory.ManagedBuffer ? 'ManagedBuffer' : 'Buffer';
  const address = `0x${buffer.handle.toString(16)}`;
  check(text.startsWith(`${kind}(size: ${buffer.size}, device: `), `toString names kind and size: ${text}`);
  check(text.includes(`address: ${address}`) && text.endsWith(`closed: ${closed})`), `toString: ${text}`);
  check(shown.startsWith(`${kind} {`) && shown.includes(`'${address}'`), `inspect: ${shown}`);
  check(shown.includes(`closed: ${closed}`), `inspect tells closed: ${shown}`);
  check(!forbidden.test(text) && !forbidden.test(shown), `nothing of the driver shows: ${shown}`);
}

for (const buffer of buffers) checkDescription(buffer, false);
check(String(buffers[0]).includes('device: 0'), 'device memory names its device');
check(String(buffers[1]).includes('device: host'), 'pinned memory is host memory');

// A wrapper over memory its owner has freed: describing it must not ask the driver about it.
const owner = pinned.allocate(512);
const wrapper = memory.Buffer.fromHandle(owner.handle, 512, { owner });
checkDescription(wrapper, false);
owner.close();
checkDescription(wrapper, true);
check(String(wrapper).includes('device: unknown'), `a closed wrapper's device is not asked: ${wrapper}`);

for (const buffer of [...buffers].reverse()) buffer.close();
for (const buffer of buffers) checkDescription(buffer, true);

const revocable = Proxy.revocable(buffers[1], {});
revocable.revoke();
const throwing = new Proxy(
  {},
  {
    get() {
      throw new Error('get trap');
    },
    getPrototypeOf() {
      throw new Error('prototype trap');
    },
  },
);
for (const [name, imitation] of Object.entries({
  proxy: new Proxy(buffers[0], {}),
  'revoked proxy': revocable.proxy,
  heir: Object.create(buffers[0]),
})) {
  const text = memory.BufferBase.prototype.toString.call(imitation);
  check(text === '[Buffer imitation]', `${name}: toString shows an imitation: ${text}`);
  const shown = memory.BufferBase.prototype[inspect.custom].call(
    imitation,
    2,
    { stylize: (s) => s },
    inspect,
  );
  check(shown === '[Buffer imitation]', `${name}: inspect shows an imitation: ${shown}`);
}
check(
  memory.BufferBase.prototype.toString.call(throwing) === '[Buffer imitation]',
  'a Proxy whose traps throw is described without running them',
);
