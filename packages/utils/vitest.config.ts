import { packageTestConfig } from '@cumem/vitest-config';

export default packageTestConfig('utils', {
  // Forked workers with --expose-gc, so the DLPack tests can prove a collected view calls the deleter.
  pool: 'forks',
  poolOptions: { forks: { execArgv: ['--expose-gc'] } },
});
