import type { PoolSetup } from '../../resources/pool/pool-setup.js';

/**
 * @internal The explicit construction path of an imported pool: `fromAllocationHandle` passes
 * one to its class's constructor in place of the options, so the constructor wraps the pool it
 * was handed instead of creating one. Not exported from the package, so no caller outside it
 * can make one.
 */
export class ImportedPool {
  constructor(readonly setup: PoolSetup) {}
}
