// The rows of @cumem/compute (issue 23), kept apart from rows.mjs; rows.mjs spreads them into its list.

const calls = (iterations) => ({
  protocol: { iterations, reps: 11, warmupReps: 1 },
  floorBeforeAndAfter: true,
});
const noFloor = 'n/a: the C floor does not compile (NVRTC is the same library call for every implementation)';

/** Rows of js/compute.mjs, c/compute.c and python/compute.py (suite `compute`). */
export const computeRows = [
  {
    id: 'compute.launchEmpty5Args',
    ...calls(100_000),
    suite: 'compute',
    unit: 'ns',
    description:
      'launch() of an empty kernel with 5 small arguments (2 Buffers, 2 uint32, 1 float32), 1 block of 32, per launch (C: cuLaunchKernelEx with kernelParams)',
    checks: [
      { impl: 'ffi', kind: 'maxRatio', value: 1.6 },
      { impl: 'napi', kind: 'maxRatio', value: 1.3 },
    ],
  },
  {
    id: 'compute.vectorAdd256MiB',
    suite: 'compute',
    unit: 'GB/s',
    description:
      'launch() of add_f32 over 256 MiB vectors (a + b -> out: 768 MiB moved per kernel), 10 per repetition',
    checks: ['ffi', 'napi'].map((impl) => ({ impl, kind: 'minRatio', value: 0.98 })),
  },
  {
    id: 'compute.nvrtcCompileUncached',
    protocol: { iterations: 2, reps: 11, warmupReps: 1 },
    suite: 'compute',
    unit: 'us',
    description:
      'Program.compile(ptx) of a small C++ kernel with the compile cache cleared (NVRTC each time), load included',
    notApplicable: { c: noFloor },
    checks: [],
  },
  {
    id: 'compute.nvrtcCompileCached',
    protocol: { iterations: 1000, reps: 11, warmupReps: 1 },
    suite: 'compute',
    unit: 'us',
    description:
      'Program.compile(ptx) of the same kernel again: a cache hit, cuLibraryLoadData of its PTX included',
    notApplicable: { c: noFloor, cudaCore: 'n/a: cuda.core keeps no compile cache' },
    checks: ['ffi', 'napi'].map((impl) => ({ impl, kind: 'max', value: 1000 })),
  },
];
