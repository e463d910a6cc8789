// The process-mode gate of the JS suites (bench/process-gate.mjs explains it): imported by
// harness.mjs, so it runs before any suite's own code. Without BENCH_PROCESS_GATE it does nothing.
// With it, the process first times the two calibration loops through its adapter's bare driver
// calls (the same loops as bench/c/bench.h and bench/python/common.py), writes them to
// BENCH_PROCESS_GATE_OUT, and then:
//   BENCH_PROCESS_GATE=calibrate: exits 0 (a calibration-only process);
//   BENCH_PROCESS_GATE={"poolPairNs":…,"vmmPairUs":…}: exits 75 when either time is above its
//     threshold (a process in the host's slow mode), else goes on to run the suite.
import { writeFileSync } from 'node:fs';

// Above the gate below, which runs at import and uses them.
const location = { type: 1, id: 0 };
/** The `CUmemAllocationProp` of C's VMM pair (bench/c/vmm.c): pinned memory of device 0. */
export const vmmPairProperties = {
  allocationType: 1,
  requestedHandleTypes: 0,
  location,
  gpuDirectRdmaCapable: false,
  usage: 0,
};
const vmmPairAccess = [{ location, flags: 3 }];

/**
 * `n` VMM pairs of `size` bytes through `driver`'s bare calls, as C makes them: reserve, create,
 * map, set read-write access, unmap, release, free. `alignment` and `between` (called after the
 * access is set) let a probe make them as @cumem/memory does (bench/probes/vmm-memory-vs-bare.mjs).
 */
export function vmmPairs(driver, size, { alignment = 0, between } = {}) {
  return (n) => {
    for (let i = 0; i < n; i++) {
      const base = driver.memAddressReserve(size, alignment, 0n);
      const chunk = driver.memCreate(size, vmmPairProperties);
      driver.memMap(base, size, 0, chunk);
      driver.memSetAccess(base, size, vmmPairAccess);
      between?.();
      driver.memUnmap(base, size);
      driver.memRelease(chunk);
      driver.memAddressFree(base, size);
    }
  };
}

const gate = process.env.BENCH_PROCESS_GATE;
// The pool loop of the calibration, kept for fastModeNow() (calibrate sets it).
let poolPairCheck = null;
// Set once the process passed the gate: whether the host is in its fast mode now.
let inFastMode = null;
const driverArgument = process.argv.indexOf('--driver');
const adapter = driverArgument >= 0 ? process.argv[driverArgument + 1] : undefined;

if (gate && (adapter === 'ffi' || adapter === 'napi')) {
  // Without a calibration (an error) the process runs ungated, and the file says why.
  const times = await calibrate(adapter).catch((error) => ({ error: String(error?.message ?? error) }));
  if (process.env.BENCH_PROCESS_GATE_OUT)
    writeFileSync(process.env.BENCH_PROCESS_GATE_OUT, JSON.stringify(times));
  if (gate === 'calibrate') process.exit(0);
  const limits = JSON.parse(gate);
  const over = Object.keys(limits).filter(
    (key) => typeof times[key] === 'number' && times[key] > limits[key],
  );
  if (over.length > 0) {
    process.stderr.write(
      `[process-mode] slow mode (${over.map((key) => `${key} ${times[key]}`).join(', ')}): exit 75\n`,
    );
    process.exit(75);
  }
  const poolLimit = limits.poolPairNs;
  if (typeof poolLimit === 'number' && poolPairCheck !== null) {
    const check = poolPairCheck;
    inFastMode = () => check() <= poolLimit;
  }
  // Processes this one starts (the hand-off suite's consumers) are not gated.
  delete process.env.BENCH_PROCESS_GATE;
  delete process.env.BENCH_PROCESS_GATE_OUT;
}

/**
 * Whether the host is in its fast mode right now, by the process gate's own rule: the pool loop
 * (best of 3 x 5000 pairs, ~20 ms) within this implementation's limit. Always true in a process
 * that was not gated. The small-call rows with a warm-up (callsNs's warmupMs) ask it before each
 * timed repetition: on 2x H100 (1abf019) the FFI allocate + close row, in a process the gate had
 * passed, took 1947-1982 ns for 6 repetitions and then 1114-1118 ns, so the host's slow mode
 * (bench/process-gate.mjs) also comes and goes within a process.
 */
export function fastModeNow() {
  return inFastMode === null || inFastMode();
}

/** Best of 3 repetitions of each loop, after a warm-up (the same loops as bench/c/process-gate.h). */
async function calibrate(name) {
  const memory = await import('@cumem/memory');
  const { bindStreamDriver } = await import('@cumem/memory/internal');
  memory.useDriver(name);
  const stream = memory.Stream.create(0, { nonBlocking: true });
  const driver = bindStreamDriver(stream);
  const handle = stream.handle;
  const pool = driver.deviceGetDefaultMemPool(0);
  const poolPairs = (n) => {
    for (let i = 0; i < n; i++) driver.memFreeAsync(driver.memAllocFromPoolAsync(4096, pool, handle), handle);
    driver.streamSynchronize(handle);
  };
  const best = (loop, n, scale) => {
    loop(n);
    let fastest = Number.POSITIVE_INFINITY;
    for (let rep = 0; rep < 3; rep++) {
      const start = process.hrtime.bigint();
      loop(n);
      fastest = Math.min(fastest, (Number(process.hrtime.bigint() - start) / n) * scale);
    }
    return Number(fastest.toFixed(1));
  };
  const times = { poolPairNs: best(poolPairs, 5000, 1) };
  poolPairCheck = () => best(poolPairs, 5000, 1);
  try {
    // A driver without VMM refuses from the granularity on: the pool pair alone then gates.
    const size = Math.max(2 * 1024 * 1024, driver.memGetAllocationGranularity(vmmPairProperties, 0));
    times.vmmPairUs = best(vmmPairs(driver, size), 50, 1e-3);
  } catch (error) {
    times.vmmError = String(error?.message ?? error);
  }
  // fastModeNow() goes on using the stream in a gated suite process.
  if (gate === 'calibrate') stream.close();
  return times;
}
