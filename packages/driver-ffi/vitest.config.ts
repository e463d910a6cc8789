import { packageTestConfig } from '@cumem/vitest-config';

export default packageTestConfig('driver-ffi');
