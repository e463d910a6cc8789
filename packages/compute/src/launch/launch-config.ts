// LaunchConfig: the grid, block, dynamic shared memory and cluster of a launch, checked for
// shape here (positive 32-bit integers, 1 to 3 dimensions) and against the device at launch.
import { checkOptions, type Dimensions, describeValue, objectDescription } from '@cumem/core-types';

/** One to three dimensions: a number is `[x, 1, 1]`, `[x, y]` is `[x, y, 1]`. */
export type DimensionsArgument =
  | number
  | readonly [number]
  | readonly [number, number]
  | readonly [number, number, number];

/** What `new LaunchConfig` takes. */
export interface LaunchConfigOptions {
  /** Grid size in blocks per dimension. */
  readonly grid: DimensionsArgument;
  /** Block size in threads per dimension. */
  readonly block: DimensionsArgument;
  /** Dynamic shared memory per block, in bytes. Default 0. */
  readonly sharedMemBytes?: number;
  /** Thread-block cluster size in blocks per dimension (compute capability 9.0 and newer); each grid dimension must be a multiple of it. Default: no clusters. */
  readonly cluster?: DimensionsArgument;
}

const largestDimension = 2 ** 32 - 1;

function dimensions(value: unknown, name: string): Dimensions {
  const list = typeof value === 'number' ? [value] : value;
  if (!Array.isArray(list) || list.length < 1 || list.length > 3) {
    throw new TypeError(
      `${name} must be a number or an array of 1 to 3 numbers, got ${describeValue(value)}`,
    );
  }
  const axes = ['x', 'y', 'z'];
  const result = [1, 1, 1];
  list.forEach((extent: unknown, axis) => {
    if (typeof extent !== 'number') {
      throw new TypeError(`${name}.${axes[axis]} must be a number, got ${describeValue(extent)}`);
    }
    if (!Number.isInteger(extent) || extent < 1 || extent > largestDimension) {
      throw new RangeError(
        `${name}.${axes[axis]} must be an integer from 1 to ${largestDimension}, got ${extent}`,
      );
    }
    result[axis] = extent;
  });
  return Object.freeze(result) as unknown as Dimensions;
}

/** A launch's geometry (cuda.core's `LaunchConfig`). Immutable. */
export class LaunchConfig {
  /** Grid size in blocks, `[x, y, z]`. */
  readonly grid: Dimensions;
  /** Block size in threads, `[x, y, z]`. */
  readonly block: Dimensions;
  /** Dynamic shared memory per block, in bytes. */
  readonly sharedMemBytes: number;
  /** Cluster size in blocks, or null for none. */
  readonly cluster: Dimensions | null;
  // The brand: only this constructor, which checked the fields, gives an object this field.
  readonly #checked = true;

  /**
   * @throws TypeError for a missing or wrongly typed field; RangeError for a dimension that is
   *   not an integer from 1 to 2**32 - 1, a negative or fractional `sharedMemBytes`, or a grid
   *   dimension that is not a multiple of the cluster's. Device limits are checked at launch.
   */
  constructor(options: LaunchConfigOptions) {
    const { grid, block, sharedMemBytes = 0, cluster } = checkOptions(options, 'LaunchConfig options');
    if (grid === undefined || block === undefined) throw new TypeError('LaunchConfig needs grid and block');
    this.grid = dimensions(grid, 'grid');
    this.block = dimensions(block, 'block');
    if (typeof sharedMemBytes !== 'number') {
      throw new TypeError(`sharedMemBytes must be a number, got ${describeValue(sharedMemBytes)}`);
    }
    if (!Number.isInteger(sharedMemBytes) || sharedMemBytes < 0 || sharedMemBytes > largestDimension) {
      throw new RangeError(
        `sharedMemBytes must be an integer from 0 to ${largestDimension}, got ${sharedMemBytes}`,
      );
    }
    this.sharedMemBytes = sharedMemBytes;
    this.cluster = cluster === undefined ? null : dimensions(cluster, 'cluster');
    if (this.cluster !== null) {
      for (let axis = 0; axis < 3; axis++) {
        if ((this.grid[axis] as number) % (this.cluster[axis] as number) !== 0) {
          throw new RangeError(
            `grid ${this.grid.join('x')} is not a multiple of cluster ${this.cluster.join('x')} in dimension ${'xyz'[axis]}`,
          );
        }
      }
    }
    Object.freeze(this);
  }

  /**
   * Whether `value` is a LaunchConfig made by this constructor (its brand: one private-field
   * test), not an object inheriting from one, whose fields could be anything, or a Proxy of one.
   */
  static isLaunchConfig(value: unknown): value is LaunchConfig {
    return typeof value === 'object' && value !== null && #checked in value;
  }

  static readonly #description = objectDescription('LaunchConfig', LaunchConfig.isLaunchConfig, (config) => ({
    grid: config.grid.join('x'),
    block: config.block.join('x'),
    sharedMemBytes: config.sharedMemBytes,
    cluster: config.cluster === null ? null : config.cluster.join('x'),
  }));

  /**
   * `LaunchConfig(grid: 2x3x1, block: 4x1x1, sharedMemBytes: 16, cluster: null)`. `util.inspect`
   * shows the fields themselves (they are public and frozen).
   */
  toString(): string {
    return LaunchConfig.#description.text(this);
  }
}
