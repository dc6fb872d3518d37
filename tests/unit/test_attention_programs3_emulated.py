"""The third attention set (``tileorch.testing.attention_programs3``): the chained kernels' PTX run on
the CPU by ``tileorch.testing.ptx_emulator`` (every CTA of the launch, the launcher's own tensor
maps and parameters: test_user_sweep3_emulated's runner) against numpy float64 on small ragged
instances, outputs NaN-prefilled.  The emulator's WGMMA is f16: a bf16 program runs here as its
f16 twin (the same kernel, its arrays f16; its bf16 form compiles in
test_attention_programs3_compile.py and runs on the GPU in tests/gpu/test_attention_programs3.py).
Needs cuda-tile."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest

pytest.importorskip("xdsl")
pytest.importorskip("cuda.tile")

import test_user_sweep3_emulated as s3  # noqa: E402
import test_user_sweep4_emulated as s4  # noqa: E402
from test_attention_programs2_emulated import _attn, _scores  # noqa: E402  (numpy references)

from tileorch.testing.attention_programs3 import PROGRAMS  # noqa: E402

RNG = np.random.default_rng(21020)
LOG2E = 1.4426950408889634


def _f16_twin(p):
    return dataclasses.replace(p, spec=[(s[0], "float16") if isinstance(s, tuple) and s[1] == "bfloat16" else s
                                        for s in p.spec])


TWINS = {f"{n}__f16": _f16_twin(p) for n, p in PROGRAMS.items() if any(
    isinstance(s, tuple) and s[1] == "bfloat16" for s in p.spec)}


@pytest.fixture(autouse=True)
def _third_attention_set(monkeypatch):
    s4.add_sweep_programs(monkeypatch, {**PROGRAMS, **TWINS})


def _h(*shape, scale=1.0):
    return (RNG.standard_normal(shape) * scale).astype(np.float16)


_check = s4._check


def _lse(s):
    m = s.max(-1, keepdims=True)
    return (m + np.log(np.exp(s - m).sum(-1, keepdims=True)))[..., 0]


def _pos(sq, sk, q0=0):
    """(query positions [sq, 1], key positions [1, sk])."""
    return np.arange(q0, q0 + sq)[:, None], np.arange(sk)[None, :]


def _run(name, inputs, grid):
    bf16 = any(isinstance(s, tuple) and s[1] == "bfloat16" for s in PROGRAMS[name].spec)
    grid3 = tuple(grid) + (1,) * (3 - len(grid))
    return s3._chained(f"{name}__f16" if bf16 else name, inputs, grid3)


def _qkv(sq, sk, d, lead=(2,)):
    return _h(*lead, sq, d), _h(*lead, sk, d), _h(*lead, sk, d)


# ----------------------------------------------------------------------------------------------- while loops


def test_while_ragged_keys():
    q, k, v = _qkv(128, 200, 64)
    o = _run("attn_while_ragged", {0: q, 1: k, 2: v}, (2, 2))[3]
    _check(o, _attn(_scores(q, k, 0.125), v))


def test_while_causal_offset():
    """Queries at 200.. of 300 keys (bottom-right causal), the query count ragged (100 in 64-row tiles)."""
    q, k, v = _qkv(100, 300, 64)
    o = _run("attn_while_causal_offset_bf16", {0: q, 1: k, 2: v}, (2, 2))[3]
    i, j = _pos(100, 300, 200)
    _check(o, _attn(np.where(j <= i, _scores(q, k, 0.125), -np.inf), v))


def test_while_sliding_window():
    q, k, v = _qkv(256, 256, 64)
    o = _run("attn_while_window", {0: q, 1: k, 2: v}, (4, 2))[3]
    i, j = _pos(256, 256)
    _check(o, _attn(np.where((j <= i) & (j > i - 80), _scores(q, k, 0.125), -np.inf), v))


def test_while_over_key_offsets():
    q, k, v = _qkv(128, 190, 64)
    o = _run("attn_while_key_offsets", {0: q, 1: k, 2: v}, (2, 2))[3]
    _check(o, _attn(_scores(q, k, 0.125), v))


def test_while_true_with_a_break_first():
    q, k, v = _qkv(192, 192, 64)
    o = _run("attn_while_true_break", {0: q, 1: k, 2: v}, (3, 2))[3]
    i, j = _pos(192, 192)
    _check(o, _attn(np.where(j <= i, _scores(q, k, 0.125), -np.inf), v))


def test_while_decode_with_gathered_lengths():
    """16 query heads per KV head decoding, cache lengths 300 and 512 gathered per batch."""
    q, k, v = _h(2, 32, 64), _h(2, 2, 512, 64), _h(2, 2, 512, 64)
    lens = np.array([300, 512], np.int32)
    k[0, :, 300:] = 60.0
    v[0, :, 300:] = 1000.0
    o = _run("attn_while_decode_len_gathered", {0: q, 1: k, 2: v, 3: lens}, (2, 2))[4]
    ref = np.concatenate([np.stack([_attn(_scores(q[b, 16 * h:16 * h + 16], k[b, h, :lens[b]], 0.125),
                                          v[b, h, :lens[b]]) for h in range(2)]).reshape(32, 64)[None]
                          for b in range(2)])
    _check(o, ref)


def test_mask_applied_to_p():
    q, k, v = _qkv(256, 256, 64)
    o = _run("attn_mask_on_p", {0: q, 1: k, 2: v}, (4, 2))[3]
    i, j = _pos(256, 256)
    _check(o, _attn(np.where((j <= i) & (j > i - 100), _scores(q, k, 0.125), -np.inf), v))


# ----------------------------------------------------------------------------------------------- heads, layouts


def test_gqa_group_from_a_runtime_scalar():
    q, k, v = _h(2, 4, 128, 64), _h(2, 2, 192, 64), _h(2, 2, 192, 64)
    o = _run("attn_gqa_group_runtime", {0: q, 1: k, 2: v}, (2, 4, 2))[3]
    kk, vv = np.repeat(k, 2, axis=1), np.repeat(v, 2, axis=1)
    _check(o, _attn(_scores(q, kk, 0.125), vv))


def test_mqa_kv_3d_causal():
    q, k, v = _h(2, 3, 192, 64), _h(2, 192, 64), _h(2, 192, 64)
    o = _run("attn_mqa_kv3d_causal", {0: q, 1: k, 2: v}, (3, 3, 2))[3]
    i, j = _pos(192, 192)
    _check(o, _attn(np.where(j <= i, _scores(q, k[:, None], 0.125), -np.inf), v[:, None]))


def test_cross_attention_bshd_both_ragged():
    q, k, v = _h(2, 100, 2, 64), _h(2, 150, 2, 64), _h(2, 150, 2, 64)
    o = _run("attn_cross_bshd_both_ragged", {0: q, 1: k, 2: v}, (2, 2, 2))[3]
    t = lambda x: x.transpose(0, 2, 1, 3)  # noqa: E731
    _check(o, t(_attn(_scores(t(q), t(k), 0.125), t(v))))


def test_flat_inputs_4d_output():
    q, k, v = _qkv(128, 128, 64, (4,))
    o = _run("attn_flat_in_4d_out", {0: q, 1: k, 2: v}, (2, 4))[3]
    _check(o, _attn(_scores(q, k, 0.125), v).reshape(2, 2, 128, 64))


def test_k_order_from_a_sequence_major_array():
    """K^T read as [D, BN] from K [B, S, H, D] through order=(0, 2, 3, 1)."""
    q, k, v = _h(2, 128, 2, 64), _h(2, 128, 2, 64), _h(2, 128, 2, 64)
    o = _run("attn_k_order_bshd", {0: q, 1: k, 2: v}, (2, 2, 2))[3]
    t = lambda x: x.transpose(0, 2, 1, 3)  # noqa: E731
    _check(o, t(_attn(_scores(t(q), t(k), 0.125), t(v))))


def test_kt_array_causal_d128():
    q, kt, v = _h(2, 256, 128), _h(2, 128, 256), _h(2, 256, 128)
    o = _run("attn_kt_array_causal_bf16_d128", {0: q, 1: kt, 2: v}, (2, 2))[3]
    i, j = _pos(256, 256)
    s = _scores(q, np.swapaxes(kt, -1, -2), 1 / math.sqrt(128))
    _check(o, _attn(np.where(j <= i, s, -np.inf), v))


# ----------------------------------------------------------------------------------------------- scores, masks


def test_scale_on_s_natural_exp_added_mask():
    q, k, v = _qkv(128, 170, 64)
    o = _run("attn_scale_s_exp_add_mask", {0: q, 1: k, 2: v}, (2, 2))[3]
    _check(o, _attn(_scores(q, k, 0.125), v))


def test_softcap_natural_exp_with_lse():
    q, k, v = _h(2, 128, 64), _h(2, 256, 64, scale=3.0), _h(2, 256, 64)
    out = _run("attn_softcap_exp_lse_bf16", {0: q, 1: k, 2: v}, (2, 2))
    s = 20.0 * np.tanh(_scores(q, k, 0.125) / 20.0)
    _check(out[3], _attn(s, v))
    _check(out[4], _lse(s), 1e-3, 1e-4)


def test_alibi_slopes_gathered_cross_ragged():
    q, k, v = _qkv(100, 180, 64, (4,))
    slopes = np.array([0.5, 0.0625], np.float32)
    o = _run("attn_alibi_gather_cross_ragged", {0: q, 1: k, 2: v, 3: slopes}, (2, 4))[4]
    i, j = _pos(100, 180)
    sl = np.tile(slopes.astype(np.float64), 2)[:, None, None]
    _check(o, _attn(_scores(q, k, 0.125) - sl * (i - j), v))


def test_bool_mask_broadcast_over_heads():
    q, k, v = _h(2, 2, 128, 64), _h(2, 2, 128, 64), _h(2, 2, 128, 64)
    keep = RNG.random((2, 1, 128, 128)) < 0.4
    keep[..., 77] = True  # every row keeps a key
    o = _run("attn_bool_mask_b1ss", {0: q, 1: k, 2: v, 3: keep}, (2, 4))[4]
    _check(o, _attn(np.where(keep, _scores(q, k, 0.125), -np.inf), v))


def test_float_keep_multiplied_in():
    q, k, v = _qkv(192, 192, 64)
    o = _run("attn_float_keep_mul", {0: q, 1: k, 2: v}, (3, 2))[3]
    i, j = _pos(192, 192)
    _check(o, _attn(np.where(j <= i, _scores(q, k, 0.125), -np.inf), v))


def test_decode_window_at_a_cache_offset():
    """70 queries at positions 330..399 of a cache of 400 (the array holds 512: keys past 400 poisoned),
    each seeing its last 100 keys."""
    q, k, v = _qkv(70, 512, 64)
    k[:, 400:] = 60.0
    v[:, 400:] = 1000.0
    o = _run("attn_decode_window_offset", {0: q, 1: k, 2: v}, (2, 2))[3]
    i, j = _pos(70, 512, 330)
    _check(o, _attn(np.where((j <= i) & (j > i - 100), _scores(q, k, 0.125), -np.inf), v))


@pytest.mark.parametrize("name, sq, causal", [("attn_triton_tutorial", 128, False),
                                              ("attn_triton_tutorial_causal", 256, True)])
def test_triton_tutorial_with_log2_lse(name, sq, causal):
    q, k, v = _qkv(sq, 256, 64)
    out = _run(name, {0: q, 1: k, 2: v}, (2, 2))
    s = _scores(q, k, 0.125)
    if causal:
        i, j = _pos(sq, 256)
        s = np.where(j <= i, s, -np.inf)
    _check(out[3], _attn(s, v))
    _check(out[4], _lse(s) * LOG2E, 1e-3, 1e-4)


def test_scores_accumulated_in_f16():
    q, k, v = _qkv(128, 128, 64)
    o = _run("attn_scores_f16_acc", {0: q, 1: k, 2: v}, (2, 2))[3]
    s = _scores(q, k).astype(np.float16).astype(np.float64) * 0.125  # the program's f16 scores
    _check(o, _attn(s, v), 5e-3, 2e-2)


# ----------------------------------------------------------------------------------------------- dot spellings


def test_matmul_both_dots_causal():
    q, k, v = _qkv(192, 192, 64)
    o = _run("attn_matmul_both_causal", {0: q, 1: k, 2: v}, (3, 2))[3]
    i, j = _pos(192, 192)
    _check(o, _attn(np.where(j <= i, _scores(q, k, 0.125), -np.inf), v), 5e-3, 2e-2)


def test_q_scaled_before_the_loop():
    q, k, v = _qkv(256, 256, 64)
    o = _run("attn_q_scaled_f32_bf16", {0: q, 1: k, 2: v}, (2, 2))[3]
    qs = (q.astype(np.float32) * np.float32(0.125 * LOG2E)).astype(np.float16)  # the program's prologue
    i, j = _pos(256, 256)
    _check(o, _attn(np.where(j <= i, _scores(qs, k) / LOG2E, -np.inf), v))


# ----------------------------------------------------------------------------------------------- head dims, tiles


@pytest.mark.parametrize("name", ["attn_textbook_d64_bm128_bn128_bf16_causal", "attn_textbook_d96_bm64_bn64_bf16",
                                  "attn_textbook_d96_bm128_bn64_f16_causal", "attn_textbook_d128_bm64_bn128_f16_causal",
                                  "attn_textbook_d256_bm64_bn64_f16"])
def test_textbook_head_dims_and_tiles(name):
    p = PROGRAMS[name]
    (shape, _), causal = p.spec[0], p.spec[5]
    _, seq, d = shape
    q, k, v = _qkv(seq, seq, d)
    o = _run(name, {0: q, 1: k, 2: v}, p.grid)[3]
    s = _scores(q, k, 1 / math.sqrt(d))
    if causal:
        i, j = _pos(seq, seq)
        s = np.where(j <= i, s, -np.inf)
    _check(o, _attn(s, v))
