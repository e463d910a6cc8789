// What the reference driver reads from a module image: the kernels a PTX text declares and the
// offset and size of each of their parameters, as the driver lays them out (each parameter at
// its alignment: its size, or `.align N` for byte arrays). Cubins and fatbins are machine code
// the reference cannot run, so they are recognised and refused.

/** One kernel parameter as `cuFuncGetParamInfo` reports it, with its PTX type. */
export interface PtxParameter {
  /** PTX type without the dot (`u64`, `f32`, `b8`...). */
  readonly type: string;
  readonly offset: number;
  readonly size: number;
}

/** One `.entry` of a PTX module. */
export interface PtxEntry {
  readonly name: string;
  readonly parameters: readonly PtxParameter[];
}

/** What kind of image a byte string is, by its magic number. */
export type ImageKind = 'ptx' | 'cubin' | 'fatbin';

const elfMagic = [0x7f, 0x45, 0x4c, 0x46];
// The fatbin magic 0xBA55ED50, little-endian.
const fatbinMagic = [0x50, 0xed, 0x55, 0xba];

function startsWith(image: Uint8Array, magic: readonly number[]): boolean {
  return magic.every((byte, index) => image[index] === byte);
}

/** The image's kind; anything without a binary magic number is taken as PTX text. */
export function imageKind(image: Uint8Array): ImageKind {
  if (startsWith(image, elfMagic)) return 'cubin';
  if (startsWith(image, fatbinMagic)) return 'fatbin';
  return 'ptx';
}

const typeSizes: Readonly<Record<string, number>> = {
  u8: 1,
  s8: 1,
  b8: 1,
  u16: 2,
  s16: 2,
  b16: 2,
  f16: 2,
  u32: 4,
  s32: 4,
  b32: 4,
  f32: 4,
  u64: 8,
  s64: 8,
  b64: 8,
  f64: 8,
};

const entryPattern = /\.entry\s+([A-Za-z_$%][\w$]*)\s*\(([^)]*)\)/g;
// `.param [.align N] .type [.ptr [.space] [.align N]] name[[count]]`: NVRTC marks pointers with `.ptr`.
const parameterPattern =
  /^\.param\s+(?:\.align\s+(\d+)\s+)?\.([a-z]\d+)(?:\s+\.ptr(?:\s+\.(?:global|shared|const|local))?(?:\s+\.align\s+\d+)?)?\s+[\w$]+(?:\[(\d+)\])?$/;

/**
 * The entries of PTX `text` (up to its first NUL), or null when it is not a PTX module the
 * driver would accept (no `.version` / `.target` directive, or a parameter it cannot read).
 */
export function parsePtx(text: string): PtxEntry[] | null {
  const code = text.replace(/\/\/[^\n]*/g, '').replace(/\/\*[\s\S]*?\*\//g, '');
  if (!/(^|\s)\.version\s+\d+\.\d+/.test(code) || !/(^|\s)\.target\s+\w+/.test(code)) return null;
  if (!topLevelIsDirectives(code)) return null;
  const entries: PtxEntry[] = [];
  for (const match of code.matchAll(entryPattern)) {
    const list = (match[2] as string).trim();
    const parameters: PtxParameter[] = [];
    let offset = 0;
    for (const declaration of list === '' ? [] : list.split(',')) {
      const parts = parameterPattern.exec(declaration.trim().replace(/\s+/g, ' '));
      const elementSize = parts === null ? undefined : typeSizes[parts[2] as string];
      if (parts === null || elementSize === undefined) return null;
      const count = parts[3] === undefined ? 1 : Number(parts[3]);
      const alignment = parts[1] === undefined ? elementSize : Number(parts[1]);
      offset = Math.ceil(offset / alignment) * alignment;
      parameters.push({ type: parts[2] as string, offset, size: elementSize * count });
      offset += elementSize * count;
    }
    entries.push({ name: match[1] as string, parameters });
  }
  return entries;
}

/**
 * Whether every line outside function bodies is a directive, a parameter list's line or a
 * brace: the driver's PTX parser refuses anything else there (`ptxas` reports a syntax error).
 */
function topLevelIsDirectives(code: string): boolean {
  let depth = 0;
  for (const raw of code.split('\n')) {
    const line = raw.trim();
    if (depth === 0 && line !== '' && !/^[.{}()$]/.test(line)) return false;
    for (const character of line) {
      if (character === '{') depth++;
      else if (character === '}') depth--;
    }
    if (depth < 0) return false;
  }
  return depth === 0;
}
