// The layering of cumem, checked by `pnpm lint`:
//   core-types  <-  driver-kit  <-  driver-ffi / driver-napi (and the reference driver)
//   core-types  <-  driver-ffi / driver-napi  <-  memory  <-  utils, interop-arrow  <-  compute (memory, utils)
// Only the adapters talk to libcuda; everything above talks to the `Driver` contract.
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'Run-time cycles only: a class and its resource may name each other in types.',
      severity: 'error',
      from: {},
      to: { circular: true, viaOnly: { dependencyTypesNot: ['type-only'] } },
    },
    {
      name: 'memory-cycles-stay-in-one-folder',
      comment:
        'A cycle of @cumem/memory, type imports included, stays inside one concept folder (buffer/, ' +
        'stream/, ...). Where two folders need each other, the lower part takes a structural ' +
        'contract the other satisfies (DLPackOwner, ByteArrayOwnerFacts) and each folder keeps its ' +
        'own per-runtime state (perRuntimeState) instead of the runtime holding it.',
      severity: 'error',
      from: { path: '^packages/memory/src/([^/]+)/', pathNot: '\\.test\\.ts$' },
      to: { circular: true, via: { pathNot: '^packages/memory/src/$1/' } },
    },
    {
      name: 'core-types-is-pure',
      comment: 'core-types has no runtime dependency and imports nothing outside itself.',
      severity: 'error',
      from: { path: '^packages/core-types/src', pathNot: '\\.test\\.ts$' },
      to: { pathNot: ['^packages/core-types/src', '^node:', '^(fs|path|url|util|os)$'] },
    },
    {
      name: 'driver-kit-stands-on-core-types',
      comment: "The kit holds the adapters' shared rules: it imports core-types and nothing else of cumem.",
      severity: 'error',
      from: { path: '^packages/driver-kit/src', pathNot: '\\.test\\.ts$' },
      to: { path: '^(packages/(?!core-types/|driver-kit/)|testing/)' },
    },
    {
      name: 'only-drivers-import-driver-kit',
      comment: 'Only the adapters and the reference driver (and the conformance suite) use the kit.',
      severity: 'error',
      from: {
        pathNot: ['^packages/(driver-kit|driver-ffi|driver-napi)/', '^testing/driver-testing/'],
      },
      to: { path: '^packages/driver-kit/' },
    },
    {
      name: 'adapters-import-only-core-types',
      comment: 'An adapter stands on core-types alone: never on memory, utils or interop-arrow.',
      severity: 'error',
      from: { path: '^packages/driver-(ffi|napi)/src', pathNot: '\\.test\\.ts$' },
      to: { path: '^packages/(memory|utils|interop-arrow|compute)/' },
    },
    {
      name: 'adapter-not-imported-by-another-adapter',
      severity: 'error',
      from: { path: '^packages/driver-ffi/' },
      to: { path: '^packages/driver-napi/' },
    },
    {
      name: 'adapter-not-imported-by-another-adapter-2',
      severity: 'error',
      from: { path: '^packages/driver-napi/' },
      to: { path: '^packages/driver-ffi/' },
    },
    {
      name: 'only-driver-selection-loads-adapters',
      comment: 'memory reaches an adapter only to choose one; every driver call goes through the contract.',
      severity: 'error',
      from: { path: '^packages/memory/src', pathNot: ['driver-selection\\.ts$', '\\.test\\.ts$'] },
      to: { path: '^packages/driver-(ffi|napi)/' },
    },
    {
      name: 'upper-layers-never-load-adapters',
      severity: 'error',
      from: { path: '^packages/(utils|interop-arrow|compute)/src', pathNot: '\\.test\\.ts$' },
      to: { path: '^packages/driver-(ffi|napi)/' },
    },
    {
      name: 'koffi-only-in-the-ffi-adapter',
      comment:
        'And in the NVRTC loader of compute: NVRTC is not the driver (see packages/compute/README.md).',
      severity: 'error',
      from: { pathNot: ['^packages/driver-ffi/', '^packages/compute/src/nvrtc-'] },
      to: { path: 'node_modules/.*koffi' },
    },
    {
      name: 'published-code-never-imports-test-support',
      severity: 'error',
      from: { path: '^packages/[^/]+/src', pathNot: '\\.test\\.ts$' },
      to: { path: '^testing/' },
    },
    {
      name: 'nothing-imports-the-crash-suite',
      comment:
        'The crash suite and the shared fake-adapter suite sit on top of everything: no package or test imports them (the fake libcuda itself is imported by tests, never by published code).',
      severity: 'error',
      from: { pathNot: '^testing/(crash-suite|fake-adapter-suite)/' },
      to: { path: '^testing/(crash-suite|fake-adapter-suite)/' },
    },
    {
      name: 'every-import-resolves',
      comment:
        'An import that does not resolve is a missing dependency or a typo, in src/, tests, bench/ and scripts/ alike (scripts/smoke/ runs in a project of its own, on the packed tarballs). Whether a resolved import is a declared dependency, and stays inside its package, scripts/check-imports.mjs checks.',
      severity: 'error',
      from: { pathNot: '^scripts/smoke/' },
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)(dist|build|node_modules)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.base.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['@cumem/source', 'import', 'types', 'default'],
    },
    moduleSystems: ['es6', 'cjs'],
  },
};
