// The preprocessing step of an inference server: a batch of uint8 RGB images (HWC) arrives in
// ordinary (pageable) JS memory, is uploaded, normalized to float32 on the GPU
// ((pixel / 255 - mean[c]) / std[c]), and handed to the consumer as a typed strided view (its
// __cuda_array_interface__ is what PyTorch, CuPy or Numba take; within Node, pass the view).
// Needs a GPU and NVRTC.
import { float32, LaunchConfig, launch, Program, uint32 } from '@cumem/compute';
import { DeviceMemoryResource, Stream } from '@cumem/memory';
import { StridedLayout, StridedMemoryView } from '@cumem/utils';

const source = `
extern "C" __global__ void normalize_hwc(const unsigned char *in, float *out, unsigned n,
                                         float m0, float m1, float m2, float s0, float s1, float s2) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned c = i % 3;
  float mean = c == 0 ? m0 : (c == 1 ? m1 : m2);
  float std = c == 0 ? s0 : (c == 1 ? s1 : s2);
  out[i] = (in[i] * (1.0f / 255.0f) - mean) / std;
}`;

const [batch, height, width] = [8, 224, 224];
const n = batch * height * width * 3;
const images = new Uint8Array(n).map((_, i) => (i * 37) % 256); // stands in for decoded JPEGs

const code = new Program(source, 'c++').compile('ptx');
const normalize = code.getKernel('normalize_hwc');
const stream = Stream.create(0);
const pool = new DeviceMemoryResource(0);
const pixels = pool.allocate(n, { stream });
const tensor = pool.allocate(n * 4, { stream });

pixels.copyFrom(images, { stream }); // the pageable upload
const mean = [0.485, 0.456, 0.406].map(float32);
const std = [0.229, 0.224, 0.225].map(float32);
launch(
  stream,
  new LaunchConfig({ grid: Math.ceil(n / 256), block: 256 }),
  normalize,
  pixels,
  tensor,
  uint32(n),
  ...mean,
  ...std,
);
// Closing the input right after the launch is safe: cumem frees it only once the kernel has read it.
pixels.close();

const view = StridedMemoryView.fromBuffer(tensor, StridedLayout.dense([batch, height, width, 3], 4), {
  dtype: 'float32',
});
stream.sync();
console.log('hand-off:', JSON.stringify({ shape: view.shape, typestr: view.cudaArrayInterface.typestr }));
const first = new Float32Array(3);
tensor.slice(0, 12).copyTo(first);
console.log(`first pixel: ${[...first].map((v) => v.toFixed(3)).join(', ')}`);
tensor.close();
code.close();
stream.close();
