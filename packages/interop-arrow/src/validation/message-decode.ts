// Decoding IPC message metadata from elsewhere: verified first (Arrow JS's flatbuffer reader
// trusts every length it reads), and whatever Arrow JS throws turned into RangeErrors.

import { Message } from 'apache-arrow';
import { checkMessageMetadata } from './message-metadata-check.js';

/** `Message.decode` of checked metadata. @throws RangeError for malformed metadata. */
export function decodeMetadata(metadataBytes: Uint8Array): Message {
  checkMessageMetadata(metadataBytes);
  const metadata = arrowCall(() => Message.decode(metadataBytes), 'the message metadata');
  const { bodyLength } = metadata;
  if (!Number.isSafeInteger(bodyLength) || bodyLength < 0) {
    throw new RangeError(`malformed IPC message: body length ${bodyLength}`);
  }
  return metadata;
}

// Arrow JS throws plain Errors for what it cannot read (unknown types, message kinds, codecs),
// and on bytes the checks before it let through it can still fail inside its reader with the
// engine's own TypeError ("Cannot read properties of null") or RangeError: every one of them
// is about the bytes, so each becomes a RangeError that says which part was malformed, with
// Arrow's error as the cause.
/** Runs an Arrow JS read, turning anything it throws into a RangeError naming `what`. */
export function arrowCall<T>(read: () => T, what: string): T {
  try {
    return read();
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new RangeError(`malformed IPC message: Arrow JS could not read ${what}: ${reason}`, {
      cause: error,
    });
  }
}
