// Host views (Buffer.hostView) must never outlive their memory, because pools hand the same
// addresses out again. Three mechanisms, all paid for only by buffers that handed out a view:
// - a reachable view keeps the buffer owning its memory alive: a WeakMap from the view's
//   ArrayBuffer to that buffer is an ephemeron, so the buffer (and its finalizer) cannot be
//   collected while the view is reachable;
// - closing that buffer detaches the views it handed out (driver.detachView), so they read as
//   length 0;
// - where the adapter cannot detach (FFI: koffi's views), the memory is returned only after
//   every undetached view was garbage-collected.
import type { Driver } from '@cumem/core-types';
import type { Release } from '../runtime/object-finalizer.js';
import { runOrWarn } from '../runtime/warn-on-failure.js';
import { type BufferBase, bufferState } from './buffer-base.js';

/** The views one buffer handed out, held weakly so that dropping a view leaks nothing. */
export type ViewList = WeakRef<ArrayBuffer>[];

/** A view's owner: the memory Buffer whose memory it shows, closed or not. */
type ViewOwner = BufferBase;

/**
 * The one registry of host views (ArrayBuffer -> the Buffer whose memory it shows, and the
 * object a package above presents it as, e.g. interop-arrow's HostBuffer). Both are held by
 * the entry, so a reachable view keeps both alive.
 */
interface ViewEntry {
  readonly owner: ViewOwner;
  wrapper: object | undefined;
}

const viewOwners = new WeakMap<ArrayBufferLike, ViewEntry>();

/** Keeps `owner` (the buffer whose memory `view` shows) alive while `view` is reachable. */
export function keepOwnerAlive(view: ArrayBuffer, owner: ViewOwner): void {
  const entry = viewOwners.get(view);
  if (entry?.owner === owner) return;
  viewOwners.set(view, { owner, wrapper: undefined });
}

/**
 * True when `view` (a typed array, DataView or ArrayBuffer) shows memory of an open cumem
 * Buffer (pinned, managed: a `hostView()`, a HostBuffer's `bytes`): the copy engine reads it
 * where it is, with no staging. False for ordinary (pageable) JS memory.
 */
export function isBufferHostView(view: ArrayBufferView | ArrayBufferLike): boolean {
  const entry = viewOwners.get(ArrayBuffer.isView(view) ? view.buffer : view);
  return entry !== undefined && !bufferState(entry.owner).isClosed;
}

/**
 * Records `wrapper` as what a package above presents the host view `view` as; the view keeps it
 * alive. `view` must be a view handed out by `Buffer.hostView()`.
 * @throws TypeError otherwise.
 */
export function wrapHostView(view: ArrayBufferLike, wrapper: object): void {
  const entry = viewOwners.get(view);
  if (entry === undefined) throw new TypeError('wrapHostView needs a view from Buffer.hostView()');
  entry.wrapper = wrapper;
}

/** The wrapper recorded by {@link wrapHostView} for the memory `view` shows, while its Buffer is open. */
export function hostViewWrapper(view: ArrayBufferView | ArrayBufferLike): object | undefined {
  const entry = viewOwners.get(ArrayBuffer.isView(view) ? view.buffer : view);
  return entry === undefined || bufferState(entry.owner).isClosed ? undefined : entry.wrapper;
}

/**
 * Adds a weak reference to `view` to `list` (created on the first view) for detaching later.
 * @returns the list to keep.
 */
export function trackView(list: ViewList | null, view: ArrayBuffer): ViewList {
  const views = list ?? [];
  // Forget collected views whenever the list doubles, so a long-lived buffer asked for many
  // views keeps a list as long as its live views (amortized constant time per view).
  if (views.length >= 16 && (views.length & (views.length - 1)) === 0) {
    let kept = 0;
    for (const ref of views) if (ref.deref() !== undefined) views[kept++] = ref;
    views.length = kept;
  }
  views.push(new WeakRef(view));
  return views;
}

/**
 * Detaches every reachable view in `list` and empties it.
 * @returns the views the driver could not detach (FFI), or null when none is left.
 */
export function detachViews(driver: Driver, list: ViewList): ArrayBuffer[] | null {
  let attached: ArrayBuffer[] | null = null;
  for (const ref of list) {
    const view = ref.deref();
    // byteLength 0: already detached (the reference driver's views share one backing store).
    if (view === undefined || view.byteLength === 0) continue;
    if (!driver.detachView(view)) {
      attached ??= [];
      attached.push(view);
    }
  }
  list.length = 0;
  return attached;
}

/** Views still attached to memory whose release waits for them. */
interface PendingRelease {
  count: number;
  readonly release: Release;
}

const viewCollected = new FinalizationRegistry<PendingRelease>((pending) => {
  pending.count--;
  if (pending.count !== 0) return;
  runOrWarn(pending.release, 'releasing memory after its last host view was collected');
});

/** Calls `release` once every ArrayBuffer in `views` has been garbage-collected. */
export function releaseAfterViews(views: readonly ArrayBuffer[], release: Release): void {
  const pending: PendingRelease = { count: views.length, release };
  for (const view of views) viewCollected.register(view, pending);
}
