// What only the sibling packages need of the copy engine, kept apart so that it can move behind
// an internal entry point (@cumem/memory/internal). Not for applications.
// - interop-arrow's HostBuffer presents a Buffer's host view as its own object and finds it
//   again from the view (one registry: host-views.ts);
// - utils' copyBatch has the device<->device calls of a checked batch issued here.

export { hostViewWrapper, wrapHostView } from '../buffer/host-views.js';
// - interop-arrow's HostBuffer allocates from the driver's shared page-locked resources.
export { sharedHostResource } from '../resources/host-resources.js';
export { copyDeviceRanges, type DeviceRangeCalls, type DeviceRanges } from './device-range-copies.js';
// - utils' strided copies have each planned copy (1-D, 2-D, 3-D) issued here.
export { type CopyShape, type CopySide, issueCopy } from './pitched-copy.js';
