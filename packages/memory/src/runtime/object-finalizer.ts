// Releases driver objects (streams, events, pools, file descriptors) whose JS object was dropped
// without close(). A failure cannot be thrown from a finalizer (it would crash the process), so
// it becomes a process warning instead of disappearing.

import { runOrWarn } from './warn-on-failure.js';

/** Frees one driver object; must not touch the JS object it belonged to. */
export type Release = () => void;

const registry = new FinalizationRegistry<Release>((release) =>
  runOrWarn(release, 'releasing a dropped object'),
);

/** Calls `release` after `target` is garbage-collected, unless {@link forgetFinalizer} ran first. */
export function registerFinalizer(target: object, release: Release): void {
  registry.register(target, release, target);
}

/** Cancels {@link registerFinalizer} for `target` (after an explicit close). */
export function forgetFinalizer(target: object): void {
  registry.unregister(target);
}
