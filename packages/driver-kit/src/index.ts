export { assembleDriver, bindMembers, type DriverAccessors } from './assemble-driver.js';
export { type CapabilityInputs, deriveCapabilities } from './capabilities.js';
export { type CheckedDriverOptions, checkDriverOptions } from './driver-options.js';
export { chooseEntryPoints, type EntryPointChoiceInputs } from './entry-point-choice.js';
export type {
  EntryPointParameter,
  EntryPointRow,
  ParameterCTypes,
  ParameterKind,
} from './entry-point-signature.js';
export {
  type CalledEntryPointSymbol,
  type EntryPointName,
  type EntryPointSymbol,
  type EntryPointTable,
  entryPointTable,
} from './entry-point-table.js';
export {
  type CapabilityRule,
  type CudaVersion,
  capabilityRules,
  LEGACY_CUDA_VERSION,
  type OptionalEntryPoint,
  optionalEntryPoints,
  symbolsOfVersion,
} from './entry-points.js';
export { checkFileDescriptor, duplicateDescriptorError, type SystemCallError } from './file-descriptor.js';
export { packLaunchGeometry } from './launch-geometry.js';
export { driverLocationId } from './location-forms.js';
export { SUPPORTED_DRIVER_PLATFORMS, unsupportedPlatformError } from './platform-support.js';
export {
  capabilityNote,
  checkLocationSupported,
  checkPoolKindSupported,
  type DriverFacts,
  isHostNumaLocation,
  unsupported,
} from './refusals.js';
export { type StagedSlice, stagedCopySlices } from './staged-copy-slices.js';
export {
  DEFAULT_DRIVER_LIBRARY,
  type DriverLoadFailure,
  driverUnavailableMessage,
  MINIMUM_DRIVER_VERSION,
} from './unavailable-message.js';
