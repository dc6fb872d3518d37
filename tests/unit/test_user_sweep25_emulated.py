"""The twenty-fifth user sweep's programs as PTX (after LLVM) run CTA by CTA on the CPU by
``tileorch.testing.ptx_emulator``, against independent numpy (float64 / Python integer) references, outputs NaN /
sentinel prefilled, ragged shapes:

* the GEMMs the TileAS tier takes (TMA + WGMMA: test_user_sweep14_emulated's runner, the launcher's own problem
  derivation, compiled with the direct epilogue on 1-CTA clusters): :data:`GEMMS` (the two fp8 GEMMs run on
  the GPU alone: the emulator's WGMMA models f16, bf16, tf32 and s8 operands; so does the column-major B view:
  this runner describes arrays by their shapes, not the view's strides the launcher reads through
  ``stored_arguments``);
* the SIMT programs (test_user_sweep25_interp.py's tests with its ``run`` swapped for
  test_user_sweep10_emulated.emulate): :data:`EMULATED`.

CI-sized subsets; ``TILEORCH_EMULATE_ALL=1`` runs every case.  Needs cuda-tile and ml_dtypes, no GPU, no ptxas."""

from __future__ import annotations

import os

import numpy as np
import pytest

pytest.importorskip("xdsl")
pytest.importorskip("cuda.tile")
ml_dtypes = pytest.importorskip("ml_dtypes")

import test_user_sweep4_emulated as s4  # noqa: E402
import test_user_sweep10_emulated as s10e  # noqa: E402
import test_user_sweep14_emulated as s14e  # noqa: E402
import test_user_sweep25_interp as s25  # noqa: E402

from tileorch.testing.user_programs25 import PROGRAMS  # noqa: E402

RNG = np.random.default_rng(2525)
ALL = bool(os.environ.get("TILEORCH_EMULATE_ALL"))


def _h(*shape, scale=1.0, dt=np.float16):
    return (RNG.standard_normal(shape) * scale).astype(dt)


def _bf(*shape, scale=1.0):
    """bf16 values as ``ml_dtypes.bfloat16`` (the runner places arrays' bytes as they are)."""
    return (RNG.standard_normal(shape) * scale).astype(np.float32).astype(ml_dtypes.bfloat16)


def _unset(shape, dt):
    """An output prefilled as the runner would (NaN; an integer sentinel), for dtypes its table lacks."""
    if dt == "bfloat16":
        return np.full(shape, np.nan, ml_dtypes.bfloat16)
    return np.full(shape, np.iinfo(dt).min, dt)


def _mm(a, b):
    return np.asarray(a, np.float64) @ np.asarray(b, np.float64)


def _check(out, ref, atol, rtol=2e-3):
    out = np.asarray(out, np.float64)
    assert not np.isnan(out).any(), "unwritten outputs"
    np.testing.assert_allclose(out, ref, atol=atol, rtol=rtol)


def emulate(name: str, inputs: dict) -> dict:
    """A GEMM-tier program on its spec's shapes (test_user_sweep14_emulated's runner; the GPU file swaps it)."""
    return s14e.emulate(name, inputs)


# ----------------------------------------------------------------------------------------------- the GEMM cases


def _case_gemm_k_not_a_multiple_of_the_tile():
    a, b = _h(200, 100), _h(100, 136)
    _check(emulate("gemm_k_not_a_multiple_of_the_tile", {0: a, 1: b})[2], _mm(a, b), 2e-2)


def _case_gemm_b_stored_nk_permuted():
    a, w = _bf(130, 128), _bf(96, 128)
    _check(emulate("gemm_b_stored_nk_permuted", {0: a, 1: w})[2], _mm(a.astype(np.float32), w.astype(np.float32).T),
           5e-2, 5e-3)


def _case_gemm_a_stored_km_transposed():
    at, b = _h(96, 128), _h(96, 80)
    _check(emulate("gemm_a_stored_km_transposed", {0: at, 1: b})[2], _mm(at.T, b), 5e-2, 5e-3)


def _case_bmm_three_d_tiles():
    a, b = _h(3, 70, 64), _h(3, 64, 72)
    _check(emulate("bmm_three_d_tiles", {0: a, 1: b})[2], np.einsum("lmk,lkn->lmn", a.astype(np.float64), b), 5e-2,
           5e-3)


def _case_int8_gemm_int32_accumulate():
    a = RNG.integers(-128, 128, (96, 160)).astype(np.int8)
    b = RNG.integers(-128, 128, (160, 64)).astype(np.int8)
    out = emulate("int8_gemm_int32_accumulate", {0: a, 1: b, 2: _unset((96, 64), np.int32)})[2]
    np.testing.assert_array_equal(out, a.astype(np.int64) @ b.astype(np.int64))


