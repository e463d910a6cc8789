// cuda.core's cuda_core/tests/test_launcher.py (NVIDIA/cuda-python, read at commit
// 00452faf966f84e13c40d7da41553e37a98b6eae), translated case by case onto @cumem/compute's
// LaunchConfig and launch.
//
// Documented deviation: cumem's LaunchConfig counts `grid` in blocks also when a cluster is given
// (each grid dimension must be a multiple of the cluster's, README "Launching"), where cuda.core
// counts it in clusters and multiplies it out for the driver. The cluster cases below give the
// grid in blocks and check that the driver receives the block counts cuda.core's own cases expect.
// cuda.core's `_to_native_launch_config` has no public counterpart: what reaches the driver is
// read from the `launchKernelEx` call through @cumem/testing's countingDriver.
//
// Not ported:
// - test_launch_config_cooperative_defers_device_check, test_to_native_launch_config_cooperative,
//   test_cooperative_launch: cumem has no cooperative launches (no `isCooperative`).
// - test_launch_invalid_values, its foreign-stream part: cumem takes its own Stream only (no
//   stream protocol to deprecate).
// - test_launch_scalar_argument for half and cuda::std::complex (the CCCL rows): cumem has no
//   16-bit float or complex scalar wrappers, and the rows need CCCL headers.
// - test_kernel_arg_ctypes_subclass_isinstance_fallback, test_launch_scalar_argument_subclass_fallback,
//   test_kernel_arg_numpy_subclass_isinstance_fallback, test_kernel_arg_python_isinstance_fallbacks:
//   subclasses of ctypes, NumPy and Python scalar types are a Python concern; cumem's scalars are
//   the values its wrappers make.
import { type KernelLaunchConfig, LaunchDeviceAttribute } from '@cumem/core-types';
import {
  type Buffer,
  DeviceMemoryResource,
  LegacyPinnedMemoryResource,
  Stream,
  useDriver,
} from '@cumem/memory';
import { withCountingDriver } from '@cumem/test-support';
import {
  countingDriver,
  describeEachDriver,
  referenceKernelsPTX,
  type TestDriver,
} from '@cumem/testing/vitest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  bool,
  float32,
  float64,
  int8,
  int16,
  int32,
  int64,
  type KernelScalar,
  LaunchConfig,
  launch,
  ObjectCode,
  Program,
  type ScalarKind,
  uint8,
  uint16,
  uint32,
  uint64,
} from '../../src/index.js';
import { adapters, useDeviceZero } from '../support.js';
import { gatedIt, needsGpu, needsGpuAndNvrtc } from './upstream-gates.js';

// `extern "C" __global__ void my_kernel() {}` as PTX, so that the argument checks need no NVRTC.
const emptyKernelPTX = `
.version 7.8
.target sm_75
.address_size 64

.visible .entry my_kernel()
{
	ret;
}
`;

// The double upstream passes (its own value, not the constant it resembles).
// biome-ignore lint/suspicious/noApproximativeNumericConstant: upstream's test value
const upstreamDouble = 2.718;

/** The geometry `config` hands the driver: launches empty5 (which does nothing) under a countingDriver. */
function geometryAtDriver(entry: TestDriver, config: LaunchConfig): KernelLaunchConfig {
  const seen: KernelLaunchConfig[] = [];
  const { driver } = countingDriver(entry.driver, (name, args) => {
    if (name === 'launchKernelEx') seen.push(args[1] as KernelLaunchConfig);
  });
  useDriver(driver);
  try {
    const code = ObjectCode.fromPTX(referenceKernelsPTX);
    const stream = Stream.create(0);
    launch(stream, config, code.getKernel('empty5'), 0n, 0n, uint32(0), uint32(0), float32(0));
    stream.sync();
    stream.close();
    code.close();
  } finally {
    useDriver(entry.driver);
  }
  expect(seen).toHaveLength(1);
  const { grid, block, sharedMemBytes, cluster } = seen[0] as KernelLaunchConfig;
  return {
    grid: [...grid] as unknown as KernelLaunchConfig['grid'],
    block: [...block] as unknown as KernelLaunchConfig['block'],
    sharedMemBytes,
    cluster: cluster === null ? null : ([...cluster] as unknown as KernelLaunchConfig['cluster']),
  };
}

