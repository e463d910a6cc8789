// Does memory.deviceAllocateClose4KiB depend on when in the process it is measured? The row is
// the first of its suite; on 1x H100 (51b9792) its FFI value was 1875 ns while the same batch
// measured a second later in the same process (its `whole` variant) took 1273 ns. This runs the
// row's exact protocol (callsNs: one untimed repetition, median of 11 of 100,000 pairs) three
// times in a row on fresh resources, then the adapter's bare driver pair the same way. Then
// `alternating`: three times, the row's protocol and right after it the same closure interleaved
// with the bare pair (sideBySideNs, as the row's `whole` variant): on 2x H100 (1abf019) FFI's row
// took 1947-2108 ns while its `whole` took 1160 in the same process, 2 s of warm-up or not.
//   node --expose-gc bench/js/allocate-close-order.mjs ffi|napi|reference
import { Device } from '@cumem/core-types';
import { callsNs, driverChoice, median, sideBySideNs } from './harness.mjs';

const memory = await import('@cumem/memory');
memory.useDriver(await driverChoice(process.argv[2] ?? 'reference'));
const device = new Device(0);
const stream = memory.Stream.create(device, { nonBlocking: true });
const onStream = { stream };
const report = { adapter: memory.currentDriver().name, rounds: [] };
const medianNs = (samples) => Number(median(samples).toFixed(1));
// The row's batch (bench/js/memory.mjs) on `resource`.
const rowOn = (resource) => (n) => {
  for (let i = 0; i < n; i++) resource.allocate(4096, onStream).close(onStream);
  stream.sync();
};
const started = process.hrtime.bigint();
for (let round = 0; round < 3; round++) {
  const row = rowOn(new memory.DeviceMemoryResource(device));
  const startedMs = [];
  const { samples } = callsNs((n) => {
    startedMs.push(Math.round(performance.now()));
    row(n);
  }, 100_000);
  report.rounds.push({
    atSeconds: Number((Number(process.hrtime.bigint() - started) / 1e9).toFixed(2)),
    medianNs: medianNs(samples),
    samples: samples.map((value) => Math.round(value)),
    // When each repetition began (performance.now(), ms since the process started, as --trace-gc
    // stamps its lines): the first is the untimed warm-up.
    startedMs,
  });
}
const driver = memory.currentDriver();
const pool = new memory.DeviceMemoryResource(device).handle;
const driverPair = (n) => {
  for (let i = 0; i < n; i++)
    driver.memFreeAsync(driver.memAllocFromPoolAsync(4096, pool, stream.handle), stream.handle);
  driver.streamSynchronize(stream.handle);
};
report.driverPairNs = medianNs(callsNs(driverPair, 100_000).samples);
const row = rowOn(new memory.DeviceMemoryResource(device));
report.alternating = [];
for (let round = 0; round < 3; round++) {
  const consecutive = medianNs(callsNs(row, 100_000).samples);
  report.alternating.push({ consecutive, ...sideBySideNs({ whole: row, driverPair }, 100_000) });
}
console.log(JSON.stringify(report));
