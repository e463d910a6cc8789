// DLPack with native code that is not cumem: test/dlpack-peer/dlpack-peer.c, compiled here with
// `cc` against the dlpack.h that PyTorch or CuPy ships on this machine (so the struct layout is
// the ecosystem's, not cumem's copy) and linked with the CUDA driver, then loaded with koffi.
// GPU only: on the reference driver there is no native memory to hand over.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { collectReleasedExports, DeviceMemoryResource, useDriver } from '@cumem/memory';
import { dlpackStruct } from '@cumem/memory/internal';
import { describeEachDriver } from '@cumem/testing/vitest';
import { beforeAll, expect, it } from 'vitest';
import { StridedLayout } from '../src/strided/strided-layout.js';
import { StridedMemoryView } from '../src/strided/strided-memory-view.js';
import { adapters } from './support.js';

const { LegacyField, TensorField, VersionedField } = dlpackStruct;

const peerSource = fileURLToPath(new URL('./dlpack-peer/dlpack-peer.c', import.meta.url));

/** The first dlpack.h with DLManagedTensorVersioned that torch or cupy ships, or undefined. */
function findDLPackHeader(): string | undefined {
  const script = [
    'import glob, os',
    'for name in ("torch", "cupy"):',
    '    try:',
    '        module = __import__(name)',
    '    except Exception:',
    '        continue',
    '    for path in glob.glob(os.path.dirname(module.__file__) + "/**/dlpack.h", recursive=True):',
    '        print(path)',
  ].join('\n');
  let found = '';
  try {
    found = execFileSync('python3', ['-c', script], { encoding: 'utf8', timeout: 120_000 });
  } catch {
    return undefined;
  }
  return found
    .split('\n')
    .filter(Boolean)
    .find((path) => readFileSync(path, 'utf8').includes('DLManagedTensorVersioned'));
}

let header: string | undefined | null = null;
function headerReason(): string | undefined {
  // CUMEM_DLPACK_H names a header directly (a machine whose Python has neither package).
  if (header === null) header = process.env.CUMEM_DLPACK_H || findDLPackHeader();
  return header === undefined
    ? 'not applicable: neither PyTorch nor CuPy (with a DLPack >= 1.0 dlpack.h) is installed for python3'
    : undefined;
}

interface Peer {
  consume(
    tensor: bigint,
    info: BigInt64Array,
    shape: BigInt64Array,
    strides: BigInt64Array,
    bytes: Uint8Array,
    count: number,
  ): number;
  produce(data: bigint, rows: number, cols: number): bigint;
  deleterCalls(): number;
  layout(out: BigInt64Array): void;
}

/** Compiles the peer (cc, linked with the driver) and loads it with koffi. */
function buildPeer(): Peer {
  const out = join(mkdtempSync(join(tmpdir(), 'cumem-dlpack-peer-')), 'libdlpack-peer.so');
  const base = ['-shared', '-fPIC', '-O2', '-Wall', `-I${dirname(header as string)}`, peerSource, '-o', out];
  const attempts = [
    [...base, '-lcuda', '-lpthread'],
    [...base, '-l:libcuda.so.1', '-lpthread'],
  ];
  let failure: unknown;
  for (const args of attempts) {
    try {
      execFileSync('cc', args, { stdio: 'pipe' });
      failure = undefined;
      break;
    } catch (error) {
      failure = error;
    }
  }
  if (failure !== undefined || !existsSync(out))
    throw new Error(`cc failed: ${String((failure as { stderr?: unknown })?.stderr ?? failure)}`);
  // koffi as the FFI adapter (a sibling workspace package) resolves it.
  const koffi = createRequire(new URL('../../driver-ffi/package.json', import.meta.url))('koffi') as {
    load(path: string): { func(declaration: string): (...args: unknown[]) => unknown };
  };
  const lib = koffi.load(out);
  const consume = lib.func(
    'int peer_consume(uintptr_t tensor, int64_t *info, int64_t *shape, int64_t *strides, uint8_t *bytes, size_t count)',
  );
  const produce = lib.func('uintptr_t peer_produce(uint64_t data, int64_t rows, int64_t cols)');
  return {
    consume: (...args) => consume(...args) as number,
    produce: (data, rows, cols) => BigInt(produce(data, rows, cols) as number | bigint),
    deleterCalls: lib.func('int peer_deleter_calls(void)') as () => number,
    layout: lib.func('void peer_layout(int64_t *out)') as (out: BigInt64Array) => void,
  };
}

