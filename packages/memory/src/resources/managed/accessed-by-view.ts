import { guardMembers, isLocation, type Location } from '@cumem/core-types';
import { checkAccessorLocation, isNumaHost } from '../../runtime/location-arguments.js';
import { LiveSetView } from '../live-set-view.js';

/** What the view needs from its managed buffer. */
export interface AccessAdvisor {
  /** The locations the driver reports as advised accessors now (`ACCESSED_BY`). */
  queryAccessedBy(): Location[];
  /** Sets (`true`) or unsets the accessed-by advice for `location`. */
  adviseAccessedBy(location: Location, set: boolean): void;
  /** Throws CudaStateError when the buffer is closed. */
  checkAdvisable(location: Location): void;
}

const viewToken = Symbol('cumem.accessedByView');

/**
 * The locations advised as accessors of a managed buffer: a live, Set-like view. Every read
 * asks the driver (`cuMemRangeGetAttribute(ACCESSED_BY)`), every change advises it; nothing is
 * mirrored in JS. The driver reports host accessors without NUMA detail, so they read back as
 * `new Host()`.
 */
export class AccessedByView extends LiveSetView<Location> {
  /**
   * Not for use: a ManagedBuffer's `accessedBy` is the view. Called directly, it throws a
   * TypeError saying so.
   */
  private constructor(
    token: symbol,
    private readonly advisor: AccessAdvisor,
  ) {
    super();
    if (token !== viewToken) {
      throw new TypeError("AccessedByView has no public constructor: use a ManagedBuffer's accessedBy");
    }
    // Frozen: `view.advisor = { ... }` would advise a range the program never allocated.
    Object.freeze(this);
  }

  /** @internal The view of `advisor`'s accessors. */
  static of(advisor: AccessAdvisor): AccessedByView {
    return new AccessedByView(viewToken, advisor);
  }

  /** @internal The advised accessors now. */
  protected elements(): Location[] {
    return this.advisor.queryAccessedBy();
  }

  /** True when `location` is advised as an accessor; false for anything that is not a location. */
  has(location: unknown): boolean {
    return isLocation(location) && this.elements().includes(location);
  }

  /**
   * Advises `location` as an accessor (`CU_MEM_ADVISE_SET_ACCESSED_BY`).
   * @throws TypeError for anything but a Device or `new Host()` (the driver takes no NUMA host
   *   for this advice).
   */
  add(location: Location): this {
    checkAccessorLocation(location, 'accessedBy location');
    this.advisor.checkAdvisable(location);
    this.advisor.adviseAccessedBy(location, true);
    return this;
  }

  /**
   * Removes the advice for `location`; false (and no driver change) when it was not advised or
   * cannot be (not a location, or a NUMA host).
   */
  delete(location: unknown): boolean {
    if (!isLocation(location) || isNumaHost(location)) return false;
    this.advisor.checkAdvisable(location);
    if (!this.elements().includes(location)) return false;
    this.advisor.adviseAccessedBy(location, false);
    return true;
  }

  /** Removes every accessor advice. */
  clear(): void {
    for (const location of this.elements()) this.advisor.adviseAccessedBy(location, false);
  }

  get [Symbol.toStringTag](): string {
    return 'AccessedByView';
  }
}

// The brand in front of every member: a Proxy of a view, or an object inheriting from one, gets a
// TypeError naming the member, not the engine's private-field error. The tag answers any receiver:
// describing an imitation must not throw.
guardMembers(AccessedByView, LiveSetView.brandOf(AccessedByView), [Symbol.toStringTag]);

/**
 * Every element of `locations` as an accessor location, all checked before anything is advised.
 * @throws TypeError for a non-iterable or any element that is not a Device or `new Host()`.
 */
export function checkLocationList(locations: unknown): Location[] {
  if (
    locations === null ||
    typeof (locations as Iterable<unknown>)?.[Symbol.iterator] !== 'function' ||
    typeof locations === 'string'
  ) {
    throw new TypeError('accessedBy must be assigned an iterable of Device / new Host() locations');
  }
  const result: Location[] = [];
  let index = 0;
  for (const location of locations as Iterable<unknown>) {
    result.push(checkAccessorLocation(location, `accessedBy[${index}]`));
    index++;
  }
  return result;
}
