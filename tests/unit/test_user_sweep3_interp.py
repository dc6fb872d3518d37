"""The SIMT programs of the third user sweep (``tileorch.testing.user_programs3``) run on the CPU by
the lockstep interpreter (tests/unit/simt_interp.py, through test_user_sweep_interp.run) against
numpy references computed in float64 from the same inputs (fp8 through ``ml_dtypes``), outputs
pre-filled with NaN (integers and fp8 bytes with a sentinel).  ``byte_histogram`` (atomics) runs
on the GPU only (tests/gpu/test_user_sweep3_gpu.py).  Also here: the programs the tensor-core
tiers refuse that run on the SIMT path's mma.sync dots (a sliced GEMM, overlapping row tiles)."""

from __future__ import annotations

import math

import numpy as np
import pytest

pytest.importorskip("xdsl")
pytest.importorskip("cuda.tile")

import test_user_sweep_interp as sweep  # noqa: E402
from test_user_sweep_interp import _close, run, sample, _softmax  # noqa: E402

from tileorch.testing.user_programs3 import PROGRAMS  # noqa: E402

# run() looks programs up in test_user_sweep_interp.PROGRAMS: the third sweep's names are new there
sweep.PROGRAMS.update(PROGRAMS)
# fp8 arrays travel as their bytes (the tests pass them pre-filled)
sweep.NP.update({"float8_e5m2": np.uint8, "float8_e4m3fn": np.uint8})

RNG = np.random.default_rng(2026)


def _f(shape, dt="float32", scale=1.0):
    return sample(RNG, shape, dt, scale)


def test_softmax_custom_reduce():
    x = _f((6, 300), "float16")
    _close(run("softmax_custom_reduce", {0: x})[1], _softmax(x.astype(np.float64), 1), 1e-3, 2e-3)


def test_argmax_tuple_reduce_first_index_on_ties():
    x = _f((5, 200))
    x[2, [7, 50, 199]] = 9.0  # a tie: the first index wins
    np.testing.assert_array_equal(run("argmax_tuple_reduce", {0: x})[1], x.argmax(1).astype(np.int32))


def test_chunked_cumsum_scan():
    x = _f((3, 500))
    _close(run("chunked_cumsum_scan", {0: x})[1], np.cumsum(x.astype(np.float64), 1), 1e-4)


def test_layernorm_chunked():
    x, w, b = _f((4, 700), "bfloat16", 2.0), _f((700,), "bfloat16"), _f((700,), "bfloat16")
    xd = x.astype(np.float64)
    ref = (xd - xd.mean(1, keepdims=True)) / np.sqrt(xd.var(1, keepdims=True) + 1e-5) * w + b
    _close(run("layernorm_chunked", {0: x, 1: w, 2: b})[3], ref, 3e-2, 1e-2)


def test_rmsnorm_2d_tile_divides_by_the_row_length():
    x, w = _f((5, 384), "bfloat16"), _f((384,), "bfloat16")
    xd = x.astype(np.float64)
    ref = xd / np.sqrt((xd * xd).mean(1, keepdims=True) + 1e-6) * w
    _close(run("rmsnorm_2d_tile", {0: x, 1: w})[2], ref, 3e-2, 1e-2)


def test_logsumexp_online():
    x = _f((4, 1000), scale=3.0)
    xd = x.astype(np.float64)
    m = xd.max(1)
    _close(run("logsumexp_online", {0: x})[1], m + np.log(np.exp(xd - m[:, None]).sum(1)), 1e-4)


def test_argmin_cols_keepdims():
    x = _f((30, 64))
    np.testing.assert_array_equal(run("argmin_cols_keepdims", {0: x})[1], x.argmin(0).astype(np.int32))


def test_permute_3d_201():
    x = _f((4, 8, 64), "float16")
    np.testing.assert_array_equal(run("permute_3d_201", {0: x})[1], x.transpose(2, 0, 1))


def test_window_mean_overlap():
    """Windows of 64 starting every 32 elements (``traversal_steps``), 15 of them over 512."""
    x = _f((512,))
    ref = np.array([x[32 * i:32 * i + 64].astype(np.float64).sum() / 64 for i in range(15)])
    _close(run("window_mean_overlap", {0: x})[1], ref, 1e-6)


def test_gather_rows_advanced():
    table = _f((40, 32))
    ids = RNG.integers(0, 40, 64).astype(np.int32)
    np.testing.assert_array_equal(run("gather_rows_advanced", {0: table, 1: ids})[2], 2 * table[ids])


def test_scatter_masked_rows():
    src = _f((300,))
    perm = RNG.permutation(300).astype(np.int32)
    out = run("scatter_masked_rows", {0: src, 2: perm})[1]
    ref = np.full(300, np.nan, np.float32)
    ref[perm[:250]] = src[:250]
    np.testing.assert_array_equal(out, ref)


def test_clamp_where_chain():
    x, y = _f((1000,), "float16", 2.0), _f((1000,), "float16")
    x[::37] = np.nan
    xd, yd = x.astype(np.float64), y.astype(np.float64)
    c = np.where(np.isnan(xd), 0.0, np.clip(xd, -1.5, 2.0))
    ref = c * np.where(yd >= 0, 1.0, -1.0) + yd * 0.5
    _close(run("clamp_where_chain", {0: x, 1: y})[2], ref, 2e-3, 1e-3)