describe('cuda.core test_launcher.py, no driver', () => {
  it('test_launch_config_init: grid, block and shared memory as given, three dimensions each', () => {
    const ones = new LaunchConfig({ grid: [1, 1, 1], block: [1, 1, 1], sharedMemBytes: 0 });
    expect(ones.grid).toEqual([1, 1, 1]);
    expect(ones.block).toEqual([1, 1, 1]);
    expect(ones.sharedMemBytes).toBe(0);
    const twos = new LaunchConfig({ grid: [2, 2, 2], block: [2, 2, 2], sharedMemBytes: 1024 });
    expect(twos.grid).toEqual([2, 2, 2]);
    expect(twos.block).toEqual([2, 2, 2]);
    expect(twos.sharedMemBytes).toBe(1024);
  });

  it('test_launch_config_invalid_values: a zero grid or block dimension is a RangeError', () => {
    expect(() => new LaunchConfig({ grid: 0, block: 1 })).toThrow(RangeError);
    expect(() => new LaunchConfig({ grid: [0, 1], block: 1 })).toThrow(RangeError);
    expect(() => new LaunchConfig({ grid: [1, 1, 1], block: 0 })).toThrow(RangeError);
    expect(() => new LaunchConfig({ grid: [1, 1, 1], block: [0, 1] })).toThrow(RangeError);
  });

  it('test_launch_config_shmem_size: sharedMemBytes as given, 0 by default', () => {
    expect(new LaunchConfig({ grid: [1, 1, 1], block: [1, 1, 1], sharedMemBytes: 2048 }).sharedMemBytes).toBe(
      2048,
    );
    expect(new LaunchConfig({ grid: [1, 1, 1], block: [1, 1, 1] }).sharedMemBytes).toBe(0);
  });

  it('test_launch_config_cluster_grid_conversion: grid, cluster and block kept as given (grid in blocks: documented deviation)', () => {
    const oneD = new LaunchConfig({ grid: 4, cluster: 2, block: 32 });
    expect(oneD.grid).toEqual([4, 1, 1]);
    expect(oneD.cluster).toEqual([2, 1, 1]);
    expect(oneD.block).toEqual([32, 1, 1]);
    // cuda.core's grid (2, 3) of clusters (2, 2) is cumem's grid (4, 6) of blocks.
    const twoD = new LaunchConfig({ grid: [4, 6], cluster: [2, 2], block: 32 });
    expect(twoD.grid).toEqual([4, 6, 1]);
    expect(twoD.cluster).toEqual([2, 2, 1]);
    // cuda.core's grid (2, 2, 2) of clusters (3, 3, 3) is cumem's grid (6, 6, 6); a grid that is
    // not a multiple of the cluster is refused.
    const threeD = new LaunchConfig({ grid: [6, 6, 6], cluster: [3, 3, 3], block: [8, 8, 8] });
    expect(threeD.grid).toEqual([6, 6, 6]);
    expect(threeD.cluster).toEqual([3, 3, 3]);
    expect(() => new LaunchConfig({ grid: [2, 2, 2], cluster: [3, 3, 3], block: [8, 8, 8] })).toThrow(
      RangeError,
    );
    expect(new LaunchConfig({ grid: 1, cluster: 1, block: 32 }).grid).toEqual([1, 1, 1]);
    const noCluster = new LaunchConfig({ grid: 4, block: 32 });
    expect(noCluster.grid).toEqual([4, 1, 1]);
    expect(noCluster.cluster).toBeNull();
  });
});

