// The Set protocol of a live view of something the driver keeps: a managed buffer's accessed-by
// advice (AccessedByView), the devices with access to a pool (PeerAccessView). Nothing is mirrored
// in JS: every read asks the driver again, so what other code set shows. The reads are written
// here once; each view gives the elements now and its own has / add / delete / clear, whose
// checks and driver calls are its own.

/**
 * What a live, Set-like view shares with a `Set`: `size`, `forEach`, `values`, `keys` and
 * iteration, over the elements the driver reports at the time of each call.
 */
export abstract class LiveSetView<T> implements Iterable<T> {
  // The view class that made the view: the brand. A private field is neither inherited nor seen
  // through a Proxy, and naming the class keeps one kind of view's members off the other kind.
  readonly #type: object;

  protected constructor() {
    this.#type = new.target;
  }

  /**
   * @internal The brand test of the views `type` makes, for `guardMembers`: true only for
   * an object `type`'s constructor made.
   */
  static brandOf(type: object): (value: unknown) => boolean {
    return (value) => typeof value === 'object' && value !== null && #type in value && value.#type === type;
  }

  /**
   * @internal The elements now, asked of the driver. Every member here reads it first, and a
   * view's brand check guards it, so a Proxy of a view or an object inheriting from one gets
   * that view's TypeError.
   */
  protected abstract elements(): T[];

  /** Number of elements now. */
  get size(): number {
    return this.elements().length;
  }

  /** Calls `callback(value, value, view)` for each element, as `Set.prototype.forEach` does. */
  forEach(callback: (value: T, key: T, view: this) => void, thisArgument?: unknown): void {
    for (const value of this.elements()) callback.call(thisArgument, value, value, this);
  }

  /** The elements now. */
  values(): IterableIterator<T> {
    return this.elements()[Symbol.iterator]();
  }

  /** Same as {@link LiveSetView.values}, as on a Set. */
  keys(): IterableIterator<T> {
    return this.values();
  }

  /** The elements now, as {@link LiveSetView.values}: what `for (const value of view)` walks. */
  [Symbol.iterator](): IterableIterator<T> {
    return this.values();
  }
}
