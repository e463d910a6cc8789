// Issue 25: tableToDevice into a caller's output CudaBuffer, and tableFromDevice's pipelined
// read (framing first, bodies in flight while the headers are checked). Hostile outputs (an
// imitation naming a real allocation, a closed buffer whose memory was freed and handed out
// again, a view of a closed parent, one too small) are refused before any copy; a stream whose
// bytes are corrupted or whose source was closed is a typed error and leaves nothing in flight
// (the output HostBuffer is closed at once after the error). On the hostile fake, a write into
// freed memory faults at once.

import { CudaStateError } from '@cumem/core-types';
import { Context, DeviceTable, newHostBuffer, tableFromDevice, tableToDevice } from '@cumem/interop-arrow';
import { Float64, Int32, Table, Utf8, vectorFromArray } from 'apache-arrow';
import { check, collectGarbage, expectThrows, setUp } from './support.mjs';

await setUp();
const context = new Context(0);
const rows = 100_000;
const table = new Table({
  id: vectorFromArray(
    Int32Array.from({ length: rows }, (_, i) => i),
    new Int32(),
  ),
  value: vectorFromArray(
    Array.from({ length: rows }, (_, i) => (i % 7 ? i / 2 : null)),
    new Float64(),
  ),
  name: vectorFromArray(
    Array.from({ length: rows }, (_, i) => `row ${i}`),
    new Utf8(),
  ),
});

// Hostile outputs.
const probe = tableToDevice(table, context);
const need = probe.byteLength;
probe.close();
const real = context.deviceBuffer(need);
expectThrows(TypeError, 'an imitation of a CudaBuffer', () =>
  tableToDevice(table, context, { output: { address: real.address, size: need, context } }),
);
const freed = context.deviceBuffer(need);
freed.close();
const reused = context.deviceBuffer(need); // may take the freed address
expectThrows(CudaStateError, 'a closed output', () => tableToDevice(table, context, { output: freed }));
const parent = context.deviceBuffer(need + 64);
const view = parent.slice(64);
parent.close();
expectThrows(CudaStateError, 'a view of a closed parent', () =>
  tableToDevice(table, context, { output: view }),
);
expectThrows(RangeError, 'an output too small', () =>
  tableToDevice(table, context, { output: real.slice(0, need - 8) }),
);

// An output reused; closing it closes the DeviceTable written into it.
const first = tableToDevice(table, context, { output: real });
check(tableFromDevice(first).numRows === rows, 'the first upload reads back');
first.close();
check(!real.isClosed, 'closing the DeviceTable leaves the output open');
const second = tableToDevice(table, context, { output: reused });
real.close();
expectThrows(CudaStateError, 'a DeviceTable of a closed output', () => tableFromDevice(first));

// Pipelined reads of corrupted bytes: typed errors, nothing left in flight.
const output = newHostBuffer(need);
const offsets = second.getColumn('name').chunks[0].buffers[1];
second.buffer.copyFromHost(new Int32Array([1 << 30, 3]), { position: offsets.offset + 8 });
expectThrows(RangeError, 'descending offsets', () => tableFromDevice(second, { output }));
output.close();
const again = newHostBuffer(need);
second.buffer.copyFromHost(new Int32Array([-1, 0x7ffffff0]), { position: second.messages[1].offset });
expectThrows(RangeError, 'a metadata length past the end', () => tableFromDevice(second, { output: again }));
// A DeviceTable whose layout's getter closes the output HostBuffer (freed pinned memory on ffi,
// where views cannot be detached): refused before any copy into it.
const victim = newHostBuffer(need);
const closing = [
  {
    get offset() {
      victim.close();
      return 0;
    },
    metadataLength: 8,
    byteLength: 8,
  },
];
const liar = new DeviceTable(second.buffer, second.schema, closing, second.batches);
expectThrows(CudaStateError, 'a layout getter closing the output', () =>
  tableFromDevice(liar, { output: victim }),
);
second.close();
expectThrows(CudaStateError, 'a closed source', () => tableFromDevice(second, { output: again }));
again.close();
reused.close();
await collectGarbage();