describeEachDriver(adapters, 'cuda.core test_launcher.py', (entry) => {
  let pool: DeviceMemoryResource;
  let stream: Stream;
  let empty: ObjectCode;

  beforeAll(() => {
    ({ pool, stream } = useDeviceZero(entry.driver));
    empty = ObjectCode.fromPTX(emptyKernelPTX);
  });
  afterAll(() => {
    empty.close();
    stream.close();
  });

  gatedIt(
    undefined,
    'test_to_native_launch_config_no_cluster: the driver receives grid, block and shared memory as given, no cluster',
    () => {
      const config = new LaunchConfig({ grid: [4, 5, 6], block: [7, 8, 9], sharedMemBytes: 128 });
      expect(geometryAtDriver(entry, config)).toEqual({
        grid: [4, 5, 6],
        block: [7, 8, 9],
        sharedMemBytes: 128,
        cluster: null,
      });
    },
  );

  gatedIt(
    undefined,
    'test_launch_config_cluster_defers_device_check: a config with a cluster is made without a driver call',
    () =>
      withCountingDriver(useDriver, entry.driver, (log) => {
        log.reset();
        const config = new LaunchConfig({ grid: [4, 6], cluster: [2, 2], block: 32 });
        expect(config.cluster).toEqual([2, 2, 1]);
        expect(config.grid).toEqual([4, 6, 1]);
        expect(log.calls).toEqual([]);
      }),
  );

  gatedIt(undefined, 'test_launch_invalid_values: a missing stream, config or kernel is a TypeError', () => {
    const kernel = empty.getKernel('my_kernel');
    const config = new LaunchConfig({ grid: [1, 1, 1], block: [1, 1, 1], sharedMemBytes: 0 });
    expect(() => launch(null as never, config, kernel)).toThrow(TypeError);
    expect(() => launch(stream, null as never, kernel)).toThrow(TypeError);
    expect(() => launch(stream, config, null as never)).toThrow(TypeError);
    // Upstream passes the kernel and config swapped in two of these: refused by brand too.
    expect(() => launch(stream, kernel as never, config as never)).toThrow(TypeError);
  });

  gatedIt(needsGpu(entry), 'test_launch_invalid_values: the valid launch of an empty kernel runs', () => {
    const config = new LaunchConfig({ grid: [1, 1, 1], block: [1, 1, 1], sharedMemBytes: 0 });
    launch(stream, config, empty.getKernel('my_kernel'));
    stream.sync();
  });

  gatedIt(
    undefined,
    "test_launch_scalar_argument: Python's bool and float rows — a plain boolean or number is a TypeError naming the wrapper (documented deviation)",
    () => {
      const code = ObjectCode.fromPTX(referenceKernelsPTX);
      const out = pool.allocate(64);
      const kernel = code.getKernel('store_scalars');
      const config = new LaunchConfig({ grid: 1, block: 1 });
      const leading = [out, int32(0), uint32(0), int64(0), uint64(0), float32(0)] as const;
      expect(() => launch(stream, config, kernel, ...leading, float64(0), true as never)).toThrow(
        /wrap it in bool\(x\)/,
      );
      expect(() => launch(stream, config, kernel, ...leading, upstreamDouble as never, bool(true))).toThrow(
        /float32\(x\) or float64\(x\)/,
      );
      out.close();
      code.close();
    },
  );

  // Upstream's rows whose C type cumem has a wrapper for: Python type, C++ type, wrapper, value.
  const scalarRows: readonly (readonly [string, string, ScalarKind, number | bigint | boolean])[] = [
    ['bool', 'bool', 'bool', true],
    ['float', 'double', 'float64', upstreamDouble],
    ['np.bool', 'bool', 'bool', true],
    ['np.int32', 'signed int', 'int32', -123456],
    ['np.int64', 'signed long long', 'int64', -123456789n],
    ['np.uint32', 'unsigned int', 'uint32', 123456],
    ['np.uint64', 'unsigned long long', 'uint64', 123456789n],
    ['np.float32', 'float', 'float32', 3.14],
    ['np.float64', 'double', 'float64', upstreamDouble],
    ['ctypes.c_bool', 'bool', 'bool', true],
    ['ctypes.c_int32', 'signed int', 'int32', -123456],
    ['ctypes.c_int64', 'signed long long', 'int64', -123456789n],
    ['ctypes.c_uint32', 'unsigned int', 'uint32', 123456],
    ['ctypes.c_uint64', 'unsigned long long', 'uint64', 123456789n],
    ['ctypes.c_float', 'float', 'float32', 3.14],
    ['ctypes.c_double', 'double', 'float64', upstreamDouble],
    ['np.int8', 'signed char', 'int8', -42],
    ['np.int16', 'signed short', 'int16', -1234],
    ['np.uint8', 'unsigned char', 'uint8', 42],
    ['np.uint16', 'unsigned short', 'uint16', 1234],
    ['ctypes.c_int8', 'signed char', 'int8', -42],
    ['ctypes.c_int16', 'signed short', 'int16', -1234],
    ['ctypes.c_uint8', 'unsigned char', 'uint8', 42],
    ['ctypes.c_uint16', 'unsigned short', 'uint16', 1234],
  ];
  const wrappers = {
    bool,
    int8,
    int16,
    int32,
    int64,
    uint8,
    uint16,
    uint32,
    uint64,
    float32,
    float64,
  } as Record<ScalarKind, (value: never) => KernelScalar>;
  /** What the kernel wrote, read back as the kind it was given. */
  const readBack: Record<ScalarKind, (view: DataView) => number | bigint | boolean> = {
    bool: (view) => view.getUint8(0) === 1,
    int8: (view) => view.getInt8(0),
    uint8: (view) => view.getUint8(0),
    int16: (view) => view.getInt16(0, true),
    uint16: (view) => view.getUint16(0, true),
    int32: (view) => view.getInt32(0, true),
    uint32: (view) => view.getUint32(0, true),
    int64: (view) => view.getBigInt64(0, true),
    uint64: (view) => view.getBigUint64(0, true),
    float32: (view) => view.getFloat32(0, true),
    float64: (view) => view.getFloat64(0, true),
  };

  const writeScalarSource = `
template <typename T>
__global__ void write_scalar(T *out, T value) {
  out[0] = value;
}
`;
  /** Runs write_scalar<cpp> with `argument` into pinned host memory; the bytes it wrote. */
  function writeScalar(cpp: string, argument: KernelScalar): DataView {
    const name = `write_scalar<${cpp}>`;
    const code = new Program(writeScalarSource, 'c++', { options: ['--std=c++17'] }).compile('cubin', {
      nameExpressions: [name],
    });
    const pinned = new LegacyPinnedMemoryResource();
    const out = pinned.allocate(8);
    out.fill(0);
    launch(stream, new LaunchConfig({ grid: 1, block: 1 }), code.getKernel(name), out, argument);
    stream.sync();
    const bytes = new Uint8Array(8);
    out.copyTo(bytes);
    out.close();
    pinned.close();
    code.close();
    return new DataView(bytes.buffer);
  }

  for (const [python, cpp, kind, value] of scalarRows) {
    gatedIt(
      needsGpuAndNvrtc(entry),
      `test_launch_scalar_argument: ${python} as ${cpp} reaches the kernel`,
      () => {
        const written = writeScalar(cpp, wrappers[kind](value as never));
        expect(readBack[kind](written)).toBe(kind === 'float32' ? Math.fround(value as number) : value);
      },
    );
  }

  const memoryOpsSource = `
extern "C" __global__ void memory_ops(float *data, size_t n) {
  const unsigned int i = threadIdx.x + blockIdx.x * blockDim.x;
  if (i < n) data[i] = data[i] * 3.0f;
}
`;
  const resources: readonly [
    string,
    () => { allocate(size: number, options?: { stream: Stream }): Buffer; close(): void },
  ][] = [
    ['device_memory_resource', () => new DeviceMemoryResource(0)],
    ['LegacyPinnedMemoryResource', () => new LegacyPinnedMemoryResource()],
  ];
  for (const [label, makeResource] of resources) {
    gatedIt(
      needsGpuAndNvrtc(entry),
      `test_launch_with_buffers_allocated_by_memory_resource: ${label}`,
      () => {
        const own = Stream.create(0);
        const code = new Program(memoryOpsSource, 'c++', { options: ['--std=c++17'] }).compile('cubin');
        const kernel = code.getKernel('memory_ops');
        const resource = makeResource();
        const count = 1024;
        const buffer = resource.allocate(count * 4, { stream: own });
        // Values in [0, 1) as upstream's random ones, but the same on every run.
        const original = Float32Array.from({ length: count }, (_, i) => ((i * 7919) % 1000) / 1000);
        buffer.copyFrom(original, { stream: own });
        own.sync();
        const block = 256;
        launch(
          own,
          new LaunchConfig({ grid: Math.ceil(count / block), block }),
          kernel,
          buffer,
          uint64(count),
        );
        own.sync();
        const result = new Float32Array(count);
        buffer.copyTo(result, { stream: own });
        own.sync();
        for (let i = 0; i < count; i++) expect(result[i]).toBe(Math.fround((original[i] as number) * 3));
        buffer.close({ stream: own });
        own.close();
        expect(buffer.isClosed).toBe(true);
        if (label === 'LegacyPinnedMemoryResource') resource.close();
        code.close();
      },
    );
  }

  gatedIt(
    undefined,
    'test_kernel_arg_unsupported_type: a string argument is a TypeError before any driver call',
    () =>
      withCountingDriver(useDriver, entry.driver, (log) => {
        const code = ObjectCode.fromPTX(referenceKernelsPTX);
        const kernel = code.getKernel('write_u32');
        const on = Stream.create(0);
        const config = new LaunchConfig({ grid: 1, block: 1 });
        // The kernel's parameter layout is read once, at its first use: read it before counting.
        expect(kernel.argumentInfo === null || kernel.argumentInfo.length === 2).toBe(true);
        log.reset();
        expect(() => launch(on, config, kernel, 'not_a_valid_kernel_arg' as never, uint32(0))).toThrow(
          /argument 0 must be a Buffer, StridedMemoryView, CudaBuffer, bigint or a scalar wrapper/,
        );
        expect(log.calls).toEqual([]);
        on.close();
        code.close();
      }),
  );
});

