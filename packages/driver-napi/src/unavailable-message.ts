import { type DriverUnavailableReason, driverUnavailableMessage, formatCudaVersion } from '@cumem/core-types';

/** Formats a driver version such as 12080 as `12.8`. */
export const formatDriverVersion: (version: number) => string = formatCudaVersion;

/**
 * The message of the DriverUnavailableError for a failed load, in the wording both adapters
 * share (core-types' driverUnavailableMessage): what went wrong, then the "Possible solutions".
 * @param detail what the loader saw (the dlerror text, the missing symbols, the cuInit error).
 */
export function unavailableMessage(
  reason: DriverUnavailableReason,
  detail: string,
  libraryPath: string,
  driverVersion: number,
): string {
  return driverUnavailableMessage({
    reason: reason === 'no-adapter' ? 'init-failed' : reason,
    library: libraryPath,
    detail,
    driverVersion,
  });
}
