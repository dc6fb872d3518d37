"""Sixteenth user sweep (``tileorch.testing.user_programs16``): the tensor-core programs with f16
operands run CTA by CTA on the CPU by ``tileorch.testing.ptx_emulator`` against numpy float64 on
ragged shapes, outputs NaN-prefilled: the GEMMs through test_user_sweep14_emulated's runner (the
launcher's own problem derivation, tensor maps and tile parameters, the launch grid walked by a
program-grid kernel), the chained kernels through test_user_sweep3_emulated's (every CTA of the
host's launch); a bf16 attention runs as its f16 twin (the emulator's WGMMA is ``.f32.f16.f16``).
The fp8 / bf16 / int8 programs and the SIMT path's programs run on the GPU,
tests/gpu/test_user_sweep16_gpu.py.  :data:`EMULATED` is the CI-sized subset;
``TILEORCH_EMULATE_ALL=1`` runs every case.  Needs cuda-tile and ml_dtypes."""

from __future__ import annotations

import dataclasses
import math
import os

import numpy as np
import pytest

pytest.importorskip("xdsl")
pytest.importorskip("cuda.tile")
pytest.importorskip("ml_dtypes")

import test_user_sweep3_emulated as s3  # noqa: E402
import test_user_sweep4_emulated as s4  # noqa: E402
import test_user_sweep14_emulated as s14e  # noqa: E402

from tileorch.testing.user_programs16 import PROGRAMS  # noqa: E402

RNG = np.random.default_rng(2316)
TWINS = {"attn_causal_bottom_right_bf16__f16": dataclasses.replace(
    PROGRAMS["attn_causal_bottom_right_bf16"],
    spec=[(s[0], "float16") if isinstance(s, tuple) else s for s in PROGRAMS["attn_causal_bottom_right_bf16"].spec])}
"""The bf16 attention's f16 twin (the same kernel, its arrays f16)."""


@pytest.fixture(autouse=True)
def _sixteenth_sweep(monkeypatch):
    s4.add_sweep_programs(monkeypatch, {**PROGRAMS, **TWINS})
    monkeypatch.setattr(s14e, "PROGRAMS", {**s14e.PROGRAMS, **PROGRAMS})


def _h(*shape, scale=1.0):
    return (RNG.standard_normal(shape) * scale).astype(np.float16)


def _f(*shape):
    return RNG.standard_normal(shape).astype(np.float32)


def _mm(a, b):
    return np.asarray(a, np.float64) @ np.asarray(b, np.float64)


def emulate(name: str, inputs: dict) -> dict:
    """A GEMM program on its spec's shapes (test_user_sweep14_emulated's runner)."""
    return s14e.emulate(name, inputs)


def chained(name: str, inputs: dict) -> dict:
    """A chained-dots program on its spec's shapes and launch grid."""
    grid = tuple(PROGRAMS[name.removesuffix("__f16")].grid)
    return s3._chained(name, inputs, grid + (1,) * (3 - len(grid)))


_check = s14e._check


def _scores(q, k, scale):
    return (q.astype(np.float64) @ np.swapaxes(k.astype(np.float64), -1, -2)) * scale


def _softmax_pv(s, v):
    e = np.exp(s - s.max(-1, keepdims=True))
    return (e / e.sum(-1, keepdims=True)) @ v.astype(np.float64)


def _pos(sq, sk, q0=0):
    """(query positions [sq, 1], key positions [1, sk])."""
    return np.arange(q0, q0 + sq)[:, None], np.arange(sk)[None, :]


# ----------------------------------------------------------------------------------------------- batches per operand


def _case_bmm_bhmk_hkn_head_bias():
    """A: 6 matrices (2 x 3), W: 3 (one per head), C: 6 -- the tensor maps at each operand's own count."""
    a, w, bias = _h(2, 3, 200, 128), _h(3, 128, 192, scale=0.25), _f(3, 192)
    y = emulate("bmm_bhmk_hkn_head_bias", {0: a, 1: w, 2: bias})[3]
    _check(y, _mm(a, w[None]) + bias[None, :, None, :], 2e-2)


def _case_bmm_bhmk_hnk_head_major():
    a, wt = _h(2, 3, 128, 128), _h(3, 192, 128, scale=0.25)
    y = emulate("bmm_bhmk_hnk_head_major", {0: a, 1: wt})[2]
    _check(y, _mm(a, np.swapaxes(wt, -1, -2)[None]), 2e-2)


def _case_bmm_permute_3d_b():
    a, bt = _h(3, 200, 128), _h(3, 192, 128, scale=0.25)
    _check(emulate("bmm_permute_3d_b", {0: a, 1: bt})[2], _mm(a, np.swapaxes(bt, -1, -2)), 2e-2)


# ----------------------------------------------------------------------------------------------- MoE / grouped


