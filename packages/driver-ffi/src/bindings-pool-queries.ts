// Entry points of the pool queries (ffi-pool-queries.ts), in the table's row format; kept apart
// from bindings.ts to keep that file small. bindings.ts spreads them into its table.
import { optionalEntry } from './entry-point-spec.js';

/** `cuMemGetMemPool` and `cuMemGetDefaultMemPool` (CUDA 13.0), from cuda.h 13.0. */
export const poolQueryEntryPoints = {
  cuMemGetMemPool: optionalEntry('cuMemGetMemPool', 'cuMemGetMemPool', 13000, ['out', 'location*', 'int']),
  cuMemGetDefaultMemPool: optionalEntry('cuMemGetDefaultMemPool', 'cuMemGetDefaultMemPool', 13000, [
    'out',
    'location*',
    'int',
  ]),
} as const;
