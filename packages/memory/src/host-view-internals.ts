// What only the sibling packages (@cumem/interop-arrow's HostBuffer) need of the host-view
// registry: present a Buffer's host view as their own object, and find it again from the view.
// Not for applications; kept apart so that it can move behind an internal entry point.
export { hostViewWrapper, wrapHostView } from './host-views.js';
