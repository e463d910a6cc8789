// The C++ of the compile rows (bench/js/compute.mjs, bench/js/compile-parts.mjs); the same in
// bench/python/compute.py.
export const compileSource = `
extern "C" __global__ void saxpy(float a, const float *x, float *y, unsigned n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}`;
