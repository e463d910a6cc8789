// The one formula between a CUDA version number (what cuDriverGetVersion answers) and the
// major.minor NVIDIA writes: here, the lowest package that needs it (the adapters' messages,
// the driver kit's refusals and memory's `cumem info`).

/** Formats a CUDA version number as NVIDIA writes it: `13000` -> `'13.0'`, `12080` -> `'12.8'`. */
export function formatCudaVersion(version: number): string {
  return `${Math.floor(version / 1000)}.${Math.floor((version % 1000) / 10)}`;
}