def test_fp8_roundtrip_rounds_to_nearest_even():
    """e5m2 and e4m3 bytes as ``ml_dtypes`` rounds them (nearest, ties to even; e4m3 saturating to
    448, PTX ``satfinite``), e5m2 read back exactly."""
    import ml_dtypes

    x = _f((300,), scale=8.0)
    x[:4] = [0.0, -0.0, 1e-6, 57344.0]
    sentinel = np.full(300, 0x7F, np.uint8)
    out = run("fp8_roundtrip", {0: x, 1: sentinel.copy(), 2: sentinel.copy()})
    e5 = x.astype(ml_dtypes.float8_e5m2)
    np.testing.assert_array_equal(out[1], e5.view(np.uint8))
    np.testing.assert_array_equal(out[2], _e4m3_sat(x))  # 57344 saturates to 448
    np.testing.assert_array_equal(out[3], e5.astype(np.float32))


def _e4m3_sat(x):
    import ml_dtypes

    return np.clip(x, -448, 448).astype(ml_dtypes.float8_e4m3fn).view(np.uint8)


def test_dtype_ladder():
    x = _f((300,), "bfloat16", 300.0)
    out = run("dtype_ladder", {0: x})
    np.testing.assert_array_equal(out[1], x.astype(np.float16))
    xi = np.trunc(x).astype(np.int16)
    np.testing.assert_array_equal(out[2], xi)
    np.testing.assert_array_equal(out[3], (xi.astype(np.int32) & 255).astype(np.uint8))


# ----------------------------------------------------------------------------------------------- refused by the tiers


def test_k_slice_on_the_simt_path():
    """``A.slice(axis=1, 32, 96) @ B.slice(axis=0, 32, 96)``: the tier refuses the sliced views (it
    read the whole arrays before); the SIMT path's mma.sync dots read the slices."""
    a, b = _f((128, 128), "float16"), _f((128, 128), "float16")
    c = run("mm_k_slice", {0: a, 1: b})[2].astype(np.float64)
    ref = a[:, 32:96].astype(np.float64) @ b[32:96]
    assert np.abs(c - ref).max() < 2e-3 * np.abs(ref).max()
    assert np.abs(c - a.astype(np.float64) @ b).max() > 1.0


def test_overlapping_row_tiles_on_the_simt_path():
    a, b = _f((128, 64), "float16"), _f((64, 64), "float16")
    c = run("mm_overlapping_rows", {0: a, 1: b})[2].astype(np.float64)
    ap = np.zeros((192, 64))
    ap[:128] = a
    ref = np.concatenate([ap[32 * i:32 * i + 64] @ b.astype(np.float64) for i in range(3)])
    np.testing.assert_allclose(c, ref, atol=2e-3, rtol=1e-3)


def test_f16_accumulator_started_from_c_on_the_simt_path():
    """The tier refuses an f16 accumulator started from C (test_user_sweep3_compile.py); the SIMT
    path's mma.sync dots add into C's tile, rounding to f16 after each 64-deep step."""
    a, b = _f((128, 128), "float16", 0.5), _f((128, 128), "float16", 0.5)
    c0 = _f((128, 128), "float16")
    c = run("mm_f16_acc_into_c", {0: a, 1: b, 2: c0})[2].astype(np.float64)
    ref = c0.astype(np.float64) + a.astype(np.float64) @ b.astype(np.float64)
    np.testing.assert_allclose(c, ref, atol=0.06, rtol=1e-2)


def test_swiglu_three_dots_on_the_simt_path():
    """SwiGLU's three dots per hidden tile (two sharing x, then the down projection of their gated
    product) on the SIMT path's mma.sync dots: its fallback (the chained kernel takes it on sm_90a:
    tests/unit/test_user_sweep3_emulated.py)."""
    x = _f((128, 64), "float16")
    w1, w3 = _f((64, 128), "float16", 0.125), _f((64, 128), "float16", 0.125)
    w2 = _f((128, 64), "float16", 0.0625)
    y = run("mlp_swiglu", {0: x, 1: w1, 2: w3, 3: w2})[4].astype(np.float64)
    g, u = x.astype(np.float64) @ w1, x.astype(np.float64) @ w3
    h = (g / (1 + np.exp(-g)) * u).astype(np.float16).astype(np.float64)
    ref = h @ w2.astype(np.float64)
    assert np.linalg.norm(y - ref) / np.linalg.norm(ref) < 5e-3


def test_gated_mlp_with_two_a_tiles_on_the_simt_path():
    """``relu(x W1) * (z W3)``, then ``@ W2``: the first dots read different A tiles; the program's
    SIMT lowering (its fallback; the tensor-core tier takes it since session 23:
    test_user_sweep3_emulated.py ``-k own_a``)."""
    x, z = _f((128, 64), "float16"), _f((128, 64), "float16")
    w1, w3 = _f((64, 128), "float16", 0.125), _f((64, 128), "float16", 0.125)
    w2 = _f((128, 64), "float16", 0.0625)
    y = run("mlp_geglu_two_inputs", {0: x, 1: z, 2: w1, 3: w3, 4: w2})[5].astype(np.float64)
    g, u = x.astype(np.float64) @ w1, z.astype(np.float64) @ w3
    h = (np.maximum(g, 0) * u).astype(np.float16).astype(np.float64)
    ref = h @ w2.astype(np.float64)
    assert np.linalg.norm(y - ref) / np.linalg.norm(ref) < 5e-3
