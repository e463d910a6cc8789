// cuda.core's cuda_core/tests/test_program.py (NVIDIA/cuda-python, read at commit
// 00babc90b690cc2c2788260642a72319290529d3), translated case by case onto @cumem/compute's Program.
//
// cumem's Program takes NVRTC's own command-line options as strings where cuda.core has a
// ProgramOptions class: each ProgramOptions parametrization below is written as the NVRTC flags
// cuda.core's documentation maps it to. Compiling C++ needs NVRTC; those cases skip here, visibly,
// and run on the GPU machine.
//
// Not ported:
// - test_program_backend_property: cumem's Program has no `backend`; its code type decides it
//   (NVRTC for 'c++', the driver's PTX JIT for 'ptx').
// - test_program_handle_property, test_program_close: cumem's Program holds no NVRTC handle
//   between compiles (it makes and destroys one inside `compile`), so there is nothing to expose or close.
// - test_nvvm_deferred_import, test_nvvm_program_creation_compilation, test_nvvm_compile_invalid_target,
//   test_nvvm_program_options, test_program_options_as_bytes_nvvm,
//   test_program_options_as_bytes_nvvm_unsupported_option, test_program_from_handle_nvvm:
//   cumem has no NVVM (LLVM IR) code type (its refusal is checked in test_program_init_invalid_code_type).
// - test_program_options_as_bytes_nvrtc, test_program_options_as_bytes_invalid_backend: cumem has
//   no ProgramOptions class to render; the options are NVRTC's strings as given.
// - test_program_from_handle_nvrtc, test_program_from_handle_invalid_backend: cumem has no
//   Program.fromHandle (it never hands out an NVRTC program).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DeviceAttribute, NotSupportedError } from '@cumem/core-types';
import { useDriver } from '@cumem/memory';
import { describeEachDriver } from '@cumem/testing/vitest';
import { afterAll, beforeAll, expect } from 'vitest';
import { Kernel, ObjectCode, Program, type ProgramOptions } from '../../src/index.js';
import { adapters } from '../support.js';
import { gatedIt, needsGpuAndNvrtc, needsNvrtc, needsNvrtcVersion } from './upstream-gates.js';

const emptyKernel = 'extern "C" __global__ void my_kernel() {}';

// The PTX NVRTC makes of `emptyKernel`, written out so that the PTX-program cases need no NVRTC.
const emptyKernelPTX = `
.version 7.8
.target sm_75
.address_size 64

.visible .entry my_kernel()
{
	ret;
}
`;

interface OptionCase {
  /** The upstream ProgramOptions, as its parametrization reads. */
  readonly label: string;
  readonly options: ProgramOptions;
  /** The NVRTC version the option needs, where upstream skips older ones. */
  readonly nvrtc?: readonly [number, number];
  /** A documented deviation: cumem refuses these options with a NotSupportedError (the reason). */
  readonly refused?: string;
}

