// Shared by the test files only (not exported from the package).
// The adapters every test file of this package runs against (besides the reference driver).
export { adapters } from '@cumem/test-support';
