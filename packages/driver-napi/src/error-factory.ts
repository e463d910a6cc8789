import {
  CudaError,
  DriverUnavailableError,
  type DriverUnavailableReason,
  NotSupportedError,
} from '@cumem/core-types';
import { unavailableMessage } from './unavailable-message.js';

/**
 * Builds every error the addon throws, so they are the classes of `@cumem/core-types`, with
 * the same fields and messages as the other adapters. The addon calls it only on failure.
 * @internal
 */
export function createNativeError(kind: string, ...details: unknown[]): Error {
  switch (kind) {
    case 'cuda': {
      const [code, codeName, call, description] = details as [number, string | null, string, string | null];
      return new CudaError({
        code,
        codeName: codeName ?? `unrecognized CUresult ${code}`,
        call,
        description: description ?? undefined,
      });
    }
    case 'unavailable': {
      const [reason, detail, libraryPath, driverVersion] = details as [
        DriverUnavailableReason,
        string,
        string,
        number,
      ];
      return new DriverUnavailableError(
        reason,
        unavailableMessage(reason, detail, libraryPath, driverVersion),
      );
    }
    case 'notSupported':
      return new NotSupportedError(String(details[0]));
    default:
      return new Error(`${kind}: ${details.join(' ')}`);
  }
}
