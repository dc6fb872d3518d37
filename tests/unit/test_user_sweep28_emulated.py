"""The twenty-eighth user sweep's programs as PTX (after LLVM) run CTA by CTA on the CPU by
``tileorch.testing.ptx_emulator``, against independent numpy (float64 / Python integer) references, outputs NaN
prefilled, ragged shapes:

* the GEMMs the TileAS tier takes (TMA + WGMMA: test_user_sweep14_emulated's runner): :data:`CASES`;
* the SIMT programs (test_user_sweep28_interp.py's tests with its ``run`` swapped for
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
import test_user_sweep28_interp as s28  # noqa: E402

from tileorch.testing.user_programs28 import PROGRAMS  # noqa: E402

RNG = np.random.default_rng(2838)
ALL = bool(os.environ.get("TILEORCH_EMULATE_ALL"))


def _h(*shape, scale=1.0, dt=np.float16):
    return (RNG.standard_normal(shape) * scale).astype(dt)


def _bf(*shape, scale=1.0):
    """bf16 values as ``ml_dtypes.bfloat16`` (the runner places arrays' bytes as they are)."""
    return (RNG.standard_normal(shape) * scale).astype(np.float32).astype(ml_dtypes.bfloat16)


def _unset(shape, dt):
    """An output prefilled as the runner would (NaN), for dtypes its table lacks."""
    return np.full(shape, np.nan, ml_dtypes.bfloat16 if dt == "bfloat16" else dt)


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


def _case_swiglu_two_dots_of_one_a_tile():
    a, wg, wu = _h(130, 64), _h(64, 96, scale=0.3), _h(64, 96, scale=0.3)
    y = emulate("swiglu_two_dots_of_one_a_tile", {0: a, 1: wg, 2: wu})[3]
    g, u = _mm(a, wg), _mm(a, wu)
    _check(y, g / (1 + np.exp(-g)) * u, 1e-2, 5e-3)  # f16 out


def _case_gemm_bias_channel_scale_clamp():
    a, b = _h(130, 64), _h(64, 96, scale=0.3)
    bias, scale = RNG.standard_normal(96).astype(np.float32), (RNG.random(96) + 0.5).astype(np.float32)
    out = emulate("gemm_bias_channel_scale_clamp",
                  {0: a, 1: b, 2: bias, 3: scale, 4: _unset((130, 96), "bfloat16")})[4]
    ref = np.clip(_mm(a, b) * scale + bias, -2.0, 3.0)
    _check(out.astype(np.float32), ref, 2e-2, 1e-2)  # bf16 out


def _case_gemm_store_transposed_output():
    a, b = _h(100, 64), _h(64, 80, scale=0.3)
    _check(emulate("gemm_store_transposed_output", {0: a, 1: b})[2], _mm(a, b).T, 1e-3)


def _case_gemm_last_row_tile_specialised_by_if():
    a, b = _h(130, 64), _h(64, 96, scale=0.3)
    _check(emulate("gemm_last_row_tile_specialised_by_if", {0: a, 1: b})[2], _mm(a, b), 1e-3)


def _case_gemm_into_strided_slice_of_bigger():
    a, b = _h(100, 64), _h(64, 96, scale=0.3)
    _check(emulate("gemm_into_strided_slice_of_bigger", {0: a, 1: b})[2], _mm(a, b), 1e-3)


def _case_bmm_batch_axis2_b_broadcast_stride0():
    a, w = _h(3, 70, 64), _h(64, 80, scale=0.3)
    out = emulate("bmm_batch_axis2_b_broadcast_stride0", {0: a, 1: np.broadcast_to(w, (3, 64, 80))})[2]
    _check(out, np.einsum("bmk,kn->bmn", a.astype(np.float64), w.astype(np.float64)), 1e-3)


def _case_gemm_k_loop_by_num_tiles():
    a, b = _bf(100, 200), _bf(200, 96, scale=0.3)
    _check(emulate("gemm_k_loop_by_num_tiles", {0: a, 1: b})[2], _mm(a.astype(np.float32), b.astype(np.float32)),
           1e-3)


def _case_gemm_fp32_operands_as_tf32():
    a, b = _h(100, 64, dt=np.float32), _h(64, 80, dt=np.float32)
    _check(emulate("gemm_fp32_operands_as_tf32", {0: a, 1: b})[2], _mm(a, b), 5e-2, 5e-3)  # tf32: 10-bit mantissas


def _case_gemv_as_a_dot_of_n16():
    """(X's rows are 2 bytes: the launcher stages a padded copy for TMA, which this runner does not: the GPU
    runs this case, :data:`ON_THE_GPU_ONLY`.)"""
    a, x = _h(100, 96), _h(96, 1)
    _check(emulate("gemv_as_a_dot_of_n16", {0: a, 1: x})[2], _mm(a, x), 1e-3)


def _case_blas_gemm_alpha_beta_c_f32_in_place():
    a, b, c = _h(100, 64), _h(64, 80, scale=0.3), RNG.standard_normal((100, 80)).astype(np.float32)
    out = emulate("blas_gemm_alpha_beta_c_f32_in_place", {0: a, 1: b, 2: c.copy()})[2]
    _check(out, 1.5 * _mm(a, b) - 0.5 * c.astype(np.float64), 1e-3)


def _case_gemm_default_tile_arguments():
    a, b = _bf(100, 64), _bf(64, 96, scale=0.3)
    out = emulate("gemm_default_tile_arguments", {0: a, 1: b, 2: _unset((100, 96), "bfloat16")})[2]
    _check(out.astype(np.float32), _mm(a.astype(np.float32), b.astype(np.float32)), 1e-2, 1e-2)


def _case_gemm_relu_squared_bf16():
    a, b = _bf(130, 64), _bf(64, 96, scale=0.3)
    out = emulate("gemm_relu_squared_bf16", {0: a, 1: b, 2: _unset((130, 96), "bfloat16")})[2]
    r = np.maximum(_mm(a.astype(np.float32), b.astype(np.float32)), 0)
    _check(out.astype(np.float32), r * r, 1e-2, 1e-2)


def _case_gemm_matmul_operator_bf16_f32_out():
    a, b = _bf(200, 128), _bf(128, 96, scale=0.3)
    _check(emulate("gemm_matmul_operator_bf16_f32_out", {0: a, 1: b})[2],
           _mm(a.astype(np.float32), b.astype(np.float32)), 1e-3)



def _case_gemm_accumulates_into_c_in_place():
    a, b, c = _h(100, 64), _h(64, 80, scale=0.3), RNG.standard_normal((100, 80)).astype(np.float32)
    out = emulate("gemm_accumulates_into_c_in_place", {0: a, 1: b, 2: c.copy()})[2]
    _check(out, c.astype(np.float64) + _mm(a, b), 1e-3)


def _case_gru_gates_two_k_loops_x_then_h():
    x, h, wx, wh = _h(100, 64), _h(100, 96), _h(64, 80, scale=0.3), _h(96, 80, scale=0.3)
    out = emulate("gru_gates_two_k_loops_x_then_h", {0: x, 1: h, 2: wx, 3: wh})[4]
    _check(out, _mm(x, wx) + _mm(h, wh), 1e-3)


def _case_gemm_k_tiles_walked_backwards():
    a, b = _h(100, 100), _h(100, 80, scale=0.3)
    _check(emulate("gemm_k_tiles_walked_backwards", {0: a, 1: b})[2], _mm(a, b), 1e-3)


def _case_gemm_then_softmax_over_the_row():
    a, b = _h(100, 64), _h(64, 64, scale=0.3)
    z = _mm(a, b)
    e = np.exp(z - z.max(1, keepdims=True))
    _check(emulate("gemm_then_softmax_over_the_row", {0: a, 1: b})[2], e / e.sum(1, keepdims=True), 1e-5, 1e-4)


def _case_gemm_requantized_to_int8():
    a, b = _h(100, 64), _h(64, 80, scale=3.0)
    out = emulate("gemm_requantized_to_int8", {0: a, 1: b, 2: np.full((100, 80), 99, np.int8)})[2]
    acc = _mm(a, b)
    ref = np.clip(np.floor(acc * 4 + 0.5), -128, 127)
    near = np.abs(acc * 4 + 0.5 - np.round(acc * 4 + 0.5)) < 1e-3  # (f32 accumulation order at a rounding edge)
    assert out.dtype == np.int8 and (ref == -128).any() and (ref == 127).any()  # both clamps exercised
    np.testing.assert_array_equal(out.astype(np.int64)[~near], ref[~near])


def _case_gemm_whole_tile_skipped_by_scalar_if():
    a, b = _h(256, 64), _h(64, 80)
    out = emulate("gemm_whole_tile_skipped_by_scalar_if", {0: a, 1: b})[2]
    _check(out[:130], _mm(a, b)[:130], 1e-3)
    assert (out[130:192] == 0).all()  # tile 2's rows past m_valid: zeroed by ct.where
    assert np.isnan(out[192:]).all()  # tile 3 skipped: never written

CASES = {n.removeprefix("_case_"): f for n, f in globals().items() if n.startswith("_case_")}
ON_THE_GPU_ONLY = {"gemv_as_a_dot_of_n16"}
"""Cases this runner cannot run: operands whose rows are not whole 16-byte units (the launcher's padded copies)."""
GEMMS = sorted(set(CASES) - ON_THE_GPU_ONLY) if ALL else ["swiglu_two_dots_of_one_a_tile",
                                                          "gemm_into_strided_slice_of_bigger",
                                                          "gemm_last_row_tile_specialised_by_if",
                                                          "bmm_batch_axis2_b_broadcast_stride0"]
"""The GEMM cases run in CI (every case of :data:`CASES` run with ``TILEORCH_EMULATE_ALL=1``)."""


@pytest.mark.parametrize("name", GEMMS)
def test_the_gemm_on_the_wgmma_emulator(name, monkeypatch):
    s4.add_sweep_programs(monkeypatch, PROGRAMS)
    monkeypatch.setattr(s14e, "PROGRAMS", {**s14e.PROGRAMS, **PROGRAMS})
    CASES[name]()


# ----------------------------------------------------------------------------------------------- the SIMT programs

MMA_SYNC = {"test_geglu_gate_up_in_one_weight", "test_gemm_fp32_operands_plain",
            "test_gemm_last_row_tile_specialised_by_if", "test_gemm_a_from_one_of_two_arrays_by_if",
            "test_lora_linear_two_chained_dots", "test_gemm_two_k_tiles_a_step_by_hand"}
"""The refused dots' tests: their mma.sync needs ``ldmatrix``, which the emulator does not model."""
EMULATED = sorted(n for n in dir(s28) if n.startswith("test_") and n not in MMA_SYNC) \
    if ALL else ["test_bitonic_sort_rows_of_16", "test_histogram_int32_atomic_bins",
                 "test_bucketize_by_binary_search_while",
                 "test_unpack_int4_words_by_shift_arange", "test_first_crossing_with_done_mask",
                 "test_edge_programs_specialised_by_if"]
"""The tests of test_user_sweep28_interp.py run here on the PTX (a CI-sized subset)."""


@pytest.mark.parametrize("test", EMULATED)
def test_the_ptx_against_numpy(test, monkeypatch):
    monkeypatch.setattr(s10e, "PROGRAMS", PROGRAMS)
    monkeypatch.setattr(s28, "run", lambda name, inputs, program=None: s10e.emulate(name, inputs))
    s28.every_case(getattr(s28, test))
