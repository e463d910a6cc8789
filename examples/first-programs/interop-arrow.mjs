// @cumem/interop-arrow's first program: an Arrow table to GPU memory and back.
// On a GPU: `node interop-arrow.mjs`; without one: `node --import ./use-reference.mjs interop-arrow.mjs`.

import { Context, tableFromDevice, tableToDevice } from '@cumem/interop-arrow';
import { tableFromArrays } from 'apache-arrow';

const context = new Context(0);
const table = tableFromArrays({ id: Int32Array.of(1, 2, 3), score: Float64Array.of(0.5, 1.5, 2.5) });
const onDevice = tableToDevice(table, context); // one device allocation, Arrow IPC bytes
try {
  const back = tableFromDevice(onDevice, { output: 'pageable' }); // copied back to the host
  console.log(`${back.numRows} rows, scores ${[...back.getChild('score').toArray()].join(',')}`);
} finally {
  onDevice.buffer.close();
}
