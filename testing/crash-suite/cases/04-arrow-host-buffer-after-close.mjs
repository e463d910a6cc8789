// Class 1: interop-arrow HostBuffer.bytes after close(): refused or empty, and bytes taken
// before close() never reach another host buffer.
import { newHostBuffer } from '@cumem/interop-arrow';
import { check, setUp } from './support.mjs';

await setUp();
const first = newHostBuffer(4096);
const bytes = first.bytes;
bytes.fill(1);
first.close();
let after;
try {
  after = first.bytes;
} catch (error) {
  check(error instanceof Error, 'a typed error');
}
check(after === undefined || after.length === 0, 'HostBuffer.bytes after close() is refused or empty');
const others = [];
for (let i = 0; i < 4; i++) {
  const other = newHostBuffer(4096);
  other.bytes.fill(0x44);
  others.push(other);
}
if (bytes.length > 0) bytes.fill(0xee);
for (const other of others) {
  check(
    other.bytes.every((b) => b === 0x44),
    'bytes of a closed HostBuffer reached another host buffer',
  );
  other.close();
}
