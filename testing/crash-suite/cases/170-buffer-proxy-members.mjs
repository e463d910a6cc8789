// Issue 45, item 6 (Buffer): every getter and method of a Buffer, ManagedBuffer and VirtualBuffer
// refuses a receiver that only stands for one (a Proxy of a buffer, a revoked Proxy, an object
// inheriting from one, a Proxy whose every trap throws) with cumem's own TypeError naming the
// member, never V8's "Cannot read private member"; the real buffer behind it is untouched and
// still holds its memory. StridedMemoryView.from(new Proxy(buffer, {})) refuses the same way.
import { StridedMemoryView } from '@cumem/utils';
import { check, checkRoundTrip, memory, setUp } from './support.mjs';

await setUp();
const buffers = [
  new memory.DeviceMemoryResource(0).allocate(4096),
  new memory.PinnedMemoryResource().allocate(4096),
  new memory.ManagedMemoryResource().allocate(4096),
];
const virtual = new memory.VirtualMemoryResource(0);
buffers.push(virtual.allocate(4096));
buffers.push(buffers[0].slice(1024, 1024));

const throwing = new Proxy(
  {},
  Object.fromEntries(
    ['get', 'has', 'getPrototypeOf', 'ownKeys', 'getOwnPropertyDescriptor', 'set', 'apply'].map((trap) => [
      trap,
      () => {
        throw new Error(`the ${trap} trap ran`);
      },
    ]),
  ),
);

function expectCumemTypeError(what, action) {
  let thrown;
  try {
    action();
  } catch (error) {
    thrown = error;
  }
  check(
    thrown instanceof TypeError,
    `${what}: expected a TypeError, got ${thrown?.name}: ${thrown?.message}`,
  );
  check(
    !/private member|Cannot read/.test(thrown.message),
    `${what}: the engine's message: ${thrown.message}`,
  );
  check(/not a Buffer/.test(thrown.message), `${what}: not cumem's message: ${thrown.message}`);
}

const members = [];
for (const prototype of [memory.BufferBase.prototype, memory.Buffer.prototype]) {
  for (const key of Reflect.ownKeys(prototype)) {
    if (
      key === 'constructor' ||
      key === 'toString' ||
      (typeof key === 'symbol' && key.description?.includes('inspect'))
    )
      continue;
    members.push([key, Object.getOwnPropertyDescriptor(prototype, key)]);
  }
}
check(members.length >= 20, `the members of Buffer were found (${members.length})`);

for (const buffer of buffers) {
  const kind = `${buffer.constructor.name}(${buffer.size})`;
  const revocable = Proxy.revocable(buffer, {});
  revocable.revoke();
  const receivers = {
    proxy: new Proxy(buffer, {}),
    'revoked proxy': revocable.proxy,
    heir: Object.create(buffer),
    'throwing proxy': throwing,
  };
  for (const [name, receiver] of Object.entries(receivers)) {
    for (const [key, descriptor] of members) {
      const call = descriptor.get ?? descriptor.value;
      expectCumemTypeError(`${kind}.${String(key)} on a ${name}`, () =>
        call.call(receiver, new Uint8Array(64)),
      );
    }
  }
  // As a program would reach them: through the Proxy's own prototype chain.
  expectCumemTypeError(`${kind}: proxy.copyFrom`, () =>
    receivers.proxy.copyFrom(new Uint8Array(buffer.size)),
  );
  expectCumemTypeError(`${kind}: proxy.close`, () => receivers.proxy.close());
  expectCumemTypeError(`${kind}: heir.handle`, () => receivers.heir.handle);
  check(!buffer.isClosed, `${kind}: the real buffer is still open`);
  checkRoundTrip(buffer, 0x5a, `${kind}: the real buffer still holds its memory`);
}

// The exact program of issue 45, item 6.
for (const buffer of buffers) {
  let thrown;
  try {
    StridedMemoryView.from(new Proxy(buffer, {}));
  } catch (error) {
    thrown = error;
  }
  check(thrown instanceof TypeError, `StridedMemoryView.from(Proxy) refused (${thrown?.message})`);
  check(!/private member/.test(thrown.message), `StridedMemoryView.from(Proxy): ${thrown.message}`);
}

for (const buffer of buffers.reverse()) buffer.close();
virtual.close();