def _case_moe_sorted_expert_per_tile():
    """Six 64-row tiles of sorted tokens with experts 2, 2, 0, 1, 1, 1 (expert 0 one tile, no tile of
    another order): each tile against its own expert's weight."""
    x, w = _h(384, 128), _h(3, 128, 192, scale=0.25)
    te = np.array([2, 2, 0, 1, 1, 1], np.int32)
    y = emulate("moe_sorted_expert_per_tile", {0: x, 1: w, 2: te})[3]
    ref = np.concatenate([_mm(x[64 * t:64 * t + 64], w[te[t]]) for t in range(6)])
    _check(y, ref, 2e-2)


def _case_grouped_tile_table_1d():
    """Groups of 128, 64 and 128 rows: five row tiles (t -> group 0, 0, 1, 2, 2), visited in the
    table's order (the row tiles listed 3, 4, 2, 0, 1)."""
    x, w = _h(320, 128), _h(3, 128, 192, scale=0.25)
    tg = np.array([2, 2, 1, 0, 0], np.int32)
    tr = np.array([3, 4, 2, 0, 1], np.int32)
    y = emulate("grouped_tile_table_1d", {0: x, 1: w, 2: tg, 3: tr})[4]
    ref = np.empty((320, 192))
    for g, r in zip(tg, tr):
        ref[64 * r:64 * r + 64] = _mm(x[64 * r:64 * r + 64], w[g])
    _check(y, ref, 2e-2)


# ----------------------------------------------------------------------------------------------- epilogues, loops


def _case_epi_bias_dropout_residual():
    a, b, bias, r = _h(200, 128), _h(128, 192, scale=0.1), _f(192), _h(200, 192)
    keep = (RNG.random((200, 192)) < 0.8).astype(np.uint8)
    y = emulate("epi_bias_dropout_residual", {0: a, 1: b, 2: bias, 3: keep, 4: r})[5]
    _check(y, (_mm(a, b) + bias[None, :]) * keep * 1.25 + r, 2e-2)


def _case_epi_row_softmax_full_n():
    """N = 100 of the 128-column tile: the 28 padded columns masked out of the max and the sum."""
    x, w = _h(200, 128, scale=0.5), _h(128, 100, scale=0.25)
    p = emulate("epi_row_softmax_full_n", {0: x, 1: w})[2]
    s = _mm(x, w)
    e = np.exp(s - s.max(1, keepdims=True))
    _check(p, e / e.sum(1, keepdims=True), 1e-3)


def _case_epi_row_l2_normalize():
    x, w = _h(200, 128), _h(128, 128)
    y = emulate("epi_row_l2_normalize", {0: x, 1: w})[2]
    s = _mm(x, w)
    _check(y, s / np.sqrt((s * s).sum(1, keepdims=True) + 1e-6), 1e-3)


def _case_dual_gemm_swiglu():
    x, wg, wu = _h(200, 128), _h(128, 192, scale=0.25), _h(128, 192, scale=0.25)
    y = emulate("dual_gemm_swiglu", {0: x, 1: wg, 2: wu})[3]
    g, u = _mm(x, wg), _mm(x, wu)
    _check(y, g / (1 + np.exp(-g)) * u, 3e-2)


def _case_lowrank_chain_xa_b():
    """The GEMM kernel's second dot on the accumulator: the rank-64 product rounded to f16 (as the program does)
    is the register A of the dot with B's [64, 64] tile."""
    x, la, lb = _h(200, 256), _h(256, 64, scale=0.125), _h(64, 192, scale=0.25)
    y = emulate("lowrank_chain_xa_b", {0: x, 1: la, 2: lb})[3]
    t = _mm(x, la).astype(np.float16)
    _check(y, _mm(t, lb), 2e-2, 1e-2)


def _case_k_loop_backwards():
    """K = 200: the first trip reads the 8-wide last K tile."""
    a, b = _h(200, 200), _h(200, 192, scale=0.25)
    _check(emulate("k_loop_backwards", {0: a, 1: b})[2], _mm(a, b), 2e-2)


def _case_at_bt_store_ct():
    at, bt = _h(128, 256), _h(192, 128, scale=0.25)
    _check(emulate("at_bt_store_ct", {0: at, 1: bt})[2], _mm(at.T, bt.T).T, 2e-2)


# ----------------------------------------------------------------------------------------------- attention


def _case_attn_cross_dqk128_dv64():
    q, k, v = _h(2, 128, 128), _h(2, 200, 128), _h(2, 200, 64)
    o = chained("attn_cross_dqk128_dv64", {0: q, 1: k, 2: v})[3]
    _check(o, _softmax_pv(_scores(q, k, 1 / math.sqrt(128)), v), 3e-3)


def _case_attn_alibi_slope_from_bid():
    """Four (batch, head) rows, H = 2: slopes 1/16 (h = 0) and 1/256 (h = 1)."""
    q, k, v = _h(4, 192, 64), _h(4, 192, 64), _h(4, 192, 64)
    o = chained("attn_alibi_slope_from_bid", {0: q, 1: k, 2: v})[3]
    i, j = _pos(192, 192)
    slope = np.array([2.0 ** (-8 * ((bh % 2) + 1) / 2) for bh in range(4)])[:, None, None]
    s = np.where(j <= i, _scores(q, k, 0.125) + slope * (j - i), -np.inf)
    _check(o, _softmax_pv(s, v), 3e-3)