def _case_gemm_row_and_column_scale_vectors():
    a, b = _h(150, 96), _h(96, 130)
    rs, cs = RNG.random(150).astype(np.float32) + 0.5, RNG.random(130).astype(np.float32) + 0.5
    out = emulate("gemm_row_and_column_scale_vectors", {0: a, 1: b, 2: rs, 3: cs, 4: _unset((150, 130), "bfloat16")})[4]
    _check(out.astype(np.float32), _mm(a, b) * rs[:, None] * cs[None, :], 5e-2, 1e-2)  # bf16 out


def _gelu(h):
    return 0.5 * h * (1.0 + np.tanh(0.7978845608 * (h + 0.044715 * h ** 3)))


def _case_gemm_bias_gelu_residual():
    a, b, bias, r = _h(100, 64), _h(64, 128, scale=0.3), _h(128), _h(100, 128)
    out = emulate("gemm_bias_gelu_residual", {0: a, 1: b, 2: bias, 3: r})[4]
    _check(out, _gelu(_mm(a, b) + bias.astype(np.float64)) + r, 2e-2, 3e-3)


def _case_split_k_by_user_atomics():
    a, b = _h(64, 256), _h(256, 64)
    out = emulate("split_k_by_user_atomics", {0: a, 1: b, 2: np.zeros((64, 64), np.float32)})[2]
    _check(out, _mm(a, b), 2e-2)


def _case_dot_inside_an_if_on_an_argument():
    a, b = _h(128, 64), _h(64, 64)
    _check(emulate("dot_inside_an_if_on_an_argument", {0: a, 1: b})[2], _mm(a, b), 2e-2)


def _case_two_dots_summed_one_accumulator():
    a1, b1, a2, b2 = _h(128, 96), _h(96, 64), _h(128, 96), _h(96, 64)
    out = emulate("two_dots_summed_one_accumulator", {0: a1, 1: b1, 2: a2, 3: b2})[4]
    _check(out, _mm(a1, b1) + _mm(a2, b2), 2e-2)


def _case_k_loop_bound_from_an_argument():
    a, b = _h(128, 96), _h(96, 64)
    _check(emulate("k_loop_bound_from_an_argument", {0: a, 1: b})[2], _mm(a, b), 2e-2)


def _case_gemm_tiny_tiles_16():
    a, b = _bf(40, 50), _bf(50, 36)
    _check(emulate("gemm_tiny_tiles_16", {0: a, 1: b})[2], _mm(a.astype(np.float32), b.astype(np.float32)), 1e-3,
           1e-3)


def _case_gemm_256_row_tiles():
    a, b = _h(300, 128), _h(128, 256)
    _check(emulate("gemm_256_row_tiles", {0: a, 1: b})[2], _mm(a, b), 5e-2, 5e-3)


def _case_gemm_f16_accumulator():
    a, b = _h(128, 64, scale=0.5), _h(64, 64, scale=0.5)
    _check(emulate("gemm_f16_accumulator", {0: a, 1: b})[2], _mm(a, b), 2e-2, 5e-3)


def _case_bmm_batch_tile_of_two():
    a, b = _h(5, 64, 64), _h(5, 64, 64)
    _check(emulate("bmm_batch_tile_of_two", {0: a, 1: b})[2], np.einsum("lmk,lkn->lmn", a.astype(np.float64), b),
           2e-2)


def _case_gemm_fp8_e4m3_output_clamped():
    a, b = _h(128, 64, scale=2.0), _h(64, 128, scale=2.0)
    out = emulate("gemm_fp8_e4m3_output_clamped", {0: a, 1: b})[2]
    ref = np.clip(_mm(a, b) * 2.0, -448, 448)
    got = np.asarray(out, np.uint8).view(ml_dtypes.float8_e4m3fn).astype(np.float64)
    assert not np.isnan(got).any()
    np.testing.assert_allclose(got, ref, rtol=2 ** -3, atol=2 ** -9)  # e4m3: 3 mantissa bits (half an ulp: 2^-4)


def _case_gemm_32_by_256_tiles_relu_bf16():
    a, b, bias = _bf(70, 64), _bf(64, 256), _bf(256)
    out = emulate("gemm_32_by_256_tiles_relu_bf16", {0: a, 1: b, 2: bias, 3: _unset((70, 256), "bfloat16")})[3]
    ref = np.maximum(_mm(a.astype(np.float32), b.astype(np.float32)) + bias.astype(np.float64), 0)
    _check(out.astype(np.float32), ref, 3e-2, 1e-2)


