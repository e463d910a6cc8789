// Test support that several cumem packages share (a private workspace package, never published).
export { adapters } from './adapters.js';
export { withCountingDriver } from './counting-scope.js';
export {
  type CopiesFromHost,
  type CopiesToHost,
  download,
  type ElementArray,
  expectBytes,
  expectEvery,
  sameBytes,
  upload,
} from './device-bytes.js';
export { collectGarbageUntil } from './garbage.js';
export { type Imitation, imitationsOf, refuseImitations } from './imitations.js';
export { patternBytes } from './pattern-bytes.js';
export { skipWithoutPeerAccess } from './peer-access.js';
export { poolSharingDrivers } from './pool-sharing.js';
export {
  argumentLists,
  closedInstances,
  fuzzEntryPoints,
  runsPerEntryPoint,
  specialValues,
  trailingNullLists,
} from './public-api-fuzz.js';
export {
  type Closable,
  ShadowScope,
  shadowEveryMember,
  unshadow,
  viaPrototype,
} from './shadowed-buffers.js';
