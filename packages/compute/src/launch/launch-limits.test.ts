// The limits a launch is checked against are read from the driver once (per device, and per
// kernel function), and the last config found within them is remembered per function: a
// repeat launch reads no attribute again, a new config is checked against the kept limits, and
// nothing a program holds can mark a config as checked.
import { Stream, useDriver } from '@cumem/memory';
import { countingDriver, describeEachDriver, referenceKernelsPTX } from '@cumem/testing/vitest';
import { expect, it } from 'vitest';
import { adapters } from '../../test/support.js';
import { float32, LaunchConfig, launch, ObjectCode, uint32 } from '../index.js';

describeEachDriver(adapters, 'launch limits', (entry) => {
  it('reads the limits once, skips them for a repeat, and checks every new config', () => {
    const { driver, log } = countingDriver(entry.driver);
    useDriver(driver);
    const code = ObjectCode.fromPTX(referenceKernelsPTX);
    const stream = Stream.create(0);
    const kernel = code.getKernel('empty5');
    const config = new LaunchConfig({ grid: 1, block: 32 });
    const args = [1n, 2n, uint32(3), uint32(4), float32(5)] as const;
    try {
      launch(stream, config, kernel, ...args);
      const attributeReads = (calls: string[]) =>
        calls.filter((call) => call === 'funcGetAttribute' || call === 'deviceGetAttribute').length;
      expect(attributeReads(log.calls)).toBeGreaterThan(0);
      log.reset();
      launch(stream, config, kernel, ...args);
      expect(attributeReads(log.calls)).toBe(0);
      expect(log.calls).toContain('launchKernelEx');
      // Another config: checked against the limits already read, and refused when over them.
      log.reset();
      launch(stream, new LaunchConfig({ grid: 2, block: 64 }), kernel, ...args);
      expect(attributeReads(log.calls)).toBe(0);
      log.reset();
      expect(() =>
        launch(stream, new LaunchConfig({ grid: 1, block: [32, 32, 2] }), kernel, ...args),
      ).toThrow(/a block of 2048 threads is over empty5's limit/);
      expect(log.calls).not.toContain('launchKernelEx');
      stream.sync();
    } finally {
      stream.close();
      code.close();
      useDriver(entry.driver);
    }
  });
});
