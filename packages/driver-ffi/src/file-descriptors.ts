// duplicateFileDescriptor: POSIX fcntl(F_DUPFD_CLOEXEC) from the C library through koffi. Not a
// driver call, so it works without a GPU; libc is loaded on first use.

import { checkFileDescriptor, duplicateDescriptorError } from '@cumem/driver-kit';
import { loadKoffi } from './koffi-module.js';

/** Linux's F_DUPFD_CLOEXEC (fcntl.h): the lowest free descriptor >= arg, with FD_CLOEXEC set. */
const F_DUPFD_CLOEXEC = 1030;

let fcntl: ((fd: number, command: number, argument: number) => number) | undefined;

function loadFcntl(): (fd: number, command: number, argument: number) => number {
  if (fcntl === undefined) {
    const koffi = loadKoffi();
    // fcntl is variadic in C: declared so, koffi passes the third argument by the variadic
    // calling convention, with its type given at each call.
    const variadic = koffi.load('libc.so.6').func('int fcntl(int fd, int cmd, ...)');
    fcntl = (fd, command, argument) => variadic(fd, command, 'int', argument) as number;
  }
  return fcntl;
}

/** A close-on-exec duplicate of `fd`, owned by the caller. */
export function duplicateFileDescriptor(fd: number): number {
  checkFileDescriptor(fd);
  const duplicate = loadFcntl()(fd, F_DUPFD_CLOEXEC, 0);
  if (duplicate < 0) throw duplicateDescriptorError(fd, loadKoffi().errno(), 'fcntl');
  return duplicate;
}
