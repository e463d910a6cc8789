// JS memory that asynchronous copies on one stream read or write, kept referenced until the
// stream has passed those copies.
//
// An event per copy (create, record, query, destroy: four driver calls and a finalizer) cost
// more than a small pageable copy itself (bench/README.md). So memory is held in groups:
// a hold joins the open group, and only when that group is full (by count or bytes) is one
// event recorded after it. A group is released when its event, or any later one, has
// completed (a stream runs in order), or when the stream is synchronized. The open group,
// which has no event yet, is released only by a synchronization, or once a later group's event
// completes. The bound on a group keeps what a never-synchronized stream holds beyond what the
// GPU has not reached yet to at most GROUP_BYTES (or GROUP_MEMORIES views).
import { type DriverHandle, EventFlags } from '@cumem/core-types';
import type { HostMemory } from '../copy/host-memory.js';
import type { DriverRuntime } from '../runtime/driver-runtime.js';
import { createEvent, type Event } from './event.js';

/** A group is closed with an event once it holds this many views... */
const GROUP_MEMORIES = 64;
/** ...or this many bytes (a large copy closes its group at once: an event is cheap beside it). */
const GROUP_BYTES = 4 * 1024 * 1024;

interface HeldGroup {
  /** Groups are numbered in stream order, so a wait can name the last one it covers. */
  readonly sequence: number;
  readonly memories: HostMemory[];
  /** Recorded after the group's last copy; null while the group is open. */
  event: Event | null;
  bytes: number;
}

/** The held memory of one stream. */
export class HeldHostMemory {
  /** Closed groups, oldest first, each with its event; then at most one open group, last. */
  private groups: HeldGroup[] = [];
  private nextSequence = 0;

  constructor(
    private readonly runtime: DriverRuntime,
    private readonly ordinal: number,
    private readonly streamHandle: DriverHandle,
  ) {}

  /** True when nothing is held. */
  get isEmpty(): boolean {
    return this.groups.length === 0;
  }

  /** Holds `memory`, which work queued on the stream up to now uses. */
  hold(memory: HostMemory): void {
    let open = this.groups.at(-1);
    if (open === undefined || open.event !== null) {
      open = { sequence: this.nextSequence++, memories: [], event: null, bytes: 0 };
      this.groups.push(open);
    }
    open.memories.push(memory);
    open.bytes += memory.byteLength;
    if (open.memories.length >= GROUP_MEMORIES || open.bytes >= GROUP_BYTES) {
      // Earlier groups the stream has passed are let go now, while we are asking the driver anyway.
      this.releaseDone();
      this.close(open);
    }
  }

  /**
   * Closes the open group with an event, so that a wait queued next covers every group held now.
   * @returns the mark to pass to {@link releaseThrough} once the stream has passed that wait.
   */
  markWaitPoint(): number {
    const open = this.groups.at(-1);
    if (open !== undefined && open.event === null) this.close(open);
    return this.nextSequence - 1;
  }

  /** Releases every group, without asking: the stream was synchronized. */
  releaseAll(): void {
    this.releaseFirst(this.groups.length);
  }

  /** Releases the groups up to `mark` (from {@link markWaitPoint}), which the stream has passed. */
  releaseThrough(mark: number): void {
    let count = 0;
    while (count < this.groups.length && (this.groups[count] as HeldGroup).sequence <= mark) count++;
    this.releaseFirst(count);
  }

  /** Releases the closed groups, oldest first, whose event has completed. */
  releaseDone(): void {
    let done = 0;
    for (const group of this.groups) {
      if (group.event === null || !group.event.isDone) break;
      done++;
    }
    this.releaseFirst(done);
  }

  private releaseFirst(count: number): void {
    for (const group of this.groups.splice(0, count)) group.event?.close();
  }

  private close(group: HeldGroup): void {
    const event = createEvent(this.runtime, this.ordinal, EventFlags.DisableTiming);
    this.runtime.driver.eventRecord(event.open(), this.streamHandle);
    group.event = event;
  }
}
