// PTX of the kernels the reference driver runs on the CPU. The same text loads and runs on a
// real GPU (the driver JIT-compiles it), so a test written against it holds on both. Written by
// hand for PTX ISA 7.8 (CUDA 11.8 and newer drivers), target sm_75 (the oldest CUDA 13 supports).

/**
 * PTX (NUL-free text) with these kernels, each indexed by its global thread id `i`:
 * - `fill_f32(float *out, float value, uint32 n)`: `out[i] = value` for i < n (1-D grid).
 * - `add_f32(const float *a, const float *b, float *out, uint32 n)`: `out[i] = a[i] + b[i]` (1-D).
 * - `iota_u32(uint32 *out, uint32 n)`: `out[i] = i`, i the linear thread id over a 1-, 2- or
 *   3-D grid and block (x fastest).
 * - `reverse_block_u32(uint32 *data)`: reverses each block's `blockDim.x` elements through
 *   dynamic shared memory (launch with at least `4 * blockDim.x` bytes of it; 1-D).
 * - `write_u32(uint64 address, uint32 value)`: one store of `value` at `address` (a wrong
 *   address faults: the test of fault handling).
 * - `store_scalars(uint8 *out, int32 a, uint32 b, int64 c, uint64 d, float e, double f, bool g)`:
 *   stores a at out+0, b at +4, c at +8, d at +16, e at +24, f at +32, g at +40 (41 bytes).
 * - `empty5(uint64, uint64, uint32, uint32, float)`: does nothing (launch overhead).
 */
