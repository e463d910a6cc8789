// @cumem/interop-arrow/internal: what only cumem's bench and tests need from this package, to
// time the pieces of tableFromDevice / tableToDevice one by one (bench/js/arrow-upload-parts.mjs).
// Not public API: left out of the API report and the API docs, no semver promise. Programs use
// the package root, '@cumem/interop-arrow'.

export { PIPELINED_READ_MIN_BYTES } from './table/pipelined-read.js';
export { checkIpcStream } from './validation/ipc-stream-check.js';
