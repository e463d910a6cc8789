// Issue 45, brand checks: every public method and getter of Stream, Event, each memory
// resource class, DLPackCapsule, IpcAllocationHandle and HostRegistration, called on a Proxy of
// a real object or on an object inheriting from one, throws a TypeError naming the class and
// the member, before any driver call: never the engine's "Cannot read private member", never a
// crash. toString and util.inspect describe such an imitation without throwing.
import { closeSync, openSync } from 'node:fs';
import { inspect } from 'node:util';
import { check, memory, setUp } from './support.mjs';

const { driver } = await setUp();
const objects = {
  Stream: memory.Stream.create(0),
  Event: memory.Event.create(0),
  DeviceMemoryResource: new memory.DeviceMemoryResource(0, {}),
  LegacyPinnedMemoryResource: new memory.LegacyPinnedMemoryResource(),
  ManagedMemoryResource: new memory.ManagedMemoryResource(),
  VirtualMemoryResource: new memory.VirtualMemoryResource(0),
  HostRegistration: memory.registerHostMemory(new Uint8Array(8192)),
};
if (driver.capabilities.hostMemoryPools) objects.PinnedMemoryResource = new memory.PinnedMemoryResource({});
const dlpackSource = new memory.DeviceMemoryResource(0).allocate(64);
objects.DLPackCapsule = dlpackSource.toDLPack();
const nullDevice = openSync('/dev/null', 'r');
objects.IpcAllocationHandle = memory.IpcAllocationHandle.fromFileDescriptor(nullDevice);
closeSync(nullDevice);

// Members whose call on an imitation must be refused: every own and inherited prototype member
// up to Object.prototype, but the constructor and the describing ones.
function membersOf(object) {
  const members = new Map();
  for (
    let proto = Object.getPrototypeOf(object);
    proto && proto !== Object.prototype;
    proto = Object.getPrototypeOf(proto)
  ) {
    for (const key of Reflect.ownKeys(proto)) {
      if (key === 'constructor' || key === 'toString' || key === inspect.custom || members.has(key)) continue;
      members.set(key, Object.getOwnPropertyDescriptor(proto, key));
    }
  }
  return members;
}
let checked = 0;
for (const [kind, real] of Object.entries(objects)) {
  for (const [what, imitation] of [
    ['a Proxy', new Proxy(real, {})],
    ['an heir', Object.create(real)],
  ]) {
    for (const [key, descriptor] of membersOf(real)) {
      const name = typeof key === 'symbol' ? key.description : key;
      const call = descriptor.get
        ? () => descriptor.get.call(imitation)
        : typeof descriptor.value === 'function'
          ? () => descriptor.value.call(imitation)
          : undefined;
      if (call === undefined) continue;
      let thrown;
      try {
        call();
      } catch (error) {
        thrown = error;
      }
      check(thrown instanceof TypeError, `${kind}.${name} on ${what}: expected a TypeError, got ${thrown}`);
      check(
        !/private member|Cannot read properties/.test(thrown.message) && thrown.message.includes(name),
        `${kind}.${name} on ${what}: the error names the member, not the engine's read: ${thrown.message}`,
      );
      checked++;
    }
    check(typeof String(imitation) === 'string', `${kind}: String() of ${what}`);
    // util.inspect looks through a Proxy to its target; an heir it describes as an imitation.
    const text = inspect(imitation);
    check(what === 'a Proxy' || text.includes('imitation'), `${kind}: util.inspect of ${what}: ${text}`);
  }
}
check(checked > 100, `${checked} members checked`);
for (const real of Object.values(objects)) real.close();
dlpackSource.close();