def _case_attn_causal_bottom_right_bf16():
    """100 queries (ragged 64-row tiles) aligned to the last of 300 keys (ragged 64-key tiles)."""
    q, k, v = _h(2, 100, 64), _h(2, 300, 64), _h(2, 300, 64)
    o = chained("attn_causal_bottom_right_bf16__f16", {0: q, 1: k, 2: v})[3]
    i, j = _pos(100, 300, 200)
    _check(o, _softmax_pv(np.where(j <= i, _scores(q, k, 0.125), -np.inf), v), 3e-3)


def _case_attn_chunked_local():
    q, k, v = _h(2, 256, 64), _h(2, 256, 64), _h(2, 256, 64)
    o = chained("attn_chunked_local", {0: q, 1: k, 2: v})[3]
    i, j = _pos(256, 256)
    _check(o, _softmax_pv(np.where((j <= i) & (j // 128 == i // 128), _scores(q, k, 0.125), -np.inf), v), 3e-3)


def _case_attn_sigmoid():
    q, k, v = _h(2, 128, 64), _h(2, 200, 64), _h(2, 200, 64)
    o = chained("attn_sigmoid", {0: q, 1: k, 2: v})[3]
    p = 1 / (1 + np.exp(-(_scores(q, k, 0.125) - math.log(200.0))))
    _check(o, p @ v.astype(np.float64), 3e-3)


def _case_attn_dropout_keep_mask():
    q, k, v = _h(2, 128, 64), _h(2, 192, 64), _h(2, 192, 64)
    keep = (RNG.random((2, 128, 192)) < 0.8).astype(np.uint8)
    o = chained("attn_dropout_keep_mask", {0: q, 1: k, 2: v, 3: keep})[4]
    s = _scores(q, k, 0.125)
    e = np.exp(s - s.max(-1, keepdims=True))
    _check(o, (e * keep * 1.25 / e.sum(-1, keepdims=True)) @ v.astype(np.float64), 3e-3)


def _case_attn_differential():
    """Two softmax chains over one V, subtracted (the chained tier's own-A first dots and several second
    dots, s23-bwd, took it onto tensor cores after this sweep was written)."""
    q1, k1, q2, k2, v = (_h(2, 128, 64) for _ in range(5))
    o = chained("attn_differential", {0: q1, 1: k1, 2: q2, 3: k2, 4: v})[5]
    _check(o, _softmax_pv(_scores(q1, k1, 0.125), v) - 0.5 * _softmax_pv(_scores(q2, k2, 0.125), v), 3e-3)


def _case_i8_requant_row_col():
    """The int8 C the tier stores since session 25: ``acc * sa * sb`` cast to int8 (truncated toward zero,
    saturating); B given ``[N, K]``."""
    a = RNG.integers(-128, 128, (200, 256)).astype(np.int8)
    bt = RNG.integers(-128, 128, (192, 256)).astype(np.int8)
    sa, sb = (RNG.random(200) * 0.1).astype(np.float32), (RNG.random(192) * 0.05).astype(np.float32)
    y = emulate("i8_requant_row_col", {0: a, 1: bt, 2: sa, 3: sb, 4: np.full((200, 192), 99, np.int8)})[4]
    v = (a.astype(np.int64) @ bt.T.astype(np.int64)).astype(np.float32) * sa[:, None] * sb[None, :]
    ref = np.clip(np.trunc(v.astype(np.float64)), -128, 127)
    assert (ref == -128).any() and (ref == 127).any()
    assert np.abs(y.astype(np.int64) - ref).max() <= 1
    assert (y == ref).mean() > 0.99


CASES = {n.removeprefix("_case_"): f for n, f in globals().items() if n.startswith("_case_")}

EMULATED = ["bmm_bhmk_hkn_head_bias", "bmm_bhmk_hnk_head_major", "moe_sorted_expert_per_tile",
            "grouped_tile_table_1d", "epi_row_softmax_full_n", "dual_gemm_swiglu", "lowrank_chain_xa_b",
            "k_loop_backwards",
            "attn_cross_dqk128_dv64", "attn_alibi_slope_from_bid", "attn_causal_bottom_right_bf16", "attn_sigmoid",
            "attn_differential", "i8_requant_row_col"]
"""The CI-sized subset (the per-operand batch counts, the two MoE tables the tier now takes, a masked
full-row softmax, two accumulators sharing A, a reversed K loop, the attention variants whose
score or mask is new); ``TILEORCH_EMULATE_ALL=1`` runs every case."""
if os.environ.get("TILEORCH_EMULATE_ALL"):
    EMULATED = sorted(CASES)


@pytest.mark.parametrize("case", EMULATED)
def test_the_ptx_against_numpy(case):
    CASES[case]()
