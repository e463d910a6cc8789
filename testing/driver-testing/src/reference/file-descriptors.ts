// duplicateFileDescriptor of the reference driver, without native code: Node has no dup(), so
// the file is opened again through /proc/self/fd (Linux). Unlike dup, the result is a new open
// file description: it does not share the file offset or status flags with `fd`, and sockets
// cannot be reopened this way (ENXIO). Enough for what cumem does with descriptors (hand them
// to the driver, close them); the real adapters call fcntl(F_DUPFD_CLOEXEC).
import { constants, fstatSync, openSync } from 'node:fs';
import { checkFileDescriptor, duplicateDescriptorError } from '@cumem/driver-kit';

/** A new descriptor (close-on-exec, as Node opens every file) for the file `fd` refers to. */
export function duplicateFileDescriptor(fd: number): number {
  checkFileDescriptor(fd);
  try {
    fstatSync(fd);
  } catch (error) {
    throw duplicateDescriptorError(fd, errnoOf(error), 'fcntl');
  }
  let failure: unknown;
  // The access mode of `fd` cannot be read from Node: try read-write first, then one way.
  for (const flags of [constants.O_RDWR, constants.O_RDONLY, constants.O_WRONLY]) {
    try {
      return openSync(`/proc/self/fd/${fd}`, flags);
    } catch (error) {
      failure = error;
    }
  }
  throw duplicateDescriptorError(fd, errnoOf(failure), 'open');
}

function errnoOf(error: unknown): number {
  const errno = (error as { errno?: unknown }).errno;
  if (typeof errno === 'number') return Math.abs(errno);
  throw error;
}