const cppOptionCases: readonly OptionCase[] = [
  { label: 'name="abc"', options: { name: 'abc' } },
  { label: 'device_code_optimize, debug', options: { options: ['--dopt=on', '--device-debug'] } },
  {
    label: 'debug, numba_debug',
    options: { options: ['--device-debug', '--numba-debug'] },
    nvrtc: [13, 2],
  },
  {
    label: 'relocatable_device_code, max_register_count=32',
    options: { options: ['--relocatable-device-code=true', '--maxrregcount=32'] },
  },
  {
    label: 'ftz, prec_sqrt=False, prec_div=False',
    options: { options: ['--ftz=true', '--prec-sqrt=false', '--prec-div=false'] },
  },
  { label: 'fma=False, use_fast_math', options: { options: ['--fmad=false', '--use_fast_math'] } },
  { label: 'extra_device_vectorization', options: { options: ['--extra-device-vectorization'] } },
  {
    label: 'link_time_optimization',
    options: { options: ['--dlink-time-opt'] },
    refused: 'NVRTC emits LTO IR, not PTX, and linking it needs nvJitLink, which cumem does not load',
  },
  { label: 'define_macro="MY_MACRO"', options: { options: ['--define-macro=MY_MACRO'] } },
  { label: 'define_macro=("MY_MACRO", "99")', options: { options: ['--define-macro=MY_MACRO=99'] } },
  { label: 'define_macro=[("MY_MACRO", "99")]', options: { options: ['--define-macro=MY_MACRO=99'] } },
  {
    label: 'define_macro=[("MY_MACRO", "99"), ("MY_OTHER_MACRO", "100")]',
    options: { options: ['--define-macro=MY_MACRO=99', '--define-macro=MY_OTHER_MACRO=100'] },
  },
  {
    label: 'undefine_macro=["MY_MACRO", "MY_OTHER_MACRO"]',
    options: { options: ['--undefine-macro=MY_MACRO', '--undefine-macro=MY_OTHER_MACRO'] },
  },
  {
    label: 'undefine_macro="MY_MACRO", include_path="/usr/local/include"',
    options: { options: ['--undefine-macro=MY_MACRO', '--include-path=/usr/local/include'] },
  },
  {
    label: 'builtin_initializer_list=False, disable_warnings',
    options: { options: ['--builtin-initializer-list=false', '--disable-warnings'] },
  },
  {
    label: 'restrict, device_as_default_execution_space',
    options: { options: ['--restrict', '--device-as-default-execution-space'] },
  },
  {
    label: 'device_int128, optimization_info="inline"',
    options: { options: ['--device-int128', '--optimization-info=inline'] },
  },
  { label: 'no_display_error_number', options: { options: ['--no-display-error-number'] } },
  {
    label: 'diag_error=1234, diag_suppress=1234',
    options: { options: ['--diag-error=1234', '--diag-suppress=1234'] },
  },
  {
    label: 'diag_error=[1234, 1223], diag_suppress=(1234, 1223)',
    options: {
      options: ['--diag-error=1234', '--diag-error=1223', '--diag-suppress=1234', '--diag-suppress=1223'],
    },
  },
  { label: 'diag_warn=1000', options: { options: ['--diag-warn=1000'] } },
  { label: 'std="c++11", ptxas_options=["-v"]', options: { options: ['--std=c++11', '--ptxas-options=-v'] } },
  {
    label: 'std="c++11", ptxas_options=["-v", "-O2"]',
    options: { options: ['--std=c++11', '--ptxas-options=-v', '--ptxas-options=-O2'] },
  },
  { label: 'brief_diagnostics', options: { options: ['--brief-diagnostics=true'] } },
  { label: 'builtin_move_forward=False', options: { options: ['--builtin-move-forward=false'] } },
  { label: 'extensible_whole_program', options: { options: ['--extensible-whole-program'] } },
  { label: 'fdevice_syntax_only', options: { options: ['--fdevice-syntax-only'] } },
  { label: 'gen_opt_lto', options: { options: ['--gen-opt-lto'] } },
  { label: 'minimal', options: { options: ['--minimal'] } },
  { label: 'no_source_include', options: { options: ['--no-source-include'] } },
  { label: 'no_cache', options: { options: ['--no-cache'] } },
  { label: 'frandom_seed="12345"', options: { options: ['--frandom-seed=12345'] } },
  { label: 'ofast_compile="min"', options: { options: ['--Ofast-compile=min'] } },
  { label: 'pch', options: { options: ['--pch'] }, nvrtc: [12, 8] },
  { label: 'pch_verbose', options: { options: ['--pch-verbose=true'] }, nvrtc: [12, 8] },
  { label: 'pch_messages=False', options: { options: ['--pch-messages=false'] }, nvrtc: [12, 8] },
  {
    label: 'instantiate_templates_in_pch',
    options: { options: ['--instantiate-templates-in-pch=true'] },
    nvrtc: [12, 8],
  },
];

