// Compile a CUDA C++ kernel from a string with NVRTC, run it on a buffer from a stream-ordered
// pool, and read the result back. Needs a GPU and NVRTC (the CUDA toolkit, or
// `pip install nvidia-cuda-nvrtc-cu12`); see packages/compute/README.md.
import { float32, LaunchConfig, launch, Program, uint32 } from '@cumem/compute';
import { DeviceMemoryResource, Stream } from '@cumem/memory';

const source = `
extern "C" __global__ void saxpy(float a, const float *x, float *y, unsigned n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}`;

const n = 1 << 20;
const code = new Program(source, 'c++', { options: ['--use_fast_math'] }).compile('ptx');
const saxpy = code.getKernel('saxpy');
const { blockSize } = saxpy.occupancy.maxPotentialBlockSize();

const stream = Stream.create(0);
const pool = new DeviceMemoryResource(0);
const x = pool.allocate(n * 4, { stream });
const y = pool.allocate(n * 4, { stream });
x.copyFrom(new Float32Array(n).fill(1), { stream });
y.copyFrom(new Float32Array(n).fill(2), { stream });

const config = new LaunchConfig({ grid: Math.ceil(n / blockSize), block: blockSize });
launch(stream, config, saxpy, float32(3), x, y, uint32(n));

const result = new Float32Array(n);
y.copyTo(result, { stream });
stream.sync();
console.log(`saxpy over ${n} floats with blocks of ${blockSize}: y[0] = ${result[0]} (expected 5)`);
for (const owned of [x, y, code, stream]) owned.close();
