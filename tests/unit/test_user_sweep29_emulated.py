"""The twenty-ninth user sweep's programs as PTX (after LLVM) run CTA by CTA on the CPU by
``tileorch.testing.ptx_emulator``, against independent numpy (float64 / Python integer) references, outputs NaN
prefilled, ragged shapes:

* the GEMMs the TileAS tier takes (TMA + WGMMA: test_user_sweep14_emulated's runner): :data:`CASES` (the fp8
  ones too since session 38: the emulator decodes e4m3 / e5m2 WGMMA operands exactly and sums their products in f32;
  before, these ran on the GPU only);
* the SIMT programs (test_user_sweep29_interp.py's tests with its ``run`` swapped for
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
import test_user_sweep29_interp as s29  # noqa: E402

from tileorch.testing.user_programs29 import PROGRAMS  # noqa: E402

RNG = np.random.default_rng(2939)
ALL = bool(os.environ.get("TILEORCH_EMULATE_ALL"))


def _h(*shape, scale=1.0, dt=np.float16):
    return (RNG.standard_normal(shape) * scale).astype(dt)


def _bf(*shape, scale=1.0):
    """bf16 values as ``ml_dtypes.bfloat16`` (the runner places arrays' bytes as they are)."""
    return (RNG.standard_normal(shape) * scale).astype(np.float32).astype(ml_dtypes.bfloat16)


def _f8(dt, *shape, scale=1.0):
    """fp8 values (``ml_dtypes``' e4m3fn / e5m2) held as their bytes (the runners place bytes as they are)."""
    x = (RNG.standard_normal(shape) * scale).astype(np.float32).astype(dt)
    return x.view(np.uint8)


def _f8_on_a_grid(dt, *shape, step=0.25, top=1.5):
    """fp8 bytes of normal values rounded to multiples of ``step`` within ``[-top, top]`` (both formats hold these
    exactly for the steps and tops used: 0.5 up to 3, 0.25 up to 1.5).  A product of two is a multiple of 1/8 and
    a K = 128 sum is below 2^10, so an adder keeping 13 fraction bits below the largest term (the H100's fp8 WGMMA
    as reported: a quantum of at most 2^(9 - 13) = 1/16) sums them exactly, as f32 does: the f32-out fp8 GEMMs'
    references hold to f32 rounding on the GPU too (sweep 29's normal values missed 1e-3 there; session 38)."""
    x = np.clip(np.round(RNG.standard_normal(shape) / step) * step, -top, top).astype(np.float32)
    q = x.astype(dt)
    assert np.array_equal(q.astype(np.float32), x)
    return q.view(np.uint8)


def _i8(*shape):
    return RNG.integers(-128, 128, shape).astype(np.int8)


def _unset(shape, dt):
    """An output prefilled as the runner would (NaN), for dtypes its table lacks."""
    if dt in ("float8_e4m3fn", "float8_e5m2"):
        return np.full(shape, 0x7F, np.uint8)  # the NaN byte of both formats
    return np.full(shape, np.nan, ml_dtypes.bfloat16 if dt == "bfloat16" else dt)


def _mm(a, b):
    return np.asarray(a, np.float64) @ np.asarray(b, np.float64)


def _fp8_value(bytes_, dt):
    return np.asarray(bytes_, np.uint8).view(dt).astype(np.float64)


def _check(out, ref, atol, rtol=2e-3):
    out = np.asarray(out, np.float64)
    assert not np.isnan(out).any(), "unwritten outputs"
    np.testing.assert_allclose(out, ref, atol=atol, rtol=rtol)


def emulate(name: str, inputs: dict) -> dict:
    """A GEMM-tier program on its spec's shapes (test_user_sweep14_emulated's runner; the GPU file swaps it)."""
    return s14e.emulate(name, inputs)


# ----------------------------------------------------------------------------------------------- the GEMM cases


def _case_fp8_e4m3_gemm_tensor_scales_from_arrays_bf16():
    e4 = ml_dtypes.float8_e4m3fn
    a, b = _f8(e4, 128, 128), _f8(e4, 128, 96, scale=0.5)
    sa, sb = np.array([0.5], np.float32), np.array([1.5], np.float32)
    out = emulate("fp8_e4m3_gemm_tensor_scales_from_arrays_bf16",
                  {0: a, 1: b, 2: sa, 3: sb, 4: _unset((128, 96), "bfloat16")})[4]
    _check(out.astype(np.float32), _mm(_fp8_value(a, e4), _fp8_value(b, e4)) * 0.75, 5e-2, 1e-2)  # bf16 out


def _case_fp8_e5m2_gemm_row_scales_f32():
    e5 = ml_dtypes.float8_e5m2
    a, b = _f8_on_a_grid(e5, 130, 128, step=0.5, top=3), _f8_on_a_grid(e5, 128, 96)  # (exact sums: _f8_on_a_grid)
    s = (RNG.random(130) + 0.5).astype(np.float32)
    out = emulate("fp8_e5m2_gemm_row_scales_f32", {0: a, 1: b, 2: s})[3]
    _check(out, _mm(_fp8_value(a, e5), _fp8_value(b, e5)) * s[:, None].astype(np.float64), 1e-6, 1e-6)


def _case_fp8_e4m3_gemm_scale_from_0d_array_f16():
    e4 = ml_dtypes.float8_e4m3fn
    a, b = _f8(e4, 100, 128), _f8(e4, 128, 80, scale=0.5)
    out = emulate("fp8_e4m3_gemm_scale_from_0d_array_f16", {0: a, 1: b, 2: np.array(0.125, np.float32)})[3]
    _check(out, _mm(_fp8_value(a, e4), _fp8_value(b, e4)) * 0.125, 1e-2, 2e-3)  # f16 out


def _case_int8_gemm_int32_ragged_k():
    a, b = _i8(100, 100), _i8(100, 80)
    out = emulate("int8_gemm_int32_ragged_k", {0: a, 1: b, 2: np.full((100, 80), -2**31, np.int32)})[2]
    np.testing.assert_array_equal(out, a.astype(np.int64) @ b.astype(np.int64))


def _case_int8_gemm_row_col_dequant_bf16_out():
    a, b = _i8(130, 128), _i8(128, 96)
    sa, sb = (RNG.random(130) * 1e-3).astype(np.float32), (RNG.random(96) * 1e-2).astype(np.float32)
    out = emulate("int8_gemm_row_col_dequant_bf16_out",
                  {0: a, 1: b, 2: sa, 3: sb, 4: _unset((130, 96), "bfloat16")})[4]
    ref = (a.astype(np.int64) @ b.astype(np.int64)) * sa[:, None].astype(np.float64) * sb[None, :]
    _check(out.astype(np.float32), ref, 1e-3, 1e-2)  # bf16 out


def _case_tf32_gemm_by_ct_matmul():
    a, b = _h(100, 64, dt=np.float32), _h(64, 80, dt=np.float32)
    _check(emulate("tf32_gemm_by_ct_matmul", {0: a, 1: b})[2], _mm(a, b), 5e-2, 5e-3)  # tf32: 10-bit mantissas


def _case_gemm_weight_nk_by_ct_transpose():
    a, w = _bf(100, 64), _bf(96, 64, scale=0.3)
    _check(emulate("gemm_weight_nk_by_ct_transpose", {0: a, 1: w})[2],
           _mm(a.astype(np.float32), w.astype(np.float32).T), 1e-3)


def _case_gemm_a_km_loaded_with_order():
    at, b = _h(64, 100), _h(64, 80, scale=0.3)
    _check(emulate("gemm_a_km_loaded_with_order", {0: at, 1: b})[2], _mm(at.T, b), 1e-3)


def _case_gemm_a_3d_unit_head_dim_reshaped():
    """(On the tier since session 40: A batched in its middle dimension.)  Head h's product into C[h]."""
    x, w = _h(100, 3, 64), _h(64, 80, scale=0.3)
    _check(emulate("gemm_a_3d_unit_head_dim_reshaped", {0: x, 1: w})[2],
           np.einsum("mhk,kn->hmn", x.astype(np.float64), w.astype(np.float64)), 1e-3)


def _case_gemm_matmul_then_add_bf16_accumulator_f32():
    """The products are accumulated unrounded on the tier (fold_dot_accumulate: f32 accumulation, at least as
    accurate as cuTile's bf16-rounded partial products): the tolerance covers both."""
    a, b = _bf(100, 64), _bf(64, 80, scale=0.3)
    _check(emulate("gemm_matmul_then_add_bf16_accumulator_f32", {0: a, 1: b})[2],
           _mm(a.astype(np.float32), b.astype(np.float32)), 2e-2, 1e-2)


def _case_moe_grouped_gemm_expert_offsets():
    x, w = _h(256, 64), _h(3, 64, 96, scale=0.3)
    offs = np.array([0, 64, 64, 192], np.int32)  # expert 1 empty, expert 2 two row tiles
    out = emulate("moe_grouped_gemm_expert_offsets", {0: x, 1: w, 2: offs})[3]
    for e in range(3):
        lo, hi = offs[e], offs[e + 1]
        _check(out[lo:hi], _mm(x[lo:hi], w[e]), 1e-2, 5e-3)  # f16 out
    assert np.isnan(out[192:]).all()  # rows past the last expert: never written


def _case_split_k_gemm_atomic_add_bf16_in():
    a, b = _bf(100, 256), _bf(256, 80, scale=0.3)
    out = emulate("split_k_gemm_atomic_add_bf16_in", {0: a, 1: b, 2: np.zeros((100, 80), np.float32)})[2]
    _check(out, _mm(a.astype(np.float32), b.astype(np.float32)), 1e-3)


def _case_gemm_residual_to_fp8_e4m3_scaled():
    a, b, r = _h(100, 64), _h(64, 96, scale=0.3), _h(100, 96)
    inv = np.array([64.0], np.float32)  # |(acc + r) * 64| passes 448: the clamp exercised
    out = emulate("gemm_residual_to_fp8_e4m3_scaled",
                  {0: a, 1: b, 2: r, 3: inv, 4: _unset((100, 96), "float8_e4m3fn")})[4]
    ref = np.clip((_mm(a, b) + r.astype(np.float64)) * 64.0, -448, 448)
    got = np.asarray(out, np.uint8).view(ml_dtypes.float8_e4m3fn).astype(np.float64)
    assert (np.abs(ref) == 448).any()
    np.testing.assert_allclose(got, ref, rtol=2 ** -3, atol=2 ** -6)  # e4m3: 3 mantissa bits


def _case_gemm_softmax_full_n_tile_masked_columns():
    a, b = _bf(100, 64), _bf(64, 100, scale=0.3)
    z = _mm(a.astype(np.float32), b.astype(np.float32))
    e = np.exp(z - z.max(1, keepdims=True))
    out = emulate("gemm_softmax_full_n_tile_masked_columns", {0: a, 1: b, 2: _unset((100, 100), "bfloat16")})[2]
    _check(out.astype(np.float32), e / e.sum(1, keepdims=True), 1e-3, 1e-2)  # bf16 out


def _case_gemm_tiles_of_16_rows():
    a, b = _h(40, 64), _h(64, 96, scale=0.3)
    _check(emulate("gemm_tiles_of_16_rows", {0: a, 1: b})[2], _mm(a, b), 1e-3)


def _case_gemm_tiles_of_32_rows_bf16():
    a, b = _bf(70, 64), _bf(64, 96, scale=0.3)
    out = emulate("gemm_tiles_of_32_rows_bf16", {0: a, 1: b, 2: _unset((70, 96), "bfloat16")})[2]
    _check(out.astype(np.float32), _mm(a.astype(np.float32), b.astype(np.float32)), 1e-2, 1e-2)


def _case_gemm_k_72_one_ragged_tile_f16_out():
    a, b = _h(100, 72), _h(72, 80, scale=0.3)
    _check(emulate("gemm_k_72_one_ragged_tile_f16_out", {0: a, 1: b})[2], _mm(a, b), 1e-2, 5e-3)


def _case_gemm_two_outputs_f32_and_bf16_relu():
    a, b = _h(100, 64), _h(64, 80, scale=0.3)
    out = emulate("gemm_two_outputs_f32_and_bf16_relu", {0: a, 1: b, 3: _unset((100, 80), "bfloat16")})
    _check(out[2], _mm(a, b), 1e-3)
    _check(out[3].astype(np.float32), np.maximum(_mm(a, b), 0), 1e-2, 1e-2)


def _case_int8_gemm_requant_by_rounding_shift():
    a, b = _i8(100, 128), _i8(128, 80)
    out = emulate("int8_gemm_requant_by_rounding_shift", {0: a, 1: b, 2: np.full((100, 80), 99, np.int8)})[2]
    acc = a.astype(np.int64) @ b.astype(np.int64)
    ref = np.clip((acc + 128) >> 8, -128, 127)  # numpy's >> of int64: arithmetic, as int32's
    assert (ref == -128).any() and (ref == 127).any() and (np.abs(ref) < 127).any()
    np.testing.assert_array_equal(out, ref)


def _case_int8_gemm_weight_nk_by_ct_transpose():
    a, w = _i8(100, 64), _i8(80, 64)
    out = emulate("int8_gemm_weight_nk_by_ct_transpose", {0: a, 1: w, 2: np.full((100, 80), -2**31, np.int32)})[2]
    np.testing.assert_array_equal(out, a.astype(np.int64) @ w.astype(np.int64).T)


def _case_gemm_leaky_relu_runtime_valid_columns():
    a, b = _h(100, 64), _h(64, 80, scale=0.3)
    z = _mm(a, b)
    ref = np.where(z > 0, z, 0.01 * z)
    ref[:, 70:] = 0.0
    _check(emulate("gemm_leaky_relu_runtime_valid_columns", {0: a, 1: b})[2], ref, 1e-3)


def _case_gemm_acc_astype_int8_saturating():
    a, b = _h(100, 64), _h(64, 80, scale=12.0)
    out = emulate("gemm_acc_astype_int8_saturating", {0: a, 1: b, 2: np.full((100, 80), 99, np.int8)})[2]
    acc = _mm(a, b)
    ref = np.clip(np.trunc(acc), -128, 127)
    near = np.abs(acc - np.round(acc)) < 1e-3  # (f32 accumulation order at an integer edge)
    assert (ref == -128).any() and (ref == 127).any()
    np.testing.assert_array_equal(out.astype(np.int64)[~near], ref[~near])


def _case_gemm_scale_per_row_tile_by_item():
    a, b, s = _h(100, 64), _h(64, 80, scale=0.3), np.array([0.5, -2.0], np.float32)
    ref = _mm(a, b) * np.repeat(s, 64)[:100, None]
    _check(emulate("gemm_scale_per_row_tile_by_item", {0: a, 1: b, 2: s})[3], ref, 1e-3)


def _case_gemm_k_loop_range_step_tk():
    a, b = _h(100, 80), _h(80, 80, scale=0.3)
    _check(emulate("gemm_k_loop_range_step_tk", {0: a, 1: b})[2], _mm(a, b), 1e-3)


def _case_fp8_e4m3_gemm_rows_of_32():
    e4 = ml_dtypes.float8_e4m3fn
    a, b = _f8_on_a_grid(e4, 70, 128, step=0.5, top=3), _f8_on_a_grid(e4, 128, 80)  # (exact sums: _f8_on_a_grid)
    _check(emulate("fp8_e4m3_gemm_rows_of_32", {0: a, 1: b})[2], _mm(_fp8_value(a, e4), _fp8_value(b, e4)), 1e-6,
           1e-6)


def _case_gemm_output_and_row_max_beside():
    a, b = _h(100, 64), _h(64, 64, scale=0.3)
    out = emulate("gemm_output_and_row_max_beside", {0: a, 1: b})
    _check(out[2], _mm(a, b), 1e-3)
    _check(out[3], _mm(a, b).max(1), 1e-3)


def _case_gemm_f16_to_e5m2_output():
    a, b = _h(100, 64), _h(64, 80, scale=0.3)
    out = emulate("gemm_f16_to_e5m2_output", {0: a, 1: b, 2: _unset((100, 80), "float8_e5m2")})[2]
    got = _fp8_value(out, ml_dtypes.float8_e5m2)
    np.testing.assert_allclose(got, _mm(a, b), rtol=2 ** -2, atol=2 ** -15)  # e5m2: 2 mantissa bits


def _case_uint8_activations_times_int8_weights():
    a, b = RNG.integers(0, 256, (100, 128)).astype(np.uint8), _i8(128, 80)
    out = emulate("uint8_activations_times_int8_weights", {0: a, 1: b})[2]
    _check(out, (a.astype(np.int64) @ b.astype(np.int64)) * 0.5, 0, 0)


def _case_int8_gemm_floordiv_mod_runtime_divisor():
    a, b = _i8(100, 64), _i8(64, 80)
    out = emulate("int8_gemm_floordiv_mod_runtime_divisor", {0: a, 1: b, 2: np.full((100, 80), -2**31, np.int32)})[2]
    acc = [int(v) for v in (a.astype(np.int64) @ b.astype(np.int64)).ravel()]
    np.testing.assert_array_equal(out.ravel(), [(v // -7) % 1000 for v in acc])  # Python's floor semantics


CASES = {n.removeprefix("_case_"): f for n, f in globals().items() if n.startswith("_case_")}
GEMMS = sorted(CASES) if ALL else ["fp8_e4m3_gemm_rows_of_32", "fp8_e5m2_gemm_row_scales_f32",
                                   "int8_gemm_int32_ragged_k"]
"""The GEMM cases run in CI (every case of :data:`CASES` run with ``TILEORCH_EMULATE_ALL=1``)."""


def test_every_tier_program_has_a_case():
    """Every program of the sweep's table on the tier has a GEMM case here (the GPU twin runs each on the GPU; its
    own check of this, tests/gpu/test_user_sweep29_gpu.py, found gemm_a_3d_unit_head_dim_reshaped without one after
    session 40 moved it to the tier): cheap, no emulation."""
    tier = {n for n, p in PROGRAMS.items() if p.path != "simt"}
    assert set(CASES) == tier, tier ^ set(CASES)


@pytest.mark.parametrize("name", GEMMS)
def test_the_gemm_on_the_wgmma_emulator(name, monkeypatch):
    s4.add_sweep_programs(monkeypatch, PROGRAMS)
    monkeypatch.setattr(s14e, "PROGRAMS", {**s14e.PROGRAMS, **PROGRAMS})
    CASES[name]()


FP8_F32_OUT = ["fp8_e4m3_gemm_rows_of_32", "fp8_e5m2_gemm_row_scales_f32"] if ALL else ["fp8_e4m3_gemm_rows_of_32"]
"""The fp8 GEMMs with f32 outputs and f32-tight tolerances (the other two round to bf16 / f16: loose ones)."""


@pytest.mark.parametrize("name", FP8_F32_OUT)
def test_fp8_f32_out_case_holds_on_a_13_bit_fp8_adder(name, monkeypatch):
    """The case with the emulator's fp8 WGMMA summing by ``Emu.fp8_sum_bits = 13`` (the H100's fp8 adder as
    reported; the session-38 GPU script measures it): its operands must sum exactly there too.  Sweep 29's
    normal-valued operands missed the 1e-3 tolerance so (about 200 of 5600 and 100 of 12480 elements, errors up
    to 5e-3 to 8e-3 by the draw), as both cases did on an H100, while the other two fp8 cases (bf16 / f16 out)
    held, as there."""
    from tileorch.testing.ptx_emulator import Emu

    monkeypatch.setattr(Emu, "fp8_sum_bits", 13)
    test_the_gemm_on_the_wgmma_emulator(name, monkeypatch)


# ----------------------------------------------------------------------------------------------- the SIMT programs

MMA_SYNC = {"test_gemm_a_3d_unit_head_dim_reshaped", "test_gemm_b_from_permuted_3d_tile",
            "test_gemm_three_spellings_of_one_product", "test_int8_gemm_by_matmul_operator_wraps"}
"""The refused dots' tests: their mma.sync needs ``ldmatrix``, which the emulator does not model."""
EMULATED = sorted(n for n in dir(s29) if n.startswith("test_") and n not in MMA_SYNC) \
    if ALL else ["test_uint32_xorshift_hash_wrapping_multiply"]
"""The tests of test_user_sweep29_interp.py run here on the PTX (a CI-sized subset)."""


@pytest.mark.parametrize("test", EMULATED)
def test_the_ptx_against_numpy(test, monkeypatch):
    monkeypatch.setattr(s10e, "PROGRAMS", PROGRAMS)
    monkeypatch.setattr(s29, "run", lambda name, inputs, program=None: s10e.emulate(name, inputs))
    s29.every_case(getattr(s29, test))
