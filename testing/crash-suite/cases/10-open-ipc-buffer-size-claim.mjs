// Class 3: Context.openIpcBuffer of a handle claiming 1 GiB over a 64 KiB export is a
// RangeError in the importing process.
// needs: interprocess, processes
import { fileURLToPath } from 'node:url';
import { Context, IpcMemHandle } from '@cumem/interop-arrow';
import { expectThrows, readRequest, runChild, setUp } from './support.mjs';

await setUp();
const context = new Context(0);
if (process.argv[2] === 'child') {
  const { bytes } = await readRequest();
  const serialized = Uint8Array.from(bytes);
  new DataView(serialized.buffer).setBigInt64(0, 1n << 30n, true);
  const handle = IpcMemHandle.fromBuffer(serialized);
  expectThrows(RangeError, 'openIpcBuffer with a 1 GiB claim over a 64 KiB export', () =>
    context.openIpcBuffer(handle),
  );
} else {
  const buffer = context.newBuffer(65536);
  const bytes = Array.from(buffer.exportForIpc().serialize());
  await runChild(fileURLToPath(import.meta.url), undefined, { bytes });
  buffer.close();
}
