// Class 4: IpcAllocationHandle.fromFileDescriptor duplicates the descriptor, so the caller's
// fd and the handle's close independently.
import { closeSync, fstatSync, openSync } from 'node:fs';
import { check, memory, setUp } from './support.mjs';

await setUp();
const fd = openSync('/dev/null', 'r');
const handle = memory.IpcAllocationHandle.fromFileDescriptor(fd);
check(handle.fileDescriptor !== fd, 'the handle holds its own duplicate of the descriptor');
closeSync(fd);
fstatSync(handle.fileDescriptor); // still open after the caller closed its copy
handle.close();
