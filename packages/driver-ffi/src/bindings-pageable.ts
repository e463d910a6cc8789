// Entry points of the pageable-memory members (ffi-staging.ts), in the table's row format; kept
// apart from bindings.ts to keep that file small. bindings.ts spreads them into its table.

/** `cuMemHostRegister_v2` and `cuMemHostUnregister`, from cuda.h 13.0. */
export const pageableEntryPoints = {
  cuMemHostRegister_v2: {
    symbol: 'cuMemHostRegister_v2',
    name: 'cuMemHostRegister',
    since: 6050,
    parameters: ['hostAddress', 'size_t', 'uint'],
  },
  cuMemHostUnregister: {
    symbol: 'cuMemHostUnregister',
    name: 'cuMemHostUnregister',
    since: 4000,
    parameters: ['hostAddress'],
  },
} as const;
