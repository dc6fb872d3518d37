"""The thirty-third user sweep's programs on the SIMT path (``tileorch.testing.user_programs33``: RMSNorm before a
GEMM, layer norm backward's two column reductions and its per-row input gradient, rotary embeddings in the NeoX and
GPT-J layouts, a row's max and argmax, a histogram and a segment maximum by atomics, a tiled transpose, concat and
split through tile offsets, cumsum along rows carried across tiles, float -> int by floor / ceil / trunc / round
half to even, f32 -> f16 toward zero, an embedding gather, a top-1 router, a bf16 softmax, grouped int8 dequant,
layer norm forward with its statistics, bf16 GELU) on the CPU's lockstep SIMT interpreter (tests/unit/simt_interp.py,
through test_user_sweep_interp.run) against numpy references computed from the inputs alone (float64; Python
integers), outputs pre-filled with NaN / an integer sentinel. CI runs a few cheap tests here (:data:`CI`);
``TILEORCH_EMULATE_ALL=1`` runs every one. tests/gpu/test_user_sweep33_gpu.py runs every test here on the GPU;
test_user_sweep33_emulated.py runs them on the PTX emulator."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("xdsl")
pytest.importorskip("cuda.tile")
ml_dtypes = pytest.importorskip("ml_dtypes")

from interp_sweep_checks import F32, _ci_subset, _close, _d, every_case, register, sampler  # noqa: E402,F401
from test_user_sweep_interp import run  # noqa: E402

from tileorch.testing.user_programs33 import PROGRAMS  # noqa: E402

register(PROGRAMS)
RNG, _f = sampler(3333)
CI = {"test_cumsum_rows_carried_across_tiles", "test_histogram_atomic_add_bins",
      "test_float_to_int_floor_ceil_trunc_round"}
"""The tests run in CI (the suite's time budget); every test with ``TILEORCH_EMULATE_ALL=1``."""


def _f16(x):
    return np.asarray(x, np.float32).astype(np.float16).astype(np.float64)


def _bf16(x):
    return np.asarray(x, np.float32).astype(ml_dtypes.bfloat16).astype(np.float64)


def test_rmsnorm_rows_to_f16_for_gemm():
    x, w = _f((100, 128)), _f((128,))
    out = run("rmsnorm_rows_to_f16_for_gemm", {0: x, 1: w, 3: 1e-6})[2]
    ref = _d(x) / np.sqrt((_d(x) ** 2).mean(1, keepdims=True) + 1e-6) * _d(w)
    _close(out, ref, 2e-3 * np.abs(ref).max(), 1e-3)


def test_layernorm_bwd_dgamma_dbeta_columns():
    dy, xh = _f((300, 96)), _f((300, 96))
    out = run("layernorm_bwd_dgamma_dbeta_columns", {0: dy, 1: xh})
    _close(out[2], (_d(dy) * _d(xh)).sum(0), 1e-3)
    _close(out[3], _d(dy).sum(0), 1e-3)


def test_layernorm_bwd_dx_rows():
    x, dy, w = _f((6, 100)), _f((6, 100)), _f((100,))
    mean = x.mean(1).astype(F32)
    rstd = (1.0 / np.sqrt(x.var(1) + 1e-5)).astype(F32)
    out = run("layernorm_bwd_dx_rows", {0: dy, 1: x, 2: w, 3: mean, 4: rstd})[5]
    xhat = (_d(x) - _d(mean)[:, None]) * _d(rstd)[:, None]
    wdy = _d(w) * _d(dy)
    ref = (wdy - wdy.mean(1, keepdims=True) - xhat * (wdy * xhat).mean(1, keepdims=True)) * _d(rstd)[:, None]
    _close(out, ref, 1e-4)


def _angles(t, half):
    theta = np.arange(t)[:, None] * (10000.0 ** (-np.arange(half) / half))[None, :]
    return np.cos(theta).astype(F32), np.sin(theta).astype(F32)


def test_rope_half_split_neox_bf16():
    x = _f((20, 4, 64), "bfloat16")
    c, s = _angles(20, 32)
    out = run("rope_half_split_neox_bf16", {0: x, 1: c, 2: s})[3]
    x1, x2 = _d(x[..., :32]), _d(x[..., 32:])
    cc, ss = _d(c)[:, None, :], _d(s)[:, None, :]
    ref = np.concatenate([x1 * cc - x2 * ss, x2 * cc + x1 * ss], -1)
    _close(out, ref, 2e-2)  # bf16 out


def test_rope_interleaved_pairs_gptj():
    x = _f((20, 64))
    c, s = _angles(20, 32)
    out = run("rope_interleaved_pairs_gptj", {0: x, 1: c, 2: s})[3]
    e, o = _d(x[:, 0::2]), _d(x[:, 1::2])
    ref = np.empty((20, 64))
    ref[:, 0::2] = e * _d(c) - o * _d(s)
    ref[:, 1::2] = o * _d(c) + e * _d(s)
    _close(out, ref, 1e-5)


def test_row_max_and_argmax_two_outputs():
    x = _f((6, 100))
    x[2, 99] = 9.0  # the maximum in the ragged last column
    x[3, 10] = x[3, 70] = 8.0  # a tie: the first index
    out = run("row_max_and_argmax_two_outputs", {0: x})
    _close(out[1], x.max(1), 0.0)
    assert out[2].tolist() == [int(np.argmax(r)) for r in x]


def test_histogram_atomic_add_bins():
    x = RNG.integers(-3, 19, 500).astype(np.int32)  # some values outside [0, 16): dropped
    out = run("histogram_atomic_add_bins", {0: x, 1: np.zeros(16, np.int32)})[1]
    assert out.tolist() == [int((x == b).sum()) for b in range(16)]


def test_transpose_tiles_f16():
    x = _f((100, 72), "float16")
    out = run("transpose_tiles_f16", {0: x})[1]
    assert np.array_equal(np.asarray(out, np.float64), _d(x).T)


def test_concat_columns_by_tile_offset():
    x1, x2 = _f((50, 64)), _f((50, 40))
    out = run("concat_columns_by_tile_offset", {0: x1, 1: x2})[2]
    assert np.array_equal(out, np.concatenate([x1, x2], 1))


def test_split_qkv_columns_to_three():
    qkv = _f((50, 192), "float16")
    out = run("split_qkv_columns_to_three", {0: qkv})
    for i in range(3):
        assert np.array_equal(np.asarray(out[1 + i], np.float64), _d(qkv[:, 64 * i:64 * (i + 1)]))


def test_cumsum_rows_carried_across_tiles():
    x = _f((4, 300))
    out = run("cumsum_rows_carried_across_tiles", {0: x})[1]
    _close(out, np.cumsum(_d(x), 1), 1e-4)


def test_float_to_int_floor_ceil_trunc_round():
    x = (RNG.standard_normal(200) * 4).astype(F32)
    x[:12] = [0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 3.0, -3.0, 0.0, 7.49, -7.51, 100.5]  # halves: to even
    out = run("float_to_int_floor_ceil_trunc_round", {0: x})
    xd = _d(x)
    assert out[1].tolist() == [int(v) for v in np.round(xd)]  # numpy rounds halves to even
    assert out[2].tolist() == [int(v) for v in np.trunc(xd)]
    assert out[3].tolist() == [int(v) for v in np.floor(xd)]
    assert out[4].tolist() == [int(v) for v in np.ceil(xd)]


def _f16_toward_zero(x):
    """f32 -> f16 rounded toward zero (from the two f16 neighbours of the float64 value)."""
    near = np.asarray(x, np.float32).astype(np.float16)
    over = np.abs(near.astype(np.float64)) > np.abs(_d(x))
    toward = np.nextafter(near, np.float16(0)).astype(np.float16)
    return np.where(over, toward, near).astype(np.float64)


def test_f32_to_f16_rz_and_int8_to_f32():
    x = (RNG.standard_normal(200) * 100).astype(F32)
    q = RNG.integers(-128, 128, 200).astype(np.int8)
    out = run("f32_to_f16_rz_and_int8_to_f32", {0: x, 1: q})
    assert np.array_equal(np.asarray(out[2], np.float64), _f16_toward_zero(x))
    assert np.array_equal(np.asarray(out[3], np.float64), q.astype(np.float64) / 64.0)


def test_embedding_gather_rows_2d_index():
    table = _f((40, 64))
    ids = RNG.integers(0, 40, 50).astype(np.int32)
    ids[[3, 17]] = [40, 1000]  # past the table: the gather's bounds check reads 0
    out = run("embedding_gather_rows_2d_index", {0: table, 1: ids})[2]
    ref = np.where((ids < 40)[:, None], table[np.minimum(ids, 39)], 0.0)
    assert np.array_equal(out, ref)


def test_router_softmax_top1_prob_and_expert():
    x = _f((50, 8), scale=2.0)
    out = run("router_softmax_top1_prob_and_expert", {0: x})
    e = np.exp(_d(x) - _d(x).max(1, keepdims=True))
    p = e / e.sum(1, keepdims=True)
    _close(out[1], p.max(1), 1e-6)
    assert out[2].tolist() == [int(v) for v in x.argmax(1)]


def test_softmax_rows_bf16_in_out_f32_math():
    x = _f((5, 200), "bfloat16", 3.0)
    out = run("softmax_rows_bf16_in_out_f32_math", {0: x})[1]
    e = np.exp(_d(x) - _d(x).max(1, keepdims=True))
    ref = e / e.sum(1, keepdims=True)
    _close(out, ref, 4e-3 * ref.max(), 8e-3)  # bf16 out


def test_dequant_int4_in_int8_group_scales():
    q = RNG.integers(-8, 8, (6, 128)).astype(np.int8)
    s = (RNG.random((6, 4)) * 0.1).astype(F32)
    out = run("dequant_int4_in_int8_group_scales", {0: q, 1: s})[2]
    ref = q.astype(np.float64) * np.repeat(_d(s), 32, axis=1)
    _close(out, _f16(ref), 0.0)  # f32 product rounded once to f16


def test_layernorm_fwd_mean_rstd_outputs():
    x, w, b = _f((6, 100), scale=2.0), _f((100,)), _f((100,))
    out = run("layernorm_fwd_mean_rstd_outputs", {0: x, 1: w, 2: b, 6: 1e-5})
    mean = _d(x).mean(1)
    rstd = 1.0 / np.sqrt(_d(x).var(1) + 1e-5)
    _close(out[3], (_d(x) - mean[:, None]) * rstd[:, None] * _d(w) + _d(b), 1e-4)
    _close(out[4], mean, 1e-5)
    _close(out[5], rstd, 1e-5)


def test_segment_max_int32_atomic_by_ids():
    x = RNG.integers(-10**6, 10**6, 300).astype(np.int32)
    seg = RNG.integers(0, 12, 300).astype(np.int32)  # ids 10 and 11: past Out, dropped
    start = np.full(10, np.iinfo(np.int32).min, np.int32)
    out = run("segment_max_int32_atomic_by_ids", {0: x, 1: seg, 2: start})[2]
    ref = [int(x[seg == g].max()) if (seg == g).any() else int(start[g]) for g in range(10)]
    assert out.tolist() == ref


def test_gelu_erf_free_tanh_bf16_elementwise():
    x = _f((300,), "bfloat16", 2.0)
    out = run("gelu_erf_free_tanh_bf16_elementwise", {0: x})[1]
    xd = _d(x)
    ref = 0.5 * xd * (1 + np.tanh(0.7978845608028654 * (xd + 0.044715 * xd ** 3)))
    _close(out, ref, 1e-2, 8e-3)  # bf16 out
