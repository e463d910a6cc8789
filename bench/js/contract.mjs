// Contract-level rows: the adapters' `createDriver()` used directly, as @cumem/memory uses them.
import { StreamFlags } from '@cumem/core-types';
import {
  callsNs,
  fillPattern,
  loadDriverPackage,
  parseArguments,
  result,
  Suite,
  sideBySideNs,
} from './harness.mjs';
import { bareKoffiPoolPair } from './koffi-floor.mjs';

// Operations per repetition: the same in bench/c/contract.c, bench/python/contract.py and rows.mjs.
const CTX_GET_DEVICE_ITERATIONS = 1_000_000;
const POOL_ALLOC_FREE_ITERATIONS = 100_000;
const MEMCPY_DTOH_ITERATIONS = 10_000;

const options = parseArguments();
const suite = new Suite('contract', options);

let driver;
let stream;
try {
  const { createDriver } = await loadDriverPackage(options.driver);
  driver = createDriver();
  driver.contextSetCurrent(driver.primaryContextRetain(0));
  stream = driver.streamCreate(StreamFlags.NonBlocking, 0);
  suite.data.info = {
    ...suite.data.info,
    adapter: driver.name,
    driverVersion: driver.driverVersion,
    device: driver.deviceGetName(0),
    capabilities: driver.capabilities,
  };
  suite.save();
} catch (error) {
  suite.fatal(error);
  process.exit(2);
}

await suite.row('contract.ctxGetDevice', 'ns', () => {
  const batch = (n) => {
    for (let i = 0; i < n; i++) driver.contextGetDevice();
  };
  const { samples, protocol } = callsNs(batch, CTX_GET_DEVICE_ITERATIONS);
  return result(samples, 'ns', { protocol, via: `${options.driver} adapter contextGetDevice` });
});

await suite.row('contract.poolAllocFree4KiB', 'ns', () => {
  const pool = driver.deviceGetDefaultMemPool(0);
  const batch = (n) => {
    for (let i = 0; i < n; i++) {
      const pointer = driver.memAllocFromPoolAsync(4096, pool, stream);
      driver.memFreeAsync(pointer, stream);
    }
    driver.streamSynchronize(stream);
  };
  const { samples, protocol } = callsNs(batch, POOL_ALLOC_FREE_ITERATIONS);
  // FFI: the same pair through bare koffi, side by side with the adapter's (koffi-floor.mjs).
  const variants =
    options.driver === 'ffi'
      ? sideBySideNs(
          { adapter: batch, bareKoffi: bareKoffiPoolPair(pool, stream) },
          POOL_ALLOC_FREE_ITERATIONS,
        )
      : undefined;
  return result(samples, 'ns', {
    protocol,
    via: `${options.driver} adapter memAllocFromPoolAsync + memFreeAsync`,
    ...(variants ? { variants } : {}),
  });
});

await suite.row('contract.memcpyDtoH8B', 'ns', () => {
  const pointer = driver.memAlloc(8);
  try {
    const expected = new Uint8Array(8);
    fillPattern(expected, 7);
    driver.memcpyHtoD(pointer, expected);
    const host = new Uint8Array(8);
    const batch = (n) => {
      for (let i = 0; i < n; i++) driver.memcpyDtoH(host, pointer);
    };
    const { samples, protocol } = callsNs(batch, MEMCPY_DTOH_ITERATIONS);
    if (!host.every((byte, i) => byte === expected[i]))
      throw new Error('the 8 bytes read back differ from those written');
    return result(samples, 'ns', { protocol, via: `${options.driver} adapter memcpyDtoH` });
  } finally {
    driver.memFree(pointer);
  }
});

driver.streamDestroy(stream);
