// The real adapters the driver matrix runs the suites against (skipped visibly without a GPU).
export { adapters } from '@cumem/test-support';
