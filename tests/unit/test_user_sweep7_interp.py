"""The seventh user sweep (``tileorch.testing.user_programs7``) on the CPU's lockstep SIMT interpreter
(tests/unit/simt_interp.py, through test_user_sweep_interp.run) against numpy references computed
in float64 from the same inputs, outputs pre-filled with NaN (integers with a sentinel, fp8 as
bytes): RoPE in both layouts, gated activations, the MoE gathers, vocabulary top-k / sampling /
cross entropy, fused norms, quantisation, conv as a GEMM, embeddings, the KV-cache append,
transposes with casts, a privatised histogram, a two-program prefix sum, two FFTs, 3-D tiles,
state-space scans (sequential and by a tuple ``ct.scan``), a paged KV gather, a W4A16 GEMM, an MoE
router, RMSNorm with dynamic fp8 quantisation; and
the GEMM-path programs on their SIMT fallback (their tier code: test_user_sweep7_emulated.py and
the GPU).  Programs over lists of arrays run on the GPU only (tests/gpu/test_user_sweep7_gpu.py)."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("xdsl")
pytest.importorskip("cuda.tile")
ml_dtypes = pytest.importorskip("ml_dtypes")

import test_user_sweep_interp as sweep  # noqa: E402
from test_user_sweep_interp import _close, run, sample  # noqa: E402

from tileorch.testing.user_programs7 import PROGRAMS  # noqa: E402

sweep.PROGRAMS.update(PROGRAMS)  # run() looks programs up in test_user_sweep_interp.PROGRAMS
sweep.NP.update({"float8_e4m3fn": np.uint8})  # fp8 arrays travel as their bytes

RNG = np.random.default_rng(715)


def _f(shape, dt="float32", scale=1.0):
    return sample(RNG, shape, dt, scale)


def _d(x):
    return np.asarray(x, np.float64)


def _gelu_tanh(x):
    return 0.5 * x * (1 + np.tanh(0.7978845608028654 * (x + 0.044715 * x ** 3)))


def _silu(x):
    return x / (1 + np.exp(-x))


# ----------------------------------------------------------------------------------------------- RoPE


def test_rope_interleaved_with_per_batch_offsets():
    x = _f((2, 64, 4, 64), "float16")
    start = np.array([0, 37], np.int32)
    y = run("rope_interleaved_offsets", {0: x, 1: start})[2]
    pos = start[:, None] + np.arange(64)[None, :]  # [B, S]
    inv = 10000.0 ** (-np.arange(0, 64, 2) / 64)
    ang = pos[:, :, None, None] * inv[None, None, None, :]  # [B, S, 1, D/2]
    x0, x1 = _d(x)[..., 0::2], _d(x)[..., 1::2]
    ref = np.empty(x.shape)
    ref[..., 0::2] = x0 * np.cos(ang) - x1 * np.sin(ang)
    ref[..., 1::2] = x0 * np.sin(ang) + x1 * np.cos(ang)
    _close(y, ref, 2e-3, 2e-3)


def test_rope_half_split_q_and_k_from_position_ids():
    q, k = _f((2, 4, 32, 64), "bfloat16"), _f((2, 2, 32, 64), "bfloat16")
    inv = 10000.0 ** (-np.arange(0, 64, 2) / 64)
    tab = np.arange(128)[:, None] * inv[None, :]
    cos, sin = np.cos(tab).astype(np.float32), np.sin(tab).astype(np.float32)
    pos = RNG.permutation(128)[:64].reshape(2, 32).astype(np.int32)
    out = run("rope_half_qk_pos_ids", {0: q, 1: k, 2: cos, 3: sin, 4: pos})
    c, s = _d(cos)[pos][:, None], _d(sin)[pos][:, None]  # [B, 1, S, D/2]

    def rot(x):
        x1, x2 = _d(x)[..., :32], _d(x)[..., 32:]
        return np.concatenate([x1 * c - x2 * s, x2 * c + x1 * s], -1)

    _close(out[5], rot(q), 2e-2, 1e-2)
    _close(out[6], rot(k), 2e-2, 1e-2)


# ----------------------------------------------------------------------------------------------- gated MLPs


def test_swiglu_fused_gate_up_simt_fallback():
    x, w = _f((128, 256), "float16", 0.25), _f((256, 512), "float16", 0.25)
    y = run("mm_swiglu_fused_gate_up", {0: x, 1: w})[2]
    h = _d(x) @ _d(w)
    _close(y, _silu(h[:, :256]) * h[:, 256:], 2e-3, 5e-3)


def test_geglu_bias_epilogue_simt_fallback():
    x, wg, wu = _f((200, 128), "float16", 0.25), _f((128, 256), "float16", 0.25), _f((128, 256), "float16", 0.25)
    bg, bu = _f((256,)), _f((256,))
    y = run("mm_geglu_bias_epilogue", {0: x, 1: wg, 2: wu, 3: bg, 4: bu})[5]
    _close(y, _gelu_tanh(_d(x) @ _d(wg) + bg) * (_d(x) @ _d(wu) + bu), 2e-3, 5e-3)


def test_silu_and_mul_power_of_two_tile_without_padding():
    a, b = _f((6, 300), "float16", 2.0), _f((6, 300), "float16")
    c = run("silu_and_mul_sample", {0: a, 1: b})[2]
    _close(c, _silu(_d(a)) * _d(b), 2e-3, 2e-3)


def test_geglu_split_by_reshape_and_extract():
    x = _f((10, 256))
    y = run("geglu_split_rows", {0: x})[1]
    _close(y, _gelu_tanh(_d(x[:, :128])) * _d(x[:, 128:]), 1e-2, 8e-3)


# ----------------------------------------------------------------------------------------------- MoE


def _moe_align(topk_ids, tm, n_exp):
    """The sample's host-side alignment: replica ids sorted by expert, padded per expert to ``tm``."""
    flat = topk_ids.reshape(-1)
    order = np.argsort(flat, kind="stable")
    ids, experts = [], []
    pos = 0
    for e in range(n_exp):
        cnt = int((flat == e).sum())
        blocks = -(-cnt // tm)
        chunk = list(order[pos:pos + cnt]) + [flat.size] * (blocks * tm - cnt)
        ids += chunk
        experts += [e] * blocks
        pos += cnt
    return np.array(ids, np.int32), np.array(experts, np.int32)


def test_moe_sorted_tokens_gathered_and_scattered():
    t, topk, n_exp = 24, 2, 4
    x, w = _f((t, 128), "float16"), _f((n_exp, 128, 128), "float16", 0.125)  # W [E, N, K]
    topk_ids = np.stack([RNG.choice(n_exp, 2, replace=False) for _ in range(t)]).astype(np.int32)
    topw = RNG.random((t * topk,)).astype(np.float32)
    ids, experts = _moe_align(topk_ids, 16, n_exp)
    blocks = 6
    ids = np.concatenate([ids, np.full(blocks * 16 - ids.size, t * topk, np.int32)])[:blocks * 16]
    experts = np.concatenate([experts, np.zeros(blocks - experts.size, np.int32)])[:blocks]
    assert (ids < t * topk).sum() == t * topk  # every replica placed within the launched tiles
    out = run("moe_sorted_gather_gemm", {0: x, 1: w, 3: topw, 4: ids, 5: experts})[2]
    ref = np.stack([(_d(x[r // topk]) @ _d(w[topk_ids.reshape(-1)[r]]).T) * topw[r] for r in range(t * topk)])
    _close(out, ref, 1e-3, 2e-3)


def test_moe_expert_offsets_early_return_and_masks():
    x, w = _f((150, 128), "float16"), _f((3, 128, 128), "float16", 0.125)
    offs = np.array([0, 70, 70, 150], np.int32)  # expert 1 empty, expert 2 with 80 rows (2 tiles)
    y = run("moe_expert_offsets_gemm", {0: x, 1: w, 3: offs})[2]
    ref = np.concatenate([_d(x[0:70]) @ _d(w[0]), _d(x[70:150]) @ _d(w[2])])
    _close(y, ref, 1e-3, 2e-3)


# ----------------------------------------------------------------------------------------------- vocabulary rows


def test_topk_running_over_vocab_chunks():
    x = _f((3, 5000))
    x[0, 4990] = 50.0  # the best in the ragged last chunk
    x[1, [10, 3000]] = 40.0  # a tie across chunks: the earlier index first
    vals, idx = (run("topk_vocab_running", {0: x})[i] for i in (1, 2))
    order = np.argsort(-x, axis=1, kind="stable")[:, :4]
    np.testing.assert_array_equal(idx, order.astype(np.int32))
    _close(vals, np.take_along_axis(x, order, 1), 0, 0)


def test_gumbel_max_sampling_int64_token():
    logits, noise = _f((3, 3000), "bfloat16", 3.0), RNG.gumbel(size=(3, 3000)).astype(np.float32)
    temp = np.array([0.5, 1.0, 2.0], np.float32)
    tok = run("greedy_gumbel_sample", {0: logits, 1: noise, 2: temp})[3]
    z = _d(logits) / _d(temp)[:, None] + _d(noise)
    assert tok.dtype == np.int64
    picked = np.take_along_axis(z, tok.astype(np.int64)[:, None], 1)[:, 0]  # the best score, to rounding
    assert (picked >= z.max(1) - 1e-5).all(), (picked, z.max(1))


def test_cross_entropy_over_32000_with_smoothing_and_zloss():
    z = _f((4, 32000), "bfloat16", 2.0)
    lab = np.array([0, 31999, 12345, 7], np.int32)
    out = run("cross_entropy_vocab_smooth_zloss", {0: z, 1: lab, 4: np.zeros(1, np.float32)})
    zd = _d(z)
    m = zd.max(1)
    lse = m + np.log(np.exp(zd - m[:, None]).sum(1))
    nll = lse - zd[np.arange(4), lab]
    loss = 0.9 * nll + 0.1 * (lse - zd.mean(1)) + 1e-4 * lse * lse
    _close(out[3], lse, 1e-4, 1e-5)
    _close(out[2], loss, 1e-4, 1e-5)
    _close(out[4], [loss.mean()], 1e-4, 1e-5)


def test_cross_entropy_backward_in_place():
    z = _f((4, 5000), "bfloat16", 2.0)
    lab = np.array([3, 4999, 2048, 0], np.int32)
    zd = _d(z)
    lse = (zd.max(1) + np.log(np.exp(zd - zd.max(1)[:, None]).sum(1))).astype(np.float32)
    dl = np.array([1.0, 0.5, 2.0, 0.25], np.float32)
    g = run("cross_entropy_bwd_inplace", {0: z, 1: lab, 2: lse, 3: dl})[0]
    ref = np.exp(zd - _d(lse)[:, None])
    ref[np.arange(4), lab] -= 1
    _close(g, ref * dl[:, None], 2e-3, 1e-2)


# ----------------------------------------------------------------------------------------------- norms


def test_residual_add_rmsnorm_stores_the_new_residual():
    x, res, w = _f((6, 1000), "bfloat16"), _f((6, 1000), "bfloat16"), _f((1000,), "bfloat16")
    out = run("residual_add_rmsnorm", {0: x, 1: res, 2: w})
    h = _d(x) + _d(res)
    _close(out[4], h, 2e-2, 8e-3)
    _close(out[3], h / np.sqrt((h * h).mean(1, keepdims=True) + 1e-6) * _d(w), 3e-2, 8e-3)


def test_rmsnorm_sample_static_persistent():
    x, w = _f((37, 256), "float16"), _f((256,))
    y = run("rmsnorm_static_persistent", {0: x, 2: w})[1]  # 2 programs over 5 row tiles
    xd = _d(x)
    _close(y, xd / np.sqrt((xd * xd).mean(1, keepdims=True) + 1e-6) * w, 3e-3, 3e-3)


def test_rmsnorm_sample_gather_scatter():
    x, w = _f((5, 300), "bfloat16"), _f((300,), "bfloat16")
    out = run("rmsnorm_gather_scatter", {0: x, 1: w})
    xd = _d(x)
    rs = 1 / np.sqrt((xd * xd).mean(1) + 1e-6)
    _close(out[3], rs, 1e-5, 1e-5)
    _close(out[2], xd * rs[:, None] * _d(w), 3e-2, 8e-3)


def _ln_stats(x):
    mu = x.mean(1)
    return mu.astype(np.float32), (1 / np.sqrt(x.var(1) + 1e-5)).astype(np.float32)


def test_layernorm_sample_backward_with_spin_locks():
    x, dy, w = _f((12, 200)), _f((12, 200)), _f((200,))
    mean, rstd = _ln_stats(_d(x))
    out = run("layernorm_bwd_dx_locked_dwdb", {0: None, 1: dy, 2: np.zeros((4, 200), np.float32),
                                               3: np.zeros((4, 200), np.float32), 4: x, 5: w, 6: mean, 7: rstd,
                                               8: np.zeros(4, np.int32)})
    xhat = (_d(x) - _d(mean)[:, None]) * _d(rstd)[:, None]
    wdy = _d(w) * _d(dy)
    c1, c2 = (xhat * wdy).mean(1, keepdims=True), wdy.mean(1, keepdims=True)
    _close(out[0], (wdy - (xhat * c1 + c2)) * _d(rstd)[:, None], 1e-4, 1e-4)
    grp = np.arange(12) % 4
    _close(out[2], np.stack([(_d(dy) * xhat)[grp == g].sum(0) for g in range(4)]), 1e-4, 1e-4)
    _close(out[3], np.stack([_d(dy)[grp == g].sum(0) for g in range(4)]), 1e-4, 1e-4)
    np.testing.assert_array_equal(out[8], 0)  # every lock released


def test_layernorm_sample_dwdb_reduction():
    dw, db = _f((4, 200)), _f((4, 200))
    out = run("layernorm_bwd_dwdb_reduce", {0: dw, 1: db})
    _close(out[2], _d(dw).sum(0), 1e-5, 1e-5)
    _close(out[3], _d(db).sum(0), 1e-5, 1e-5)


def test_softmax_backward_in_chunks():
    y = np.abs(_f((3, 700), "float16"))
    dy = _f((3, 700), "float16")
    dx = run("softmax_bwd_chunked", {0: y, 1: dy})[2]
    yd, dyd = _d(y), _d(dy)
    _close(dx, yd * (dyd - (yd * dyd).sum(1, keepdims=True)), 1e-4, 1e-4)


def test_welford_by_tuple_reduce():
    x = _f((50, 40), scale=3.0) + 10.0
    out = run("welford_tuple_reduce", {0: x})
    _close(out[1], _d(x).mean(0), 1e-5, 1e-5)
    _close(out[2], _d(x).var(0), 1e-4, 1e-4)


# ----------------------------------------------------------------------------------------------- quantisation


def test_int8_per_token_quantisation_3d():
    x = _f((2, 48, 64), "bfloat16")
    x[1, 5] = 0.0  # an all-zero token: scale 1, values 0
    out = run("quant_int8_per_token_3d", {0: x})
    amax = np.abs(x).max(2)
    s = np.where(amax > 0, amax / 127.0, 1.0).astype(np.float32)
    q = np.clip(np.floor(x / s[..., None] + 0.5), -127, 127)
    _close(out[2], s, 1e-7, 1e-6)
    assert np.abs(out[1].astype(np.int32) - q).max() <= 1  # (x / s in f32 on either side of a .5)
    assert (out[1].astype(np.int32) == q).mean() > 0.99


def test_groupwise_int8_dequantisation():
    q = RNG.integers(-128, 128, (10, 128)).astype(np.int8)
    s = (RNG.random((10, 4)) * 0.1).astype(np.float16)
    y = run("dequant_int8_groupwise", {0: q, 1: s})[2]
    _close(y, (_d(q).reshape(10, 4, 32) * _d(s)[:, :, None]).reshape(10, 128), 1e-3, 1e-3)


def test_fp8_e4m3_per_tensor_quantisation():
    x = _f((100, 96), "bfloat16", 4.0)
    amax = np.array([np.abs(x).max() * 0.5], np.float32)  # half: the largest values saturate
    out = run("quant_fp8_e4m3_per_tensor", {0: x, 1: amax})
    scale = np.float32(448.0) / amax[0]
    ref = np.clip(x.astype(np.float32) * scale, -448, 448).astype(ml_dtypes.float8_e4m3fn).view(np.uint8)
    np.testing.assert_array_equal(out[2], ref)
    _close(out[3], [1 / scale], 1e-7, 1e-6)


def test_fp8_scaled_gemm_with_amax_simt_fallback():
    a = (RNG.standard_normal((128, 256)) * 2).astype(ml_dtypes.float8_e4m3fn)
    bt = (RNG.standard_normal((256, 256)) * 2).astype(ml_dtypes.float8_e4m3fn)
    sa, sb = np.array([0.5], np.float32), np.array([0.25], np.float32)
    out = run("mm_fp8_scaled_amax", {0: a.view(np.uint8), 1: bt.view(np.uint8), 2: sa, 3: sb,
                                      5: np.zeros(1, np.int32)})
    ref = (_d(a.astype(np.float32)) @ _d(bt.astype(np.float32)).T) * 0.125
    _close(out[4], ref, 0.05, 8e-3)
    _close(out[5].view(np.float32), [np.abs(ref).max()], 1e-3, 1e-5)


# ----------------------------------------------------------------------------------------------- GEMM shapes


def test_tf32_gemm_bias_gelu_sample_swizzle_simt_fallback():
    a, b, bias = _f((200, 96)), _f((96, 136)), _f((136,))
    c = run("mm_tf32_bias_gelu_swizzle", {0: a, 1: b, 2: bias})[3]
    _close(c, _gelu_tanh(_d(a) @ _d(b) + bias), 5e-2, 1e-2)  # tf32 operands (10-bit mantissas)


def test_batched_gemm_broadcast_both_ways_simt_fallback():
    a, b = _f((2, 1, 128, 128), "float16", 0.25), _f((1, 3, 128, 128), "float16", 0.25)
    c = run("bmm_broadcast_4d", {0: a, 1: b})[2]
    _close(c, _d(a) @ _d(b), 2e-3, 5e-3)


def test_split_k_with_locks_and_counts():
    a, b = _f((128, 512), "float16", 0.25), _f((512, 128), "float16", 0.25)
    out = run("mm_splitk_lock_counts", {0: a, 1: b, 3: np.zeros(4, np.int32), 4: np.zeros(4, np.int32)})
    _close(out[2], _d(a) @ _d(b), 1e-4, 1e-4)
    np.testing.assert_array_equal(out[3], 0)
    np.testing.assert_array_equal(out[4], 0)  # (count + 1) % SPLIT back to 0


def test_conv2d_as_implicit_gemm_nhwc():
    x, w = _f((2, 8, 8, 32), "float16"), _f((288, 64), "float16", 0.125)
    y = run("conv2d_implicit_gemm_nhwc", {0: x, 1: w})[2]
    xp = np.pad(_d(x), ((0, 0), (1, 1), (1, 1), (0, 0)))
    cols = np.stack([xp[:, dh:dh + 8, dw:dw + 8, :] for dh in range(3) for dw in range(3)], 3)  # [N, H, W, 9, C]
    _close(y, cols.reshape(128, 288) @ _d(w), 3e-3, 3e-3)


def test_causal_depthwise_conv1d_silu():
    x, w, bias = _f((2, 50, 32), "float16"), _f((4, 32)), _f((32,))
    y = run("conv1d_causal_depthwise_silu", {0: x, 1: w, 2: bias})[3]
    xp = np.pad(_d(x), ((0, 0), (3, 0), (0, 0)))
    acc = bias + sum(xp[:, j:j + 50] * w[j] for j in range(4))
    _close(y, _silu(acc), 3e-3, 3e-3)


# ----------------------------------------------------------------------------------------------- memory shapes


def test_embedding_scaled_plus_positional():
    ids = RNG.integers(0, 100, (2, 48)).astype(np.int32)
    e, p = _f((100, 64), "bfloat16"), _f((48, 64))
    out = run("embedding_scaled_positional", {0: ids, 1: e, 2: p})[3]
    _close(out, _d(e)[ids] * 8.0 + _d(p)[None], 5e-2, 8e-3)


def test_embedding_backward_scatter_add():
    g = _f((50, 32))
    ids = RNG.integers(0, 20, 50).astype(np.int32)
    ids[:5] = 3  # repeats within a program
    de = run("embedding_bwd_scatter_add", {0: g, 1: ids, 2: np.zeros((20, 32), np.float32)})[2]
    ref = np.zeros((20, 32))
    np.add.at(ref, ids, _d(g))
    _close(de, ref, 1e-5, 1e-5)


def test_kv_cache_append_at_tensor_positions():
    new = _f((2, 3, 4, 64), "float16")
    cache = _f((2, 3, 32, 64), "float16")
    lens = np.array([5, 30], np.int32)  # batch 1: 2 of its 4 rows past the end (dropped)
    out = run("kv_cache_append", {0: new, 1: cache.copy(), 2: lens})[1]
    ref = cache.copy()
    ref[0, :, 5:9] = new[0]
    ref[1, :, 30:32] = new[1, :, :2]
    np.testing.assert_array_equal(out, ref)


def test_transpose_with_cast_on_a_1d_grid():
    x = _f((200, 136))
    y = run("transpose_cast_1d_grid", {0: x})[1]
    _close(y, _d(x).T, 1e-2, 8e-3)


def test_batched_3d_transpose_with_cast():
    x = _f((3, 96, 64), "float16")
    y = run("transpose_batched_3d_cast", {0: x})[1]
    _close(y, _d(x).transpose(0, 2, 1), 0, 0)


def test_privatised_histogram():
    x = _f((1000,), scale=1.5)
    hist = run("histogram_private_onehot", {0: x, 1: np.zeros(16, np.int32)})[1]
    b = np.clip(np.floor((x - np.float32(-2.0)) / np.float32(0.25)), 0, 15).astype(int)
    np.testing.assert_array_equal(hist, np.bincount(b, minlength=16))


def test_two_program_prefix_sum():
    x = RNG.integers(-50, 50, 1000).astype(np.int32)
    out = run("scan_block_local", {0: x})
    y = run("scan_add_block_offsets", {0: out[1], 1: out[2]})[0]
    np.testing.assert_array_equal(y, np.cumsum(x).astype(np.int32))


def test_fft_stockham_butterflies():
    xr, xi = _f((4, 64)), _f((4, 64))
    out = run("fft_stockham_radix2", {0: xr, 1: xi})
    ref = np.fft.fft(_d(xr) + 1j * _d(xi), axis=1)
    _close(out[2], ref.real, 1e-4, 1e-4)
    _close(out[3], ref.imag, 1e-4, 1e-4)


def test_fft_factored_dft_matmul():
    x = _f((4, 64, 2))
    y = run("fft_factored_dft_matmul", {0: x})[1]
    ref = np.fft.fft(_d(x[..., 0]) + 1j * _d(x[..., 1]), axis=1)
    # cuTile's f32 dots, computed to f32 accuracy (3xTF32): the stockham butterflies' tolerance (tf32
    # products would be ~1e-2 off here)
    _close(y, np.stack([ref.real, ref.imag], -1), 1e-4, 1e-4)


def test_qk_rmsnorm_on_3d_tiles():
    x, w = _f((20, 4, 64), "bfloat16"), _f((64,))
    y = run("qk_rmsnorm_heads_3d", {0: x, 1: w})[2]
    xd = _d(x)
    _close(y, xd / np.sqrt((xd * xd).mean(2, keepdims=True) + 1e-6) * w, 3e-2, 8e-3)


def test_logit_softcap_with_temperature():
    x = _f((10, 300), "bfloat16", 40.0)
    y = run("logit_softcap_temperature", {0: x})[1]
    _close(y, 30.0 * np.tanh(_d(x) / 30.0) / 0.7, 0.1, 8e-3)


def test_attention_on_f32_inputs_as_tf32_simt():
    q, k, v = _f((2, 128, 64)), _f((2, 256, 64)), _f((2, 256, 64))
    o = run("attn_f32_inputs_tf32", {0: q, 1: k, 2: v})[3]
    s = _d(q) @ np.swapaxes(_d(k), 1, 2) * 0.125
    e = np.exp(s - s.max(-1, keepdims=True))
    _close(o, (e / e.sum(-1, keepdims=True)) @ _d(v), 5e-3, 1e-2)


# ----------------------------------------------------------------------------------------------- more model blocks


def test_ssm_sequential_scan():
    x, dt = _f((2, 20, 32), "float16"), np.abs(_f((2, 20, 32), scale=0.2))
    a = -np.abs(_f((1, 32)))
    out = run("ssm_scan_sequential", {0: x, 1: dt, 2: a})
    h = np.zeros((2, 32))
    ys = []
    for t in range(20):
        h = np.exp(_d(dt[:, t]) * _d(a)) * h + _d(dt[:, t]) * _d(x[:, t])
        ys.append(h)
    _close(out[3], np.stack(ys, 1), 1e-5, 1e-5)
    _close(out[4], h, 1e-5, 1e-5)


def test_ssm_parallel_scan_by_tuple_combiner():
    a = RNG.uniform(0.5, 1.0, (2, 64, 64)).astype(np.float32)
    b = _f((2, 64, 64))
    h = run("ssm_scan_parallel_tuple", {0: a, 1: b})[2]
    ref = np.zeros((2, 64, 64))
    acc = np.zeros((2, 64))
    for t in range(64):
        acc = _d(a[:, t]) * acc + _d(b[:, t])
        ref[:, t] = acc
    _close(h, ref, 1e-4, 1e-4)


def test_paged_kv_gather_by_block_table():
    cache = _f((10, 16, 64), "bfloat16")
    table = np.array([[3, 0, 9, 5], [1, 1, 7, 2]], np.int32)  # a page shared twice
    out = run("paged_kv_gather", {0: cache, 1: table})[2]
    np.testing.assert_array_equal(out, cache[table].reshape(2, 64, 64))


def _pack_int4(q):
    """``q [K, N]`` in 0..15 packed 8 per int32 along K (nibble i of row r: k = 8 r + i)."""
    k, n = q.shape
    packed = np.zeros((k // 8, n), np.uint32)
    for i in range(8):
        packed |= q[i::8].astype(np.uint32) << np.uint32(4 * i)
    return packed.view(np.int32)


def test_w4a16_groupwise_gemm_simt():
    x = _f((128, 256), "float16")
    q = RNG.integers(0, 16, (256, 128))
    sc = (RNG.random((2, 128)) * 0.05).astype(np.float16)
    y = run("mm_w4a16_groupwise", {0: x, 1: _pack_int4(q), 2: sc})[3]
    w = ((q - 8) * _d(sc).repeat(128, 0)).astype(np.float16)  # the program's f16 weights
    _close(y, _d(x) @ _d(w), 1e-2, 5e-3)


def test_lm_head_partial_lse_simt_fallback():
    h, w = _f((128, 128), "float16", 0.25), _f((128, 512), "float16", 0.25)
    out = run("mm_lm_head_partial_lse", {0: h, 1: w})
    z = _d(h) @ _d(w)
    _close(out[2], z, 3e-2, 8e-3)
    zt = z.reshape(128, 4, 128)
    mx = zt.max(2)
    _close(out[3], mx, 1e-4, 1e-5)
    _close(out[4], np.exp(zt - mx[..., None]).sum(2), 1e-4, 1e-5)
    lse = mx.max(1) + np.log((out[4] * np.exp(out[3] - mx.max(1)[:, None])).sum(1))  # the later merge
    _close(lse, np.log(np.exp(z).sum(1)), 1e-5, 1e-6)


def test_moe_router_top2():
    x, wr = _f((100, 128), "float16", 0.5), _f((128, 16), "float16", 0.5)
    out = run("moe_router_top2", {0: x, 1: wr})
    z = _d(x) @ _d(wr)
    p = np.exp(z - z.max(1, keepdims=True))
    p /= p.sum(1, keepdims=True)
    top = np.argsort(-p, axis=1, kind="stable")[:, :2]
    np.testing.assert_array_equal(out[2], top.astype(np.int32))
    pw = np.take_along_axis(p, top, 1)
    _close(out[3], pw / pw.sum(1, keepdims=True), 1e-5, 1e-5)


def test_rmsnorm_fp8_dynamic_quant():
    x, w = _f((10, 128), "bfloat16"), _f((128,))
    out = run("rmsnorm_fp8_dynamic_quant", {0: x, 1: w})
    xd = x.astype(np.float32)
    y = xd / np.sqrt((xd * xd).mean(1, keepdims=True) + 1e-6) * w
    s = np.maximum(np.abs(y).max(1, keepdims=True), 1e-12) / 448.0
    _close(out[3], s[:, 0], 1e-6, 1e-5)
    got = out[2].view(ml_dtypes.float8_e4m3fn).astype(np.float64)
    _close(got, _d(y / s), 2.0 ** -9, 0.07)  # e4m3: 3 mantissa bits, subnormals 2^-9 apart


# ----------------------------------------------------------------------------------------------- API corners


def test_embedding_with_int64_ids():
    ids = RNG.integers(0, 1000, 50).astype(np.int64)
    e = _f((1000, 64), "float16")
    out = run("embedding_int64_ids", {0: ids, 1: e})[2]
    np.testing.assert_array_equal(out, e[ids])


def test_cumprod_forward_and_reverse():
    g = RNG.uniform(0.8, 1.0, (2, 32, 16)).astype(np.float32)
    out = run("decay_cumprod_both_ways", {0: g})
    _close(out[1], np.cumprod(_d(g), 1), 1e-6, 1e-5)
    _close(out[2], np.cumprod(_d(g)[:, ::-1], 1)[:, ::-1], 1e-6, 1e-5)


def test_spectrum_magnitude_and_phase():
    x = _f((4, 64, 2))
    x[0, :4] = [[1, 0], [-1, 0], [0, 1], [0, -1]]  # the axes: phases 0, pi, pi/2, -pi/2
    out = run("spectrum_magnitude_phase", {0: x})
    _close(out[1], np.hypot(_d(x[..., 0]), _d(x[..., 1])), 1e-6, 1e-6)
    _close(out[2], np.arctan2(_d(x[..., 1]), _d(x[..., 0])), 2e-6, 1e-6)


def test_nan_safe_row_mean():
    x = _f((4, 100))
    x[0, ::3] = np.nan
    x[2] = np.nan
    out = run("nan_safe_row_mean", {0: x})
    ok = ~np.isnan(x)
    cnt = ok.sum(1)
    ref = np.where(cnt > 0, np.nansum(_d(x), 1) / np.maximum(cnt, 1), 0.0)
    _close(out[1], ref, 1e-6, 1e-6)
    np.testing.assert_array_equal(out[2], cnt.astype(np.int32))


def test_pack_halves_by_insert():
    a, b = _f((8, 32), "float16"), _f((8, 32), "float16")
    y = run("pack_halves_by_insert", {0: a, 1: b})[2]
    ref = np.concatenate([a, b], 1)
    ref[0:2, :32] = 0
    ref[4:6, :32] = 0
    np.testing.assert_array_equal(y, ref)


def test_softmax_with_a_static_eval_block():
    x = _f((3, 300), "float16", 3.0)
    y = run("softmax_static_eval_block", {0: x})[1]
    xd = _d(x)
    e = np.exp(xd - xd.max(1, keepdims=True))
    _close(y, e / e.sum(1, keepdims=True), 1e-3, 5e-3)


def test_gather_at_an_int64_scalar_offset():
    flat = _f((300,))
    y = run("gather_int64_scalar_offset", {0: flat})[1]
    np.testing.assert_array_equal(y, flat[100:228])
