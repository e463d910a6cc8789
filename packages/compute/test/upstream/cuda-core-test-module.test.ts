// cuda.core's cuda_core/tests/test_module.py (NVIDIA/cuda-python, read at commit
// 01db773955806205e65e0553c8d22192419cc440), translated case by case onto @cumem/compute's
// ObjectCode and Kernel.
//
// Where cuda.core compiles its saxpy fixture to a cubin, these cases do too on a GPU; on the
// reference driver (which loads PTX only) a case about what the driver reports of a kernel
// compiles to PTX instead. Compiling needs NVRTC: such cases skip here, visibly.
//
// Not ported:
// - test_kernel_attributes_init_disabled, test_kernel_occupancy_init_disabled: cumem's
//   `attributes()` and `occupancy` are frozen plain objects (interfaces), with no class to construct.
// - test_object_code_load_ptx_from_file, test_object_code_load_cubin_from_file: cumem's
//   ObjectCode.fromPTX / fromCubin take the text or bytes, not a file path.
// - test_object_code_handle: cumem hands out no driver handles.
// - test_object_code_load_ltoir, test_object_code_load_ltoir_from_file: cumem has no LTO IR
//   code type (no linker).
// - test_read_only_kernel_attributes for cache_mode_ca, cluster_size_must_be_set,
//   preferred_shared_memory_carveout, required_cluster_width / height / depth,
//   non_portable_cluster_size_allowed, cluster_scheduling_policy_preference: cumem's
//   KernelAttributes reports the other eight attributes only.
// - test_num_args_error_handling: cumem makes the kernel's device current itself before every
//   query; its public API has no way to empty the context stack.
// - test_occupancy_max_potential_block_size_b2dsize: cumem has the fixed-shared-memory form of
//   cuOccupancyMaxPotentialBlockSize only (no block-size-to-shared-memory callback).
// - test_occupancy_available_dynamic_shared_memory_per_block, test_occupancy_max_active_clusters,
//   test_occupancy_max_potential_cluster_size: cumem's KernelOccupancy has no such queries.
// - test_module_serialization_roundtrip: pickling is a Python concern.
import { Device, DeviceAttribute, LaunchDeviceAttribute, NotSupportedError } from '@cumem/core-types';
import { deviceCount, useDriver } from '@cumem/memory';
import type { TestDriver } from '@cumem/testing/vitest';
import { describeEachDriver } from '@cumem/testing/vitest';
import { beforeAll, describe, expect, it } from 'vitest';
import { Kernel, type KernelAttributes, ObjectCode, Program } from '../../src/index.js';
import { adapters } from '../support.js';
import {
  gatedIt,
  machineCodeTarget,
  needsGpuAndNvcc,
  needsGpuAndNvrtc,
  needsNvrtc,
  nvccCubin,
} from './upstream-gates.js';

// out[i] = a * x[i] + y[i] over a grid-stride loop; five parameters: T, three pointers, size_t.
const saxpySource = `
template <typename T>
__global__ void saxpy(const T a, const T *x, const T *y, T *out, size_t n) {
  for (size_t i = threadIdx.x + blockIdx.x * blockDim.x; i < n; i += gridDim.x * blockDim.x)
    out[i] = a * x[i] + y[i];
}
`;
const saxpyNames = ['saxpy<float>', 'saxpy<double>'];
// saxpy<double> as C++ compilers name it (Itanium ABI), and a PTX declaration of it.
const saxpyDoubleSymbol = '_Z5saxpyIdEvT_PKS0_S2_PS0_m';
const saxpyDoublePTX = `
.version 7.8
.target sm_75
.address_size 64

.visible .entry ${saxpyDoubleSymbol}(
	.param .f64 ${saxpyDoubleSymbol}_param_0,
	.param .u64 ${saxpyDoubleSymbol}_param_1,
	.param .u64 ${saxpyDoubleSymbol}_param_2,
	.param .u64 ${saxpyDoubleSymbol}_param_3,
	.param .u64 ${saxpyDoubleSymbol}_param_4
)
{
	ret;
}
`;

// Device attributes the occupancy cases bound their answers by (CUdevice_attribute values).
const MaxThreadsPerMultiprocessor = 39;
const MaxSharedMemoryPerMultiprocessor = 81;
const MaxRegistersPerMultiprocessor = 82;

/** The saxpy fixture: its ObjectCode (the caller closes it) and saxpy<float>. */
function saxpy(target: 'ptx' | 'cubin'): { code: ObjectCode; kernel: Kernel } {
  const code = new Program(saxpySource, 'c++').compile(target, { nameExpressions: saxpyNames });
  return { code, kernel: code.getKernel('saxpy<float>') };
}

