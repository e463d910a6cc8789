// Types of cuda-core-ipc-scenarios.mjs for the TypeScript tests: requests and reports are JSON.

/** One scenario: the parent's request and the pool (or chunk) file descriptors; a JSON-safe report. */
export type Scenario = (request: Record<string, unknown>, fds: readonly number[]) => unknown;

export declare const scenarios: Readonly<Record<string, Scenario>>;
export declare function fromBase64(text: string): Uint8Array;
export declare function toBase64(bytes: Uint8Array): string;
