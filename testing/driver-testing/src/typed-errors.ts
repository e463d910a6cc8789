// What fuzz tests accept from a public entry point given arbitrary arguments: a result, or an
// error a caller can act on. Anything else (a plain Error, or the engine's own TypeError from
// reading a property of undefined, which means an argument reached code unchecked) fails.
import { isCumemError } from '@cumem/core-types';

// Messages the JS engine gives its own TypeErrors/RangeErrors: a sign that no check of cumem's ran first.
const engineMessages = [
  /^Cannot read propert/,
  /^Cannot set propert/,
  /^Cannot convert/,
  /is not a function$/,
  /is not iterable/,
  /is not a constructor$/,
  /^Maximum call stack size exceeded$/,
  // A private member read on an object that is not of its class (a Proxy or heir of one).
  /private member/,
  /^Receiver must be/,
];

/**
 * True for the errors cumem's API promises: TypeError / RangeError raised by its checks, and
 * its own error classes (CudaError, CudaStateError, NotSupportedError, DriverUnavailableError).
 */
export function isTypedError(error: unknown): boolean {
  if (isCumemError(error)) return true;
  // A failed system call (duplicateFileDescriptor's fcntl, say): Node's own error shape.
  if (error instanceof Error && typeof (error as { syscall?: unknown }).syscall === 'string') return true;
  if (!(error instanceof TypeError || error instanceof RangeError)) return false;
  return !engineMessages.some((pattern) => pattern.test(error.message));
}

/**
 * Runs `call` (awaiting a returned promise) and rethrows anything but a typed error, labelled
 * with `name`, so a fuzz failure says which entry point and which error.
 */
export async function expectOnlyTypedErrors(name: string, call: () => unknown): Promise<void> {
  try {
    const result = call();
    if (
      result !== null &&
      typeof result === 'object' &&
      typeof (result as PromiseLike<unknown>).then === 'function'
    ) {
      await result;
    }
  } catch (error) {
    if (isTypedError(error)) return;
    const described = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    throw new Error(`${name} threw an untyped error: ${described}`, { cause: error });
  }
}
