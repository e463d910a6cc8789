"""Compute rows in Python: cuda.core's Program (NVRTC), ObjectCode, LaunchConfig and launch."""

from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from common import Suite, bandwidth_gbps, calls_ns, cuda_core_version, import_cuda_core, median_result, setup_device  # noqa: E402

# Operations per repetition: the same in bench/c/compute.c, bench/js/compute.mjs and rows.mjs.
LAUNCH_ITERATIONS = 100_000
ADD_ELEMENTS = 64 * 1024 * 1024
ADD_PER_REP = 10
ADD_REPS = 5
COMPILE_UNCACHED_ITERATIONS = 2

# The kernels of the launch rows, as C++ (the C and JS rows load the same instructions as PTX).
KERNELS = r"""
extern "C" __global__ void empty5(unsigned long long a, unsigned long long b, unsigned c, unsigned d, float e) {}
extern "C" __global__ void add_f32(const float *a, const float *b, float *out, unsigned n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = a[i] + b[i];
}
"""
# The kernel of the compile rows: the same in bench/js/compute.mjs.
COMPILE_SOURCE = r"""
extern "C" __global__ void saxpy(float a, const float *x, float *y, unsigned n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}"""


def main():
    suite = Suite("compute")
    try:
        import numpy as np

        cc, core_path = import_cuda_core()
        device, stream = setup_device(cc)
        arch = "".join(str(part) for part in device.compute_capability)
        options = cc.ProgramOptions(arch=f"sm_{arch}")
        module = cc.Program(KERNELS, code_type="c++", options=options).compile("cubin")
    except Exception as error:  # noqa: BLE001
        suite.fatal(error)
        return 2
    suite.data["info"] = {"cudaCore": core_path, "cudaCoreVersion": cuda_core_version(cc)}

    def launch_empty():
        kernel = module.get_kernel("empty5")
        config = cc.LaunchConfig(grid=1, block=32)
        a = device.allocate(256, stream=stream)
        b = device.allocate(256, stream=stream)
        c, d, e = np.uint32(1), np.uint32(2), np.float32(3)

        def batch(n):
            for _ in range(n):
                cc.launch(stream, config, kernel, a, b, c, d, e)
            stream.sync()

        samples, protocol = calls_ns(batch, LAUNCH_ITERATIONS)
        return median_result(samples, "ns", protocol=protocol, via="cuda.core launch(stream, config, kernel, 2 Buffers, 3 numpy scalars)")

    def vector_add():
        kernel = module.get_kernel("add_f32")
        nbytes = ADD_ELEMENTS * 4
        a, b, out = (device.allocate(nbytes, stream=stream) for _ in range(3))
        config = cc.LaunchConfig(grid=ADD_ELEMENTS // 256, block=256)
        n = np.uint32(ADD_ELEMENTS)

        def batch(count):
            for _ in range(count):
                cc.launch(stream, config, kernel, a, b, out, n)
            stream.sync()

        samples = bandwidth_gbps(batch, 3 * nbytes, ADD_PER_REP, ADD_REPS)
        return median_result(samples, "GB/s", via="cuda.core launch of add_f32 over 3 x 256 MiB")

    def compile_uncached():
        compile_options = cc.ProgramOptions(arch=f"sm_{arch}")

        def batch(n):
            for _ in range(n):
                cc.Program(COMPILE_SOURCE, code_type="c++", options=compile_options).compile("ptx")

        samples, protocol = calls_ns(batch, COMPILE_UNCACHED_ITERATIONS)
        return median_result([s / 1000 for s in samples], "us", protocol=protocol, via="cuda.core Program.compile('ptx')")

    suite.row("compute.launchEmpty5Args", "ns", launch_empty)
    suite.row("compute.vectorAdd256MiB", "GB/s", vector_add)
    suite.row("compute.nvrtcCompileUncached", "us", compile_uncached)
    return 0


if __name__ == "__main__":
    sys.exit(main())
