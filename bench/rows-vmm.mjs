// The rows of VirtualMemoryResource (issue 24, suite `vmm`), kept apart from rows.mjs; rows.mjs
// spreads them into its list. All times are per step, a step ending when the driver returned
// (allocation, mapping and unmapping are synchronous driver calls).

const both = (check) => ['ffi', 'napi'].map((impl) => ({ impl, ...check }));
const steps = (stepsPerRep, reps, warmupReps = 1) => ({
  protocol: { stepsPerRep, reps, warmupReps, reset: 'none' },
});

/**
 * Untimed repetitions (of 50 pairs) before vmm.allocateFree2MiB's timed ones, in C, JS and Python
 * alike. V8 optimizes a function after it has run a number of times, not for a time: at ~60 us a
 * pair, one repetition of 50 left allocate and close() in V8's unoptimized tiers for the whole
 * row. On 1x H100 (2026-11-26, bench/probes/vmm-memory-vs-bare.mjs; 40 repetitions of 50 pairs
 * per variant in fresh processes) allocate + close took 8-17 us more than the same adapter's
 * seven bare calls (median of repetitions 5-40), and 1.6-7.4 us more in the last five
 * (pairs 1750-2000; about 2 us in the processes of the host's fast mode): 40 warm-up
 * repetitions come near that steady state.
 */
export const VMM_PAIR_WARMUP_REPS = 40;

/** Rows of js/vmm.mjs, c/vmm.c and python/vmm.py. */
export const vmmRows = [
  {
    id: 'vmm.allocateFree2MiB',
    ...steps(50, 7, VMM_PAIR_WARMUP_REPS),
    suite: 'vmm',
    unit: 'us',
    description:
      'VirtualMemoryResource.allocate(2 MiB) + Buffer.close(), per pair (C: cuMemAddressReserve + cuMemCreate + cuMemMap + cuMemSetAccess, then cuMemUnmap + cuMemRelease + cuMemAddressFree)',
    checks: both({ kind: 'maxRatio', value: 1.2 }),
  },
  {
    id: 'vmm.allocateFree1GiB',
    ...steps(5, 5),
    suite: 'vmm',
    unit: 'us',
    description:
      'VirtualMemoryResource.allocate(1 GiB) + Buffer.close(), per pair (C: as vmm.allocateFree2MiB)',
    checks: both({ kind: 'maxRatio', value: 1.2 }),
  },
  {
    id: 'vmm.grow1To2GiBInPlace',
    ...steps(5, 5),
    suite: 'vmm',
    unit: 'us',
    description:
      'modifyAllocation(buffer, 2 GiB) of a 1 GiB buffer with reserveSize 2 GiB, address kept, per grow (untimed shrink back between steps; C: cuMemCreate + cuMemMap + cuMemSetAccess of 1 GiB in a reserved range)',
    checks: both({ kind: 'maxRatio', value: 1.2 }),
  },
  {
    id: 'vmm.poolGrow1To2GiBByCopy',
    ...steps(5, 5),
    suite: 'vmm',
    unit: 'us',
    description:
      "The alternative without VMM: a 1 GiB pool buffer grown to 2 GiB by allocate(2 GiB) + copyFrom(1 GiB) + close(old), incl. sync, per grow (C: cuMemAllocFromPoolAsync + cuMemcpyAsync + cuMemFreeAsync + sync on a new pool that keeps its memory, as the JS resource's; variant defaultPoolThreshold0: the default pool, release threshold 0). Compare with vmm.grow1To2GiBInPlace",
    checks: both({ kind: 'maxRatio', value: 1.2 }),
  },
  {
    id: 'vmm.copyDtoD256MiB',
    suite: 'vmm',
    unit: 'GB/s',
    description:
      'Buffer.copyFrom: 256 MiB device to device within VMM buffers (C reference: the same copy between pool buffers; target >= 98% of it)',
    checks: both({ kind: 'minOfReference', value: 0.98 }),
  },
];
