// @cumem/driver-kit's first program (for adapter authors): the optional driver entry points
// cumem knows and the CUDA version that introduced each.
import { formatCudaVersion } from '@cumem/core-types';
import { optionalEntryPoints } from '@cumem/driver-kit';

for (const entry of optionalEntryPoints.slice(0, 3))
  console.log(`${entry.symbol}: CUDA ${formatCudaVersion(entry.introduced)}`);
console.log(`${optionalEntryPoints.length} optional entry points`);
