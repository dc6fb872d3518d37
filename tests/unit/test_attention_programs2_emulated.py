"""The second attention set (``tileorch.testing.attention_programs2``): the f16 programs the chained
tier takes, their PTX run on the CPU by ``tileorch.testing.ptx_emulator`` (every CTA of the launch,
the launcher's own tensor maps and parameters: test_user_sweep3_emulated's runner) against numpy
float64 on the same inputs, outputs NaN-prefilled.  The bf16 programs run on the GPU
(tests/gpu/test_attention_programs2.py).  Needs cuda-tile."""

from __future__ import annotations

import math

import numpy as np
import pytest

pytest.importorskip("xdsl")
pytest.importorskip("cuda.tile")

import test_user_sweep3_emulated as s3  # noqa: E402
import test_user_sweep4_emulated as s4  # noqa: E402

from tileorch.testing.attention_programs2 import PROGRAMS  # noqa: E402

RNG = np.random.default_rng(16020)
LOG2E = 1.4426950408889634


@pytest.fixture(autouse=True)
def _second_attention_set(monkeypatch):
    s4.add_sweep_programs(monkeypatch, PROGRAMS)


def _h(*shape, scale=1.0):
    return (RNG.standard_normal(shape) * scale).astype(np.float16)


_check = s4._check


def _scores(q, k, scale=1.0):
    return (q.astype(np.float64) @ np.swapaxes(k.astype(np.float64), -1, -2)) * scale