// The options of the upstream PTX-program cases (cuda.core hands them to its linker).
const ptxOptionCases: readonly OptionCase[] = [
  { label: 'max_register_count=32', options: { options: ['--maxrregcount=32'] } },
  { label: 'debug', options: { options: ['--device-debug'] } },
  { label: 'lineinfo', options: { options: ['--generate-line-info'] } },
  { label: 'ftz', options: { options: ['--ftz=true'] } },
  { label: 'prec_div', options: { options: ['--prec-div=true'] } },
  { label: 'prec_sqrt', options: { options: ['--prec-sqrt=true'] } },
  { label: 'fma', options: { options: ['--fmad=true'] } },
  { label: 'time', options: { options: ['--time=-'] } },
  { label: 'split_compile', options: { options: ['--split-compile=0'] } },
];

describeEachDriver(adapters, 'cuda.core test_program.py', (entry) => {
  let scratch: string;
  beforeAll(() => {
    useDriver(entry.driver);
    scratch = mkdtempSync(join(tmpdir(), 'cumem-upstream-program-'));
  });
  afterAll(() => {
    rmSync(scratch, { recursive: true, force: true });
  });

  for (const { label, options, nvrtc, refused } of cppOptionCases) {
    const reason = nvrtc === undefined ? needsNvrtc(entry) : needsNvrtcVersion(entry, ...nvrtc);
    const title = `test_cpp_program_with_various_options: ${label}`;
    const body = () => {
      const code = new Program(emptyKernel, 'c++', options).compile('ptx');
      expect(ObjectCode.isObjectCode(code)).toBe(true);
      expect(code.codeType).toBe('ptx');
      code.close();
    };
    const refusal = () => {
      expect(() => new Program(emptyKernel, 'c++', options).compile('ptx')).toThrow(NotSupportedError);
    };
    if (refused !== undefined)
      gatedIt(reason, `${title} — a NotSupportedError (documented deviation: ${refused})`, refusal);
    else gatedIt(reason, title, body);
  }

  gatedIt(
    needsNvrtcVersion(entry, 13, 0),
    'test_cpp_program_with_trace_option: compiles with --fdevice-time-trace',
    () => {
      const options = [`--fdevice-time-trace=${join(scratch, 'trace')}`];
      const code = new Program(emptyKernel, 'c++', { options }).compile('ptx');
      expect(code.codeType).toBe('ptx');
      code.close();
    },
  );

  gatedIt(
    needsNvrtcVersion(entry, 12, 8),
    'test_cpp_program_with_pch_options: creates a precompiled header, then uses it',
    () => {
      const header = join(scratch, 'test.pch');
      for (const option of [`--create-pch=${header}`, `--use-pch=${header}`]) {
        const code = new Program(emptyKernel, 'c++', { options: [option] }).compile('ptx');
        expect(code.codeType).toBe('ptx');
        code.close();
      }
    },
  );

  for (const { label, options } of ptxOptionCases) {
    // Documented deviation: cumem loads no linker (nvJitLink or cuLink*), so a PTX program's
    // compile('cubin') is refused; compile('ptx') loads it and the driver compiles it at load.
    gatedIt(
      undefined,
      `test_ptx_program_with_various_options: ${label} — PTX to cubin is a NotSupportedError (documented deviation), PTX loads`,
      () => {
        const program = new Program(emptyKernelPTX, 'ptx', options);
        expect(() => program.compile('cubin')).toThrow(NotSupportedError);
        expect(() => program.compile('cubin')).toThrow(/nvJitLink/);
        const code = program.compile('ptx');
        expect(Kernel.isKernel(code.getKernel('my_kernel'))).toBe(true);
        code.close();
      },
    );
  }

  gatedIt(undefined, 'test_program_init_valid_code_type: a C++ program is made without NVRTC', () => {
    const program = new Program(emptyKernel, 'c++');
    expect(Program.isProgram(program)).toBe(true);
    expect(program.codeType).toBe('c++');
    // No backend or handle in cumem: the description names the language and the architecture.
    const major = entry.driver.deviceGetAttribute(DeviceAttribute.ComputeCapabilityMajor, 0);
    const minor = entry.driver.deviceGetAttribute(DeviceAttribute.ComputeCapabilityMinor, 0);
    expect(String(program)).toBe(`Program(codeType: c++, arch: sm_${major}${minor}, name: program.cu)`);
  });

  gatedIt(
    undefined,
    'test_program_init_invalid_code_type: an unknown code type is a TypeError naming both',
    () => {
      expect(() => new Program('goto 100', 'FORTRAN' as never)).toThrow(TypeError);
      expect(() => new Program('goto 100', 'FORTRAN' as never)).toThrow(/'c\+\+' or 'ptx'.*FORTRAN/);
      // cumem has no NVVM backend: that code type is refused the same way.
      expect(() => new Program('target triple = "nvptx64-unknown-cuda"', 'nvvm' as never)).toThrow(TypeError);
    },
  );

  gatedIt(
    undefined,
    'test_program_init_invalid_code_format: a source that is not a string is a TypeError',
    () => {
      expect(() => new Program(12345 as never, 'c++')).toThrow(TypeError);
    },
  );

  gatedIt(
    needsNvrtc(entry),
    'test_program_compile_valid_target_type: C++ to PTX gives an ObjectCode with the kernel',
    () => {
      const program = new Program(emptyKernel, 'c++', { name: '42' });
      const code = program.compile('ptx');
      expect(ObjectCode.isObjectCode(code)).toBe(true);
      expect(code.codeType).toBe('ptx');
      // cumem's ObjectCode has no name of its own: the name is the program's (and NVRTC's log's).
      expect(String(program)).toMatch(/name: 42\)$/);
      expect(Kernel.isKernel(code.getKernel('my_kernel'))).toBe(true);
      code.close();
    },
  );

  gatedIt(
    needsGpuAndNvrtc(entry),
    'test_program_compile_valid_target_type: C++ to a cubin gives an ObjectCode with the kernel (PTX to cubin needs the linker cumem lacks: documented deviation)',
    () => {
      const code = new Program(emptyKernel, 'c++', { name: '24' }).compile('cubin');
      expect(ObjectCode.isObjectCode(code)).toBe(true);
      expect(code.codeType).toBe('cubin');
      expect(Kernel.isKernel(code.getKernel('my_kernel'))).toBe(true);
      code.close();
    },
  );

  gatedIt(
    undefined,
    'test_program_compile_invalid_target_type: an unknown target is a TypeError before NVRTC is loaded',
    () => {
      const program = new Program(emptyKernel, 'c++');
      expect(() => program.compile('invalid_target' as never)).toThrow(TypeError);
      expect(() => program.compile('invalid_target' as never)).toThrow(/'ptx' or 'cubin'/);
    },
  );
});

// device_float128 needs a device of compute capability 10.0 or newer, for which the upstream
// parametrization compiles (arch sm_100).
describeEachDriver(
  adapters,
  'cuda.core test_program.py, compute capability 10.0',
  (entry) => {
    beforeAll(() => {
      useDriver(entry.driver);
    });
    gatedIt(
      needsNvrtc(entry),
      'test_cpp_program_with_various_options: arch="sm_100", device_float128',
      () => {
        const program = new Program(emptyKernel, 'c++', { arch: 'sm_100', options: ['--device-float128'] });
        const code = program.compile('ptx');
        expect(code.codeType).toBe('ptx');
        code.close();
      },
    );
  },
  {
    requires: (driver) =>
      driver.deviceGetAttribute(DeviceAttribute.ComputeCapabilityMajor, 0) >= 10
        ? undefined
        : 'not applicable: device_float128 needs a device of compute capability 10.0 or newer',
  },
);
