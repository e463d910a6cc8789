// native/cuda-types.h and native/cuda-entry-points.h declare the CUDA driver API the addon uses,
// so it builds without the toolkit. Here every one of those declarations is compared with
// NVIDIA's cuda.h / cudaTypedefs.h at compile time (scripts/check-cuda-abi.mjs). Skipped, with
// the reason, where no CUDA headers are installed.
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain .mjs script, without types
import { checkCudaAbi, comparisonSource } from '../scripts/check-cuda-abi.mjs';

interface AbiCheck {
  readonly status: 0 | 1 | 2;
  readonly checks: number;
  readonly output: string;
}
const result = checkCudaAbi() as AbiCheck;
const skipReason = result.status === 2 ? ` (skipped: not applicable: no CUDA headers here)` : '';

describe('our CUDA declarations', () => {
  it('cover every struct field, enumerator and entry point of the headers', () => {
    const source = comparisonSource() as string;
    // Spot checks that the generator finds each form: a struct field, an enumerator, a signature.
    expect(source).toContain('offsetof(ours::CUDA_MEMCPY3D_v2, dstLOD)');
    expect(source).toContain('ours::CU_MEM_LOCATION_TYPE_HOST_NUMA_CURRENT');
    expect(source).toContain('ours_PFN_cuMemcpyBatchAsync_v13000');
  });

  it.skipIf(result.status === 2)(`equal NVIDIA's cuda.h and cudaTypedefs.h${skipReason}`, () => {
    expect(result.output).toBe('');
    expect(result.status).toBe(0);
    expect(result.checks).toBeGreaterThan(250);
  });
});