function architecture(entry: TestDriver): string {
  const major = entry.driver.deviceGetAttribute(DeviceAttribute.ComputeCapabilityMajor, 0);
  const minor = entry.driver.deviceGetAttribute(DeviceAttribute.ComputeCapabilityMinor, 0);
  return `sm_${major}${minor}`;
}

describe('cuda.core test_module.py, no driver', () => {
  it('test_kernel_init_disabled: Kernel cannot be constructed directly', () => {
    const construct = Kernel as unknown as new () => unknown;
    expect(() => new construct()).toThrow(TypeError);
    expect(() => new construct()).toThrow(/use ObjectCode\.getKernel/);
  });

  it('test_object_code_init_disabled: ObjectCode cannot be constructed directly', () => {
    const construct = ObjectCode as unknown as new () => unknown;
    expect(() => new construct()).toThrow(TypeError);
    expect(() => new construct()).toThrow(/use ObjectCode\.fromPTX, fromCubin or fromFatbin/);
  });
});

describeEachDriver(adapters, 'cuda.core test_module.py', (entry) => {
  beforeAll(() => {
    useDriver(entry.driver);
  });

  gatedIt(needsNvrtc(entry), 'test_get_kernel: a relocatable C++ kernel compiled to PTX is found', () => {
    const source = 'extern "C" __global__ void ABC() { }';
    const code = new Program(source, 'c++', { options: ['--relocatable-device-code=true'] }).compile('ptx');
    // cumem loads the image when it is made (cuda.core loads it at the first getKernel).
    expect(code.isClosed).toBe(false);
    const kernel = code.getKernel('ABC');
    expect(Kernel.isKernel(kernel)).toBe(true);
    expect(kernel.name).toBe('ABC');
    expect(kernel.objectCode).toBe(code);
    code.close();
  });

  const attributeNames: readonly [upstream: string, cumem: keyof KernelAttributes][] = [
    ['max_threads_per_block', 'maxThreadsPerBlock'],
    ['shared_size_bytes', 'sharedSizeBytes'],
    ['const_size_bytes', 'constSizeBytes'],
    ['local_size_bytes', 'localSizeBytes'],
    ['num_regs', 'numRegisters'],
    ['ptx_version', 'ptxVersion'],
    ['binary_version', 'binaryVersion'],
    ['max_dynamic_shared_size_bytes', 'maxDynamicSharedSizeBytes'],
  ];
  for (const [upstream, attribute] of attributeNames) {
    gatedIt(
      needsNvrtc(entry),
      `test_read_only_kernel_attributes: ${upstream} (${attribute}) on the default device and on every device by Device and ordinal`,
      () => {
        const { code, kernel } = saxpy(machineCodeTarget(entry));
        expect(Number.isInteger(kernel.attributes()[attribute])).toBe(true);
        for (let ordinal = 0; ordinal < deviceCount(); ordinal++) {
          const byDevice = kernel.attributes(new Device(ordinal))[attribute];
          const byOrdinal = kernel.attributes(ordinal)[attribute];
          expect(Number.isInteger(byDevice)).toBe(true);
          expect(byOrdinal).toBe(byDevice);
        }
        code.close();
      },
    );
  }

  gatedIt(
    undefined,
    'test_object_code_load_ptx: PTX text loads and its kernel is found by its lowered name (fromPTX has no symbol mapping)',
    () => {
      const code = ObjectCode.fromPTX(saxpyDoublePTX);
      expect(code.codeType).toBe('ptx');
      const kernel = code.getKernel(saxpyDoubleSymbol);
      expect(Kernel.isKernel(kernel)).toBe(true);
      code.close();
    },
  );

  gatedIt(
    needsGpuAndNvcc(entry),
    'test_object_code_load_cubin: a cubin loads and saxpy<double> is found by its lowered name',
    () => {
      const instantiations = `${saxpySource}
template __global__ void saxpy<float>(const float, const float *, const float *, float *, size_t);
template __global__ void saxpy<double>(const double, const double *, const double *, double *, size_t);
`;
      const bytes = nvccCubin(instantiations, architecture(entry));
      const code = ObjectCode.fromCubin(bytes);
      expect(code.codeType).toBe('cubin');
      expect(Kernel.isKernel(code.getKernel(saxpyDoubleSymbol))).toBe(true);
      code.close();
    },
  );

  gatedIt(
    needsNvrtc(entry),
    'test_saxpy_arguments: five arguments laid out as the C struct { float; float *; float *; float *; size_t }',
    () => {
      const { code, kernel } = saxpy(machineCodeTarget(entry));
      if (entry.driver.capabilities.kernelParameterInfo) {
        expect(kernel.numArguments).toBe(5);
        const info = kernel.argumentInfo ?? [];
        expect(info.length).toBe(kernel.numArguments);
        expect(info.map((parameter) => parameter.offset)).toEqual([0, 8, 16, 24, 32]);
        expect(info.map((parameter) => parameter.size)).toEqual([4, 8, 8, 8, 8]);
      } else {
        // Drivers older than CUDA 12.4 do not report parameters.
        expect(() => kernel.numArguments).toThrow(NotSupportedError);
        expect(kernel.argumentInfo).toBeNull();
      }
      code.close();
    },
  );

  const deviceLimit = (attribute: number) => entry.driver.deviceGetAttribute(attribute, 0);

  for (const blockSize of [32, 64, 96, 120, 128, 256]) {
    for (const sharedPerBlock of [0, 32, 4096]) {
      gatedIt(
        needsGpuAndNvrtc(entry),
        `test_occupancy_max_active_block_per_multiprocessor: block ${blockSize}, ${sharedPerBlock} bytes of shared memory`,
        () => {
          const { code, kernel } = saxpy('cubin');
          expect(blockSize).toBeLessThanOrEqual(deviceLimit(LaunchDeviceAttribute.MaxThreadsPerBlock));
          expect(sharedPerBlock).toBeLessThanOrEqual(
            deviceLimit(LaunchDeviceAttribute.MaxSharedMemoryPerBlock),
          );
          const blocks = kernel.occupancy.maxActiveBlocksPerMultiprocessor(blockSize, sharedPerBlock);
          expect(Number.isInteger(blocks)).toBe(true);
          expect(blocks).toBeGreaterThan(0);
          expect(blocks * blockSize).toBeLessThanOrEqual(deviceLimit(MaxThreadsPerMultiprocessor));
          expect(blocks * sharedPerBlock).toBeLessThanOrEqual(deviceLimit(MaxSharedMemoryPerMultiprocessor));
          expect(kernel.attributes().numRegisters * blocks).toBeLessThanOrEqual(
            deviceLimit(MaxRegistersPerMultiprocessor),
          );
          code.close();
        },
      );
    }
  }

  for (const blockSizeLimit of [32, 64, 96, 120, 128, 256, 0]) {
    for (const sharedPerBlock of [0, 32, 4096]) {
      gatedIt(
        needsGpuAndNvrtc(entry),
        `test_occupancy_max_potential_block_size_constant: limit ${blockSizeLimit}, ${sharedPerBlock} bytes of shared memory`,
        () => {
          const { code, kernel } = saxpy('cubin');
          const threadsPerBlock = deviceLimit(LaunchDeviceAttribute.MaxThreadsPerBlock);
          expect(blockSizeLimit).toBeLessThanOrEqual(threadsPerBlock);
          const suggestion = kernel.occupancy.maxPotentialBlockSize(sharedPerBlock, blockSizeLimit);
          expect(Object.keys(suggestion).sort()).toEqual(['blockSize', 'minGridSize']);
          const { minGridSize, blockSize } = suggestion;
          expect(Number.isInteger(minGridSize)).toBe(true);
          expect(Number.isInteger(blockSize)).toBe(true);
          expect(minGridSize).toBeGreaterThan(0);
          expect(blockSize).toBeGreaterThan(0);
          expect(blockSize).toBeLessThanOrEqual(blockSizeLimit > 0 ? blockSizeLimit : threadsPerBlock);
          expect(() => kernel.occupancy.maxPotentialBlockSize('...' as never, blockSizeLimit)).toThrow(
            TypeError,
          );
          code.close();
        },
      );
    }
  }
});

