"""A dot of e4m3 / e5m2 operands on the TMA/WGMMA tier says, at the dot, how its products are summed: in two
levels (``TILEORCH_FP8_PROMOTE_INTERVAL`` > 0, the default 1: the WGMMAs accumulate one K tile into a scratch
accumulator that f32 additions add into the f32 accumulator), or by the WGMMAs themselves over the whole K loop
(``=0``, or where two-level accumulation is not built: the reason named), with the tensor core's narrower fp8
adder (session 38: sweep 29's f32-out fp8 GEMMs missed a 1e-3 tolerance on an H100 for this reason); an f16 or
int8 dot does not.  No GPU, no ptxas."""

from __future__ import annotations

import pytest

pytest.importorskip("cuda.tile")
pytest.importorskip("ml_dtypes")

from tileorch.testing.gemm_emulation import compile_cutile  # noqa: E402
from tileorch.testing.user_programs29 import PROGRAMS  # noqa: E402

ENV = "TILEORCH_FP8_PROMOTE_INTERVAL"


def _remarks(name):
    p = PROGRAMS[name]
    prog = compile_cutile(p.kernel, p.spec, name)
    assert prog.kind == "gemm", prog.remarks
    return [r for r in prog.remarks if ": remark: this dot's " in r], prog.gemm_config


@pytest.mark.parametrize("name,dtype", [("fp8_e4m3_gemm_rows_of_32", "e4m3"), ("fp8_e5m2_gemm_row_scales_f32", "e5m2")])
def test_an_fp8_dot_says_it_is_accumulated_in_two_levels(name, dtype):
    got, cfg = _remarks(name)
    assert len(got) == 1, got
    # located at the program's ct.mma (user_programs29.py), a remark
    assert "user_programs29.py:" in got[0] and ": remark: this dot's " + dtype + " products are accumulated in two " \
        f"levels ({ENV}=1): the WGMMAs sum 1 K tile (128 products) at a time into a scratch accumulator" in got[0], got
    assert cfg.fp8_promote == 1 and cfg.name.endswith("_pr1"), cfg.name


def test_interval_zero_says_the_wgmmas_sum_the_whole_k_loop(monkeypatch):
    monkeypatch.setenv(ENV, "0")
    got, cfg = _remarks("fp8_e4m3_gemm_rows_of_32")
    assert len(got) == 1 and "products are summed by the WGMMAs themselves into the f32 accumulator over the whole " \
        f"K loop (no promotion: {ENV}=0)" in got[0], got
    assert cfg.fp8_promote == 0, cfg.name


@pytest.mark.parametrize("name", ["gemm_tiles_of_32_rows_bf16", "int8_gemm_int32_ragged_k"])
def test_other_dots_do_not(name):
    got, cfg = _remarks(name)
    assert got == [] and cfg.fp8_promote == 0
