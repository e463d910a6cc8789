// cuda.core's cuda_core/tests/test_linker.py (NVIDIA/cuda-python, read at commit
// 00ca3300bfbb7fff955a384dd4d396cfddd08158), against @cumem/compute.
//
// cumem has no Linker: it loads neither nvJitLink nor the driver's cuLink* API (a documented
// deviation, README "NVRTC: Program"). What it documents instead is checked below: linking PTX to
// a cubin is refused with a NotSupportedError that names nvJitLink, and the PTX loads as it is.
//
// Not ported (cumem has no Linker, LinkerOptions, link logs, linker handle or LTO IR):
// - test_linker_init (every LinkerOptions parametrization), test_linker_init_invalid_arch
// - test_linker_link_ptx_nvjitlink, test_linker_link_ptx_culink, test_linker_link_ptx_multiple
// - test_linker_link_invalid_target_type
// - test_linker_get_error_log, test_linker_get_info_log, test_linker_logs_cached_after_link
// - test_linker_options_as_bytes_nvjitlink, test_linker_options_as_bytes_invalid_backend,
//   test_linker_options_as_bytes_driver_not_supported, test_linker_options_nvjitlink_options_as_str
// - test_linker_handle
// - TestLinkerDispatch: test_ltoir_without_nvjitlink_raises, test_cross_major_with_ltoir_raises,
//   test_cross_major_with_lto_option_raises, test_lto_without_nvjitlink_raises
import { NotSupportedError } from '@cumem/core-types';
import { useDriver } from '@cumem/memory';
import { describeEachDriver } from '@cumem/testing/vitest';
import { beforeAll, expect, it } from 'vitest';
import { Kernel, Program } from '../../src/index.js';
import { adapters } from '../support.js';

// The three relocatable pieces of upstream's link, reduced to the one a PTX program holds: a
// kernel calling a device function defined in the same PTX.
const kernelWithCallPTX = `
.version 7.8
.target sm_75
.address_size 64

.func (.param .b32 result) add_one(.param .b32 value)
{
	.reg .b32 %r<3>;
	ld.param.b32 %r1, [value];
	add.s32 %r2, %r1, 1;
	st.param.b32 [result], %r2;
	ret;
}

.visible .entry A()
{
	ret;
}
`;

describeEachDriver(adapters, 'cuda.core test_linker.py', (entry) => {
  beforeAll(() => {
    useDriver(entry.driver);
  });

  it('test_linker_link_cubin: linking PTX to a cubin is a NotSupportedError naming nvJitLink, and the PTX loads (documented deviation: no linker)', () => {
    const program = new Program(kernelWithCallPTX, 'ptx', { name: 'ABC' });
    expect(() => program.compile('cubin')).toThrow(NotSupportedError);
    expect(() => program.compile('cubin')).toThrow(/nvJitLink/);
    const code = program.compile('ptx');
    expect(Kernel.isKernel(code.getKernel('A'))).toBe(true);
    code.close();
  });
});