def _case_gemm_alpha_beta_in_place():
    a, b = _h(130, 64), _h(64, 100)
    c0 = RNG.standard_normal((130, 100)).astype(np.float32)
    out = emulate("gemm_alpha_beta_in_place", {0: a, 1: b, 2: c0})[2]
    _check(out, 1.5 * _mm(a, b) - 0.5 * c0, 2e-2)


def _case_gemm_grid_axis0_over_columns():
    a, b = _h(130, 64), _h(64, 200)
    _check(emulate("gemm_grid_axis0_over_columns", {0: a, 1: b})[2], _mm(a, b), 2e-2)


def _case_gemm_lower_triangle_where_epilogue():
    a, b = _h(150, 64), _h(64, 150)
    _check(emulate("gemm_lower_triangle_where_epilogue", {0: a, 1: b})[2], np.tril(_mm(a, b)), 2e-2)


def _case_int8_gemm_dequant_epilogue_f16():
    a = RNG.integers(-128, 128, (100, 128)).astype(np.int8)
    b = RNG.integers(-128, 128, (128, 96)).astype(np.int8)
    sa, sb = (RNG.random(100) * 1e-3).astype(np.float32), (RNG.random(96) * 1e-2).astype(np.float32)
    out = emulate("int8_gemm_dequant_epilogue_f16", {0: a, 1: b, 2: sa, 3: sb})[4]
    ref = (a.astype(np.int64) @ b.astype(np.int64)) * sa[:, None].astype(np.float64) * sb[None, :]
    _check(out, ref, 1e-3, 2e-3)  # f16 out


def _case_gemm_bias_as_a_column_tile():
    a, b, bias = _h(100, 64), _h(64, 96), RNG.standard_normal((100, 1)).astype(np.float32)
    _check(emulate("gemm_bias_as_a_column_tile", {0: a, 1: b, 2: bias})[3], _mm(a, b) + bias, 2e-2)


CASES = {n.removeprefix("_case_"): f for n, f in globals().items() if n.startswith("_case_")}
GEMMS = sorted(CASES) if ALL else ["gemm_k_not_a_multiple_of_the_tile", "int8_gemm_int32_accumulate",
                                   "split_k_by_user_atomics", "two_dots_summed_one_accumulator",
                                   "gemm_b_stored_nk_permuted", "gemm_f16_accumulator"]
"""The GEMM cases run in CI (every case of :data:`CASES` passed on the emulator in session 33)."""


@pytest.mark.parametrize("name", GEMMS)
def test_the_gemm_on_the_wgmma_emulator(name, monkeypatch):
    s4.add_sweep_programs(monkeypatch, PROGRAMS)
    monkeypatch.setattr(s14e, "PROGRAMS", {**s14e.PROGRAMS, **PROGRAMS})
    CASES[name]()


# ----------------------------------------------------------------------------------------------- the SIMT programs

EMULATED = sorted(n for n in dir(s25) if n.startswith("test_") and "gemv" not in n and "one_column" not in n) \
    if ALL else ["test_int64_floordiv_mod_negative_divisors", "test_uint64_and_int64_shifts_bitwise",
                 "test_f32_to_fp8_both_formats_saturating", "test_int_float_conversions_rounding",
                 "test_newton_sqrt_while_until_converged", "test_atomic_cas_f32_and_xchg_f64",
                 "test_atomic_min_max_signed_and_unsigned", "test_every_padding_mode",
                 "test_narrow_int_div_mod_and_unsigned_div", "test_float_mod_floordiv_pow_atan2"]
"""The tests of test_user_sweep25_interp.py run here on the PTX (a CI-sized subset: every test but the two mma.sync
dots, which need ``ldmatrix`` the emulator does not model, passed on the emulator in session 33 with
``TILEORCH_EMULATE_ALL=1``)."""


@pytest.mark.parametrize("test", EMULATED)
def test_the_ptx_against_numpy(test, monkeypatch):
    monkeypatch.setattr(s10e, "PROGRAMS", PROGRAMS)
    monkeypatch.setattr(s25, "run", lambda name, inputs, program=None: s10e.emulate(name, inputs)
                        if program is None else _emulate_resized(name, inputs, program))
    s25.every_case(getattr(s25, test))


def _emulate_resized(name, inputs, program):
    """:func:`test_user_sweep10_emulated.emulate` of a resized entry (its spec and grid)."""
    import test_user_sweep10_emulated as e

    old = e.PROGRAMS
    e.PROGRAMS = {**old, name: program}
    try:
        return e.emulate(name, inputs)
    finally:
        e.PROGRAMS = old
