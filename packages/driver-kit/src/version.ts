import type { CudaVersion } from './entry-points.js';

/** `13000` -> `'13.0'`, `12080` -> `'12.8'`: a driver version as NVIDIA writes it. */
export function formatDriverVersion(version: CudaVersion): string {
  return `${Math.floor(version / 1000)}.${Math.floor((version % 1000) / 10)}`;
}