// Thread-block clusters need a device with them (compute capability 9.0 and newer).
describeEachDriver(
  adapters,
  'cuda.core test_launcher.py, clusters',
  (entry) => {
    beforeAll(() => {
      useDriver(entry.driver);
    });

    gatedIt(
      undefined,
      'test_launch_config_native_conversion: the driver receives the grid in blocks (cuda.core multiplies clusters out; cumem is given blocks)',
      () => {
        expect(geometryAtDriver(entry, new LaunchConfig({ grid: 8, cluster: 2, block: 32 }))).toMatchObject({
          grid: [8, 1, 1],
          cluster: [2, 1, 1],
        });
        expect(
          geometryAtDriver(entry, new LaunchConfig({ grid: [4, 6], cluster: [2, 2], block: 32 })),
        ).toMatchObject({ grid: [4, 6, 1], cluster: [2, 2, 1] });
        expect(geometryAtDriver(entry, new LaunchConfig({ grid: 4, block: 32 }))).toMatchObject({
          grid: [4, 1, 1],
          cluster: null,
        });
      },
    );

    gatedIt(
      undefined,
      'test_to_native_launch_config_cluster_branch: the driver receives grid, block and the cluster dimension',
      () => {
        const config = new LaunchConfig({ grid: [4, 6, 8], cluster: [2, 2, 2], block: [5, 6, 7] });
        expect(geometryAtDriver(entry, config)).toEqual({
          grid: [4, 6, 8],
          block: [5, 6, 7],
          sharedMemBytes: 0,
          cluster: [2, 2, 2],
        });
      },
    );
  },
  {
    requires: (driver) =>
      driver.deviceGetAttribute(LaunchDeviceAttribute.ClusterLaunch, 0) === 1
        ? undefined
        : 'not applicable: device 0 has no thread-block clusters',
  },
);
