// The public DLPack export of memory described field by field (a Buffer's, or a view's of
// @cumem/utils): checks the source, then exports it through dlpack-capsule.ts, reaching the
// Buffer, when there is one, through the owner its state makes (buffer-export-owner.ts).
import { checkAddress, describeValue } from '@cumem/core-types';
import { type BufferBase, bufferBrand } from '../../buffer/buffer-base.js';
import { exportOwner } from '../../buffer/buffer-export-owner.js';
import { type DLPackCapsule, exportTensor, type ToDLPackOptions } from './dlpack-capsule.js';
import { checkObject, checkRange, checkTensorShape } from './dlpack-checks.js';

/** What an export describes (the struct's fields, but the data pointer of element 0). */
export interface DLPackSource {
  /** Address of element (0, ..., 0). */
  readonly pointer: bigint;
  readonly shape: readonly number[];
  /** In elements. */
  readonly strides: readonly number[];
  /** DLPack's `DLDataType`: type code (kDLInt 0, kDLUInt 1, kDLFloat 2, kDLBfloat 4, ...), bits per lane, lanes. */
  readonly dtype: { readonly code: number; readonly bits: number; readonly lanes: number };
  readonly readonly: boolean;
  /** The Buffer whose memory it is (held until the consumer is done), or undefined. */
  readonly buffer: BufferBase | undefined;
  /** Kept reachable until the consumer is done (a view of memory with no Buffer). */
  readonly keepAlive: unknown;
  /** Device of the memory (-1 for host memory). */
  readonly deviceId: number;
}

/** Checks an export source (see DLPackSource). */
function checkDLPackSource(value: unknown): void {
  const source = checkObject(value, 'source');
  checkAddress(source.pointer, 'source.pointer');
  checkTensorShape(source, 'source');
  if (source.buffer !== undefined && !bufferBrand.has(source.buffer)) {
    throw new TypeError(`source.buffer must be a Buffer or undefined, got ${describeValue(source.buffer)}`);
  }
  checkRange(source.deviceId, -1, 2 ** 31 - 1, 'source.deviceId');
}

/**
 * Exports `source` as a DLPack struct (see {@link DLPackCapsule}). The device it names follows
 * what can access the memory (`kDLCPU` for pageable memory). An export of a Buffer is recorded
 * in the export registry until released, so a resize cannot unmap or move its bytes.
 * @throws TypeError for bad options or memory neither a device nor the host can access;
 *   CudaStateError for a closed buffer or stream.
 */
export function exportDLPack(source: DLPackSource, options?: ToDLPackOptions): DLPackCapsule {
  checkDLPackSource(source);
  const buffer = source.buffer;
  return exportTensor(source, buffer === undefined ? undefined : exportOwner(buffer), options);
}
