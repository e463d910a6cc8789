// Issue 46, debuggable objects: util.inspect and toString of Stream, Event and every memory
// resource show the kind and facts (device, handle or pool, closed or not), the closed state
// after close(), and never the driver's internals (the runtime, the reference driver's maps).
import { inspect } from 'node:util';
import { check, memory, setUp } from './support.mjs';

const { driver } = await setUp();
const objects = [
  ['Stream', memory.Stream.create(0)],
  ['Event', memory.Event.create(0)],
  ['DeviceMemoryResource', new memory.DeviceMemoryResource(0, {})],
  ['LegacyPinnedMemoryResource', new memory.LegacyPinnedMemoryResource()],
  ['ManagedMemoryResource', new memory.ManagedMemoryResource()],
  ['VirtualMemoryResource', new memory.VirtualMemoryResource(0)],
];
if (driver.capabilities.hostMemoryPools)
  objects.push(['PinnedMemoryResource', new memory.PinnedMemoryResource({})]);
for (const [kind, object] of objects) {
  for (const text of [String(object), inspect(object), inspect({ nested: object }, { depth: 4 })]) {
    check(text.includes(kind), `${kind}: names its kind: ${text}`);
    check(/closed: false/.test(text), `${kind}: says it is open: ${text}`);
    check(!/runtime|driver|Map\(|Symbol\(/.test(text), `${kind}: shows no internals: ${text}`);
    check(text.length < 400, `${kind}: a short description: ${text}`);
  }
  check(/device: -?[0-9]/.test(String(object)), `${kind}: names its device: ${object}`);
  object.close();
  check(/closed: true/.test(inspect(object)), `${kind}: says it is closed: ${inspect(object)}`);
}
