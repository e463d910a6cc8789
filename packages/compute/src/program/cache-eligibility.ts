// Which compiles the compile cache may answer. Its key holds the source, the options, the name,
// the architecture, the target and the name expressions: what a compile reads from elsewhere,
// or writes elsewhere, is not in it. A compile that reads headers from files (through an include
// option, or a quoted #include, which NVRTC resolves against the program's name and the include
// paths) would be answered with what those headers said when it was cached; one whose options
// write a file (a precompiled header, a time trace) would skip the write. Those compile every time.

// NVRTC options (long and short forms) that read or write files besides the source.
const fileOptions = [
  '--include-path',
  '-I',
  '--pre-include',
  '-include',
  '--create-pch',
  '-create-pch',
  '--use-pch',
  '-use-pch',
  '--pch-dir',
  '-pch-dir',
  '--pch',
  '-pch',
  '--fdevice-time-trace',
  '-fdevice-time-trace',
  '--time',
  '-time',
];

// `-I` takes its directory attached (`-Idir`); the others take `=value` or a value of their own.
function readsOrWritesFiles(option: string): boolean {
  if (option.startsWith('-I')) return true;
  return fileOptions.some((flag) => option === flag || option.startsWith(`${flag}=`));
}

const quotedInclude = /^[ \t]*#[ \t]*include[ \t]*"/m;

/**
 * Whether a compile of `source` with `options` may be answered from the compile cache: false
 * when it reads headers from files or its options write files.
 */
export function isCacheableCompile(source: string, options: readonly string[]): boolean {
  return !quotedInclude.test(source) && !options.some(readsOrWritesFiles);
}
