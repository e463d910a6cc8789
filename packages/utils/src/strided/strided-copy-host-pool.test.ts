// Strided copies go through @cumem/memory's issueCopy, with memory's host-pool rule: JS memory
// to or from a host-pool buffer (PinnedMemoryResource) is one cuMemcpyAsync with the JS memory's
// address (cuMemcpyHtoDAsync / DtoHAsync refuse host-pool memory on CUDA 13.0), while plain
// device memory keeps the HtoD / DtoH forms. Byte-exact with every adapter.
import { DeviceMemoryResource, PinnedMemoryResource, useDriver } from '@cumem/memory';
import { countingDriver, describeEachDriver } from '@cumem/testing/vitest';
import { beforeAll, expect, it } from 'vitest';
import { adapters, patternBytes } from '../../test/support.js';
import { StridedLayout } from './strided-layout.js';
import { StridedMemoryView } from './strided-memory-view.js';

const copyCalls = /^memcpy/;

describeEachDriver(adapters, 'strided copies between JS memory and host-pool memory', (entry) => {
  let log: ReturnType<typeof countingDriver>['log'];
  beforeAll(() => {
    const counted = countingDriver(entry.driver);
    log = counted.log;
    useDriver(counted.driver);
  });

  it('host pool: cuMemcpyAsync both ways; device memory: HtoD / DtoH; byte-exact', () => {
    const layout = StridedLayout.dense([64, 16], 4);
    const bytes = patternBytes(64 * 16 * 4, 3);
    const host = StridedMemoryView.fromHost(new Float32Array(bytes.buffer), { shape: [64, 16] });
    for (const [mr, upload, download] of [
      [new PinnedMemoryResource(), 'memcpyAsync', 'memcpyAsync'],
      [new DeviceMemoryResource(0), 'memcpyHtoDAsync', 'memcpyDtoHAsync'],
    ] as const) {
      using buffer = mr.allocate(bytes.byteLength);
      const view = StridedMemoryView.fromBuffer(buffer, layout, { dtype: 'float32' });
      log.reset();
      view.copyFrom(host);
      expect(log.calls.filter((name) => copyCalls.test(name))).toEqual([upload]);
      const back = new Float32Array(64 * 16);
      log.reset();
      view.copyTo(StridedMemoryView.fromHost(back, { shape: [64, 16] }));
      expect(log.calls.filter((name) => copyCalls.test(name))).toEqual([download]);
      expect(globalThis.Buffer.from(back.buffer).equals(bytes)).toBe(true);
    }
  });
});