describeEachDriver(
  adapters,
  'DLPack with a native peer built against PyTorch/CuPy dlpack.h',
  (entry) => {
    let peer: Peer;
    let mr: DeviceMemoryResource;
    beforeAll(() => {
      useDriver(entry.driver);
      mr = new DeviceMemoryResource(0);
      peer = buildPeer();
    });

    it("lays the structs out as the ecosystem's dlpack.h does", () => {
      const layout = new BigInt64Array(6);
      peer.layout(layout);
      expect([...layout].map(Number)).toEqual([
        VersionedField.size,
        VersionedField.deleter,
        VersionedField.flags,
        VersionedField.tensor,
        TensorField.byteOffset,
        LegacyField.size,
      ]);
    });

    it('the peer consumes a cumem export, reads it with the driver and deletes it from another thread', () => {
      const values = Float32Array.from({ length: 12 }, (_, i) => i + 0.5);
      const buffer = mr.allocate(values.byteLength);
      buffer.copyFrom(values);
      buffer.copyTo(new Uint8Array(values.byteLength));
      // Every other column of a 3 x 4 matrix: shape [3, 2], strides [4, 2] elements.
      const layout = StridedLayout.dense([3, 4], 4).sliced(null, [null, null, 2]);
      const view = StridedMemoryView.fromBuffer(buffer, layout, { dtype: 'float32', isReadonly: true });
      const capsule = view.toDLPack();
      const pointer = capsule.consume();
      buffer.close();
      const info = new BigInt64Array(9);
      const shape = new BigInt64Array(8);
      const strides = new BigInt64Array(8);
      const bytes = new Uint8Array(values.byteLength);
      expect(peer.consume(pointer, info, shape, strides, bytes, bytes.byteLength)).toBe(0);
      // version 1.0, READ_ONLY, kDLCUDA 0, ndim 2, float32 x1.
      expect([...info].map(Number)).toEqual([1, 0, 1, 2, 0, 2, 2, 32, 1]);
      expect([...shape.subarray(0, 2)].map(Number)).toEqual([3, 2]);
      expect([...strides.subarray(0, 2)].map(Number)).toEqual([4, 2]);
      // The peer read the memory after buffer.close(): cumem held it for the consumer.
      expect(new Float32Array(bytes.buffer)).toEqual(values);
      expect(collectReleasedExports()).toBe(0);
    });

    it('cumem imports a struct the peer made and calls its deleter exactly once', () => {
      const values = Float32Array.from({ length: 6 }, (_, i) => 10 * i);
      using buffer = mr.allocate(values.byteLength);
      buffer.copyFrom(values);
      const before = peer.deleterCalls();
      const pointer = peer.produce(buffer.handle, 2, 3);
      expect(pointer).not.toBe(0n);
      const view = StridedMemoryView.fromDLPack(pointer);
      expect([view.shape, view.strides, view.dtype, view.readonly, view.deviceId]).toEqual([
        [2, 3],
        [1, 2],
        'float32',
        true,
        0,
      ]);
      const host = new Float32Array(6);
      view.copyTo(StridedMemoryView.fromHost(host, { shape: [2, 3], strides: [1, 2] }), { blocking: true });
      expect(host).toEqual(values);
      expect(peer.deleterCalls()).toBe(before);
      view.close();
      view.close();
      expect(peer.deleterCalls()).toBe(before + 1);
    });
  },
  { gpuOnly: true, requires: () => headerReason() },
);
