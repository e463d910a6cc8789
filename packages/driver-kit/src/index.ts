export { assembleDriver, bindMembers, type DriverAccessors } from './assemble-driver.js';
export { type CapabilityInputs, deriveCapabilities } from './capabilities.js';
export { chooseEntryPoints, type EntryPointChoiceInputs } from './entry-point-choice.js';
export {
  type CapabilityRule,
  type CudaVersion,
  capabilityRules,
  LEGACY_CUDA_VERSION,
  type OptionalEntryPoint,
  optionalEntryPoints,
  symbolsOfVersion,
} from './entry-points.js';
export { driverLocationId } from './location-forms.js';
export {
  capabilityNote,
  checkLocationSupported,
  checkPoolKindSupported,
  type DriverFacts,
  isHostNumaLocation,
  unsupported,
} from './refusals.js';
export { formatDriverVersion } from './version.js';
