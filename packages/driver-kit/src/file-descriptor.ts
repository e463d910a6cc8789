// Argument checks and errors of `Driver.duplicateFileDescriptor`, shared by every adapter so
// they throw the same errors.
import { getSystemErrorName } from 'node:util';
import { describeValue } from '@cumem/core-types';

/** Largest descriptor number: POSIX descriptors are C `int`s. */
const maxDescriptor = 2 ** 31 - 1;

/**
 * `fd` as a file descriptor number.
 * @throws TypeError for a non-number; RangeError for a number that is not an integer from 0 to 2^31 - 1.
 */
export function checkFileDescriptor(fd: unknown, name = 'fd'): number {
  if (typeof fd !== 'number')
    throw new TypeError(`${name} must be a file descriptor number, got ${describeValue(fd)}`);
  if (!Number.isInteger(fd) || fd < 0 || fd > maxDescriptor) {
    throw new RangeError(`${name} must be an integer from 0 to ${maxDescriptor}, got ${fd}`);
  }
  return fd;
}

/** An error carrying Node's `code`, `errno` and `syscall`, like the errors of `node:fs`. */
export interface SystemCallError extends Error {
  readonly code: string;
  readonly errno: number;
  readonly syscall: string;
}

/**
 * The error of a failed duplication of `fd` with C errno `errno` (positive): a RangeError for
 * EBADF (`fd` is not an open descriptor), a plain Error otherwise; both name the errno.
 */
export function duplicateDescriptorError(fd: number, errno: number, syscall: string): SystemCallError {
  let code: string;
  try {
    code = getSystemErrorName(-errno);
  } catch {
    code = `errno ${errno}`;
  }
  const message = `duplicateFileDescriptor: ${syscall} of fd ${fd} failed: ${code}`;
  const error = (
    code === 'EBADF' ? new RangeError(`${message} (not an open file descriptor)`) : new Error(message)
  ) as Error & { code: string; errno: number; syscall: string };
  error.code = code;
  error.errno = -errno;
  error.syscall = syscall;
  return error;
}
