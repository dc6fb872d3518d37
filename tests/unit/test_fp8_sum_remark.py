"""A dot of e4m3 / e5m2 operands on the TMA/WGMMA tier says, at the dot, that the WGMMAs sum its products into the
f32 accumulator with the tensor core's narrower fp8 adder (session 38: sweep 29's f32-out fp8 GEMMs missed a 1e-3
tolerance on an H100 for this reason; the CPU emulator sums in f32 unless ``Emu.fp8_sum_bits`` is set); an f16 or
int8 dot does not.  No GPU, no ptxas."""

from __future__ import annotations

import pytest

pytest.importorskip("cuda.tile")
pytest.importorskip("ml_dtypes")

from tileorch.testing.gemm_emulation import compile_cutile  # noqa: E402
from tileorch.testing.user_programs29 import PROGRAMS  # noqa: E402


def _remarks(name):
    p = PROGRAMS[name]
    prog = compile_cutile(p.kernel, p.spec, name)
    assert prog.kind == "gemm", prog.remarks
    return [r for r in prog.remarks if "summed by the WGMMAs themselves" in r]


@pytest.mark.parametrize("name,dtype", [("fp8_e4m3_gemm_rows_of_32", "e4m3"), ("fp8_e5m2_gemm_row_scales_f32", "e5m2")])
def test_an_fp8_dot_says_how_its_products_are_summed(name, dtype):
    got = _remarks(name)
    assert len(got) == 1, got
    # located at the program's ct.mma (user_programs29.py), a remark
    assert "user_programs29.py:" in got[0] and ": remark: this dot's " + dtype + " products" in got[0], got[0]


@pytest.mark.parametrize("name", ["gemm_tiles_of_32_rows_bf16", "int8_gemm_int32_ragged_k"])
def test_other_dots_do_not(name):
    assert _remarks(name) == []
