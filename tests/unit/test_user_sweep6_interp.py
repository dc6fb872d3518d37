"""The SIMT programs of the sixth user sweep (``tileorch.testing.user_programs6``) run on the CPU by
the lockstep interpreter (tests/unit/simt_interp.py, through test_user_sweep_interp.run) against
numpy references computed in float64 from the same inputs, outputs pre-filled with NaN (integers
with a sentinel).  Reductions and normalisations with mixed dtypes and ragged sizes, the split-KV
decode's combine step, and the attention / two-dot programs the tensor-core tiers refuse (each
with a located reason: test_user_sweep6_compile.py) computed on the SIMT path's mma.sync dots: an
attention-sink window, GQA heads packed into one tile, a peeled ragged last key tile, head dim
512, the backward's dV, an MLP with a nested K loop, a batch on A's middle axis, a fused LoRA,
16-row GQA decoding, QK-norm; and bf16 chained programs on their SIMT fallback."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("xdsl")
pytest.importorskip("cuda.tile")

import test_user_sweep_interp as sweep  # noqa: E402
from test_user_sweep_interp import _close, resized, run, sample  # noqa: E402

from tileorch.testing.user_programs6 import PROGRAMS  # noqa: E402

sweep.PROGRAMS.update(PROGRAMS)  # run() looks programs up in test_user_sweep_interp.PROGRAMS

RNG = np.random.default_rng(613)
LOG2E = 1.4426950408889634


def _f(shape, dt="float32", scale=1.0):
    return sample(RNG, shape, dt, scale)


def _d(x):
    return np.asarray(x, np.float64)


def _attn(s, v):
    e = np.exp(s - s.max(-1, keepdims=True))
    return (e / e.sum(-1, keepdims=True)) @ _d(v)


def _scores(q, k, scale):
    return (_d(q) @ np.swapaxes(_d(k), -1, -2)) * scale


# ----------------------------------------------------------------------------------------------- reductions


def test_gemma_rmsnorm_bf16_ragged_row():
    x, w = _f((5, 300), "bfloat16"), _f((300,))
    y = run("rmsnorm_gemma_bf16", {0: x, 1: w})[2]
    xd = _d(x)
    ref = xd / np.sqrt((xd * xd).mean(1, keepdims=True) + 1e-6) * (1 + _d(w))
    _close(y, ref, 2e-2, 8e-3)  # bf16 output: 2^-8 relative


def test_log_softmax_two_passes_over_chunks():
    x = _f((3, 700), "float16", 3.0)
    y = run("log_softmax_two_pass", {0: x})[1]
    xd = _d(x)
    m = xd.max(1, keepdims=True)
    _close(y, xd - m - np.log(np.exp(xd - m).sum(1, keepdims=True)), 1e-5, 1e-6)


def test_column_argmax_over_row_chunks_ties_first():
    x = _f((50, 40), "float16")
    x[[3, 40], 0] = 9.0  # a tie across chunks: row 3
    x[[17, 18], 1] = 9.0  # a tie inside a chunk: row 17
    x[:, 2] = -1.0
    x[49, 2] = 0.0  # the ragged tail chunk's last row
    x[:, 39] = 5.0  # every row equal: row 0
    idx = run("argmax_cols_chunks_ties", {0: x})[1]
    np.testing.assert_array_equal(idx, _d(x).argmax(0).astype(np.int32))


def test_row_cumsums_over_column_chunks():
    x = _f((6, 150), "float16")
    y = run("cumsum_rows_chunks", {0: x})[1]
    _close(y, np.cumsum(_d(x), 1), 1e-4, 1e-5)


def test_softmax_under_a_bool_mask_with_an_empty_row():
    x = _f((4, 100))
    mask = RNG.random((4, 100)) < 0.5
    mask[2] = False  # fully masked: zeros
    mask[3] = False
    mask[3, 99] = True  # one key, the last
    y = run("softmax_bool_mask_rows", {0: x, 1: mask})[2]
    xd = np.where(mask, _d(x), -np.inf)
    m = xd.max(1, keepdims=True)
    e = np.where(mask, np.exp(xd - np.where(np.isfinite(m), m, 0)), 0)
    ref = e / np.maximum(e.sum(1, keepdims=True), 1e-30)
    _close(y, ref, 1e-6, 1e-5)
    assert (y[2] == 0).all()


def test_layernorm_f16_in_bf16_out_with_statistics():
    x, w, b = _f((10, 96), "float16"), _f((96,)), _f((96,))
    out = run("layernorm_f16_bf16_stats", {0: x, 1: w, 2: b})
    xd = _d(x)
    mu = xd.mean(1)
    rs = 1 / np.sqrt(xd.var(1) + 1e-5)
    _close(out[3], (xd - mu[:, None]) * rs[:, None] * _d(w) + _d(b), 3e-2, 8e-3)
    _close(out[4], mu, 1e-6, 1e-5)
    _close(out[5], rs, 1e-5, 1e-5)


def test_logcumsumexp_rows():
    x = _f((3, 100), scale=4.0)
    y = run("logcumsumexp_rows", {0: x})[1]
    _close(y, np.logaddexp.accumulate(_d(x), axis=1), 1e-5, 1e-5)


def test_int8_sums_of_squares():
    x = RNG.integers(-128, 128, (9, 77)).astype(np.int8)
    x[0] = -128  # 77 * 16384: past int16
    y = run("int8_sum_squares", {0: x})[1]
    np.testing.assert_array_equal(y, (x.astype(np.int64) ** 2).sum(1).astype(np.int32))


def test_masked_mean_pool_bf16():
    x = _f((3, 20, 16), "bfloat16")
    lens = np.array([20, 7, 1], np.int32)
    y = run("masked_mean_pool", {0: x, 1: lens})[2]
    ref = np.stack([_d(x)[b, :n].mean(0) for b, n in enumerate(lens)])
    _close(y, ref, 1e-5, 1e-5)


def test_decode_combine_of_split_partials():
    """The split-KV combine: the partials are exact softmax attention over each split (numpy), so
    the combine must return the attention over all keys."""
    q, k, v = _f((4, 8, 64), "float16"), _f((4, 512, 64), "float16"), _f((4, 512, 64), "float16")
    s = _scores(q, k, 0.125).reshape(4, 8, 4, 128).transpose(2, 0, 1, 3)  # [split, bh, q, keys]
    vs = _d(v).reshape(4, 4, 128, 64).transpose(1, 0, 2, 3)
    m = s.max(-1, keepdims=True)
    e = np.exp(s - m)
    op = ((e / e.sum(-1, keepdims=True)) @ vs).astype(np.float32)
    lp = ((m[..., 0] + np.log(e.sum(-1))) * LOG2E).astype(np.float32)
    o = run("attn_decode_combine", {0: op, 1: lp})[2]
    _close(o, _attn(_scores(q, k, 0.125), v), 3e-3, 1e-2)


# ----------------------------------------------------------------------------------------------- refused by the tiers


def test_attention_sink_window_on_the_simt_path():
    q, k, v = _f((2, 384, 64), "float16"), _f((2, 384, 64), "float16"), _f((2, 384, 64), "float16")
    o = run("attn_sink_window", {0: q, 1: k, 2: v})[3]
    qi, kj = np.arange(384)[:, None], np.arange(384)[None, :]
    keep = (kj <= qi) & ((kj < 4) | (kj > qi - 100))
    _close(o, _attn(np.where(keep, _scores(q, k, 0.125), -np.inf), v), 3e-3, 1e-2)


def test_learned_sink_kv_before_the_loop_on_the_simt_path():
    q, k, v = _f((2, 128, 64), "float16"), _f((2, 128, 64), "float16"), _f((2, 128, 64), "float16")
    ks, vs = _f((2, 64, 64), "float16"), _f((2, 64, 64), "float16")
    p = resized("attn_learned_sink_kv", {1: (2, 128, 64), 2: (2, 128, 64)})  # 2 key tiles of 64 (the table: 4)
    o = run("attn_learned_sink_kv", {0: q, 1: k, 2: v, 3: ks, 4: vs}, p)[5]
    kk, vv = np.concatenate([ks, k], 1), np.concatenate([vs, v], 1)
    _close(o, _attn(_scores(q, kk, 0.125), vv), 3e-3, 1e-2)


def test_gqa_heads_packed_into_one_tile_on_the_simt_path():
    q, k, v = _f((2, 4, 64, 64), "float16"), _f((2, 2, 128, 64), "float16"), _f((2, 2, 128, 64), "float16")
    p = resized("attn_gqa_packed_heads", {1: (2, 2, 128, 64), 2: (2, 2, 128, 64)})  # 2 key tiles (the table: 4)
    o = run("attn_gqa_packed_heads", {0: q, 1: k, 2: v}, p)[3]
    kh, vh = k[:, [0, 0, 1, 1]], v[:, [0, 0, 1, 1]]  # query head h reads KV head h // 2
    _close(o, _attn(_scores(q, kh, 0.125), vh), 3e-3, 1e-2)


def test_peeled_ragged_last_key_tile_on_the_simt_path():
    q, k, v = _f((2, 100, 64), "float16"), _f((2, 170, 64), "float16"), _f((2, 170, 64), "float16")
    o = run("attn_cross_peeled_last_tile", {0: q, 1: k, 2: v})[3]
    _close(o, _attn(_scores(q, k, 0.125), v), 3e-3, 1e-2)


def test_attention_backward_dv_on_the_simt_path():
    q, k, do = _f((2, 256, 64), "float16"), _f((2, 256, 64), "float16"), _f((2, 256, 64), "float16")
    s = _scores(q, k, 0.125)
    lse2 = np.log(np.exp(s).sum(-1)) * LOG2E  # log2 units, as the forward stores it
    dv = run("attn_bwd_dv", {0: q, 1: k, 2: do, 3: lse2.astype(np.float32)})[4]
    p = np.exp(s - np.log(np.exp(s).sum(-1, keepdims=True)))
    _close(dv, np.swapaxes(p, -1, -2) @ _d(do), 2e-2, 2e-2)  # P rounded to f16 for the dot


def test_mlp_nested_k_loop_on_the_simt_path():
    # 2 hidden tiles of 64, each over 2 K tiles of 64 (the table: 4 and 4)
    x, w1, w2 = _f((128, 128), "float16"), _f((128, 128), "float16", 0.0625), _f((128, 128), "float16", 0.0625)
    p = resized("mlp_nested_k_gelu", {0: (128, 128), 1: (128, 128), 2: (128, 128)})
    y = run("mlp_nested_k_gelu", {0: x, 1: w1, 2: w2}, p)[3]
    h = _d(x) @ _d(w1)
    g = 0.5 * h * (1 + np.tanh(0.7978845608028654 * (h + 0.044715 * h ** 3)))
    _close(y, g @ _d(w2), 1e-2, 1e-2)


def test_batch_on_the_middle_axis_on_the_simt_path():
    a, b = _f((128, 2, 128), "float16"), _f((2, 128, 256), "float16")
    c = run("mm_batch_middle_axis", {0: a, 1: b})[2]
    _close(c, np.einsum("mbk,bkn->bmn", _d(a), _d(b)), 6e-2, 2e-3)


def test_gqa_decode_sixteen_rows_on_the_simt_path():
    q, k, v = _f((2, 32, 64), "float16"), _f((2, 2, 256, 64), "float16"), _f((2, 2, 256, 64), "float16")
    o = run("attn_decode_gqa_rows", {0: q, 1: k, 2: v})[3]
    qh = q.reshape(2, 2, 16, 64)  # heads g * 16 .. g * 16 + 15 read KV head g
    _close(o.reshape(2, 2, 16, 64), _attn(_scores(qh, k, 0.125), v), 3e-3, 1e-2)


def test_qk_norm_on_the_simt_path():
    q, k, v = _f((2, 128, 64), "float16"), _f((2, 128, 64), "float16"), _f((2, 128, 64), "float16")
    wq, wk = _f((64,)), _f((64,))
    p = resized("attn_qk_norm", {1: (2, 128, 64), 2: (2, 128, 64)})  # 2 key tiles of 64 (the table: 4)
    o = run("attn_qk_norm", {0: q, 1: k, 2: v, 3: wq, 4: wk}, p)[5]
    qn = _d(q) / np.sqrt((_d(q) ** 2).mean(-1, keepdims=True) + 1e-6) * _d(wq)
    kn = _d(k) / np.sqrt((_d(k) ** 2).mean(-1, keepdims=True) + 1e-6) * _d(wk)
    qn, kn = qn.astype(np.float16), kn.astype(np.float16)  # cast to f16 for the dot, as the program does
    _close(o, _attn(_scores(qn, kn, 0.125), v), 5e-3, 1e-2)


def test_head_dim_512_on_the_simt_path():
    q, k, v = _f((1, 128, 512), "float16"), _f((1, 128, 512), "float16"), _f((1, 128, 512), "float16")
    o = run("attn_head512", {0: q, 1: k, 2: v})[3]
    _close(o, _attn(_scores(q, k, 1 / np.sqrt(512)), v), 3e-3, 1e-2)


# ----------------------------------------------------------------------------------------------- bf16 / int8 programs
# (the tiers' code for these runs on the GPU: tests/gpu/test_user_sweep6_gpu.py; here the program's
# semantics on its SIMT fallback)


def test_bf16_bias_tile_ragged_keys_simt_fallback():
    q, k, v = _f((2, 128, 64), "bfloat16"), _f((2, 200, 64), "bfloat16"), _f((2, 200, 64), "bfloat16")
    bias = _f((2, 128, 200), "bfloat16", 2.0)
    o = run("attn_bias_bf16_ragged_keys", {0: q, 1: k, 2: v, 3: bias})[4]
    _close(o, _attn(_scores(q, k, 0.125) + _d(bias), v), 2e-2, 2e-2)


def test_bf16_softcap_head128_simt_fallback():
    q, k, v = _f((2, 128, 128), "bfloat16", 2.0), _f((2, 128, 128), "bfloat16", 2.0), _f((2, 128, 128), "bfloat16")
    p = resized("attn_softcap_bf16_d128", {1: (2, 128, 128), 2: (2, 128, 128)})  # 2 key tiles of 64 (the table: 4)
    o = run("attn_softcap_bf16_d128", {0: q, 1: k, 2: v}, p)[3]
    _close(o, _attn(20.0 * np.tanh(_scores(q, k, 1 / np.sqrt(128)) / 20.0), v), 2e-2, 2e-2)


def test_bf16_lse_natural_simt_fallback():
    q, k, v = _f((2, 256, 128), "bfloat16"), _f((2, 128, 128), "bfloat16"), _f((2, 128, 128), "bfloat16")
    p = resized("attn_lse_natural_bf16", {1: (2, 128, 128), 2: (2, 128, 128)})  # 2 key tiles of 64 (the table: 4)
    out = run("attn_lse_natural_bf16", {0: q, 1: k, 2: v}, p)
    s = _scores(q, k, 1 / np.sqrt(128))
    _close(out[3], _attn(s, v), 2e-2, 2e-2)
    m = s.max(-1)
    _close(out[4], m + np.log(np.exp(s - m[..., None]).sum(-1)), 1e-3, 1e-4)


def test_bf16_causal_head256_simt_fallback():
    q, k, v = _f((2, 192, 256), "bfloat16"), _f((2, 192, 256), "bfloat16"), _f((2, 192, 256), "bfloat16")
    o = run("attn_bf16_causal_d256", {0: q, 1: k, 2: v})[3]
    keep = np.arange(192)[None, :] <= np.arange(192)[:, None]
    _close(o, _attn(np.where(keep, _scores(q, k, 1 / 16), -np.inf), v), 2e-2, 2e-2)


def test_bf16_bshd_three_axis_grid_simt_fallback():
    q, k, v = _f((2, 256, 2, 64), "bfloat16"), _f((2, 256, 2, 64), "bfloat16"), _f((2, 256, 2, 64), "bfloat16")
    o = run("attn_bshd_grid3_bf16", {0: q, 1: k, 2: v})[3]
    t = lambda x: _d(x).transpose(0, 2, 1, 3)  # noqa: E731
    _close(t(o), _attn(_scores(t(q), t(k), 0.125), t(v)), 2e-2, 2e-2)


def test_u8_times_i8_simt_fallback():
    a = RNG.integers(0, 256, (128, 256)).astype(np.uint8)
    b = RNG.integers(-128, 128, (256, 256)).astype(np.int8)
    c = run("mm_u8_x_i8", {0: a, 1: b})[2]
    np.testing.assert_array_equal(c, (a.astype(np.int64) @ b.astype(np.int64)).astype(np.int32))


def test_two_outputs_sharing_a_simt_fallback():
    a, b1, b2 = _f((128, 128), "float16"), _f((128, 256), "float16"), _f((128, 256), "float16")
    out = run("mm_two_outputs_shared_a", {0: a, 1: b1, 2: b2})
    _close(out[3], _d(a) @ _d(b1), 6e-2, 2e-3)
    _close(out[4], _d(a) @ _d(b2), 1e-3, 1e-5)


def test_mlp_with_a_512_wide_x_tile_on_the_simt_path():
    x, w1, w2 = _f((128, 512), "float16"), _f((512, 128), "float16", 0.0625), _f((128, 128), "float16", 0.0625)
    p = resized("mlp_x_once_d512", {1: (512, 128), 2: (128, 128)})  # 2 hidden tiles of 64 (the table: 4)
    y = run("mlp_x_once_d512", {0: x, 1: w1, 2: w2}, p)[3]
    h = np.maximum(_d(x) @ _d(w1), 0).astype(np.float16)  # the program casts the activation to f16
    _close(y, _d(h) @ _d(w2), 1e-2, 1e-2)


def test_persistent_attention_on_the_simt_path():
    q, k, v = _f((2, 256, 64), "float16"), _f((2, 256, 64), "float16"), _f((2, 256, 64), "float16")
    o = run("attn_persistent", {0: q, 1: k, 2: v})[3]  # 2 programs over 4 (head, query tile) items
    _close(o, _attn(_scores(q, k, 0.125), v), 3e-3, 1e-2)


@pytest.mark.parametrize("name, sq, d", [("attn_head8", 256, 8), ("attn_bm256", 512, 64)])
def test_head_dim_8_and_256_row_tiles_on_the_simt_path(name, sq, d):
    sk = sq // 2  # half the table's keys: 2 key tiles of 64 for attn_head8, 4 for attn_bm256 (its emulated test's)
    q, k, v = _f((2, sq, d), "float16"), _f((2, sk, d), "float16"), _f((2, sk, d), "float16")
    o = run(name, {0: q, 1: k, 2: v}, resized(name, {1: (2, sk, d), 2: (2, sk, d)}))[3]
    _close(o, _attn(_scores(q, k, 0.125), v), 3e-3, 1e-2)