def _softmax(s):
    e = np.exp(s - s.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def _attn(s, v):
    return _softmax(s) @ v.astype(np.float64)


def _pos(sq, sk, q0=0):
    """(query positions [sq, 1], key positions [1, sk])."""
    return np.arange(q0, q0 + sq)[:, None], np.arange(sk)[None, :]


def _run(name, inputs, grid, program=None):
    grid3 = tuple(grid) + (1,) * (3 - len(grid))
    return s3._chained(name, inputs, grid3, program=program)


# ----------------------------------------------------------------------------------------------- score epilogues


def test_softcap_causal():
    q, k, v = _h(2, 256, 64), _h(2, 256, 64, scale=3.0), _h(2, 256, 64)
    o = _run("attn_softcap_causal", {0: q, 1: k, 2: v}, (2, 2))[3]
    s = 30.0 * np.tanh(_scores(q, k, 0.125) / 30.0)
    i, j = _pos(256, 256)
    _check(o, _attn(np.where(j <= i, s, -np.inf), v))


def test_rel_pos_clamped():
    q, k, v = _h(2, 128, 64), _h(2, 192, 64), _h(2, 192, 64)
    o = _run("attn_rel_pos_clamped", {0: q, 1: k, 2: v}, (2, 2))[3]
    i, j = _pos(128, 192)
    s = (_scores(q, k) + 0.5 * np.clip(j - i, -32, 32)) * 0.125
    _check(o, _attn(s, v))


def test_logn_scaling():
    q, k, v = _h(2, 256, 64), _h(2, 256, 64), _h(2, 256, 64)
    o = _run("attn_logn_scaling", {0: q, 1: k, 2: v}, (2, 2))[3]
    i, _ = _pos(256, 256)
    row = np.maximum(np.log(i + 1.0) / math.log(64.0), 1.0)
    _check(o, _attn(_scores(q, k, 0.125) * row, v))


def test_bias_and_key_mask():
    q, k, v = _h(4, 128, 64), _h(4, 256, 64), _h(4, 256, 64)
    bias = RNG.standard_normal((128, 256)).astype(np.float32) * 4
    keep = RNG.random((2, 256)) < 0.6
    keep[:, 0] = True
    keep[1, 64:] = False  # batch 1: its last three key tiles wholly masked
    o = _run("attn_bias_and_key_mask", {0: q, 1: k, 2: v, 3: bias, 4: keep}, (2, 4))[5]
    s = (_scores(q, k) + bias) * 0.125
    s = np.where(np.repeat(keep, 2, axis=0)[:, None, :], s, -np.inf)
    _check(o, _attn(s, v))


def test_uint8_mask_per_batch():
    q, k, v = _h(4, 128, 64), _h(4, 192, 64), _h(4, 192, 64)
    mask = (RNG.random((2, 128, 192)) < 0.5).astype(np.uint8) * RNG.integers(1, 255, (2, 128, 192)).astype(np.uint8)
    mask[:, :, 150] = 3  # every row keeps a key
    o = _run("attn_uint8_mask_per_batch", {0: q, 1: k, 2: v, 3: mask}, (2, 4))[4]
    s = np.where(np.repeat(mask, 2, axis=0) != 0, _scores(q, k, 0.125), -np.inf)
    _check(o, _attn(s, v))


def test_sigmoid_attention_ragged_keys():
    q, k, v = _h(2, 128, 64), _h(2, 200, 64), _h(2, 200, 64)
    o = _run("attn_sigmoid", {0: q, 1: k, 2: v}, (2, 2))[3]
    p = 1.0 / (1.0 + np.exp(-(_scores(q, k, 0.125) - 5.0)))
    p = p.astype(np.float16).astype(np.float64)  # the program casts P to f16 for the dot
    _check(o, p @ v.astype(np.float64), 2e-3, 1e-2)


# ----------------------------------------------------------------------------------------------- key ranges, lengths


def test_window_both_sides_ragged():
    q, k, v = _h(2, 300, 64), _h(2, 300, 64), _h(2, 300, 64)
    k[:, 290:] = 50.0  # keys inside the window
    o = _run("attn_window_both_sides_ragged", {0: q, 1: k, 2: v}, (5, 2))[3]
    i, j = _pos(300, 300)
    _check(o, _attn(np.where(np.abs(j - i) <= 96, _scores(q, k, 0.125), -np.inf), v))


def test_chunked_prefill_bottom_right_causal():
    q, k, v = _h(2, 100, 64), _h(2, 320, 64), _h(2, 320, 64)
    o = _run("attn_chunked_prefill", {0: q, 1: k, 2: v}, (2, 2))[3]
    i, j = _pos(100, 320, 220)
    _check(o, _attn(np.where(j <= i, _scores(q, k, 0.125), -np.inf), v))


def test_spec_decode_tail():
    q, k, v = _h(4, 16, 64), _h(4, 512, 64), _h(4, 512, 64)
    k[:, 300:] = 60.0
    v[:, 300:] = 1000.0  # the cache past kv_len must not count
    o = _run("attn_spec_decode_tail", {0: q, 1: k, 2: v}, (4,))[3]
    i, j = _pos(16, 512, 300 - 16)
    _check(o, _attn(np.where(j <= i, _scores(q, k, 0.125), -np.inf), v))


def test_varlen_query_and_key_lengths():
    q, k, v = _h(4, 128, 64), _h(4, 256, 64), _h(4, 256, 64)
    ql, kl = np.array([100, 128], np.int32), np.array([130, 256], np.int32)
    o = _run("attn_varlen_q_and_k", {0: q, 1: k, 2: v, 3: ql, 4: kl}, (2, 4))[5]
    ref = np.zeros((4, 128, 64))
    for bh in range(4):
        b = bh // 2
        ref[bh, :ql[b]] = _attn(_scores(q[bh, :ql[b]], k[bh, :kl[b]], 0.125), v[bh, :kl[b]])
    _check(o, ref)


# ----------------------------------------------------------------------------------------------- shapes, layouts


def test_mla_head_dims_192_and_128():
    q, k, v = _h(2, 128, 192), _h(2, 128, 192), _h(2, 128, 128)
    o = _run("attn_mla_dqk192_dv128", {0: q, 1: k, 2: v}, (2, 2))[3]
    i, j = _pos(128, 128)
    _check(o, _attn(np.where(j <= i, _scores(q, k, 1 / math.sqrt(192)), -np.inf), v))


@pytest.mark.parametrize("name, d, causal", [("attn_head96_causal", 96, True), ("attn_head80", 80, False)])
def test_head_dim_not_a_power_of_two(name, d, causal):
    q, k, v = _h(2, 200, d), _h(2, 200, d), _h(2, 200, d)
    o = _run(name, {0: q, 1: k, 2: v}, (4, 2))[3]
    s = _scores(q, k, 1 / math.sqrt(d))
    if causal:
        i, j = _pos(200, 200)
        s = np.where(j <= i, s, -np.inf)
    _check(o, _attn(s, v))


def test_decode_one_query_row():
    """One query row per program (a (1, D) tile padded to the WGMMA's 64 rows: the Q box reads the
    next 63 programs' rows, zero past the array), a KV cache of runtime length 300 of 512."""
    q, k, v = _h(8, 64), _h(8, 512, 64), _h(8, 512, 64)
    k[:, 300:] = 60.0
    v[:, 300:] = 1000.0
    o = _run("attn_decode_one_query", {0: q, 1: k, 2: v}, (8,))[3]
    _check(o, _attn(_scores(q[:, None], k[:, :300], 0.125), v[:, :300])[:, 0])
    o = _run("attn_decode_one_query", {0: q, 1: k, 2: v}, (5,))[3]  # programs 0..4: rows 5..7 never stored
    assert np.isnan(o[5:].astype(np.float64)).all()
    _check(o[:5], _attn(_scores(q[:5, None], k[:5, :300], 0.125), v[:5, :300])[:, 0])


def test_decode_split_kv_one_query_row():
    """Flash decoding with one query row: 2 splits of 128 keys (two key tiles each; the compile and
    GPU tests' spec has 4 splits: the same program, test_user_sweep3_emulated.resized); each
    split's normalised partial output and its log2 LSE (a [1, 1] row vector store beside the
    [1, D] tile)."""
    q, k, v = _h(8, 64), _h(8, 256, 64), _h(8, 256, 64)
    p = s3.resized("attn_decode_split_one_query", {1: (8, 256, 64), 2: (8, 256, 64), 3: (2, 8, 64), 4: (2, 8)})
    out = _run("attn_decode_split_one_query", {0: q, 1: k, 2: v}, (2, 8), p)
    for sp in range(2):
        sl = slice(128 * sp, 128 * sp + 128)
        s = _scores(q[:, None], k[:, sl], 0.125)[:, 0]  # [8, 128]
        _check(out[3][sp], _attn(s[:, None], v[:, sl])[:, 0])
        m = s.max(-1)
        _check(out[4][sp], (m + np.log(np.exp(s - m[:, None]).sum(-1))) * LOG2E, 1e-3, 1e-4)


def test_decode_one_query_lengths_from_memory():
    q, k, v = _h(6, 64), _h(6, 512, 64), _h(6, 512, 64)
    lens = np.array([1, 300, 512], np.int32)
    o = _run("attn_decode_one_query_lens", {0: q, 1: k, 2: v, 3: lens}, (6,))[4]
    ref = np.stack([_attn(_scores(q[b][None], k[b, :lens[b // 2]], 0.125), v[b, :lens[b // 2]])[0] for b in range(6)])
    _check(o, ref)


def test_kv_packed_in_one_array():
    q, kv = _h(2, 128, 2, 64), _h(2, 256, 2, 2, 64)
    o = _run("attn_kv_packed", {0: q, 1: kv}, (2, 2, 2))[2]
    qh = q.transpose(0, 2, 1, 3)  # [B, H, S, D]
    kh, vh = kv[:, :, 0].transpose(0, 2, 1, 3), kv[:, :, 1].transpose(0, 2, 1, 3)
    _check(o, _attn(_scores(qh, kh, 0.125), vh).transpose(0, 2, 1, 3))


def test_flat_grid_divmod():
    q, k, v = _h(2, 2, 128, 64), _h(2, 2, 256, 64), _h(2, 2, 256, 64)
    o = _run("attn_flat_grid_divmod", {0: q, 1: k, 2: v}, (8,))[3]
    _check(o, _attn(_scores(q, k, 0.125), v))


def test_q_prescaled_natural_exp():
    q, k, v = _h(2, 128, 64), _h(2, 256, 64), _h(2, 256, 64)
    o = _run("attn_q_prescaled_exp", {0: q, 1: k, 2: v}, (2, 2))[3]
    qs = (q.astype(np.float32) * np.float32(0.125)).astype(np.float16)  # the program's f16 prologue
    _check(o, _attn(_scores(qs, k), v))


def test_head_temperature_from_memory():
    q, k, v = _h(4, 128, 64), _h(4, 256, 64), _h(4, 256, 64)
    tau = np.array([0.05, 0.3], np.float32)
    o = _run("attn_head_temperature", {0: q, 1: k, 2: v, 3: tau}, (2, 4))[4]
    t = np.tile(tau.astype(np.float64), 2)[:, None, None] / LOG2E  # head bh % 2; exp2 units -> natural
    _check(o, _attn(_scores(q, k) * t, v))


def test_anti_causal():
    q, k, v = _h(2, 256, 64), _h(2, 256, 64), _h(2, 256, 64)
    o = _run("attn_anti_causal", {0: q, 1: k, 2: v}, (2, 2))[3]
    i, j = _pos(256, 256)
    _check(o, _attn(np.where(j >= i, _scores(q, k, 0.125), -np.inf), v))


def test_decode_two_query_heads_per_kv_head():
    q, k, v = _h(2, 8, 64), _h(2, 4, 256, 64), _h(2, 4, 256, 64)
    o = _run("attn_decode_gqa2", {0: q, 1: k, 2: v}, (4, 2))[3]
    _check(o.reshape(2, 4, 2, 64), _attn(_scores(q.reshape(2, 4, 2, 64), k, 0.125), v))


def test_flat_rows_2d():
    q, k, v = _h(512, 64), _h(512, 64), _h(512, 64)
    o = _run("attn_flat_rows_2d", {0: q, 1: k, 2: v}, (2, 2))[3]
    r = lambda x: x.reshape(2, 256, 64)  # noqa: E731
    _check(o.reshape(2, 256, 64), _attn(_scores(r(q), r(k), 0.125), r(v)))


def test_dropout_mask_tensor():
    q, k, v = _h(2, 128, 64), _h(2, 256, 64), _h(2, 256, 64)
    keep = RNG.random((2, 128, 256)) >= 0.25
    o = _run("attn_dropout_mask_tensor", {0: q, 1: k, 2: v, 3: keep}, (2, 2))[4]
    p = _softmax(_scores(q, k, 0.125))
    _check(o, (np.where(keep, p / 0.75, 0.0)) @ v.astype(np.float64))


# ----------------------------------------------------------------------------------------------- outputs


def test_sink_logit_gpt_oss():
    q, k, v = _h(4, 128, 64), _h(4, 256, 64), _h(4, 256, 64)
    sinks = np.array([3.0, -1.0], np.float32)
    o = _run("attn_sink_logit", {0: q, 1: k, 2: v, 3: sinks}, (2, 4))[4]
    s = _scores(q, k, 0.125)
    sk = np.tile(sinks.astype(np.float64), 2)[:, None, None] * np.ones((4, 128, 1))
    e = np.exp(np.concatenate([s, sk], -1) - np.concatenate([s, sk], -1).max(-1, keepdims=True))
    p = e / e.sum(-1, keepdims=True)
    _check(o, p[..., :256] @ v.astype(np.float64))


def test_output_gate():
    q, k, v, g = _h(2, 128, 64), _h(2, 256, 64), _h(2, 256, 64), _h(2, 128, 64, scale=2.0)
    o = _run("attn_output_gate", {0: q, 1: k, 2: v, 3: g}, (2, 2))[4]
    _check(o, _attn(_scores(q, k, 0.125), v) / (1.0 + np.exp(-g.astype(np.float64))))


# ----------------------------------------------------------------------------------------------- tile-shape variants


def test_softcap_causal_d128_bm64_bn128():
    q, k, v = _h(2, 256, 128), _h(2, 256, 128, scale=3.0), _h(2, 256, 128)
    o = _run("attn_softcap_causal_d128_bm64_bn128", {0: q, 1: k, 2: v}, (4, 2))[3]
    s = 30.0 * np.tanh(_scores(q, k, 1 / math.sqrt(128)) / 30.0)
    i, j = _pos(256, 256)
    _check(o, _attn(np.where(j <= i, s, -np.inf), v))


def test_bias_and_key_mask_bm128_bn128():
    q, k, v = _h(4, 256, 64), _h(4, 256, 64), _h(4, 256, 64)
    bias = RNG.standard_normal((256, 256)).astype(np.float32) * 4
    keep = RNG.random((2, 256)) < 0.6
    keep[:, 0] = True
    keep[1, 128:] = False  # batch 1: its second key tile wholly masked
    o = _run("attn_bias_and_key_mask_bm128_bn128", {0: q, 1: k, 2: v, 3: bias, 4: keep}, (2, 4))[5]
    s = np.where(np.repeat(keep, 2, axis=0)[:, None, :], (_scores(q, k) + bias) * 0.125, -np.inf)
    _check(o, _attn(s, v))


def test_chunked_prefill_d128_bm128():
    q, k, v = _h(2, 200, 128), _h(2, 456, 128), _h(2, 456, 128)
    o = _run("attn_chunked_prefill_d128_bm128", {0: q, 1: k, 2: v}, (2, 2))[3]
    i, j = _pos(200, 456, 256)
    _check(o, _attn(np.where(j <= i, _scores(q, k, 1 / math.sqrt(128)), -np.inf), v))


def test_decode_one_query_d128_bn128():
    # a KV cache of runtime length 200 of 256 (the table: 650 of 700): 2 key tiles of 128, the last
    # ragged (72 keys), instead of 6; the same compiled program
    q, k, v = _h(6, 128), _h(6, 256, 128), _h(6, 256, 128)
    k[:, 200:] = 60.0
    v[:, 200:] = 1000.0
    p = s3.resized("attn_decode_one_query_d128_bn128", {1: (6, 256, 128), 2: (6, 256, 128)}, {5: 200})
    o = _run("attn_decode_one_query_d128_bn128", {0: q, 1: k, 2: v}, (6,), p)[3]
    _check(o, _attn(_scores(q[:, None], k[:, :200], 1 / math.sqrt(128)), v[:, :200])[:, 0])


def test_window_both_sides_ragged_bm128_bn128():
    q, k, v = _h(2, 600, 64), _h(2, 600, 64), _h(2, 600, 64)
    o = _run("attn_window_both_sides_ragged_bm128_bn128", {0: q, 1: k, 2: v}, (5, 2))[3]
    i, j = _pos(600, 600)
    _check(o, _attn(np.where(np.abs(j - i) <= 200, _scores(q, k, 0.125), -np.inf), v))


def test_differential_attention_two_chains_over_one_v():
    """Differential attention (``softmax(Q1 K1^T) V - lam softmax(Q2 K2^T) V``): two online-softmax
    chains in one key loop, first dots with their own A tiles (Q1, Q2) and B tiles (K1, K2), two
    second dots reading the one V tile of the stage, their Cs rescaled by each chain's running max,
    the epilogue combining both accumulators (session 23: the SIMT path ran it before); 256 keys in
    64-key tiles, the output NaN-prefilled."""
    q1, k1, q2, k2, v = _h(2, 128, 64), _h(2, 256, 64), _h(2, 128, 64), _h(2, 256, 64), _h(2, 256, 64)
    out = _run("attn_differential", {0: q1, 1: k1, 2: q2, 3: k2, 4: v}, (2, 2))[5]
    _check(out, _attn(_scores(q1, k1, 0.125), v) - 0.3 * _attn(_scores(q2, k2, 0.125), v))
