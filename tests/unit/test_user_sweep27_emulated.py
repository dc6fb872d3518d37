"""The twenty-seventh user sweep's programs as PTX (after LLVM) run CTA by CTA on the CPU by
``tileorch.testing.ptx_emulator``, against independent numpy (float64 / Python integer) references, outputs NaN /
sentinel prefilled, ragged shapes:

* the GEMMs the TileAS tier takes (TMA + WGMMA: test_user_sweep14_emulated's runner): :data:`CASES`;
* the SIMT programs (test_user_sweep27_interp.py's tests with its ``run`` swapped for
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
import test_user_sweep27_interp as s27  # noqa: E402

from tileorch.testing.user_programs27 import PROGRAMS  # noqa: E402

RNG = np.random.default_rng(2737)
ALL = bool(os.environ.get("TILEORCH_EMULATE_ALL"))


def _h(*shape, scale=1.0, dt=np.float16):
    return (RNG.standard_normal(shape) * scale).astype(dt)


def _bf(*shape, scale=1.0):
    """bf16 values as ``ml_dtypes.bfloat16`` (the runner places arrays' bytes as they are)."""
    return (RNG.standard_normal(shape) * scale).astype(np.float32).astype(ml_dtypes.bfloat16)


def _e4m3(*shape, scale=1.0):
    return (RNG.standard_normal(shape) * scale).astype(np.float32).astype(ml_dtypes.float8_e4m3fn)


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


def _case_persistent_gemm_grouped_from_pid():
    a, b = _h(300, 200), _h(200, 264, scale=0.3)
    _check(emulate("persistent_gemm_grouped_from_pid", {0: a, 1: b})[2], _mm(a, b), 2e-2, 5e-3)  # f16 out


def _case_gemm_swizzled_1d_grid_triton03():
    a, b = _bf(200, 96), _bf(96, 328, scale=0.3)
    _check(emulate("gemm_swizzled_1d_grid_triton03", {0: a, 1: b})[2], _mm(a.astype(np.float32),
                                                                         b.astype(np.float32)), 1e-3)


def _case_split_k_gemm_atomic_add_axis2():
    a, b = _h(130, 320), _h(320, 96, scale=0.3)
    out = emulate("split_k_gemm_atomic_add_axis2", {0: a, 1: b, 2: np.zeros((130, 96), np.float32)})[2]
    _check(out, _mm(a, b), 1e-3)


def _case_gemm_k104_last_k_tile_partial():
    a, b = _h(100, 104), _h(104, 72)
    _check(emulate("gemm_k104_last_k_tile_partial", {0: a, 1: b})[2], _mm(a, b), 1e-3)


def _case_gemm_tiny_m_rows():
    a, b = _h(7, 72), _h(72, 96)
    _check(emulate("gemm_tiny_m_rows", {0: a, 1: b})[2], _mm(a, b), 1e-3)


def _case_gemm_n5_columns_k100():
    """(Rows of A 200 bytes, of B 10 and of C 20: the launcher stages padded copies for TMA, which this runner
    does not: the GPU runs this case, :data:`ON_THE_GPU_ONLY`.)"""
    a, b = _h(64, 100), _h(100, 5)
    _check(emulate("gemm_n5_columns_k100", {0: a, 1: b})[2], _mm(a, b), 1e-3)


def _case_int8_gemm_int32_out():
    a = RNG.integers(-128, 128, (130, 96)).astype(np.int8)
    b = RNG.integers(-128, 128, (96, 72)).astype(np.int8)
    out = emulate("int8_gemm_int32_out", {0: a, 1: b, 2: _unset((130, 72), "int32")})[2]
    np.testing.assert_array_equal(out, a.astype(np.int64) @ b.astype(np.int64))


def _case_u8_activations_s8_weights_gemm():
    a = RNG.integers(0, 256, (100, 128)).astype(np.uint8)
    b = RNG.integers(-128, 128, (128, 64)).astype(np.int8)
    a[0, :] = 255  # the top of the unsigned range: read as 255, not -1
    out = emulate("u8_activations_s8_weights_gemm", {0: a, 1: b, 2: _unset((100, 64), "int32")})[2]
    np.testing.assert_array_equal(out, a.astype(np.int64) @ b.astype(np.int64))


def _case_fp8_gemm_rowwise_colwise_scales():
    a, w = _e4m3(128, 128), _e4m3(96, 128, scale=0.5)
    sa, sw = (RNG.random(128) + 0.5).astype(np.float32), (RNG.random(96) * 0.1 + 0.01).astype(np.float32)
    out = emulate("fp8_gemm_rowwise_colwise_scales",  # (e4m3 as its bytes: the GPU harness casts other arrays)
                  {0: a.view(np.uint8), 1: w.view(np.uint8), 2: sa, 3: sw, 4: _unset((128, 96), "bfloat16")})[4]
    ref = _mm(a.astype(np.float32), w.astype(np.float32).T) * sa[:, None] * sw[None, :]
    _check(out.astype(np.float32), ref, 1e-2, 1e-2)  # bf16 out


def _case_w8a8_gemm_nk_weight_dequant_scales():
    a = RNG.integers(-128, 128, (130, 128)).astype(np.int8)
    w = RNG.integers(-128, 128, (96, 128)).astype(np.int8)
    sa, sw = (RNG.random(130) * 0.01).astype(np.float32), (RNG.random(96) * 0.01).astype(np.float32)
    out = emulate("w8a8_gemm_nk_weight_dequant_scales", {0: a, 1: w, 2: sa, 3: sw})[4]
    ref = (a.astype(np.int64) @ w.astype(np.int64).T) * sa[:, None].astype(np.float64) * sw[None, :]
    _check(out, ref, 1e-2, 2e-3)  # f16 out


def _case_gemm_epilogue_reads_transposed_matrix():
    a, b, rt = _h(100, 64), _h(64, 80, scale=0.3), RNG.standard_normal((80, 100)).astype(np.float32)
    out = emulate("gemm_epilogue_reads_transposed_matrix", {0: a, 1: b, 2: rt})[3]
    _check(out, _mm(a, b) + rt.T, 1e-3)


def _case_bmm_4d_heads_weight_broadcast_over_batch():
    a, w = _h(2, 3, 70, 64), _h(1, 3, 64, 80, scale=0.5)
    out = emulate("bmm_4d_heads_weight_broadcast_over_batch", {0: a, 1: w})[2]
    _check(out, np.einsum("bhmk,hkn->bhmn", a.astype(np.float64), w[0].astype(np.float64)), 1e-3)


def _case_gemm_residual_add_epilogue():
    a, b, r = _h(130, 64), _h(64, 96, scale=0.3), _h(130, 96)
    out = emulate("gemm_residual_add_epilogue", {0: a, 1: b, 2: r})[3]
    _check(out, _mm(a, b) + r.astype(np.float64), 1e-2, 5e-3)  # f16 out


def _case_gemm_masked_fill_by_bool_matrix():
    a, b = _h(100, 64), _h(64, 80, scale=0.3)
    mask = RNG.random((100, 80)) < 0.6
    out = emulate("gemm_masked_fill_by_bool_matrix", {0: a, 1: b, 2: mask})[3]
    _check(out, np.where(mask, _mm(a, b), -1e4), 1e-3)


def _case_gemm_early_return_past_valid_rows():
    a, b = _h(256, 64), _h(64, 80)
    out = emulate("gemm_early_return_past_valid_rows", {0: a, 1: b})[2]
    _check(out[:192], _mm(a, b)[:192], 1e-3)  # row tiles 0-2 start below 130 rows
    assert np.isnan(out[192:]).all()  # tile 3 (rows 192-255) returned before its store


def _case_gemm_int64_indexed_operands():
    a, b = _h(100, 64), _h(64, 80)
    _check(emulate("gemm_int64_indexed_operands", {0: a, 1: b})[2], _mm(a, b), 1e-3)


def _case_gemm_grid_3x5_tn32():
    a, b = _bf(150, 128), _bf(128, 160, scale=0.3)
    out = emulate("gemm_grid_3x5_tn32", {0: a, 1: b, 2: _unset((150, 160), "bfloat16")})[2]
    _check(out.astype(np.float32), _mm(a.astype(np.float32), b.astype(np.float32)), 1e-2, 1e-2)  # bf16 out


CASES = {n.removeprefix("_case_"): f for n, f in globals().items() if n.startswith("_case_")}
ON_THE_GPU_ONLY = {"gemm_n5_columns_k100"}
"""Cases this runner cannot run: operands whose rows are not whole 16-byte units (the launcher's padded copies).
(The e4m3 WGMMA case runs here since session 38: the emulator's e4m3 / e5m2 WGMMA.)"""
GEMMS = sorted(set(CASES) - ON_THE_GPU_ONLY) if ALL else ["persistent_gemm_grouped_from_pid", "split_k_gemm_atomic_add_axis2",
                                   "int8_gemm_int32_out", "gemm_early_return_past_valid_rows"]
"""The GEMM cases run in CI (every case of :data:`CASES` run with ``TILEORCH_EMULATE_ALL=1``: see the
sweep's report)."""


@pytest.mark.parametrize("name", GEMMS)
def test_the_gemm_on_the_wgmma_emulator(name, monkeypatch):
    s4.add_sweep_programs(monkeypatch, PROGRAMS)
    monkeypatch.setattr(s14e, "PROGRAMS", {**s14e.PROGRAMS, **PROGRAMS})
    CASES[name]()


# ----------------------------------------------------------------------------------------------- the SIMT programs

EMULATED = sorted(n for n in dir(s27) if n.startswith("test_") and "gemm" not in n) \
    if ALL else ["test_seeded_dropout_pcg_hash", "test_int64_arithmetic_past_2_pow_32",
                 "test_bool_tiles_xor_and_count", "test_early_return_on_empty_row"]
"""The tests of test_user_sweep27_interp.py run here on the PTX (a CI-sized subset; the mma.sync dot needs
``ldmatrix``, which the emulator does not model)."""


@pytest.mark.parametrize("test", EMULATED)
def test_the_ptx_against_numpy(test, monkeypatch):
    monkeypatch.setattr(s10e, "PROGRAMS", PROGRAMS)
    monkeypatch.setattr(s27, "run", lambda name, inputs, program=None: s10e.emulate(name, inputs))
    s27.every_case(getattr(s27, test))
