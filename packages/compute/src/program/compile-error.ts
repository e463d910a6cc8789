// NVRTC's refusal to compile: the NVRTC result, and the compiler's log, which says why.
import { describeValue } from '@cumem/core-types';

const marker = Symbol.for('@cumem/compute.CompileError');

/** A source NVRTC could not compile (or an NVRTC call that failed), with the compiler log. */
export class CompileError extends Error {
  readonly [marker] = true;
  /** The `nvrtcResult` (e.g. 6, `NVRTC_ERROR_COMPILATION`). */
  readonly result: number;
  /** What NVRTC wrote: the errors and warnings, with line numbers. Empty when it wrote none. */
  readonly log: string;

  /** @throws TypeError when `message` or `log` is not a string, or `result` not an integer. */
  constructor(message: string, result: number, log: string) {
    // Checked before super(): an error class that throws an engine TypeError on a wrong argument
    // hides the error it was made to report.
    if (typeof message !== 'string')
      throw new TypeError(`CompileError needs a message string, got ${describeValue(message)}`);
    if (!Number.isInteger(result))
      throw new TypeError(`CompileError needs an integer result, got ${describeValue(result)}`);
    if (typeof log !== 'string')
      throw new TypeError(`CompileError needs a log string, got ${describeValue(log)}`);
    super(log.length > 0 ? `${message}\n${log}` : message);
    this.name = 'CompileError';
    this.result = result;
    this.log = log;
  }

  /** True for a CompileError, also one made by another copy of this package. */
  static isInstance(value: unknown): value is CompileError {
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[marker] === true;
  }
}
