// The compute members of the Driver contract over the addon (native/binding-compute.cc). A launch
// crosses into C++ as one reused ArrayBuffer (geometry, offsets, packed bytes) and two handles,
// and the two-number results come back as pairs.
import type { DriverCompute } from '@cumem/core-types';
import { packLaunchGeometry } from '@cumem/driver-kit';
import type { NativeBinding } from './native-binding.js';

// The launch area's layout, the same in native/binding-compute.cc (kArea*): 32-bit words 0-9
// the geometry, 10 the parameter count, 11 the packed bytes' length, the offsets from byte 48,
// the packed bytes from byte 304 (4096 of them: the classic kernel parameter limit).
const areaParameters = 64;
const areaBytes = 4096;
const areaOffsets = 48;
const areaData = areaOffsets + 4 * areaParameters;

/** The DriverCompute members over binding `b`. */
export function computeMembers(b: NativeBinding): DriverCompute {
  // One launch's geometry, rewritten per launch: one typed array crosses rather than 10 numbers.
  const geometry = new Uint32Array(10);
  // The hot launch form: geometry, offsets and packed bytes written into one ArrayBuffer that
  // stays with this driver (nothing else can reach it), so one value crosses besides the two
  // handles; launches of more parameters or bytes than it holds take the general form.
  const area = new ArrayBuffer(areaData + areaBytes);
  const words = new Uint32Array(area);
  const data = new Uint8Array(area, areaData);
  // An addon built before the area form (a stale build/) still launches, the general way.
  const hasArea = typeof b.launchKernelArea === 'function';
  return {
    libraryLoadData: b.libraryLoadData,
    libraryUnload: b.libraryUnload,
    libraryGetKernel: b.libraryGetKernel,
    kernelGetFunction: b.kernelGetFunction,
    funcGetAttribute: b.funcGetAttribute,
    funcSetAttribute: b.funcSetAttribute,
    funcGetParamInfo: (fn, index) => {
      const pair = b.funcGetParamInfo(fn, index);
      return pair === null ? null : { offset: pair[0], size: pair[1] };
    },
    launchKernelEx: (fn, config, argumentBytes, argumentOffsets, stream) => {
      const count = argumentOffsets.length;
      const length = argumentBytes.length;
      const fits =
        hasArea &&
        count <= areaParameters &&
        length <= areaBytes &&
        argumentBytes instanceof Uint8Array &&
        argumentOffsets instanceof Uint32Array;
      // Words 0-9 of either form: grid, block, shared memory, cluster (zeros: none).
      packLaunchGeometry(config, fits ? words : geometry, 7);
      if (!fits) {
        b.launchKernelEx(fn, geometry, argumentBytes, argumentOffsets, stream);
        return;
      }
      words[10] = count;
      words[11] = length;
      for (let index = 0; index < count; index++) words[12 + index] = argumentOffsets[index] as number;
      data.set(argumentBytes);
      b.launchKernelArea(fn, stream, area);
    },
    occupancyMaxActiveBlocksPerMultiprocessor: b.occupancyMaxActiveBlocksPerMultiprocessor,
    occupancyMaxPotentialBlockSize: (fn, dynamicSharedMemBytes, blockSizeLimit) => {
      const [minGridSize, blockSize] = b.occupancyMaxPotentialBlockSize(
        fn,
        dynamicSharedMemBytes,
        blockSizeLimit,
      );
      return { minGridSize, blockSize };
    },
  };
}
