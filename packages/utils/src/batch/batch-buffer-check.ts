// The per-element check of a batch operation's buffers, at a cost that follows the number of
// distinct parents, not of elements. A batch is mostly slices of a few buffers; a slice shares
// its parent's driver, memory resource and pointer attributes, and is closed when it or its
// parent is. So each element costs its brand test, its own state bits and a comparison of its
// parent with the previous element's; what depends on the parent (its closed chain, driver,
// managed-ness, memory for the reachability checks) is asked when the parent changes, and its
// closed chain once more after the last element (recheck: code of the caller's that runs during
// the checks, a Proxy's trap or an owner's isClosed, may close a parent already entered).
// Asking each element's getters instead (isClosed walking the slice chain, memoryResource, the
// driver) was a large part of a batch call's own cost (bench/README.md, "The JS around a batch call").
import { CudaStateError, type Driver } from '@cumem/core-types';
import { type Buffer, bufferBrand } from '@cumem/memory';
import { bufferState } from '@cumem/memory/internal';

const noGroup: unique symbol = Symbol('no group yet');

/**
 * Checks the elements of one array of buffers, in order, with the state of the previous element
 * kept between calls. One instance per argument of an operation; reset by {@link begin}.
 */
export class BufferListCheck {
  /** Between {@link begin} and {@link end}. */
  busy = false;
  private name = '';
  private managed = false;
  private driver: Driver | undefined;
  private memories: Buffer[] | undefined;
  // Never a group bufferGroup returns (undefined and null are answers too).
  private lastGroup: unknown = noGroup;
  private lastMemory: unknown;
  private firstMemory: unknown;
  private seen: Set<unknown> | undefined;
  // Each parent entered and the first element of its run, for recheck().
  private readonly groups: Buffer[] = [];
  private readonly groupIndices: number[] = [];

  /**
   * Starts a list.
   * @param name the argument's name in errors (`'dsts'`: errors say `dsts[12]`).
   * @param managed every buffer must be managed memory.
   * @param driver the driver of the stream the work goes to: every buffer must belong to it.
   * @param memories when given (empty), receives one buffer per distinct memory (its memory
   *   resource; for external memory the buffer it slices, or itself), in first-seen order.
   */
  begin(name: string, managed: boolean, driver: Driver, memories?: Buffer[]): void {
    this.end();
    this.busy = true;
    this.name = name;
    this.managed = managed;
    this.driver = driver;
    this.memories = memories;
  }

  /** Forgets the buffers of the last list (a finished check keeps no caller's objects alive). */
  end(): void {
    this.busy = false;
    this.driver = undefined;
    this.memories = undefined;
    this.lastGroup = noGroup;
    this.lastMemory = undefined;
    this.firstMemory = undefined;
    this.seen = undefined;
    this.groups.length = 0;
    this.groupIndices.length = 0;
  }

  /**
   * Asks again whether each parent entered is closed, after the last element: code of the
   * caller's may run during the checks (a Proxy's or an element getter's trap, a `fromHandle`
   * owner's `isClosed`) and close a parent whose later slices were taken as open on its first
   * check. Once per run of slices of one parent.
   * @throws CudaStateError naming the first element of a closed parent's run.
   */
  recheck(): void {
    const { groups, groupIndices } = this;
    for (let i = 0; i < groups.length; i++) {
      if (bufferState(groups[i]!).isClosed) throw this.closed(groupIndices[i]!);
    }
  }

  /**
   * `value` (element `index`) as an open Buffer of the driver.
   * @throws TypeError for a non-Buffer (an imitation, a Proxy or an object inheriting from a
   *   Buffer included) or, when managed memory is needed, a non-managed one; CudaStateError for
   *   a closed Buffer (or a slice of a closed one) or a Buffer of another driver.
   */
  check(value: unknown, index: number): Buffer {
    // One read gives memory's brand, the element's own state and its parent (a slice's facts
    // are its parent's): an element of the run before costs that and one comparison. An object
    // shaped like a Buffer, inheriting from one or a Proxy of one would name memory the caller
    // never owned: it reads as undefined and is refused below.
    const group = bufferBrand.has(value) ? (bufferState(value).group?.buffer ?? null) : undefined;
    if (group !== this.lastGroup) this.checkNew(value, group as Buffer | null | undefined, index);
    return value as Buffer;
  }

  // A new parent, or an element that is no Buffer, closed, or follows an owner (rare, so kept
  // apart from the common case above). The element's name is built only when an error needs it.
  private checkNew(value: unknown, group: Buffer | null | undefined, index: number): void {
    if (group === undefined) bufferBrand.check(value, `${this.name}[${index}]`);
    const buffer = value as Buffer;
    if (group === null) {
      if (bufferState(buffer).isClosed) throw this.closed(index);
      const own = (bufferState(buffer).parent?.buffer as Buffer | undefined) ?? buffer;
      if (own !== this.lastGroup) this.enterGroup(buffer, own, index);
      return;
    }
    this.enterGroup(buffer, group as Buffer, index);
  }

  private enterGroup(buffer: Buffer, group: Buffer, index: number): void {
    if (bufferState(group).isClosed) throw this.closed(index);
    if (this.managed && !bufferState(group).isManaged) {
      throw new TypeError(
        `${this.name}[${index}] is not managed memory: this operation needs ManagedBuffers`,
      );
    }
    // The work goes to the stream's driver: a buffer of another driver is not its memory.
    const driver = this.driver as Driver;
    const own = bufferState(group).runtime.driver;
    if (own !== driver) {
      throw new CudaStateError(
        `${this.name}[${index}] belongs to driver ${own.name}, the stream to ${driver.name}`,
      );
    }
    this.lastGroup = group;
    this.groups.push(group);
    this.groupIndices.push(index);
    const memories = this.memories;
    if (memories === undefined) return;
    // Slices of external memory share the allocation's device and reachability: one per parent.
    const memory = bufferState(group).resource ?? group;
    if (memory === this.lastMemory) return;
    this.lastMemory = memory;
    if (memories.length === 0) {
      memories.push(buffer);
      this.firstMemory = memory;
      return;
    }
    // A set only from the second memory on: one resource (the common case) allocates none.
    this.seen ??= new Set([this.firstMemory]);
    if (!this.seen.has(memory)) {
      this.seen.add(memory);
      memories.push(buffer);
    }
  }

  private closed(index: number): CudaStateError {
    return CudaStateError.closed(`Buffer (${this.name}[${index}])`);
  }
}
