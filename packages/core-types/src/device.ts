import { inspectCustom } from './objects/object-description.js';
import { checkInteger } from './validate.js';

const deviceMarker = Symbol.for('cumem.location.device');
const devices = new Map<number, Device>();

/**
 * A CUDA device by ordinal: identity and location only (runtime queries live in
 * `@cumem/memory`). Interned, so `new Device(0) === new Device(0)`.
 */
export class Device {
  readonly [deviceMarker] = true;
  /** The device ordinal, as `cuDeviceGet` counts them. */
  declare readonly ordinal: number;

  /**
   * @param ordinal device ordinal, default 0. A non-integer is a TypeError, a negative one a RangeError.
   *   Whether the device exists is checked where it is first used, not here.
   */
  constructor(ordinal = 0) {
    checkInteger(ordinal, 'Device ordinal');
    if (ordinal < 0) throw new RangeError(`Device ordinal must be >= 0, got ${ordinal}`);
    const existing = devices.get(ordinal);
    // biome-ignore lint/correctness/noConstructorReturn: the spec makes locations interned, so `new` hands back the one instance.
    if (existing) return existing;
    Object.defineProperty(this, 'ordinal', { value: ordinal, enumerable: true });
    devices.set(ordinal, this);
    Object.freeze(this);
  }

  toString(): string {
    return `Device(${this.ordinal})`;
  }

  /** `util.inspect` shows what `toString` does (a location is a value: its form is its identity). */
  [inspectCustom](): string {
    return this.toString();
  }

  /** True for a Device, also one made by another copy of this package. */
  static isInstance(value: unknown): value is Device {
    return (
      typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[deviceMarker] === true
    );
  }
}
