"""Session 32's attention zoo (``tileorch.testing.attnzoo32_programs``): programs that run on the SIMT path (the
split-KV combine and the delta preprocess, which have no dot; the ones the tensor-core tier refuses at the user's
line), run by the CPU's lockstep SIMT interpreter (tests/unit/simt_interp.py through test_user_sweep_interp.run)
against numpy float64, outputs NaN-prefilled.  Needs cuda-tile."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("xdsl")
pytest.importorskip("cuda.tile")

import test_user_sweep_interp as sweep  # noqa: E402
from test_user_sweep_interp import _close, run, sample  # noqa: E402

from tileorch.testing.attnzoo32_programs import PROGRAMS  # noqa: E402

RNG = np.random.default_rng(32021)


@pytest.fixture(autouse=True)
def _zoo(monkeypatch):
    monkeypatch.setattr(sweep, "PROGRAMS", {**sweep.PROGRAMS, **PROGRAMS})


def _s(q, k, scale):
    return (np.asarray(q, np.float64) @ np.swapaxes(np.asarray(k, np.float64), -1, -2)) * scale


def _attn(s, v):
    e = np.exp(s - s.max(-1, keepdims=True))
    return (e / e.sum(-1, keepdims=True)) @ np.asarray(v, np.float64)


def test_online_combine_of_split_partials():
    """Five splits of (2 batches, 2 heads): partial O and log2 LSE drawn at random, split 4 of head (1, 1) and
    splits 3 and 4 of head (0, 0) empty (-inf, O = 0)."""
    op = sample(RNG, (2, 2, 5, 64))
    lp = (RNG.standard_normal((2, 2, 5)) * 3).astype(np.float32)
    lp[1, 1, 4] = lp[0, 0, 3] = lp[0, 0, 4] = -np.inf
    op[1, 1, 4] = op[0, 0, 3:] = 0
    o = run("z32_split_kv_combine_online", {0: op, 1: lp})[2]
    w = np.exp2(lp - lp.max(-1, keepdims=True))
    _close(o, (w[..., None] * op).sum(-2) / w.sum(-1)[..., None], 2e-3, 1e-3)


def test_delta_preprocess_sequence_major_bf16():
    o, do = sample(RNG, (2, 150, 2, 128), "bfloat16"), sample(RNG, (2, 150, 2, 128), "bfloat16")
    delta = run("z32_bwd_delta_bshd_bf16", {0: o, 1: do})[2]
    _close(delta, (np.asarray(o, np.float64) * do).sum(-1).transpose(0, 2, 1), 1e-4, 1e-5)


def test_lse_alone_on_the_simt_path():
    q, k = sample(RNG, (2, 150, 64), "float16"), sample(RNG, (2, 170, 64), "float16")
    lse = run("z32_lse_only", {0: q, 1: k})[2]
    s = _s(q, k, 0.125)
    m = s.max(-1)
    _close(lse, m + np.log(np.exp(s - m[..., None]).sum(-1)), 2e-3, 1e-4)


def test_paged_slots_gathered_on_the_simt_path():
    """16-token pages in a shuffled table; 256 and 150 valid keys."""
    q, kc, vc = (sample(RNG, s, "float16") for s in ((2, 2, 64), (2, 512, 64), (2, 512, 64)))
    table = RNG.permutation(32).reshape(2, 16).astype(np.int32)
    lens = np.array([256, 150], np.int32)
    o = run("z32_paged_slot_gather", {0: q, 1: kc, 2: vc, 3: table, 4: lens})[5]
    for b in range(2):
        t = np.arange(lens[b])
        slot = table[b, t // 16] * 16 + t % 16
        for h in range(2):
            _close(o[b, h], _attn(_s(q[b, h][None], kc[h, slot], 0.125), vc[h, slot])[0], 3e-3, 1e-2)


def test_score_gradient_tile_on_the_simt_path():
    q, k, v, do = (sample(RNG, s, "float16") for s in ((2, 150, 64), (2, 130, 64), (2, 130, 64), (2, 150, 64)))
    s = _s(q, k, 0.125)
    m = s.max(-1, keepdims=True)
    lse = (m + np.log(np.exp(s - m).sum(-1, keepdims=True)))[..., 0].astype(np.float32)
    delta = sample(RNG, (2, 150))
    ds = run("z32_bwd_ds_tile", {0: q, 1: k, 2: v, 3: do, 4: lse, 5: delta})[6]
    ref = np.exp(s - lse[..., None]) * (_s(do, v, 1.0) - delta[..., None])
    _close(ds, ref, 3e-3, 1e-2)


def test_cascade_prefix_then_suffix_on_the_simt_path():
    q, kp, vp, k, v = (sample(RNG, s, "float16") for s in ((4, 130, 64), (2, 100, 64), (2, 100, 64),
                                                            (4, 130, 64), (4, 130, 64)))
    o = run("z32_cascade_shared_prefix", {0: q, 1: kp, 2: vp, 3: k, 4: v})[5]
    i, j = np.arange(130)[:, None], np.arange(130)[None, :]
    for bh in range(4):
        s = np.concatenate([_s(q[bh], kp[bh % 2], 0.125), np.where(j <= i, _s(q[bh], k[bh], 0.125), -np.inf)], -1)
        _close(o[bh], _attn(s, np.concatenate([vp[bh % 2], v[bh]])), 3e-3, 1e-2)


def test_int8_cache_dequantised_on_the_simt_path():
    q = sample(RNG, (2, 128, 64), "float16")
    k8, v8 = (RNG.integers(-127, 128, (2, 150, 64)).astype(np.int8) for _ in range(2))
    ks, vs = (RNG.uniform(0.005, 0.025, (2, 150)).astype(np.float32) for _ in range(2))
    o = run("z32_int8_kv_token_scales", {0: q, 1: k8, 2: v8, 3: ks, 4: vs})[5]
    k = (k8 * ks[..., None]).astype(np.float16)
    v = (v8 * vs[..., None]).astype(np.float16)
    _close(o, _attn(_s(q, k, 0.125), v), 3e-3, 1e-2)


def test_int8_cache_scales_on_scores_on_the_simt_path():
    q = sample(RNG, (2, 128, 64), "float16")
    k8, v8 = (RNG.integers(-127, 128, (2, 150, 64)).astype(np.int8) for _ in range(2))
    ks, vs = (RNG.uniform(0.005, 0.025, (2, 150)).astype(np.float32) for _ in range(2))
    o = run("z32_int8_scales_on_scores", {0: q, 1: k8, 2: v8, 3: ks, 4: vs})[5]
    s = _s(q, k8, 0.125) * ks[:, None, :]
    e = np.exp(s - s.max(-1, keepdims=True))
    p16 = (e * vs[:, None, :]).astype(np.float16)  # the kernel's (p * vs) cast for the second dot
    _close(o, (p16 @ v8.astype(np.float64)) / e.sum(-1, keepdims=True), 3e-3, 1e-2)


def test_routed_queries_gathered_on_the_simt_path():
    """64 routed tokens (ascending positions of 200) attend causally to all 200 keys."""
    q, k, v = (sample(RNG, (2, 200, 64), "float16") for _ in range(3))
    idx = np.sort(RNG.choice(200, 64, replace=False)).astype(np.int32)
    o = run("z32_mod_routed_queries", {0: q, 1: k, 2: v, 3: idx})[4]
    keep = np.arange(200)[None, :] <= idx[:, None]
    _close(o, _attn(np.where(keep, _s(q[:, idx], k, 0.125), -np.inf), v), 3e-3, 1e-2)
