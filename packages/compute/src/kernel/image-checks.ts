// Checks that a module image is whole before the driver reads it. cuLibraryLoadData takes no
// size: it reads a cubin as far as its ELF headers say and a fatbin as far as its header says,
// so a truncated or lying image would make the driver read past the caller's memory. Each image
// is checked against its own headers here, and copied into memory cumem owns.
import { describeValue, viewBytes } from '@cumem/core-types';

/** The kinds of module image ObjectCode loads. */
export type CodeType = 'ptx' | 'cubin' | 'fatbin';

const elfHeaderBytes = 64;
const fatbinHeaderBytes = 16;
const fatbinMagic = 0xba55ed50;
// ELF section type whose content takes no bytes in the file.
const sectionNoBits = 8;

/** The bytes of a binary image argument (a copy: the caller may change theirs afterwards). */
export function imageBytes(image: unknown, name: string): Uint8Array {
  if (image instanceof ArrayBuffer) return new Uint8Array(image.slice(0));
  // By the view's true extent (own byteLength / byteOffset properties a program defines decide
  // nothing); a detached one is empty, which the format checks then refuse.
  if (ArrayBuffer.isView(image)) return viewBytes(image).slice();
  throw new TypeError(
    `${name} needs the image as an ArrayBuffer or an ArrayBufferView, got ${describeValue(image)}`,
  );
}

/** PTX text as the NUL-terminated bytes the driver reads. */
export function ptxBytes(text: unknown): Uint8Array {
  if (typeof text !== 'string')
    throw new TypeError(`fromPTX needs the PTX as a string, got ${describeValue(text)}`);
  if (text.includes('\0'))
    throw new RangeError(
      'fromPTX: the PTX text contains a NUL character, where the driver would stop reading',
    );
  const encoded = new TextEncoder().encode(text);
  const bytes = new Uint8Array(encoded.length + 1);
  bytes.set(encoded);
  return bytes;
}

function truncated(kind: string, needed: bigint, length: number): RangeError {
  return new RangeError(
    `${kind} image is truncated or corrupt: its headers reach byte ${needed}, it has ${length} bytes`,
  );
}

/**
 * Throws unless `bytes` is a 64-bit little-endian ELF whose header tables, segments and
 * sections all lie inside it.
 */
export function checkCubin(bytes: Uint8Array): void {
  const length = bytes.byteLength;
  const isElf =
    length >= 4 && bytes[0] === 0x7f && bytes[1] === 0x45 && bytes[2] === 0x4c && bytes[3] === 0x46;
  if (!isElf)
    throw new RangeError('fromCubin: the image is not an ELF file (a cubin starts with 0x7f "ELF")');
  if (length < elfHeaderBytes) throw truncated('cubin', BigInt(elfHeaderBytes), length);
  if (bytes[4] !== 2 || bytes[5] !== 1)
    throw new RangeError('fromCubin: the image is not a 64-bit little-endian ELF file');
  const view = new DataView(bytes.buffer, bytes.byteOffset, length);
  const end = BigInt(length);
  const table = (offset: bigint, count: number, entrySize: number) =>
    offset + BigInt(count) * BigInt(entrySize);
  const programs = view.getBigUint64(0x20, true);
  const sections = view.getBigUint64(0x28, true);
  const programSize = view.getUint16(0x36, true);
  const programCount = view.getUint16(0x38, true);
  const sectionSize = view.getUint16(0x3a, true);
  const sectionCount = view.getUint16(0x3c, true);
  if (programCount > 0 && programSize < 0x38)
    throw new RangeError('fromCubin: ELF program headers are too small');
  if (sectionCount > 0 && sectionSize < 0x40)
    throw new RangeError('fromCubin: ELF section headers are too small');
  for (const reach of [
    table(programs, programCount, programSize),
    table(sections, sectionCount, sectionSize),
  ]) {
    if (reach > end) throw truncated('cubin', reach, length);
  }
  for (let index = 0; index < programCount; index++) {
    const at = Number(programs) + index * programSize;
    const reach = view.getBigUint64(at + 0x08, true) + view.getBigUint64(at + 0x20, true);
    if (reach > end) throw truncated('cubin', reach, length);
  }
  for (let index = 0; index < sectionCount; index++) {
    const at = Number(sections) + index * sectionSize;
    if (view.getUint32(at + 0x04, true) === sectionNoBits) continue;
    const reach = view.getBigUint64(at + 0x18, true) + view.getBigUint64(at + 0x20, true);
    if (reach > end) throw truncated('cubin', reach, length);
  }
}

/** Throws unless `bytes` starts with a fatbin header whose size lies inside it. */
export function checkFatbin(bytes: Uint8Array): void {
  const length = bytes.byteLength;
  const view = new DataView(bytes.buffer, bytes.byteOffset, length);
  if (length < 4 || view.getUint32(0, true) !== fatbinMagic) {
    throw new RangeError(
      'fromFatbin: the image is not a fatbin (it starts with the magic number 0xBA55ED50)',
    );
  }
  if (length < fatbinHeaderBytes) throw truncated('fatbin', BigInt(fatbinHeaderBytes), length);
  const reach = BigInt(view.getUint16(6, true)) + view.getBigUint64(8, true);
  if (reach > BigInt(length)) throw truncated('fatbin', reach, length);
}
