"""Review 30: the PTX emulator's signed sub-word loads.  PTX's ``ld.s8`` / ``ld.s16`` sign-extend the loaded value
to the destination register's width; the emulator left it zero-extended, so a ``max.s16`` of a loaded negative
int8 against a sign-extended value saw 253 for -3 (a running int8 column maximum over row tiles came out as the
last tile's: ``test_review30_loops.test_int8_column_sums_and_maxima`` failed on the emulator, not on the GPU's
semantics).  Hand-written PTX: global, shared and vector loads into 16-, 32- and 64-bit registers, stored back
whole."""

from __future__ import annotations

import numpy as np

from tileorch.testing.ptx_emulator import Emu

PTX = """
.version 8.6
.target sm_90a
.address_size 64
.visible .entry k(
	.param .u64 k_param_0,
	.param .u64 k_param_1
)
{
	.reg .b16 %rs<8>;
	.reg .b32 %r<4>;
	.reg .b64 %rd<8>;
	.shared .align 8 .b8 buf[8];
	ld.param.u64 %rd1, [k_param_0];
	ld.param.u64 %rd2, [k_param_1];
	ld.global.s8 %rs1, [%rd1];
	ld.global.u8 %rs2, [%rd1];
	ld.global.s8 %r1, [%rd1+1];
	ld.global.s16 %r2, [%rd1+2];
	ld.global.v2.s8 {%rs3, %rs4}, [%rd1+4];
	ld.global.u32 %r3, [%rd1];
	st.shared.u32 [buf], %r3;
	ld.shared.s8 %rs5, [buf];
	ld.shared.s16 %rd3, [buf+2];
	st.global.b16 [%rd2], %rs1;
	st.global.b16 [%rd2+2], %rs2;
	st.global.b32 [%rd2+4], %r1;
	st.global.b32 [%rd2+8], %r2;
	st.global.b16 [%rd2+12], %rs3;
	st.global.b16 [%rd2+14], %rs4;
	st.global.b16 [%rd2+16], %rs5;
	st.global.b64 [%rd2+24], %rd3;
	ret;
}
"""


def test_signed_sub_word_loads_sign_extend_to_the_register():
    src = np.array([0xFD, 5, 0x01, 0x80, 7, 0x80, 0, 0], np.uint8)  # -3, 5, the int16 -32767, 7, -128
    out = np.zeros(32, np.uint8)
    emu = Emu(PTX, [0x10000, 0x20000], 64, 1, (0, 0, 0), {}, [(0x10000, src, "src"),
                                                               (0x20000, out, "out")])
    emu.run()
    assert not emu.errors, emu.errors
    h, w = out.view(np.int16), out.view(np.int32)
    assert (h[0], h[1]) == (-3, 253)  # ld.s8 / ld.u8 into a 16-bit register
    assert (w[1], w[2]) == (5, -32767)  # ld.s8 / ld.s16 into a 32-bit register
    assert (h[6], h[7], h[8]) == (7, -128, -3)  # ld.v2.s8, ld.shared.s8
    assert out.view(np.int64)[3] == -32767  # ld.shared.s16 into a 64-bit register
