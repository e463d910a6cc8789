// In-process stand-in for pool IPC over the reference driver, so the importer's checks run
// without a GPU: an exported pool is a temporary file holding the pool's handle, an imported pool
// an alias of it, and an imported pointer the exporter's own. Like the CUDA 13.0 driver, a
// second import of one pointer returns the same pointer and the first cuMemFreeAsync of it
// unmaps it. (A second free would fail there; here it would free the exporter's memory, which
// `unmaps` and the exporter's own close then show.)
import { closeSync, mkdtempSync, openSync, readSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  CudaError,
  type DevicePointer,
  type Driver,
  type DriverHandle,
  MemHandleType,
  type MemLocation,
  type MemPoolProperties,
  PointerHandleAttribute,
} from '@cumem/core-types';

/** The emulating driver and what it saw. */
export interface IpcEmulation {
  readonly driver: Driver;
  /** Imported pointers still mapped (imported and not yet freed). */
  readonly mapped: Set<bigint>;
  /** cuMemFreeAsync calls that unmapped an import. */
  unmaps: number;
  /** Imported pools not yet destroyed. */
  readonly pools: Map<DriverHandle, DriverHandle>;
}

function invalidValue(call: string): CudaError {
  return new CudaError({ code: 1, codeName: 'CUDA_ERROR_INVALID_VALUE', call });
}

/** Wraps the reference driver `base` (which must be the only user of its state) with pool IPC. */
export function emulateIpc(base: Driver): IpcEmulation {
  const mapped = new Set<bigint>();
  const pools = new Map<DriverHandle, DriverHandle>();
  let nextAlias = 1n << 48n;
  const target = (pool: DriverHandle) => pools.get(pool) ?? pool;
  const emulation = { driver: base, mapped, unmaps: 0, pools };
  const overrides: Partial<Driver> = {
    // The reference driver refuses shareable handle types; the stand-in shares through files.
    memPoolCreate: (properties: MemPoolProperties) =>
      base.memPoolCreate({ ...properties, handleTypes: MemHandleType.None }),
    memPoolExportToFileDescriptor(pool: DriverHandle): number {
      const directory = mkdtempSync(join(tmpdir(), 'cumem-ipc-'));
      const path = join(directory, 'pool');
      writeFileSync(path, pool.toString());
      const fd = openSync(path, 'r');
      rmSync(directory, { recursive: true });
      return fd;
    },
    memPoolImportFromFileDescriptor(fd: number): DriverHandle {
      const bytes = Buffer.alloc(64);
      const length = readSync(fd, bytes, 0, 64, 0);
      const alias = nextAlias++;
      pools.set(alias, BigInt(bytes.subarray(0, length).toString()));
      return alias;
    },
    memPoolDestroy(pool: DriverHandle): void {
      if (pools.delete(pool)) return;
      base.memPoolDestroy(pool);
    },
    memPoolGetAccess: (pool: DriverHandle, location: MemLocation) =>
      base.memPoolGetAccess(target(pool), location),
    memPoolSetAccess: (pool: DriverHandle, location: MemLocation, flags: number) =>
      base.memPoolSetAccess(target(pool), location, flags),
    memPoolExportPointer(pointer: DevicePointer): Uint8Array {
      const data = new Uint8Array(64);
      new DataView(data.buffer).setBigUint64(0, pointer, true);
      return data;
    },
    memPoolImportPointer(pool: DriverHandle, data: Uint8Array): DevicePointer {
      const pointer = new DataView(data.buffer, data.byteOffset).getBigUint64(0, true);
      const owner = base.pointerGetHandleAttribute(pointer, PointerHandleAttribute.MempoolHandle);
      if (!pools.has(pool) || owner !== pools.get(pool)) throw invalidValue('cuMemPoolImportPointer');
      mapped.add(pointer);
      return pointer;
    },
    memFreeAsync(pointer: DevicePointer, stream: DriverHandle): void {
      if (mapped.delete(pointer)) {
        emulation.unmaps++;
        return;
      }
      base.memFreeAsync(pointer, stream);
    },
  };
  const driver = Object.create(base, Object.getOwnPropertyDescriptors(overrides)) as Driver;
  Object.defineProperty(driver, 'capabilities', {
    value: Object.freeze({ ...base.capabilities, interprocess: true }),
  });
  emulation.driver = driver;
  return emulation;
}

/** Closes `fd`, ignoring a descriptor that is closed already. */
export function closeQuietly(fd: number): void {
  try {
    closeSync(fd);
  } catch {
    // closed already
  }
}
