// Reads the log the fake writes with FAKE_CUDA_LOG=<file> (src/fake-record.h): the
// cuGetProcAddress requests ("<name> <abi>") and the recorded calls ("call <symbol> <pointer>
// <size> <advice> <type> <id> <device> <count> <extra>"). One parser for every test that reads it.
import { readFileSync } from 'node:fs';

/** The lines of the log at `path` (none when the file does not exist yet). */
function lines(path) {
  try {
    return readFileSync(path, 'utf8').split('\n');
  } catch (error) {
    if (error.code === 'ENOENT') return [];
    throw error;
  }
}

/** The cuGetProcAddress requests in the log at `path`: name to the ABI versions asked, in order. */
export function fakeRequests(path) {
  const map = new Map();
  for (const line of lines(path)) {
    const [name, version] = line.split(' ');
    if (!name || name === 'call' || version === undefined) continue;
    map.set(name, [...(map.get(name) ?? []), Number(version)]);
  }
  return map;
}

/** The recorded calls in the log at `path`, oldest first. */
export function fakeCalls(path) {
  return lines(path)
    .filter((line) => line.startsWith('call '))
    .map((line) => {
      const [, symbol, pointer, ...rest] = line.split(' ');
      const [size, advice, type, id, device, count, extra] = rest.map(Number);
      return { symbol, pointer: BigInt(pointer), size, advice, type, id, device, count, extra };
    });
}
