// cuda.core's cuda_core/tests/test_program_cache.py (NVIDIA/cuda-python, read at commit
// 0193409dfeee2c590995977472a07c72cf6851e4), translated case by case onto @cumem/compute's
// compile cache.
//
// cuda.core has cache objects (InMemoryProgramCache, FileStreamProgramCache) that the caller
// fills with keys from make_program_cache_key. cumem's cache has no object: Program.compile
// keys each C++ compile itself (source, options, name, architecture, target, name expressions,
// in any order), compiles every time what reads headers from files or writes files (where
// cuda.core refuses to make a key without extra_digest: src/program/cache-eligibility.ts), keeps
// the last 256 in memory and, with `cacheDirectory`, one file per key that later processes read.
// So a key case becomes "how many files do these compiles leave in a fresh cache directory"
// (one per distinct key), and a rejected key becomes the Program argument check that refuses
// the same input. Every compile here uses a source no other compile of the process has, so the
// process-wide memory cache cannot answer it from another case. Compiling needs NVRTC: those
// cases skip here, visibly.
//
// Not ported:
// - test_program_cache_resource_* (is_abstract, requires_core_methods, default_get_*,
//   close_is_noop_by_default, context_manager_closes, update_accepts_mapping_and_pairs):
//   cumem has no pluggable cache class; the cache is Program.compile's own.
// - test_filestream_cache_* other than those below, test_inmemory_cache_* other than _clear,
//   test_is_windows_sharing_violation_predicate, test_default_cache_dir_lives_under_user_cache_root:
//   cumem's cache is no object with get/set/delete/len/update, takes no values or keys from
//   the caller, has no size cap (the memory holds a fixed 256 compiles, the directory is
//   unbounded), no tmp/ folder to sweep, no default directory (files only with
//   `cacheDirectory`), and no Windows retry logic.
// - test_make_program_cache_key_returns_bytes, _propagates_as_bytes_typeerror,
//   _changes_with_key_schema_version, _survives_cuda_core_version_change: cumem has no key
//   function or key schema version to call or vary.
// - test_make_program_cache_key_differs_on[extra_digest_*],
//   _accepts_nvrtc_name_with_dir_when_extra_digest_supplied,
//   _accepts_external_content_with_extra_digest: cumem has no extra_digest.
// - test_make_program_cache_key_accepts_bytes_code, _nvvm_*, _use_libdevice_ignored_for_non_nvvm,
//   _rejects_extra_sources_outside_nvvm: cumem has no NVVM code type, libdevice or extra sources
//   (the NVVM refusal is checked in test_make_program_cache_key_rejects below).
// - test_make_program_cache_key_ptx_* (linker probe, equivalent options, driver-ignored fields,
//   ptxas options, driver-linker refusals), _ignores_name_expressions_for_non_nvrtc,
//   _accepts_external_content_options_for_ptx, _accepts_side_effect_options_for_ptx,
//   _driver_version_does_not_perturb_ptx_under_nvjitlink, _driver_probe_failure_*:
//   cumem caches no PTX program (its compile('ptx') loads the text as it is, with no linker;
//   checked in test_make_program_cache_key_is_deterministic[ptx]), so no PTX key exists.
// - test_make_program_cache_key_fails_closed_on_probe_failure: documented deviation: the NVRTC
//   version is not part of cumem's key (a directory made by one toolkit serves machines without
//   NVRTC; the README says to clear it after an upgrade), so there is no probe to fail.
// - test_make_program_cache_key_name_expressions_str_bytes_distinct: cumem's name expressions
//   are strings only (bytes are refused: test_make_program_cache_key_rejects_bytearray_in_name_expressions).
import { randomUUID } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DeviceAttribute } from '@cumem/core-types';
import { useDriver } from '@cumem/memory';
import { describeEachDriver } from '@cumem/testing/vitest';
import { afterAll, beforeAll, expect, vi } from 'vitest';
import { CompileError, clearCompileCache, Kernel, Program, type ProgramOptions } from '../../src/index.js';
import { adapters } from '../support.js';
import { gatedIt, machineCodeTarget, needsGpuAndNvrtc, needsNvrtc } from './upstream-gates.js';

const emptyKernel = 'extern "C" __global__ void my_kernel() {}';

/** `body` under a comment no other compile of this process has: its first compile is a cache miss. */
function freshSource(body = emptyKernel): string {
  return `// ${randomUUID()}\n${body}`;
}

