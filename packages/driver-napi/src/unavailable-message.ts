import type { DriverUnavailableReason } from '@cumem/core-types';
import { driverUnavailableMessage } from '@cumem/driver-kit';

/**
 * The message of the DriverUnavailableError for a failed load, in the wording both adapters
 * share (driver-kit's driverUnavailableMessage): what went wrong, then the "Possible solutions".
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
