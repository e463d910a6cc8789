import type { UserConfig } from 'vitest/config';
import type { InlineConfig } from 'vitest/node';

/** A package's vitest config (see config.mjs): `test` is added to the shared settings. */
export function packageTestConfig(name: string, test?: InlineConfig): UserConfig;
