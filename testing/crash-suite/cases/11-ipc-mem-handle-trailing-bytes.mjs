// Class 3: IpcMemHandle.fromBuffer with bytes after the handle is a RangeError.
// needs: interprocess
import { Context, IpcMemHandle } from '@cumem/interop-arrow';
import { expectThrows, setUp } from './support.mjs';

await setUp();
const context = new Context(0);
const buffer = context.newBuffer(65536);
const serialized = buffer.exportForIpc().serialize();
const padded = new Uint8Array(serialized.byteLength + 16);
padded.set(serialized);
expectThrows(RangeError, 'IpcMemHandle.fromBuffer with 16 trailing bytes', () =>
  IpcMemHandle.fromBuffer(padded),
);
buffer.close();
