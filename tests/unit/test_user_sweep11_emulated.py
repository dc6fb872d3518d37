"""Eleventh user sweep (``tileorch.testing.user_programs11``): f16 programs the GEMM and chained tiers
take, their PTX run on the CPU by ``tileorch.testing.ptx_emulator`` against numpy float64 on the same
inputs, outputs NaN-prefilled (the helpers of test_user_sweep3/4_emulated.py: every CTA, the
launcher's own problem derivation and tensor maps).  What this sweep fixed is checked first.  bf16 /
fp8 / int8 programs run on the GPU (tests/gpu/test_user_sweep11_gpu.py).  Needs cuda-tile."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("xdsl")
pytest.importorskip("cuda.tile")

import test_user_sweep3_emulated as s3  # noqa: E402
import test_user_sweep4_emulated as s4  # noqa: E402

from tileorch.testing.user_programs11 import PROGRAMS  # noqa: E402

RNG = np.random.default_rng(1111)
LOG2E = 1.4426950408889634


@pytest.fixture(autouse=True)
def _eleventh_sweep(monkeypatch):
    s4.add_sweep_programs(monkeypatch, PROGRAMS)


def _h(*shape, scale=0.5):
    return (RNG.standard_normal(shape) * scale).astype(np.float16)


_check = s4._check
_mm = s4._mm


def test_split_k_bias_added_by_the_first_split_only():
    """Found by this sweep: ``if ct.bid(2) == 0: acc = acc + bias`` before the atomic add was refused
    with 'a memory token is used by an op TileAS does not know' (the bias load's token out of the if),
    then as the epilogue op 'scf.if'; now both branches are evaluated per element and selected."""
    a, b = _h(256, 512), _h(512, 128)
    bias = RNG.standard_normal(128).astype(np.float32)
    c = s4._s3_gemm("mm_splitk_bias_first_split", {0: a, 1: b, 2: bias, 3: np.zeros((256, 128), np.float32)})[3]
    _check(c, _mm(a, b) + bias, 2e-3, 1e-4)


def test_residual_rmsnorm_with_the_new_residual_stored_first():
    """Found by this sweep: the new residual ``h`` stored before the normalised row was taken as C, and
    the normalised row (a second output) was refused as 'the epilogue op nv_tileaa.reduce'; now the
    output reading the row reduction is C and ``h`` is stored beside it."""
    x, w = _h(256, 256), _h(256, 128, scale=0.2)
    r, g = _h(256, 128), _h(128)
    out = s4._s3_gemm("mm_residual_rmsnorm_f16", {0: x, 1: w, 2: r, 3: g})
    h = _mm(x, w) + r
    _check(out[5], h, 2e-2, 5e-3)
    _check(out[4], h / np.sqrt((h * h).mean(1, keepdims=True) + 1e-6) * g.astype(np.float64), 2e-2, 5e-3)


def test_persistent_loop_over_a_linearised_2d_grid():
    """Found by this sweep: ``for t in range(bid(0) + bid(1) * num_blocks(0), n, num_blocks(0) *
    num_blocks(1))`` was refused ('the tile is stored inside a loop around its computation'); now
    tileas-program-loop-to-tiles takes it as the 1-D persistent loop: every tile once."""
    a, b = _h(384, 256), _h(256, 256)
    c = s4._s3_gemm("mm_persistent_2d_grid_linearised", {0: a, 1: b})[2]
    _check(c, _mm(a, b), 4e-3, 5e-3)


def test_batched_persistent_user_loop():
    """Refused until session 22 ('the tile is stored inside a loop around its computation'): the loop over
    (batch, row tile, column tile) the user wrote (``t // P``, ``(t % P) // tiles_n``, ``(t % P) % tiles_n``)
    is now the batched GEMM's tile grid; the host's L is the arrays' 3 matrices."""
    a, b = _h(3, 256, 128), _h(3, 128, 128, scale=0.25)
    c = s3._gemm("bmm_persistent_user_loop", {0: a, 1: b}, program=PROGRAMS["bmm_persistent_user_loop"],
                 problem=lambda cfg, m, n, k: (m, n, k, 3))[2]
    _check(c, _mm(a, b), 2e-2, 5e-3)


def test_f32_weight_converted_in_the_k_loop():
    """Found by this sweep: an f32 B tile converted to A's 16-bit type in the K loop was refused ('A and
    B must have the same element type'); now the consumers compute the f16 B from the raw f32 tile."""
    a = _h(256, 256)
    b = RNG.standard_normal((256, 128)).astype(np.float32) * 0.5
    c = s4._s3_gemm("mm_f16_a_f32_b_cast_in_loop", {0: a, 1: b})[2]
    _check(c, _mm(a, b.astype(np.float16)), 4e-3, 5e-3)


@pytest.mark.parametrize("flag", [1, 0])
def test_attention_epilogue_term_under_a_runtime_flag(monkeypatch, flag):
    """Found by this sweep: ``if add_q != 0: o = o + q`` after the key loop was refused (the load's memory
    token out of the if); the chained epilogue now evaluates both branches and selects."""
    import dataclasses

    from tileorch.testing import user_programs3

    p = PROGRAMS["attn_residual_if_flag"]
    spec = list(p.spec)
    spec[4] = flag
    monkeypatch.setitem(user_programs3.PROGRAMS, "attn_residual_if_flag", dataclasses.replace(p, spec=spec))
    q, k, v = _h(2, 128, 64, scale=1.0), _h(2, 256, 64, scale=1.0), _h(2, 256, 64, scale=1.0)
    o = s3._chained("attn_residual_if_flag", {0: q, 1: k, 2: v}, (2, 2, 1), tma_arrays_in_memory=True)[3]
    s = (q.astype(np.float64) @ np.swapaxes(k.astype(np.float64), 1, 2)) * 0.125
    e = np.exp(s - s.max(-1, keepdims=True))
    _check(o, (e / e.sum(-1, keepdims=True)) @ v.astype(np.float64) + (q.astype(np.float64) if flag else 0), 3e-3,
           1e-2)


# ----------------------------------------------------------------------------------------------- taken as written


def test_gram_matrix_both_operands_from_one_array():
    a = _h(256, 256)
    g = s4._s3_gemm("gram_at_a_one_array", {0: a})[1]
    _check(g, _mm(a.T, a), 4e-3, 5e-3)


def test_syrk_upper_tiles_only():
    """Programs below the diagonal return before the K loop: their tiles stay NaN."""
    a = _h(256, 256)
    c = np.asarray(s4._s3_gemm("syrk_upper_tiles", {0: a})[1], np.float64)
    ref = _mm(a, a.T)
    _check(np.concatenate([c[:128], c[128:, 128:]], 1), np.concatenate([ref[:128], ref[128:, 128:]], 1), 4e-3, 5e-3)
    assert np.isnan(c[128:, :128]).all()


def test_equal_groups_by_bid2(monkeypatch):
    """Two groups of 256 rows, the weight ``W[bid(2)]`` beside 2-D X and Y at the row tile
    ``g * (MG // tm) + bm``: refused as 'A, B and C must all be batched' until session 24 (sweep 18)."""
    import test_user_sweep14_emulated as s14e

    monkeypatch.setattr(s14e, "PROGRAMS", {**s14e.PROGRAMS, **PROGRAMS})
    x, w = _h(512, 128), _h(2, 128, 128, scale=0.25)
    y = s14e.emulate("grouped_equal_groups_bid2", {0: x, 1: w})[2]
    _check(y, np.concatenate([_mm(x[:256], w[0]), _mm(x[256:], w[1])]), 4e-3, 5e-3)


def test_t5_bucket_bias_gathered_per_score():
    """T5's relative-position buckets gathered per score element from a ``[H, 32]`` f32 table: refused as
    'the epilogue gathers a tile' until session 24 (sweep 18)."""
    q, k, v = _h(2, 128, 64), _h(2, 128, 64), _h(2, 128, 64)
    table = RNG.standard_normal((2, 32)).astype(np.float32)
    o = _run_chained("attn_t5_bucket_bias_gather", {0: q, 1: k, 2: v, 3: table})[4]
    rel = np.arange(128)[None, :] - np.arange(128)[:, None]
    bucket = np.where(rel > 0, 16, 0) + np.minimum(np.abs(rel), 15)
    s = _mm(q, np.swapaxes(k, 1, 2)) + table[:, bucket]
    e = np.exp(s - s.max(-1, keepdims=True))
    _check(o, (e / e.sum(-1, keepdims=True)) @ v.astype(np.float64), 3e-3, 1e-2)


def test_early_return_past_a_runtime_m():
    a, b = _h(256, 256), _h(256, 128)
    c = np.asarray(s4._s3_gemm("mm_early_return_runtime_m", {0: a, 1: b})[2], np.float64)
    _check(c[:128], _mm(a, b)[:128], 4e-3, 5e-3)  # M = 100: the row tile at 128 returns, its rows stay NaN
    assert np.isnan(c[128:]).all()


def _run_chained(name, inputs):
    grid = tuple(PROGRAMS[name].grid) + (1,) * (3 - len(PROGRAMS[name].grid))
    return s3._chained(name, inputs, grid)


def test_attention_backward_dv_with_p_recomputed():
    """K is the first dot's A and P^T the second's (one program per key tile, a loop over query tiles)."""
    q, k, do = _h(2, 256, 64, scale=1.0), _h(2, 256, 64, scale=1.0), _h(2, 256, 64, scale=1.0)
    qk = 0.125 * LOG2E
    s = (q.astype(np.float64) @ np.swapaxes(k.astype(np.float64), 1, 2)) * qk
    lse = (s.max(-1) + np.log2(np.exp2(s - s.max(-1, keepdims=True)).sum(-1))).astype(np.float32)
    dv = _run_chained("attn_bwd_dv_recompute", {0: q, 1: k, 2: do, 3: lse})[4]
    p = np.exp2(s - lse[..., None].astype(np.float64))
    _check(dv, np.swapaxes(p, 1, 2) @ do.astype(np.float64), 2e-2, 1e-2)


def test_flashattention1_output_normalised_every_step():
    q, k, v = _h(2, 128, 64, scale=1.0), _h(2, 256, 64, scale=1.0), _h(2, 256, 64, scale=1.0)
    o = _run_chained("attn_fa1_normalised_each_step", {0: q, 1: k, 2: v})[3]
    s = (q.astype(np.float64) @ np.swapaxes(k.astype(np.float64), 1, 2)) * 0.125
    e = np.exp(s - s.max(-1, keepdims=True))
    _check(o, (e / e.sum(-1, keepdims=True)) @ v.astype(np.float64), 3e-3, 1e-2)
