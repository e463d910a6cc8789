import { inspectCustom } from './objects/object-description.js';
import { checkOptions, describeValue } from './validate.js';

const hostMarker = Symbol.for('cumem.location.host');
const hostsByNuma = new Map<number | null, Host>();
// Built lazily so that `new Host()` and `Host.numaCurrent()` never collide in the map.
let numaCurrentHost: Host | undefined;
let constructingNumaCurrent = false;

/** Options for {@link Host}. */
export interface HostOptions {
  /** A host NUMA node id (>= 0), or null / omitted for "the host, placed by the OS". */
  readonly numaId?: number | null;
}

/**
 * Host memory as a location: the whole host (`new Host()`), one NUMA node
 * (`new Host({ numaId })`), or the NUMA node of the calling thread (`Host.numaCurrent()`).
 * All interned: equal locations are the same object.
 */
export class Host {
  readonly [hostMarker] = true;
  /** The NUMA node, or null for the whole host and for {@link Host.numaCurrent}. */
  declare readonly numaId: number | null;
  /** True only for {@link Host.numaCurrent}. */
  declare readonly isNumaCurrent: boolean;

  constructor(options?: HostOptions) {
    if (constructingNumaCurrent) {
      Object.defineProperty(this, 'numaId', { value: null, enumerable: true });
      Object.defineProperty(this, 'isNumaCurrent', { value: true, enumerable: true });
      Object.freeze(this);
      return;
    }
    const numaId = checkOptions(options, 'Host options').numaId ?? null;
    if (numaId !== null) {
      if (typeof numaId !== 'number' || !Number.isInteger(numaId)) {
        throw new TypeError(`Host numaId must be an integer or null, got ${describeValue(numaId)}`);
      }
      if (numaId < 0) throw new RangeError(`Host numaId must be >= 0, got ${numaId}`);
    }
    const existing = hostsByNuma.get(numaId);
    // biome-ignore lint/correctness/noConstructorReturn: the spec makes locations interned, so `new` hands back the one instance.
    if (existing) return existing;
    Object.defineProperty(this, 'numaId', { value: numaId, enumerable: true });
    Object.defineProperty(this, 'isNumaCurrent', { value: false, enumerable: true });
    hostsByNuma.set(numaId, this);
    Object.freeze(this);
  }

  /** The NUMA node of the calling thread, resolved by the driver at the time of use. */
  static numaCurrent(): Host {
    if (!numaCurrentHost) {
      constructingNumaCurrent = true;
      try {
        numaCurrentHost = new Host();
      } finally {
        constructingNumaCurrent = false;
      }
    }
    return numaCurrentHost;
  }

  toString(): string {
    if (this.isNumaCurrent) return 'Host.numaCurrent()';
    return this.numaId === null ? 'Host()' : `Host({ numaId: ${this.numaId} })`;
  }

  /** `util.inspect` shows what `toString` does (a location is a value: its form is its identity). */
  [inspectCustom](): string {
    return this.toString();
  }

  /** True for a Host, also one made by another copy of this package. */
  static isInstance(value: unknown): value is Host {
    return (
      typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[hostMarker] === true
    );
  }
}
