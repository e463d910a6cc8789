// Issue 45, item 6 (the @cumem/utils part): a Proxy of a Buffer, of a StridedMemoryView or of a
// StridedLayout, and objects inheriting from one, get cumem's own TypeError from
// StridedMemoryView.from / fromBuffer and from every public method and getter of the views and
// layouts — never the engine's "Cannot read private member", and never a driver call with the
// address or sizes such an object claims.
import { StridedLayout, StridedMemoryView } from '@cumem/utils';
import { check, expectThrows, memory, setUp } from './support.mjs';

await setUp();
const mr = new memory.DeviceMemoryResource(0);
const buffer = mr.allocate(4096);
buffer.fill(0x42);
const layout = StridedLayout.dense([1024], 4);
const view = StridedMemoryView.fromBuffer(buffer, layout);

/** Requires cumem's own TypeError from `action`, whose message matches `pattern`. */
function expectOwnTypeError(what, action, pattern) {
  const error = expectThrows(TypeError, what, action);
  check(
    !/private member|private field|Cannot read propert|is not a function/.test(error.message),
    `${what}: the engine's own TypeError reached the caller: ${error.message}`,
  );
  check(pattern.test(error.message), `${what}: unexpected message: ${error.message}`);
}

function lookalikes(value) {
  const revocable = Proxy.revocable(value, {});
  revocable.revoke();
  return [
    ['a Proxy', new Proxy(value, {})],
    [
      'a Proxy lying about its prototype',
      new Proxy(value, { getPrototypeOf: () => Object.getPrototypeOf(value) }),
    ],
    ['an heir', Object.create(value)],
    [
      'an heir with own lying fields',
      Object.defineProperties(Object.create(value), {
        handle: { value: 0x1000n },
        size: { value: 1 << 30 },
        shape: { value: [1 << 30] },
      }),
    ],
    ['a revoked Proxy', revocable.proxy],
  ];
}

for (const [what, fake] of lookalikes(buffer)) {
  expectOwnTypeError(`from(${what} of a Buffer)`, () => StridedMemoryView.from(fake), /Buffer|revoked Proxy/);
  expectOwnTypeError(
    `fromBuffer(${what} of a Buffer)`,
    () => StridedMemoryView.fromBuffer(fake, layout),
    /Buffer|revoked Proxy/,
  );
}
for (const [what, fake] of lookalikes(view)) {
  expectOwnTypeError(
    `from(${what} of a view)`,
    () => StridedMemoryView.from(fake),
    /StridedMemoryView|revoked Proxy/,
  );
}

/** Every public member of `prototype`, used on `receiver`. */
function everyMember(prototype, exempt) {
  return Reflect.ownKeys(prototype)
    .filter((key) => key !== 'constructor' && !exempt.includes(key))
    .map((key) => {
      const descriptor = Object.getOwnPropertyDescriptor(prototype, key);
      const name = String(typeof key === 'symbol' ? key.description : key);
      return typeof descriptor.get === 'function'
        ? [name, (receiver) => Reflect.get(prototype, key, receiver)]
        : [name, (receiver) => Reflect.apply(descriptor.value, receiver, [])];
    });
}

const viewMembers = everyMember(StridedMemoryView.prototype, ['checkLive', 'asCopyable']);
check(viewMembers.length >= 12, `StridedMemoryView has ${viewMembers.length} public members to check`);
for (const [what, fake] of lookalikes(view).filter(([what]) => what !== 'a revoked Proxy')) {
  for (const [name, use] of viewMembers) {
    expectOwnTypeError(
      `${name} of ${what} of a view`,
      () => use(fake),
      /StridedMemoryView\.\S+ was called on/,
    );
  }
}
const layoutMembers = everyMember(StridedLayout.prototype, ['strideOrder', 'contiguousIn']);
for (const [what, fake] of lookalikes(layout).filter(([what]) => what !== 'a revoked Proxy')) {
  for (const [name, use] of layoutMembers) {
    expectOwnTypeError(`${name} of ${what} of a layout`, () => use(fake), /StridedLayout\.\S+ was called on/);
  }
}
// A copy with an imitation on either side never reaches the driver.
const host = StridedMemoryView.fromHost(new Uint8Array(4096));
for (const [what, fake] of lookalikes(view)) {
  expectThrows(TypeError, `copyFrom(${what})`, () => host.copyFrom(fake));
}
// The real objects still work.
const bytes = new Uint8Array(4096);
StridedMemoryView.from(buffer, { stream: -1 }).copyTo(StridedMemoryView.fromHost(bytes));
check(
  bytes.every((byte) => byte === 0x42),
  'a real buffer still views and copies',
);
check(String(view) === 'StridedMemoryView(uint32, shape=[1024], device=0)', `toString: ${String(view)}`);
buffer.close();
