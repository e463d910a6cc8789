// Tables and buffers in ordinary (pageable) JS memory: large columns go through the driver's
// staged copy (pinned chunks on native threads), registered memory straight from where it is.

import { configureStaging, registerHostMemory, useDriver } from '@cumem/memory';
import { type DriverCallLog, describeEachDriver } from '@cumem/testing/vitest';
import { tableFromArrays, tableToIPC } from 'apache-arrow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adapters, countedContext, patternBytes, sameBytes } from '../../test/support.js';
import type { Context } from '../context/context.js';
import { tableFromDevice, tableToDevice } from './device-table.js';

const rows = 300_000; // 1.2 MB + 2.4 MB of column bodies

describeEachDriver(adapters, 'tables and buffers in pageable memory', (entry) => {
  let context: Context;
  let log: DriverCallLog;
  const initial = configureStaging();

  beforeAll(() => {
    ({ log, context } = countedContext(entry.driver));
    configureStaging({ minBytes: 1024 * 1024, chunkBytes: 256 * 1024 + 3, threads: 3 });
  });
  afterAll(() => {
    configureStaging(initial);
    useDriver(entry.driver);
  });

  describe('tableToDevice / tableFromDevice', () => {
    it('stages large pageable columns through stagedCopyHtoD and reads back through stagedCopyDtoH, byte-exact', () => {
      const ids = new Int32Array(rows).map((_, index) => (index * 2654435761) | 0);
      const values = new Float64Array(rows).map((_, index) => index * 0.5 - 7);
      const table = tableFromArrays({ id: ids, value: values });
      log.reset();
      using onDevice = tableToDevice(table, context);
      expect(log.calls.filter((call) => call === 'stagedCopyHtoD').length).toBe(2);
      expect(sameBytes(onDevice.buffer.copyToHost(), tableToIPC(table, 'stream'))).toBe(true);
      log.reset();
      const back = tableFromDevice(onDevice, { output: 'pageable' });
      expect(log.calls).toContain('stagedCopyDtoH');
      expect(sameBytes(back.getChild('id')?.toArray(), ids)).toBe(true);
      expect(sameBytes(back.getChild('value')?.toArray(), values)).toBe(true);
    });

    it('copies registered columns from where they are, without staging', () => {
      const values = new Float64Array(rows).map((_, index) => index * 3 + 1);
      using registration = registerHostMemory(values);
      expect(registration.closed).toBe(false);
      const table = tableFromArrays({ value: values });
      log.reset();
      using onDevice = tableToDevice(table, context);
      expect(log.calls).not.toContain('stagedCopyHtoD');
      expect(sameBytes(tableFromDevice(onDevice).getChild('value')?.toArray(), values)).toBe(true);
    });
  });

  describe('CudaBuffer.copyFromHost / copyToHost', () => {
    it('stage large pageable copies and copy small ones directly, byte-exact at an offset', () => {
      using buffer = context.deviceBuffer(3 * 1024 * 1024);
      const data = patternBytes(2 * 1024 * 1024 + 5);
      log.reset();
      buffer.copyFromHost(data, { position: 7 });
      expect(log.calls).toContain('stagedCopyHtoD');
      log.reset();
      const back = buffer.copyToHost({ position: 7, nbytes: data.byteLength, output: 'pageable' });
      expect(log.calls).toContain('stagedCopyDtoH');
      expect(sameBytes(back, data)).toBe(true);
      log.reset();
      buffer.copyFromHost(data.subarray(0, 1000));
      expect(log.calls).not.toContain('stagedCopyHtoD');
    });
  });
});
