/** One recorded call (src/fake-record.h): the fields each entry point fills are in its C comment. */
export interface FakeCall {
  symbol: string;
  pointer: bigint;
  size: number;
  advice: number;
  type: number;
  id: number;
  device: number;
  count: number;
  extra: number;
}
/** The cuGetProcAddress requests in the log at `path`: name to the ABI versions asked, in order. */
export declare function fakeRequests(path: string): Map<string, number[]>;
/** The recorded calls in the log at `path`, oldest first. */
export declare function fakeCalls(path: string): FakeCall[];
