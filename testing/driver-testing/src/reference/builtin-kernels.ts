// The kernels the reference driver runs on the CPU, by name and parameter types: those of
// referenceKernelsPTX (builtin-kernels-ptx.ts). A kernel reads its arguments from the launch's
// parameter bytes and reaches device memory through `memory`, which faults (throws) outside
// every live allocation, as an illegal address does on a GPU.
import type { KernelLaunchConfig } from '@cumem/core-types';

/** Device memory as a kernel sees it: `size` bytes at `address`, or a throw. */
export type KernelMemory = (address: bigint, size: number) => DataView;

/** One launch's view of its arguments and geometry. */
export interface KernelInvocation {
  readonly config: KernelLaunchConfig;
  /** Parameter `i` starts at `parameters.byteOffset + offsets[i]` of `parameters`. */
  readonly parameters: DataView;
  readonly offsets: Uint32Array;
  readonly memory: KernelMemory;
}

/** A CPU kernel and the PTX parameter types it was written for. */
export interface BuiltinKernel {
  readonly types: readonly string[];
  run(invocation: KernelInvocation): void;
}

const u64 = (k: KernelInvocation, i: number) => k.parameters.getBigUint64(k.offsets[i] as number, true);
const u32 = (k: KernelInvocation, i: number) => k.parameters.getUint32(k.offsets[i] as number, true);
const f32 = (k: KernelInvocation, i: number) => k.parameters.getFloat32(k.offsets[i] as number, true);

function threadCount(config: KernelLaunchConfig): number {
  const [gx, gy, gz] = config.grid;
  const [bx, by, bz] = config.block;
  return gx * gy * gz * bx * by * bz;
}

/** Threads of a 1-D launch whose index is below `n` (the kernels guard `i < n`). */
function activeThreads(k: KernelInvocation, n: number): number {
  return Math.min(n, k.config.grid[0] * k.config.block[0]);
}

export const builtinKernels: ReadonlyMap<string, BuiltinKernel> = new Map<string, BuiltinKernel>([
  [
    'fill_f32',
    {
      types: ['u64', 'f32', 'u32'],
      run(k) {
        const count = activeThreads(k, u32(k, 2));
        if (count === 0) return;
        const out = k.memory(u64(k, 0), count * 4);
        const value = f32(k, 1);
        for (let i = 0; i < count; i++) out.setFloat32(i * 4, value, true);
      },
    },
  ],
  [
    'add_f32',
    {
      types: ['u64', 'u64', 'u64', 'u32'],
      run(k) {
        const count = activeThreads(k, u32(k, 3));
        if (count === 0) return;
        const a = k.memory(u64(k, 0), count * 4);
        const b = k.memory(u64(k, 1), count * 4);
        const out = k.memory(u64(k, 2), count * 4);
        for (let i = 0; i < count; i++) {
          out.setFloat32(i * 4, Math.fround(a.getFloat32(i * 4, true) + b.getFloat32(i * 4, true)), true);
        }
      },
    },
  ],
  [
    'iota_u32',
    {
      types: ['u64', 'u32'],
      run(k) {
        const count = Math.min(u32(k, 1), threadCount(k.config));
        if (count === 0) return;
        const out = k.memory(u64(k, 0), count * 4);
        for (let i = 0; i < count; i++) out.setUint32(i * 4, i, true);
      },
    },
  ],
  [
    'reverse_block_u32',
    {
      types: ['u64'],
      run(k) {
        const width = k.config.block[0];
        const blocks = k.config.grid[0];
        // The GPU would read and write shared memory past what the launch gave it.
        if (k.config.sharedMemBytes < width * 4) throw new RangeError('shared memory out of bounds');
        const data = k.memory(u64(k, 0), blocks * width * 4);
        for (let block = 0; block < blocks; block++) {
          const base = block * width * 4;
          const values = Array.from({ length: width }, (_, t) => data.getUint32(base + t * 4, true));
          values.reverse().forEach((value, t) => {
            data.setUint32(base + t * 4, value, true);
          });
        }
      },
    },
  ],
  [
    'write_u32',
    {
      types: ['u64', 'u32'],
      run(k) {
        k.memory(u64(k, 0), 4).setUint32(0, u32(k, 1), true);
      },
    },
  ],
  [
    'store_scalars',
    {
      types: ['u64', 'u32', 'u32', 'u64', 'u64', 'f32', 'f64', 'u8'],
      run(k) {
        const out = k.memory(u64(k, 0), 41);
        const p = k.parameters;
        const at = (i: number) => k.offsets[i] as number;
        out.setUint32(0, p.getUint32(at(1), true), true);
        out.setUint32(4, p.getUint32(at(2), true), true);
        out.setBigUint64(8, p.getBigUint64(at(3), true), true);
        out.setBigUint64(16, p.getBigUint64(at(4), true), true);
        out.setFloat32(24, p.getFloat32(at(5), true), true);
        out.setFloat64(32, p.getFloat64(at(6), true), true);
        out.setUint8(40, p.getUint8(at(7)));
      },
    },
  ],
  ['empty5', { types: ['u64', 'u64', 'u32', 'u32', 'f32'], run() {} }],
]);
