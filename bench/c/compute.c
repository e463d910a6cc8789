/* Compute rows, C floor: cuLaunchKernelEx of PTX kernels loaded with cuLibraryLoadData, as
 * @cumem/compute does. The kernels are empty5 and add_f32 of testing/driver-testing's
 * referenceKernelsPTX (the JS rows load that text; the same instructions here). */
#include "bench.h"

/* Operations per repetition: the same in bench/js/compute.mjs, bench/python/compute.py and rows.mjs. */
#define LAUNCH_ITERATIONS 100000L
#define ADD_ELEMENTS (64L * 1024 * 1024) /* 256 MiB of floats per vector */
#define ADD_PER_REP 10
#define ADD_REPS 5

static const char kernels[] =
    ".version 7.8\n.target sm_75\n.address_size 64\n"
    ".visible .entry empty5(.param .u64 a, .param .u64 b, .param .u32 c, .param .u32 d, .param .f32 e)\n{\n\tret;\n}\n"
    ".visible .entry add_f32(.param .u64 add_f32_a, .param .u64 add_f32_b, .param .u64 add_f32_out, .param .u32 add_f32_n)\n{\n"
    "\t.reg .pred %p<2>;\n\t.reg .b32 %r<6>;\n\t.reg .f32 %f<4>;\n\t.reg .b64 %rd<11>;\n"
    "\tld.param.u64 %rd1, [add_f32_a];\n\tld.param.u64 %rd2, [add_f32_b];\n\tld.param.u64 %rd3, [add_f32_out];\n"
    "\tld.param.u32 %r1, [add_f32_n];\n\tmov.u32 %r2, %ctaid.x;\n\tmov.u32 %r3, %ntid.x;\n\tmov.u32 %r4, %tid.x;\n"
    "\tmad.lo.s32 %r5, %r2, %r3, %r4;\n\tsetp.ge.u32 %p1, %r5, %r1;\n\t@%p1 bra ADD_DONE;\n"
    "\tmul.wide.u32 %rd4, %r5, 4;\n\tcvta.to.global.u64 %rd5, %rd1;\n\tadd.s64 %rd6, %rd5, %rd4;\n\tld.global.f32 %f1, [%rd6];\n"
    "\tcvta.to.global.u64 %rd7, %rd2;\n\tadd.s64 %rd8, %rd7, %rd4;\n\tld.global.f32 %f2, [%rd8];\n\tadd.f32 %f3, %f1, %f2;\n"
    "\tcvta.to.global.u64 %rd9, %rd3;\n\tadd.s64 %rd10, %rd9, %rd4;\n\tst.global.f32 [%rd10], %f3;\n"
    "ADD_DONE:\n\tret;\n}\n";

typedef struct {
  CUfunction function;
  CUlaunchConfig config;
  void *params[5];
} launch_state;

static CUresult launch_batch(void *state, long n) {
  launch_state *s = (launch_state *)state;
  for (long i = 0; i < n; i++) {
    CUresult e = p_cuLaunchKernelEx(&s->config, s->function, s->params, NULL);
    if (e != CUDA_SUCCESS) return e;
  }
  return p_cuStreamSynchronize(bench_stream);
}

static CUfunction function_of(CUlibrary library, const char *name, CUresult *e) {
  CUkernel kernel = NULL;
  CUfunction function = NULL;
  if ((*e = p_cuLibraryGetKernel(&kernel, library, name)) != CUDA_SUCCESS) return NULL;
  *e = p_cuKernelGetFunction(&function, kernel);
  return function;
}

