// Class 12: a launch with hostile arguments is a typed error before any driver call: plain
// numbers, wrong counts, closed buffers, oversized integers, impossible geometry, broken images,
// unknown kernels, a closed ObjectCode. (Names the fake libcuda also refuses: 'missing', 'garbage'.)

import {
  float32,
  int8,
  int16,
  int32,
  LaunchConfig,
  launch,
  ObjectCode,
  uint8,
  uint16,
  uint32,
  uint64,
} from '@cumem/compute';
import { CudaStateError } from '@cumem/core-types';
import { referenceKernelsPTX } from '@cumem/testing';
import { check, expectRefused, expectThrows, memory, setUp } from './support.mjs';

await setUp();
const stream = memory.Stream.create(0);
const pool = new memory.DeviceMemoryResource(0);
const code = ObjectCode.fromPTX(referenceKernelsPTX);
const fill = code.getKernel('fill_f32');
const out = pool.allocate(1024);
const config = new LaunchConfig({ grid: 1, block: 64 });

expectThrows(TypeError, 'a plain number argument', () => launch(stream, config, fill, out, 1.5, uint32(64)));
expectThrows(TypeError, 'a string argument', () => launch(stream, config, fill, out, 'x', uint32(64)));
expectThrows(TypeError, 'a plain object argument', () =>
  launch(stream, config, fill, { address: 8n }, float32(1), uint32(64)),
);
if (fill.argumentInfo !== null) {
  expectThrows(RangeError, 'too few arguments', () => launch(stream, config, fill, out, float32(1)));
  expectThrows(RangeError, 'too many arguments', () =>
    launch(stream, config, fill, out, float32(1), uint32(1), uint32(1)),
  );
  expectThrows(RangeError, 'a 64-bit value for a 32-bit parameter', () =>
    launch(stream, config, fill, out, float32(1), uint64(1)),
  );
}
expectThrows(RangeError, 'a bigint over 64 bits', () =>
  launch(stream, config, fill, 2n ** 64n, float32(1), uint32(1)),
);
expectThrows(RangeError, 'int32 of 2**31', () => int32(2 ** 31));
expectThrows(RangeError, 'a fractional int32', () => int32(0.5));
// The 1- and 2-byte wrappers: values outside their range, and objects that only convert to numbers.
for (const [wrap, outside] of [
  [int8, 128],
  [int8, -129],
  [uint8, 256],
  [uint8, -1],
  [int16, 2 ** 15],
  [uint16, 2 ** 16],
]) {
  expectThrows(RangeError, `${wrap.name}(${outside})`, () => wrap(outside));
}
for (const wrap of [int8, uint8, int16, uint16]) {
  expectThrows(TypeError, `${wrap.name} of an object with valueOf`, () => wrap({ valueOf: () => 1 }));
  expectThrows(TypeError, `${wrap.name} of a Proxy of a number box`, () =>
    wrap(new Proxy(new Number(1), {})),
  );
}
const closed = pool.allocate(64);
closed.close();
expectThrows(CudaStateError, 'a closed buffer', () =>
  launch(stream, config, fill, closed, float32(1), uint32(16)),
);
expectThrows(CudaStateError, 'a slice of a closed buffer', () =>
  launch(stream, config, fill, closed.slice(0, 16), float32(1), uint32(4)),
);
expectThrows(RangeError, 'a grid of 0 blocks', () => new LaunchConfig({ grid: 0, block: 1 }));
expectThrows(RangeError, 'a block of 2**32 threads', () => new LaunchConfig({ grid: 1, block: 2 ** 32 }));
expectThrows(RangeError, 'a fractional block', () => new LaunchConfig({ grid: 1, block: 31.5 }));
expectThrows(TypeError, 'four dimensions', () => new LaunchConfig({ grid: [1, 1, 1, 1], block: 1 }));
expectRefused('a block over the device limit', () =>
  launch(stream, new LaunchConfig({ grid: 1, block: 4096 }), fill, out, float32(1), uint32(1)),
);
expectRefused('shared memory over the limit', () =>
  launch(
    stream,
    new LaunchConfig({ grid: 1, block: 1, sharedMemBytes: 2 ** 31 }),
    fill,
    out,
    float32(1),
    uint32(1),
  ),
);
expectRefused('an unknown kernel', () => code.getKernel('missing'));
// The driver may compile PTX lazily: the refusal comes from the load or the first lookup.
expectRefused('garbage PTX', () => ObjectCode.fromPTX('garbage, not PTX').getKernel('fill_f32'));
expectThrows(RangeError, 'a truncated cubin', () =>
  ObjectCode.fromCubin(Uint8Array.of(0x7f, 0x45, 0x4c, 0x46, 2, 1)),
);
expectThrows(RangeError, 'a fatbin shorter than its header says', () => {
  const bytes = new Uint8Array(16);
  new DataView(bytes.buffer).setUint32(0, 0xba55ed50, true);
  new DataView(bytes.buffer).setBigUint64(8, 2n ** 40n, true);
  return ObjectCode.fromFatbin(bytes);
});
code.close();
expectThrows(CudaStateError, 'a kernel of a closed ObjectCode', () =>
  launch(stream, config, fill, out, float32(1), uint32(64)),
);
check(code.isClosed, 'the ObjectCode reads as closed');
out.close();
stream.close();
