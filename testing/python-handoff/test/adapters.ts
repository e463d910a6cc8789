// The real adapters the hand-off suites run against (GPU only; skipped visibly without one).
import { useDriver } from '@cumem/memory';
import { adapters } from '@cumem/test-support';
import { describeEachDriver, type TestDriver } from '@cumem/testing/vitest';
import { beforeAll } from 'vitest';
import { handOffRequirement } from './python.js';

export { adapters };

/**
 * A hand-off suite: `body` once per GPU adapter, with that driver in use by @cumem/memory;
 * skipped as not applicable where the driver cannot share memory between processes or the
 * Python side is missing ({@link handOffRequirement}).
 */
export function describeHandOff(title: string, body: (entry: TestDriver) => void): void {
  describeEachDriver(
    adapters,
    title,
    (entry) => {
      beforeAll(() => useDriver(entry.driver));
      body(entry);
    },
    { gpuOnly: true, requires: handOffRequirement },
  );
}