/** The cache files in `directory` (written whole, then renamed: a leftover `.tmp` is no entry). */
function cacheEntries(directory: string): string[] {
  return existsSync(directory) ? readdirSync(directory).filter((name) => !name.endsWith('.tmp')) : [];
}

describeEachDriver(adapters, 'cuda.core test_program_cache.py', (entry) => {
  let scratch: string;
  let serial = 0;
  beforeAll(() => {
    useDriver(entry.driver);
    scratch = mkdtempSync(join(tmpdir(), 'cumem-upstream-program-cache-'));
  });
  afterAll(() => {
    rmSync(scratch, { recursive: true, force: true });
  });

  /** A cache directory no compile has used yet (made by the first compile that stores). */
  function freshDirectory(): string {
    serial += 1;
    return join(scratch, `cache-${serial}`);
  }

  /** Device 0's architecture, `sm_90` (what a cubin must be compiled for to load there). */
  function deviceArch(): string {
    const major = entry.driver.deviceGetAttribute(DeviceAttribute.ComputeCapabilityMajor, 0);
    const minor = entry.driver.deviceGetAttribute(DeviceAttribute.ComputeCapabilityMinor, 0);
    return `sm_${major}${minor}`;
  }

  /** Compiles C++ `source` with `options` into `cacheDirectory` and closes the result. */
  function compileInto(
    cacheDirectory: string,
    source: string,
    options: ProgramOptions = {},
    target: 'ptx' | 'cubin' = 'ptx',
    nameExpressions?: readonly string[],
  ): Program {
    const program = new Program(source, 'c++', { arch: 'sm_75', ...options, cacheDirectory });
    program.compile(target, nameExpressions === undefined ? undefined : { nameExpressions }).close();
    return program;
  }

  // --- make_program_cache_key: what makes one key, what makes two ---

  gatedIt(
    needsNvrtc(entry),
    'test_make_program_cache_key_is_deterministic: c++ — the same compile twice leaves one cache file, also read back after the memory is cleared',
    () => {
      const directory = freshDirectory();
      const source = freshSource();
      compileInto(directory, source);
      expect(cacheEntries(directory)).toHaveLength(1);
      compileInto(directory, source);
      clearCompileCache();
      compileInto(directory, source);
      expect(cacheEntries(directory)).toHaveLength(1);
    },
  );

  gatedIt(
    undefined,
    'test_make_program_cache_key_is_deterministic: ptx — cumem caches no PTX program (it loads the text as it is): the directory stays empty',
    () => {
      const directory = freshDirectory();
      const ptx =
        '.version 7.8\n.target sm_75\n.address_size 64\n.visible .entry my_kernel()\n{\n\tret;\n}\n';
      for (let round = 0; round < 2; round += 1) {
        new Program(ptx, 'ptx', { cacheDirectory: directory }).compile('ptx').close();
      }
      expect(cacheEntries(directory)).toEqual([]);
    },
  );

  const differsOn: ReadonlyArray<{
    readonly label: string;
    readonly reason: string | undefined;
    readonly run: (directory: string, source: string) => void;
  }> = [
    {
      label: 'code',
      reason: needsNvrtc(entry),
      run: (directory, source) => {
        compileInto(directory, `${source}\n// a`);
        compileInto(directory, `${source}\n// b`);
      },
    },
    {
      label: 'target_type',
      // A cubin loads on a GPU only.
      reason: needsGpuAndNvrtc(entry),
      run: (directory, source) => {
        const arch = deviceArch();
        compileInto(directory, source, { arch }, 'ptx');
        compileInto(directory, source, { arch }, 'cubin');
      },
    },
    {
      label: 'arch',
      reason: needsNvrtc(entry),
      run: (directory, source) => {
        compileInto(directory, source, { arch: 'sm_75' });
        compileInto(directory, source, { arch: 'sm_80' });
      },
    },
    {
      label: 'option',
      reason: needsNvrtc(entry),
      run: (directory, source) => {
        compileInto(directory, source, { options: ['--use_fast_math'] });
        compileInto(directory, source, { options: [] });
      },
    },
  ];
  for (const { label, reason, run } of differsOn) {
    gatedIt(reason, `test_make_program_cache_key_differs_on: ${label} — two cache files`, () => {
      const directory = freshDirectory();
      run(directory, freshSource());
      expect(cacheEntries(directory)).toHaveLength(2);
    });
  }

  gatedIt(needsNvrtc(entry), 'test_make_program_cache_key_differs_on: options.name', () => {
    const directory = freshDirectory();
    // An unused variable makes NVRTC warn, naming the file.
    const source = freshSource('extern "C" __global__ void my_kernel() { int unused; }');
    compileInto(directory, source, { name: 'kernel-a.cu' });
    const second = compileInto(directory, source, { name: 'kernel-b.cu' });
    expect(second.log).toContain('kernel-b.cu');
    expect(cacheEntries(directory)).toHaveLength(2);
  });

  gatedIt(needsNvrtc(entry), 'test_make_program_cache_key_name_expressions_order_insensitive', () => {
    const directory = freshDirectory();
    const source = freshSource(
      'template <typename T> __global__ void f() {}\ntemplate <typename T> __global__ void g() {}',
    );
    compileInto(directory, source, {}, 'ptx', ['f<int>', 'g<int>']);
    compileInto(directory, source, {}, 'ptx', ['g<int>', 'f<int>']);
    expect(cacheEntries(directory)).toHaveLength(1);
  });

  // --- make_program_cache_key: inputs the compile would refuse are refused up front ---

  for (const bad of [123, 1.5, {}, null]) {
    gatedIt(
      undefined,
      `test_make_program_cache_key_rejects_invalid_name_expressions_element: ${String(bad)} is a TypeError naming nameExpressions, before NVRTC is loaded`,
      () => {
        const program = new Program(freshSource(), 'c++', { arch: 'sm_75' });
        expect(() => program.compile('ptx', { nameExpressions: ['ok', bad as never] })).toThrow(TypeError);
        expect(() => program.compile('ptx', { nameExpressions: ['ok', bad as never] })).toThrow(
          /nameExpressions/,
        );
      },
    );
  }

  gatedIt(
    undefined,
    "test_make_program_cache_key_ignores_invalid_name_expressions_for_non_nvrtc: ptx — cumem checks every argument, a PTX program's name expressions too: a TypeError",
    () => {
      const program = new Program('.version 7.8', 'ptx');
      expect(() => program.compile('ptx', { nameExpressions: [123 as never] })).toThrow(TypeError);
    },
  );

  gatedIt(
    undefined,
    'test_make_program_cache_key_rejects_bytearray_in_name_expressions: a byte array is a TypeError (name expressions are strings)',
    () => {
      const program = new Program(freshSource(), 'c++', { arch: 'sm_75' });
      expect(() =>
        program.compile('ptx', { nameExpressions: ['ok', new TextEncoder().encode('bad') as never] }),
      ).toThrow(/nameExpressions/);
    },
  );

  for (const codeType of ['PTX', 'C++', 'NVVM', 'Ptx'] as const) {
    gatedIt(
      undefined,
      `test_make_program_cache_key_normalises_code_type_case: ${codeType} — cumem takes the code type as spelled ('c++' or 'ptx') and refuses others, so no second key can arise`,
      () => {
        expect(() => new Program('void k(){}', codeType as never)).toThrow(TypeError);
      },
    );
  }

  for (const target of ['PTX', 'Cubin', 'LTOIR', 'PTx'] as const) {
    gatedIt(
      undefined,
      `test_make_program_cache_key_normalises_target_type_case: ${target} — cumem takes the target as spelled ('ptx' or 'cubin') and refuses others`,
      () => {
        const program = new Program(freshSource(), 'c++', { arch: 'sm_75' });
        expect(() => program.compile(target as never)).toThrow(TypeError);
      },
    );
  }

  for (const codeType of ['c++', 'ptx'] as const) {
    gatedIt(
      undefined,
      `test_make_program_cache_key_rejects_bytes_code_outside_nvvm: ${codeType} — bytes for the source are a TypeError`,
      () => {
        expect(() => new Program(new TextEncoder().encode('abc') as never, codeType)).toThrow(TypeError);
      },
    );
  }

  gatedIt(
    undefined,
    'test_make_program_cache_key_rejects: unknown_code_type, nvvm_cannot_cubin — a TypeError (cumem has no NVVM)',
    () => {
      expect(() => new Program('a', 'fortran' as never)).toThrow(/'c\+\+' or 'ptx'/);
      expect(() => new Program('abc', 'nvvm' as never)).toThrow(TypeError);
    },
  );

  gatedIt(
    undefined,
    'test_make_program_cache_key_rejects: unknown_target_type, ptx_cannot_ltoir — a TypeError naming the targets',
    () => {
      expect(() => new Program(freshSource(), 'c++', { arch: 'sm_75' }).compile('exe' as never)).toThrow(
        /'ptx' or 'cubin'/,
      );
      expect(() => new Program('.version 7.8', 'ptx').compile('ltoir' as never)).toThrow(/'ptx' or 'cubin'/);
    },
  );

  gatedIt(undefined, 'test_make_program_cache_key_rejects: non_str_bytes_code — a TypeError', () => {
    expect(() => new Program(12345 as never, 'c++')).toThrow(TypeError);
  });

  // --- make_program_cache_key: inputs the key cannot see (external files, side effects) ---

  gatedIt(
    needsNvrtc(entry),
    'test_make_program_cache_key_rejects_external_content_without_extra_digest: include_path',
    () => {
      const headers = join(scratch, `include-${randomUUID()}`);
      mkdirSync(headers);
      writeFileSync(join(headers, 'value.h'), '#define VALUE 1\n');
      const source = freshSource(
        '#include "value.h"\nextern "C" __global__ void my_kernel(int *p) { *p = VALUE; }',
      );
      const options = { options: [`--include-path=${headers}`] };
      compileInto(freshDirectory(), source, options);
      writeFileSync(join(headers, 'value.h'), '#define VALUE (\n');
      expect(() => compileInto(freshDirectory(), source, options)).toThrow(CompileError);
    },
  );

  gatedIt(
    needsNvrtc(entry),
    'test_make_program_cache_key_rejects_external_content_without_extra_digest: pre_include',
    () => {
      const header = join(scratch, `pre-${randomUUID()}.h`);
      writeFileSync(header, '#define VALUE 1\n');
      const source = freshSource('extern "C" __global__ void my_kernel(int *p) { *p = VALUE; }');
      const options = { options: [`--pre-include=${header}`] };
      compileInto(freshDirectory(), source, options);
      writeFileSync(header, '#define VALUE (\n');
      expect(() => compileInto(freshDirectory(), source, options)).toThrow(CompileError);
    },
  );

  gatedIt(needsNvrtc(entry), 'test_make_program_cache_key_rejects_nvrtc_name_with_dir_component', () => {
    const folder = join(scratch, `kernels-${randomUUID()}`);
    mkdirSync(folder);
    writeFileSync(join(folder, 'value.h'), '#define VALUE 1\n');
    const source = freshSource(
      '#include "value.h"\nextern "C" __global__ void my_kernel(int *p) { *p = VALUE; }',
    );
    const options = { name: join(folder, 'foo.cu') };
    compileInto(freshDirectory(), source, options);
    writeFileSync(join(folder, 'value.h'), '#define VALUE (\n');
    expect(() => compileInto(freshDirectory(), source, options)).toThrow(CompileError);
  });

  for (const name of ['foo.cu', 'default_program']) {
    gatedIt(
      needsNvrtc(entry),
      `test_make_program_cache_key_accepts_nvrtc_name_without_dir_component: ${name} — compiled and cached`,
      () => {
        const directory = freshDirectory();
        compileInto(directory, freshSource(), { name });
        expect(cacheEntries(directory)).toHaveLength(1);
      },
    );
  }

  gatedIt(
    needsNvrtc(entry),
    'test_make_program_cache_key_accepts_empty_external_content: no include options — compiled and cached',
    () => {
      const directory = freshDirectory();
      compileInto(directory, freshSource(), { options: [] });
      expect(cacheEntries(directory)).toHaveLength(1);
    },
  );

  gatedIt(
    needsNvrtc(entry),
    'test_make_program_cache_key_rejects_side_effect_options_nvrtc: create_pch',
    () => {
      const header = join(scratch, `${randomUUID()}.pch`);
      const source = freshSource();
      const options = { options: [`--create-pch=${header}`] };
      compileInto(freshDirectory(), source, options);
      expect(existsSync(header), 'written by the first compile').toBe(true);
      rmSync(header);
      compileInto(freshDirectory(), source, options);
      expect(existsSync(header), 'written by the second compile').toBe(true);
    },
  );

  gatedIt(
    needsNvrtc(entry),
    'test_make_program_cache_key_rejects_side_effect_options_nvrtc: fdevice_time_trace',
    () => {
      // NVRTC names the trace file after the path it is given: count what appears in its folder.
      const folder = join(scratch, `trace-${randomUUID()}`);
      mkdirSync(folder);
      const source = freshSource();
      const options = { options: [`--fdevice-time-trace=${join(folder, 'trace.json')}`] };
      compileInto(freshDirectory(), source, options);
      expect(readdirSync(folder), 'written by the first compile').not.toEqual([]);
      rmSync(folder, { recursive: true, force: true });
      mkdirSync(folder);
      compileInto(freshDirectory(), source, options);
      expect(readdirSync(folder), 'written by the second compile').not.toEqual([]);
    },
  );

  // --- the cache's files and memory, through Program.compile ---

  gatedIt(
    needsNvrtc(entry),
    'test_filestream_cache_persists_across_reopen: with the memory cleared (as in a later process), the file answers the compile',
    () => {
      const directory = freshDirectory();
      const source = freshSource();
      compileInto(directory, source);
      // Only a compile answered by the file can show a log NVRTC never wrote: the file is
      // cumem's own JSON, and this case rewrites only its log.
      const [file] = cacheEntries(directory);
      const path = join(directory, file as string);
      const stored = JSON.parse(readFileSync(path, 'utf8')) as { log: string };
      writeFileSync(path, JSON.stringify({ ...stored, log: 'read from the cache file' }));
      clearCompileCache();
      expect(compileInto(directory, source).log).toBe('read from the cache file');
      // Kept in memory once read: a second directory gets no file, since nothing was compiled.
      const other = freshDirectory();
      expect(compileInto(other, source).log).toBe('read from the cache file');
      expect(cacheEntries(other)).toEqual([]);
    },
  );

  gatedIt(
    needsNvrtc(entry),
    'test_inmemory_cache_clear: clearCompileCache forgets the memory (the next compile stores again) and leaves the files',
    () => {
      const first = freshDirectory();
      const second = freshDirectory();
      const source = freshSource();
      compileInto(first, source);
      compileInto(second, source);
      expect(cacheEntries(second)).toEqual([]);
      clearCompileCache();
      compileInto(second, source);
      expect(cacheEntries(second)).toHaveLength(1);
      expect(cacheEntries(first)).toHaveLength(1);
    },
  );

  gatedIt(
    needsNvrtc(entry),
    'test_filestream_cache_atomic_no_half_written_file: no temporary file is left, and a damaged file is a miss that is compiled and written again',
    () => {
      const directory = freshDirectory();
      const source = freshSource();
      compileInto(directory, source);
      expect(readdirSync(directory).filter((name) => name.endsWith('.tmp'))).toEqual([]);
      const [file] = cacheEntries(directory);
      const path = join(directory, file as string);
      const damaged = '{"target": "ptx", "image": ';
      writeFileSync(path, damaged);
      clearCompileCache();
      compileInto(directory, source);
      expect(readdirSync(directory)).toEqual([file]);
      expect(readFileSync(path, 'utf8')).not.toBe(damaged);
    },
  );

  gatedIt(
    needsNvrtc(entry),
    'test_filestream_cache_permission_error_propagates_on_posix — documented deviation: an unwritable directory warns once (CUMEM_COMPILE_CACHE_UNWRITABLE) and the compiles succeed uncached',
    () => {
      const blocker = join(scratch, `file-${randomUUID()}`);
      writeFileSync(blocker, 'not a directory');
      const directory = join(blocker, 'cache');
      const warn = vi.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
      try {
        compileInto(directory, freshSource());
        compileInto(directory, freshSource());
        const warnings = warn.mock.calls.filter(
          ([, options]) =>
            typeof options === 'object' &&
            (options as { code?: string }).code === 'CUMEM_COMPILE_CACHE_UNWRITABLE',
        );
        expect(warnings).toHaveLength(1);
        expect(String(warnings[0]?.[0])).toContain(directory);
      } finally {
        warn.mockRestore();
      }
    },
  );

  gatedIt(
    needsNvrtc(entry),
    'test_cache_roundtrip_with_real_compilation: a compile read back from the directory (memory cleared) loads and has the kernel',
    () => {
      const directory = freshDirectory();
      const source = freshSource();
      const target = machineCodeTarget(entry);
      const arch = deviceArch();
      const first = new Program(source, 'c++', { arch, name: 'cached_kernel', cacheDirectory: directory });
      first.compile(target).close();
      expect(cacheEntries(directory)).toHaveLength(1);
      clearCompileCache();
      const again = new Program(source, 'c++', { arch, name: 'cached_kernel', cacheDirectory: directory });
      const code = again.compile(target);
      try {
        expect(code.codeType).toBe(target);
        expect(again.log).toBe(first.log);
        expect(Kernel.isKernel(code.getKernel('my_kernel'))).toBe(true);
      } finally {
        code.close();
      }
    },
  );
});
