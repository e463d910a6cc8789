// The process-wide table of memory resources by uuid (`mr.register(uuid)`,
// `MemoryResource.fromRegistry(uuid)`). Values are held weakly, like cuda.core's
// WeakValueDictionary: registering never keeps a resource alive.

const entries = new Map<string, WeakRef<object>>();

/** The live resource registered under `uuid`, if any. */
export function lookUpResource(uuid: string): object | undefined {
  const entry = entries.get(uuid);
  if (entry === undefined) return undefined;
  const resource = entry.deref();
  if (resource === undefined) entries.delete(uuid);
  return resource;
}

/** Registers `resource` under `uuid` unless a live one is there; returns the registered one. */
export function registerResource(uuid: string, resource: object): object {
  const existing = lookUpResource(uuid);
  if (existing !== undefined) return existing;
  entries.set(uuid, new WeakRef(resource));
  return resource;
}

/** Removes `resource` from the table (when it closes). */
export function unregisterResource(uuid: string, resource: object): void {
  if (entries.get(uuid)?.deref() === resource) entries.delete(uuid);
}
