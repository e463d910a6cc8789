// CudaBuffer.copyFromDevice between two devices' contexts, both directions, byte-exact; context
// peer access is enabled once per pair (cuMemAlloc memory is otherwise staged through the
// host). Reference driver with 2 devices here; the real adapters where there are 2 GPUs.
import { canAccessPeer, setCurrentDevice, useDriver } from '@cumem/memory';
import { countingDriver, describeEachDriverWithDevices } from '@cumem/testing/vitest';
import { tableFromArrays } from 'apache-arrow';
import { beforeAll, expect, it } from 'vitest';
import { adapters, patternBytes } from '../test/support.js';
import { Context } from './context/context.js';
import { newHostBuffer } from './host/host-buffer.js';
import { tableFromDevice, tableToDevice } from './table/device-table.js';
import { layoutTable } from './table/ipc-layout.js';
import { PIPELINED_READ_MIN_BYTES } from './table/pipelined-read.js';

describeEachDriverWithDevices(adapters, 2, 'CudaBuffer between devices', (entry) => {
  let log: ReturnType<typeof countingDriver>['log'];
  beforeAll(() => {
    const counted = countingDriver(entry.driver);
    log = counted.log;
    useDriver(counted.driver);
  });

  it('copyFromDevice crosses contexts both ways, whatever device is current', () => {
    const size = 3 << 20;
    const data = patternBytes(size, 5);
    const context0 = new Context(0);
    const context1 = new Context(1);
    setCurrentDevice(1);
    const on0 = context0.bufferFromData(data);
    const on1 = context1.newBuffer(size);
    log.reset();
    expect(on1.copyFromDevice(on0)).toBe(size);
    expect(on1.equals(data)).toBe(true);
    setCurrentDevice(0);
    const back = context0.newBuffer(size);
    expect(back.copyFromDevice(on1, { position: 0, nbytes: size })).toBe(size);
    expect(back.equals(data)).toBe(true);
    // A part at an offset, and bufferFromData of a buffer of the other device.
    const part = context1.newBuffer(1024);
    part.copyFromDevice(on0.slice(4096, 1024));
    expect(part.equals(data.subarray(4096, 5120))).toBe(true);
    expect(context1.bufferFromData(on0).equals(data)).toBe(true);
    // Each direction the hardware allows enables context peer access once, however many copies follow.
    const enables = log.calls.filter((call) => call === 'contextEnablePeerAccess').length;
    expect(enables).toBe(Number(canAccessPeer(0, 1)) + Number(canAccessPeer(1, 0)));
    for (const buffer of [on0, on1, back, part]) buffer.close();
  });

  it('a large table on device 1 goes up into an output and comes back pipelined, device 0 current', () => {
    const rows = 200_000;
    const table = tableFromArrays({
      id: Int32Array.from({ length: rows }, (_, i) => i * 3),
      value: Float64Array.from({ length: rows }, (_, i) => i / 8),
    });
    const context1 = new Context(1);
    setCurrentDevice(0);
    using output = context1.newBuffer(layoutTable(table).byteLength);
    using onDevice = tableToDevice(table, context1, { output });
    expect(onDevice.byteLength).toBeGreaterThanOrEqual(PIPELINED_READ_MIN_BYTES);
    using host = newHostBuffer(onDevice.byteLength, { device: 1 });
    for (const source of [onDevice, onDevice.buffer]) {
      const back = tableFromDevice(source, { output: host });
      expect(back.getChild('id')?.get(rows - 1)).toBe((rows - 1) * 3);
      expect(back.getChild('value')?.get(rows - 1)).toBe((rows - 1) / 8);
    }
  });
});
