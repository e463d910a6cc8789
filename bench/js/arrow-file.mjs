// Makes the Arrow IPC file of workload.arrowFromDisk (issue 47), once, before the suite runs:
// two columns, `id` int32 and `value` float64 (uniform in [0, 1)), one record batch, about
// BENCH_ARROW_FILE_BYTES bytes (default 512 MiB: the 2 GiB read five times per
// implementation does not fit the bench's one device call; run the suite alone with a larger
// size to see more). Beside it, `<file>.layout`: "rows idOffset valueOffset fileBytes threshold",
// where the column bodies lie, for the C floor, which does not parse Arrow metadata.
//
//   node bench/js/arrow-file.mjs FILE [BYTES]
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { tableFromArrays, tableFromIPC, tableToIPC } from 'apache-arrow';
import { fillPattern } from './harness.mjs';

/** The predicate's threshold: keeps about a tenth of the rows. */
export const THRESHOLD = 0.9;

export function writeArrowFile(path, bytes) {
  const rows = Math.floor(bytes / 12);
  const ids = new Int32Array(rows);
  for (let i = 0; i < rows; i++) ids[i] = i;
  const values = new Float64Array(rows);
  // A fixed pseudo-random sequence (the same file on every machine).
  const words = new Uint32Array(2);
  fillPattern(new Uint8Array(words.buffer), 7);
  let x = words[0] | 1;
  for (let i = 0; i < rows; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    values[i] = (x >>> 0) / 4294967296;
  }
  const table = tableFromArrays({ id: ids, value: values });
  writeFileSync(path, tableToIPC(table, 'file'));
  const file = readFileSync(path);
  const back = tableFromIPC(file);
  const column = (name) => back.getChild(name).data[0].values;
  const idOffset = column('id').byteOffset - file.byteOffset;
  const valueOffset = column('value').byteOffset - file.byteOffset;
  const fileBytes = statSync(path).size;
  writeFileSync(`${path}.layout`, `${rows} ${idOffset} ${valueOffset} ${fileBytes} ${THRESHOLD}\n`);
  return { rows, idOffset, valueOffset, fileBytes };
}

if (process.argv[1] && new URL(import.meta.url).pathname === process.argv[1]) {
  const [path, bytes = String(512 * 1024 * 1024)] = process.argv.slice(2);
  if (!path) throw new Error('usage: node bench/js/arrow-file.mjs FILE [BYTES]');
  process.stdout.write(`${JSON.stringify(writeArrowFile(path, Number(bytes)))}\n`);
}