static void row_launch(row_t *r, CUlibrary library) {
  CUresult e;
  launch_state s;
  memset(&s, 0, sizeof s);
  s.function = function_of(library, "empty5", &e);
  CK(e);
  /* Five small arguments, as the JS row passes them: two pointers, two uint32, one float. */
  unsigned long long a = 0, b = 0;
  unsigned int c = 1, d = 2;
  float f = 3.0f;
  s.params[0] = &a, s.params[1] = &b, s.params[2] = &c, s.params[3] = &d, s.params[4] = &f;
  s.config.gridDimX = s.config.gridDimY = s.config.gridDimZ = 1;
  s.config.blockDimX = 32, s.config.blockDimY = s.config.blockDimZ = 1;
  s.config.hStream = bench_stream;
  CK(measure_calls(r, launch_batch, &s, LAUNCH_ITERATIONS));
done:;
}

typedef struct {
  CUfunction function;
  CUlaunchConfig config;
  CUdeviceptr a, b, out;
  unsigned int n;
} add_state;

static CUresult add_batch(void *state, long n) {
  add_state *s = (add_state *)state;
  void *params[4] = {&s->a, &s->b, &s->out, &s->n};
  for (long i = 0; i < n; i++) {
    CUresult e = p_cuLaunchKernelEx(&s->config, s->function, params, NULL);
    if (e != CUDA_SUCCESS) return e;
  }
  return p_cuStreamSynchronize(bench_stream);
}

static void row_vector_add(row_t *r, CUlibrary library) {
  CUresult e;
  add_state s;
  memset(&s, 0, sizeof s);
  s.function = function_of(library, "add_f32", &e);
  CK(e);
  s.n = (unsigned int)ADD_ELEMENTS;
  CK(p_cuMemAlloc(&s.a, ADD_ELEMENTS * 4));
  CK(p_cuMemAlloc(&s.b, ADD_ELEMENTS * 4));
  CK(p_cuMemAlloc(&s.out, ADD_ELEMENTS * 4));
  CK(p_cuMemsetD8Async(s.a, 1, ADD_ELEMENTS * 4, bench_stream));
  CK(p_cuMemsetD8Async(s.b, 2, ADD_ELEMENTS * 4, bench_stream));
  s.config.gridDimX = (unsigned int)(ADD_ELEMENTS / 256), s.config.gridDimY = s.config.gridDimZ = 1;
  s.config.blockDimX = 256, s.config.blockDimY = s.config.blockDimZ = 1;
  s.config.hStream = bench_stream;
  /* Bytes moved per kernel: two vectors read, one written. */
  CK(measure_bandwidth(r, add_batch, &s, 3.0 * ADD_ELEMENTS * 4, ADD_PER_REP, ADD_REPS));
done:
  if (s.a) p_cuMemFree(s.a);
  if (s.b) p_cuMemFree(s.b);
  if (s.out) p_cuMemFree(s.out);
}

int main(int argc, char **argv) {
  bench_select(argc, argv);
  if (bench_begin("compute")) return 2;
  CUlibrary library = NULL;
  row_t r1 = {.id = "compute.launchEmpty5Args", .unit = "ns"};
  row_t r2 = {.id = "compute.vectorAdd256MiB", .unit = "GB/s"};
  if (!p_cuLibraryLoadData || !p_cuLaunchKernelEx) {
    row_failf(&r1, "libcuda has no cuLibraryLoadData / cuLaunchKernelEx");
    row_failf(&r2, "libcuda has no cuLibraryLoadData / cuLaunchKernelEx");
  } else {
    CUresult e = p_cuLibraryLoadData(&library, kernels, NULL, NULL, 0, NULL, NULL, 0);
    if (e != CUDA_SUCCESS) {
      row_failf(&r1, "cuLibraryLoadData returned %s", error_name(e));
      row_failf(&r2, "cuLibraryLoadData returned %s", error_name(e));
    } else {
      if (bench_wants(r1.id)) row_launch(&r1, library);
      if (bench_wants(r2.id)) row_vector_add(&r2, library);
    }
  }
  if (bench_wants(r1.id)) bench_row(&r1);
  if (bench_wants(r2.id)) bench_row(&r2);
  if (library) p_cuLibraryUnload(library);
  return bench_end();
}