// Parameter counts and layouts come from cuFuncGetParamInfo, which drivers older than CUDA 12.4
// lack (upstream skips there too).
describeEachDriver(
  adapters,
  'cuda.core test_module.py, parameter info',
  (entry) => {
    beforeAll(() => {
      useDriver(entry.driver);
    });
    for (const count of [0, 1, 2, 3, 16]) {
      for (const [type, size] of [
        ['int', 4],
        ['short', 2],
      ] as const) {
        gatedIt(
          needsNvrtc(entry),
          `test_num_arguments: ${count} ${type} parameter(s), each at its C offset and size`,
          () => {
            const parameters = Array.from({ length: count }, (_, index) => `${type} p_${index}`).join(', ');
            const name = `foo${count}`;
            const code = new Program(`__global__ void ${name}(${parameters}) { }`, 'c++').compile(
              machineCodeTarget(entry),
              { nameExpressions: [name] },
            );
            const kernel = code.getKernel(name);
            expect(kernel.numArguments).toBe(count);
            expect(kernel.argumentInfo).toEqual(
              Array.from({ length: count }, (_, index) => ({ offset: index * size, size })),
            );
            code.close();
          },
        );
      }
    }
  },
  {
    requires: (driver) =>
      driver.capabilities.kernelParameterInfo
        ? undefined
        : 'not applicable: parameter info needs a CUDA 12.4 driver (cuFuncGetParamInfo)',
  },
);
