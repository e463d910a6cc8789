// A launch's geometry as the adapters hand it to native code, packed by one function for both.
import type { KernelLaunchConfig } from '@cumem/core-types';

/**
 * Writes the geometry of `config` into `words`: grid x, y, z, block x, y, z and the dynamic
 * shared memory in bytes at words 0 to 6 (the head of the driver's `CUlaunchConfig`, so the FFI
 * adapter writes the struct in place), and the cluster's x, y, z from word `clusterAt` on
 * (zeros without a cluster, which no launch can ask for). Values are not checked: callers pass a
 * config that `@cumem/compute` checked.
 * @returns whether the launch uses thread-block clusters.
 */
export function packLaunchGeometry(
  config: KernelLaunchConfig,
  words: Uint32Array,
  clusterAt: number,
): boolean {
  const { grid, block, cluster } = config;
  words[0] = grid[0];
  words[1] = grid[1];
  words[2] = grid[2];
  words[3] = block[0];
  words[4] = block[1];
  words[5] = block[2];
  words[6] = config.sharedMemBytes;
  words[clusterAt] = cluster === null ? 0 : cluster[0];
  words[clusterAt + 1] = cluster === null ? 0 : cluster[1];
  words[clusterAt + 2] = cluster === null ? 0 : cluster[2];
  return cluster !== null;
}
