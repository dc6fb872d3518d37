"""The thirty-sixth user sweep's programs on the SIMT path (``tileorch.testing.user_programs36``: the memory-bound
kernels of LLM stacks -- split-K's second reduction, residual add + RMSNorm with two outputs, RoPE at position ids and
GPT-J's interleaved RoPE, KV-cache append (by position and paged by a slot mapping), per-token int8 and per-channel
fp8 quantization with their amax, dequantization, RMSNorm + int8 quantize, cross-entropy over a vocabulary loop,
embedding backward by atomics, top-4, a MoE router, softmax with a temperature and a mask, layernorm backward's
dgamma / dbeta in two programs, an AdamW step, a mean pool, GeLU-and-mul by gathers, a per-tensor amax by an atomic
max of float bits; and the two dot programs the tier refuses with a located reason, LoRA of rank 16 and a fused QKV
projection into three outputs) on the CPU's lockstep SIMT interpreter (tests/unit/simt_interp.py, through
test_user_sweep_interp.run) against numpy references computed from the inputs alone (float64; Python integers;
ml_dtypes for the fp8 rounding), outputs pre-filled with NaN / an integer sentinel.  CI runs a few cheap tests here
(:data:`CI`); ``TILEORCH_EMULATE_ALL=1`` runs every one.  tests/gpu/test_user_sweep36_gpu.py runs every test here on
the GPU; test_user_sweep36_emulated.py runs them on the PTX emulator."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("xdsl")
pytest.importorskip("cuda.tile")
ml_dtypes = pytest.importorskip("ml_dtypes")

from interp_sweep_checks import F32, _ci_subset, _close, _d, every_case, register, sampler  # noqa: E402,F401
from test_user_sweep_interp import run  # noqa: E402

from tileorch.testing.user_programs36 import PROGRAMS  # noqa: E402

register(PROGRAMS)
RNG, _f = sampler(3636)
CI = {"test_kv_cache_paged_append_slot_mapping", "test_topk_4_rows_iterative_argmax",
      "test_split_k_reduce_workspace_to_f16"}
"""The tests run in CI (the suite's time budget); every test with ``TILEORCH_EMULATE_ALL=1``."""
SQRT_2_OVER_PI = np.sqrt(2 / np.pi)


def _gelu_tanh(x):
    return 0.5 * x * (1 + np.tanh(SQRT_2_OVER_PI * (x + 0.044715 * x ** 3)))


def _rms(h, w, eps):
    return h / np.sqrt((h * h).mean(1, keepdims=True) + eps) * w


def test_split_k_reduce_workspace_to_f16():
    ws = _f((3, 100, 80))
    out = run("split_k_reduce_workspace_to_f16", {0: ws})[1]
    _close(out, _d(ws).sum(0), 4e-3, 1e-3)  # f16 out


def test_residual_add_rmsnorm_two_outputs_column_tiles():
    x, r, w = _f((4, 1000), "bfloat16"), _f((4, 1000), "bfloat16"), _f((1000,), "bfloat16")
    got = run("residual_add_rmsnorm_two_outputs_column_tiles", {0: x, 1: r, 2: w, 5: 1e-6})
    h = _d(x) + _d(r)
    _close(got[3], h, 3e-2, 8e-3)  # bf16 residual out
    _close(got[4], _rms(h, _d(w), 1e-6), 3e-2, 1e-2)  # bf16 out


def _rotate_half(x, c, s):
    x1, x2 = x[..., :32], x[..., 32:]
    return np.concatenate([x1 * c - x2 * s, x2 * c + x1 * s], -1)


def test_rope_q_k_position_ids_gathered_cos_sin():
    q, k = _f((37, 4, 64)), _f((37, 2, 64))
    pos = RNG.integers(0, 300, 37).astype(np.int32)
    pos[[0, 36]] = [299, 0]
    ang = np.arange(300)[:, None] * (10000.0 ** (-np.arange(32) / 32.0))[None, :]
    cos, sin = np.cos(ang).astype(F32), np.sin(ang).astype(F32)
    got = run("rope_q_k_position_ids_gathered_cos_sin", {0: q.copy(), 1: k.copy(), 2: pos, 3: cos, 4: sin})
    c, s = _d(cos)[pos][:, None, :], _d(sin)[pos][:, None, :]
    _close(got[0], _rotate_half(_d(q), c, s), 1e-5)
    _close(got[1], _rotate_half(_d(k), c, s), 1e-5)


def test_rope_gptj_interleaved_pairs_gather():
    x = _f((45, 3, 64))
    ang = np.arange(45)[:, None] * (10000.0 ** (-np.arange(32) / 32.0))[None, :]
    cos, sin = np.cos(ang).astype(F32), np.sin(ang).astype(F32)
    y = run("rope_gptj_interleaved_pairs_gather", {0: x, 1: cos, 2: sin})[3]
    xd, c, s = _d(x), _d(cos)[:, None, :], _d(sin)[:, None, :]
    ref = np.empty_like(xd)
    ref[..., 0::2] = xd[..., 0::2] * c - xd[..., 1::2] * s
    ref[..., 1::2] = xd[..., 1::2] * c + xd[..., 0::2] * s
    _close(y, ref, 1e-5)


def test_kv_cache_append_rows_at_positions():
    k, v = _f((21, 128), "float16"), _f((21, 128), "float16")
    pos = RNG.permutation(64)[:21].astype(np.int32)
    kc, vc = _f((64, 128), "float16"), _f((64, 128), "float16")
    got = run("kv_cache_append_rows_at_positions", {0: k, 1: v, 2: pos, 3: kc.copy(), 4: vc.copy()})
    rk, rv = _d(kc).copy(), _d(vc).copy()
    rk[pos], rv[pos] = _d(k), _d(v)
    assert np.array_equal(np.asarray(got[3], np.float64), rk)  # rows not at a position keep the cache (row 0 too)
    assert np.array_equal(np.asarray(got[4], np.float64), rv)


def test_kv_cache_paged_append_slot_mapping():
    k = _f((19, 64), "bfloat16")
    slots = RNG.permutation(96)[:19].astype(np.int32)
    slots[[3, 18]] = -1  # padding tokens: not written
    cache = _f((6, 16, 64), "bfloat16")
    out = run("kv_cache_paged_append_slot_mapping", {0: k, 1: slots, 2: cache.copy()})[2]
    ref = _d(cache).reshape(96, 64).copy()
    live = slots >= 0
    ref[slots[live]] = _d(k)[live]
    assert np.array_equal(np.asarray(out, np.float64).reshape(96, 64), ref)


def _int8_quant(y, scale):
    return np.clip(np.floor(y / scale + 0.5), -127, 127)


def test_per_token_int8_quant_amax_rows():
    x = _f((5, 300), "bfloat16", 3.0)
    got = run("per_token_int8_quant_amax_rows", {0: x})
    xd = np.asarray(x, F32)
    scale = np.maximum(np.abs(xd).max(1) / F32(127.0), F32(1e-10)).astype(F32)
    _close(got[2], scale, 0, 1e-7)
    q = np.asarray(got[1], np.int64)
    ref = _int8_quant(xd.astype(np.float64), scale.astype(np.float64)[:, None])
    assert np.abs(q - ref).max() <= 1 and (q != ref).sum() <= 3  # f32 x / scale vs float64 at a .5 tie
    assert np.abs(q).max() == 127


def test_per_channel_fp8_quant_amax_over_row_tiles():
    x = _f((150, 80), scale=2.0)
    x[149, 7] = 30.0  # the column's maximum in the last (ragged) row tile
    got = run("per_channel_fp8_quant_amax_over_row_tiles", {0: x})
    scale = np.abs(_d(x)).max(0) / 448.0
    _close(got[2], scale, 0, 1e-6)
    q = np.asarray(got[1], np.uint8).view(ml_dtypes.float8_e4m3fn).astype(np.float64)
    ref = (np.asarray(x, F32) / np.asarray(got[2], F32)[None, :]).astype(ml_dtypes.float8_e4m3fn).astype(np.float64)
    assert np.array_equal(q, ref)  # e4m3 of the f32 quotient, round to nearest even
    _close(q * _d(got[2])[None, :], _d(x), 0, 2 ** -3)  # within e4m3's half ulp of x
    assert q[149, 7] == 448.0


def test_dequant_int8_token_channel_scales_bf16():
    q = RNG.integers(-127, 128, (90, 200)).astype(np.int8)
    sr, sc = (RNG.random(90) * 0.1).astype(F32), (RNG.random(200) * 0.1).astype(F32)
    y = run("dequant_int8_token_channel_scales_bf16", {0: q, 1: sr, 2: sc})[3]
    _close(y, q.astype(np.float64) * _d(sr)[:, None] * _d(sc)[None, :], 0, 8e-3)  # bf16 out


def test_rmsnorm_then_int8_quant_fused():
    x, w = _f((6, 200), "float16", 2.0), _f((200,), "float16")
    got = run("rmsnorm_then_int8_quant_fused", {0: x, 1: w, 4: 1e-6})
    y = _rms(_d(x), _d(w), 1e-6)
    scale = np.abs(y).max(1) / 127.0
    _close(got[3], scale, 0, 1e-5)
    q = np.asarray(got[2], np.int64)
    assert np.abs(q - _int8_quant(y, scale[:, None])).max() <= 1 and np.abs(q).max() == 127


def test_cross_entropy_fwd_online_lse_vocab_loop_ignore():
    x = _f((6, 1000), "bfloat16", 3.0)
    labels = RNG.integers(0, 1000, 6).astype(np.int32)
    labels[[0, 2]] = [999, -100]
    x[4, 900] = 40.0  # the row's maximum in the last (ragged) vocabulary tile
    got = run("cross_entropy_fwd_online_lse_vocab_loop_ignore", {0: x, 1: labels})
    xd = _d(x)
    m = xd.max(1)
    lse = m + np.log(np.exp(xd - m[:, None]).sum(1))
    loss = np.where(labels == -100, 0.0, lse - xd[np.arange(6), np.maximum(labels, 0)])
    _close(got[3], lse, 2e-5, 1e-6)
    _close(got[2], loss, 2e-5, 1e-6)


def test_embedding_backward_atomic_add_rows():
    g = _f((50, 64))
    ids = RNG.integers(0, 40, 50).astype(np.int32)
    ids[:5] = 7  # a repeated id: five rows add into one
    dw = run("embedding_backward_atomic_add_rows", {0: g, 1: ids, 2: np.zeros((40, 64), F32)})[2]
    ref = np.zeros((40, 64))
    np.add.at(ref, ids, _d(g))
    _close(dw, ref, 1e-5)


def test_topk_4_rows_iterative_argmax():
    x = _f((5, 50))
    x[1, 3] = x[1, 40] = 6.0  # a tie for first: the lower index first
    x[2, 49] = 7.0  # the last real column (14 -inf padding columns after it)
    got = run("topk_4_rows_iterative_argmax", {0: x})
    order = [sorted(range(50), key=lambda j: (-float(r[j]), j))[:4] for r in x]
    assert got[2].tolist() == order
    assert np.array_equal(got[1], np.array([[x[i, j] for j in o] for i, o in enumerate(order)], np.float64))


def test_moe_router_softmax_top2_renormalized():
    x = _f((37, 8), "bfloat16", 2.0)
    got = run("moe_router_softmax_top2_renormalized", {0: x})
    xd = _d(x)
    p = np.exp(xd - xd.max(1, keepdims=True))
    p /= p.sum(1, keepdims=True)
    top = np.array([sorted(range(8), key=lambda j: (-p[t, j], j))[:2] for t in range(37)])
    assert got[2].tolist() == top.tolist()
    w = np.take_along_axis(p, top, 1)
    _close(got[1], w / w.sum(1, keepdims=True), 1e-6)


def test_softmax_temperature_and_keep_mask():
    x = _f((5, 200), scale=2.0)
    keep = (RNG.random((5, 200)) < 0.7).astype(np.int8)
    keep[0] = 0
    keep[0, 123] = 1  # one allowed token: probability 1
    y = run("softmax_temperature_and_keep_mask", {0: x, 1: keep, 3: 0.7})[2]
    t = np.where(keep != 0, _d(x) / 0.7, -np.inf)
    e = np.exp(t - t.max(1, keepdims=True))
    _close(y, e / e.sum(1, keepdims=True), 1e-6)
    assert y[0, 123] == 1.0


def _ln_stats(x):
    mean = _d(x).mean(1)
    return mean, 1 / np.sqrt(_d(x).var(1) + 1e-5)


def test_layernorm_bwd_dgamma_dbeta_partial_rows():
    x, dy = _f((150, 96)), _f((150, 96))
    mean, rstd = _ln_stats(x)
    got = run("layernorm_bwd_dgamma_dbeta_partial_rows", {0: dy, 1: x, 2: mean.astype(F32), 3: rstd.astype(F32)})
    xhat = (_d(x) - mean[:, None]) * rstd[:, None]
    for p in range(3):
        rows = slice(64 * p, min(64 * (p + 1), 150))  # 2 tiles of 32 rows per program
        _close(got[4][p], (_d(dy) * xhat)[rows].sum(0), 1e-4)
        _close(got[5][p], _d(dy)[rows].sum(0), 1e-4)


def test_layernorm_bwd_dgamma_reduce_partials():
    pw, pb = _f((3, 96)), _f((3, 96))
    got = run("layernorm_bwd_dgamma_reduce_partials", {0: pw, 1: pb})
    _close(got[2], _d(pw).sum(0), 1e-6)
    _close(got[3], _d(pb).sum(0), 1e-6)


def test_adamw_step_bf16_grad_bias_corrections():
    p, g = _f((1000,)), _f((1000,), "bfloat16")
    m, v = _f((1000,), scale=0.1), np.abs(_f((1000,), scale=0.01))
    lr, b1, b2, eps, wd, bc1, bc2 = 1e-3, 0.9, 0.999, 1e-8, 0.01, 0.271, 0.00499
    got = run("adamw_step_bf16_grad_bias_corrections", {0: p.copy(), 1: g, 2: m.copy(), 3: v.copy(), 4: lr, 5: b1,
                                                        6: b2, 7: eps, 8: wd, 9: bc1, 10: bc2})
    gd = _d(g)
    m2 = b1 * _d(m) + (1 - b1) * gd
    v2 = b2 * _d(v) + (1 - b2) * gd * gd
    p2 = _d(p) * (1 - lr * wd) - lr * (m2 / bc1) / (np.sqrt(v2 / bc2) + eps)
    _close(got[2], m2, 1e-6)
    _close(got[3], v2, 1e-7, 1e-5)
    _close(got[0], p2, 1e-6)


def test_sequence_mean_pool_bf16_in_f16_out():
    x = _f((3, 77, 96), "bfloat16")
    y = run("sequence_mean_pool_bf16_in_f16_out", {0: x})[1]
    _close(y, _d(x).mean(1), 1e-3, 1e-3)  # f16 out


def test_gelu_tanh_and_mul_ragged_n_gathers():
    x = _f((20, 688), "float16")
    y = run("gelu_tanh_and_mul_ragged_n_gathers", {0: x})[1]
    g, u = _d(x)[:, :344], _d(x)[:, 344:]
    _close(y, _gelu_tanh(g) * u, 4e-3, 2e-3)  # f16 out


def test_amax_per_tensor_atomic_max_of_float_bits():
    x = _f((1000,))
    x[999] = -9.5  # the largest magnitude, negative, in the last (ragged) tile
    bits = run("amax_per_tensor_atomic_max_of_float_bits", {0: x, 1: np.zeros(1, np.int32)})[1]
    assert np.asarray(bits, np.int32).view(F32)[0] == np.float32(9.5)


def test_lora_linear_x_w_plus_scaled_x_a_b():
    x, w = _f((100, 128), "float16"), _f((128, 80), "float16", 0.2)
    la, lb = _f((128, 16), "float16", 0.2), _f((16, 80), "float16", 0.2)
    y = run("lora_linear_x_w_plus_scaled_x_a_b", {0: x, 1: w, 2: la, 3: lb, 5: 0.5})[4]
    xa = (0.5 * (_d(x) @ _d(la))).astype(np.float16).astype(np.float64)  # the program rounds s (x A) to f16
    _close(y, _d(x) @ _d(w) + xa @ _d(lb), 1e-2, 2e-3)  # f16 out


def test_fused_qkv_projection_three_outputs():
    x, w = _f((100, 128), "float16"), _f((128, 256), "float16", 0.2)
    got = run("fused_qkv_projection_three_outputs", {0: x, 1: w})
    ref = _d(x) @ _d(w)
    _close(got[2], ref[:, :128], 1e-2, 2e-3)
    _close(got[3], ref[:, 128:192], 1e-2, 2e-3)
    _close(got[4], ref[:, 192:], 1e-2, 2e-3)
