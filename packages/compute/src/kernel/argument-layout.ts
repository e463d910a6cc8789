// Where a kernel's arguments go in its parameter buffer, from the layout the driver reports
// (cuFuncGetParamInfo). Made once per kernel and reused by every launch of it: the driver copies
// the parameters before cuLaunchKernelEx returns, so one buffer serves them all.
import type { KernelParameterInfo } from '@cumem/core-types';

/** Where a kernel's arguments go: reused across launches when the driver reports the layout. */
export interface ArgumentLayout {
  readonly parameters: readonly KernelParameterInfo[];
  readonly offsets: Uint32Array;
  readonly bytes: Uint8Array;
  readonly view: DataView;
}

/** The reusable layout of a kernel whose parameters the driver reports. */
export function argumentLayout(parameters: readonly KernelParameterInfo[]): ArgumentLayout {
  const offsets = Uint32Array.from(parameters, (parameter) => parameter.offset);
  const end = parameters.reduce((most, parameter) => Math.max(most, parameter.offset + parameter.size), 8);
  const bytes = new Uint8Array(end);
  return { parameters, offsets, bytes, view: new DataView(bytes.buffer) };
}
