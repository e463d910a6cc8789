import { type DriverFacts, deriveCapabilities, symbolsOfVersion } from '@cumem/driver-kit';

/** The CUDA version the reference driver reports. */
export const referenceDriverVersion = 13000;

/**
 * The reference driver's capabilities: driver-kit's derivation for a CUDA 13.0 driver that
 * exports every entry point, in the mode asked for. Cross-process sharing is not emulated.
 */
export function referenceFacts(legacy: boolean): DriverFacts {
  const mode = legacy ? 'legacy' : 'auto';
  const capabilities = deriveCapabilities({
    resolved: symbolsOfVersion(referenceDriverVersion),
    driverVersion: referenceDriverVersion,
    mode,
    interprocess: false,
  });
  return { capabilities, driverVersion: referenceDriverVersion, mode };
}
