// The records of a reference driver's streams and events, and the settings it is made with
// (ReferenceState in reference-state.ts holds them).

/** A stream of the reference driver. Work runs when enqueued, so a stream is always idle. */
export interface StreamRecord {
  readonly context: bigint;
  readonly flags: number;
  readonly priority: number;
}

/** An event of the reference driver. */
export interface EventRecord {
  readonly context: bigint;
  readonly flags: number;
  /** `performance.now()` at the last record, in milliseconds. */
  recordedAt: number | undefined;
}

/** The fixed settings a reference driver is made with. */
export interface ReferenceSettings {
  readonly deviceCount: number;
  readonly totalMemory: number;
  readonly legacy: boolean;
}