export const referenceKernelsPTX = `//
// cumem reference kernels
//
.version 7.8
.target sm_75
.address_size 64

.extern .shared .align 4 .b8 reverse_shared[];

.visible .entry fill_f32(
	.param .u64 fill_f32_out,
	.param .f32 fill_f32_value,
	.param .u32 fill_f32_n
)
{
	.reg .pred %p<2>;
	.reg .b32 %r<6>;
	.reg .f32 %f<2>;
	.reg .b64 %rd<5>;

	ld.param.u64 %rd1, [fill_f32_out];
	ld.param.f32 %f1, [fill_f32_value];
	ld.param.u32 %r1, [fill_f32_n];
	mov.u32 %r2, %ctaid.x;
	mov.u32 %r3, %ntid.x;
	mov.u32 %r4, %tid.x;
	mad.lo.s32 %r5, %r2, %r3, %r4;
	setp.ge.u32 %p1, %r5, %r1;
	@%p1 bra FILL_DONE;
	cvta.to.global.u64 %rd2, %rd1;
	mul.wide.u32 %rd3, %r5, 4;
	add.s64 %rd4, %rd2, %rd3;
	st.global.f32 [%rd4], %f1;
FILL_DONE:
	ret;
}

.visible .entry add_f32(
	.param .u64 add_f32_a,
	.param .u64 add_f32_b,
	.param .u64 add_f32_out,
	.param .u32 add_f32_n
)
{
	.reg .pred %p<2>;
	.reg .b32 %r<6>;
	.reg .f32 %f<4>;
	.reg .b64 %rd<11>;

	ld.param.u64 %rd1, [add_f32_a];
	ld.param.u64 %rd2, [add_f32_b];
	ld.param.u64 %rd3, [add_f32_out];
	ld.param.u32 %r1, [add_f32_n];
	mov.u32 %r2, %ctaid.x;
	mov.u32 %r3, %ntid.x;
	mov.u32 %r4, %tid.x;
	mad.lo.s32 %r5, %r2, %r3, %r4;
	setp.ge.u32 %p1, %r5, %r1;
	@%p1 bra ADD_DONE;
	mul.wide.u32 %rd4, %r5, 4;
	cvta.to.global.u64 %rd5, %rd1;
	add.s64 %rd6, %rd5, %rd4;
	ld.global.f32 %f1, [%rd6];
	cvta.to.global.u64 %rd7, %rd2;
	add.s64 %rd8, %rd7, %rd4;
	ld.global.f32 %f2, [%rd8];
	add.f32 %f3, %f1, %f2;
	cvta.to.global.u64 %rd9, %rd3;
	add.s64 %rd10, %rd9, %rd4;
	st.global.f32 [%rd10], %f3;
ADD_DONE:
	ret;
}

.visible .entry iota_u32(
	.param .u64 iota_u32_out,
	.param .u32 iota_u32_n
)
{
	.reg .pred %p<2>;
	.reg .b32 %r<20>;
	.reg .b64 %rd<5>;

	ld.param.u64 %rd1, [iota_u32_out];
	ld.param.u32 %r1, [iota_u32_n];
	mov.u32 %r2, %ntid.x;
	mov.u32 %r3, %ntid.y;
	mov.u32 %r4, %ntid.z;
	mov.u32 %r5, %nctaid.x;
	mov.u32 %r6, %nctaid.y;
	mov.u32 %r7, %ctaid.z;
	mov.u32 %r8, %ctaid.y;
	mad.lo.s32 %r9, %r6, %r7, %r8;
	mov.u32 %r10, %ctaid.x;
	mad.lo.s32 %r11, %r5, %r9, %r10;
	mov.u32 %r12, %tid.z;
	mov.u32 %r13, %tid.y;
	mad.lo.s32 %r14, %r3, %r12, %r13;
	mov.u32 %r15, %tid.x;
	mad.lo.s32 %r16, %r2, %r14, %r15;
	mul.lo.s32 %r17, %r2, %r3;
	mul.lo.s32 %r18, %r17, %r4;
	mad.lo.s32 %r19, %r11, %r18, %r16;
	setp.ge.u32 %p1, %r19, %r1;
	@%p1 bra IOTA_DONE;
	cvta.to.global.u64 %rd2, %rd1;
	mul.wide.u32 %rd3, %r19, 4;
	add.s64 %rd4, %rd2, %rd3;
	st.global.u32 [%rd4], %r19;
IOTA_DONE:
	ret;
}

.visible .entry reverse_block_u32(
	.param .u64 reverse_block_u32_data
)
{
	.reg .b32 %r<11>;
	.reg .b64 %rd<5>;

	ld.param.u64 %rd1, [reverse_block_u32_data];
	cvta.to.global.u64 %rd2, %rd1;
	mov.u32 %r1, %tid.x;
	mov.u32 %r2, %ntid.x;
	mov.u32 %r3, %ctaid.x;
	mad.lo.s32 %r4, %r3, %r2, %r1;
	mul.wide.u32 %rd3, %r4, 4;
	add.s64 %rd4, %rd2, %rd3;
	ld.global.u32 %r5, [%rd4];
	mov.u32 %r6, reverse_shared;
	shl.b32 %r7, %r1, 2;
	add.s32 %r8, %r6, %r7;
	st.shared.u32 [%r8], %r5;
	bar.sync 0;
	sub.s32 %r9, %r2, %r1;
	shl.b32 %r9, %r9, 2;
	add.s32 %r10, %r6, %r9;
	ld.shared.u32 %r5, [%r10+-4];
	st.global.u32 [%rd4], %r5;
	ret;
}

.visible .entry write_u32(
	.param .u64 write_u32_address,
	.param .u32 write_u32_value
)
{
	.reg .b32 %r<2>;
	.reg .b64 %rd<3>;

	ld.param.u64 %rd1, [write_u32_address];
	ld.param.u32 %r1, [write_u32_value];
	cvta.to.global.u64 %rd2, %rd1;
	st.global.u32 [%rd2], %r1;
	ret;
}

.visible .entry store_scalars(
	.param .u64 store_scalars_out,
	.param .u32 store_scalars_a,
	.param .u32 store_scalars_b,
	.param .u64 store_scalars_c,
	.param .u64 store_scalars_d,
	.param .f32 store_scalars_e,
	.param .f64 store_scalars_f,
	.param .u8 store_scalars_g
)
{
	.reg .b16 %rs<2>;
	.reg .b32 %r<3>;
	.reg .f32 %f<2>;
	.reg .f64 %fd<2>;
	.reg .b64 %rd<5>;

	ld.param.u64 %rd1, [store_scalars_out];
	cvta.to.global.u64 %rd2, %rd1;
	ld.param.u32 %r1, [store_scalars_a];
	st.global.u32 [%rd2], %r1;
	ld.param.u32 %r2, [store_scalars_b];
	st.global.u32 [%rd2+4], %r2;
	ld.param.u64 %rd3, [store_scalars_c];
	st.global.u64 [%rd2+8], %rd3;
	ld.param.u64 %rd4, [store_scalars_d];
	st.global.u64 [%rd2+16], %rd4;
	ld.param.f32 %f1, [store_scalars_e];
	st.global.f32 [%rd2+24], %f1;
	ld.param.f64 %fd1, [store_scalars_f];
	st.global.f64 [%rd2+32], %fd1;
	ld.param.u8 %rs1, [store_scalars_g];
	st.global.u8 [%rd2+40], %rs1;
	ret;
}

.visible .entry empty5(
	.param .u64 empty5_a,
	.param .u64 empty5_b,
	.param .u32 empty5_c,
	.param .u32 empty5_d,
	.param .f32 empty5_e
)
{
	ret;
}
`;
