"""The twenty-sixth user sweep's programs on the SIMT path (``tileorch.testing.user_programs26``: RoPE, KV-cache
appends, int4 / fp8 quantization, normalization, scans, histograms, a depthwise convolution, launch shapes, and
the two dots the tier refuses) on the CPU's lockstep SIMT interpreter (tests/unit/simt_interp.py, through
test_user_sweep_interp.run) against numpy references computed from the inputs alone (float64, or float32 step by
step where the program's rounding is the point; Python integers; ml_dtypes for fp8 and bf16), ragged sizes,
outputs pre-filled with NaN / an integer sentinel (tables updated in place start as the user's values).
tests/gpu/test_user_sweep26_gpu.py runs every test here again on the GPU; test_user_sweep26_emulated.py runs a
subset on the PTX emulator."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("xdsl")
pytest.importorskip("cuda.tile")
ml_dtypes = pytest.importorskip("ml_dtypes")

import test_user_sweep_interp as sweep  # noqa: E402
from test_user_sweep_interp import run, sample  # noqa: E402

from tileorch.testing.user_programs26 import PROGRAMS  # noqa: E402

sweep.PROGRAMS.update(PROGRAMS)  # run() looks programs up in test_user_sweep_interp.PROGRAMS
sweep.NP.update({"uint16": np.uint16, "uint32": np.uint32, "uint64": np.uint64, "float8_e4m3fn": np.uint8})

RNG = np.random.default_rng(2626)
F32 = np.float32


def _f(shape, dt="float32", scale=1.0):
    return sample(RNG, shape, dt, scale)


def _d(x):
    return np.asarray(x, np.float64)


_close = sweep._close  # float64 assert_allclose(got, ref, atol, rtol=0)


def _bf16(x):
    """``x`` rounded to bf16 (nearest even), as float32 values."""
    return np.asarray(x, np.float32).astype(ml_dtypes.bfloat16).astype(np.float32)


def every_case(test) -> None:
    """Call the test function ``test`` (the emulated and GPU files call each through this)."""
    test()


# ------------------------------------------------------------------------------------- the dots the tier refuses


def test_w4a16_gemm_nibbles_dequant_in_loop():
    a = _f((64, 128), "float16")
    q = RNG.integers(0, 256, (64, 64)).astype(np.uint8)
    s = (RNG.random(64) * 0.1 + 0.01).astype(np.float16)
    y = run("w4a16_gemm_nibbles_dequant_in_loop", {0: a, 1: q, 2: s})[3]
    w = np.empty((128, 64), np.float64)
    w[0::2], w[1::2] = (q & 15).astype(np.int64) - 8, (q >> 4).astype(np.int64) - 8
    wf = (w.astype(np.float16) * s[None, :]).astype(np.float64)  # the kernel's f16 product, rounded once
    _close(y, _d(a) @ wf, 2e-3, 2e-3)


def test_gemm_heads_on_grid_axis2():
    q, w = _f((100, 3, 64), "float16"), _f((3, 64, 80), "float16", 0.5)
    o = run("gemm_heads_on_grid_axis2", {0: q, 1: w})[2]
    _close(o, np.einsum("thd,hdn->htn", _d(q), _d(w)), 2e-2, 2e-3)  # f16 out


def test_bmm_b_broadcast_by_zero_batch_stride():
    """B = ``w.expand(3, K, N)`` (a batch stride of 0): the tier's launch needs contiguous matrices and runs this
    SIMT lowering instead (a warning says so: tests/gpu/test_user_sweep26_gpu.py)."""
    a, w = _f((3, 70, 64), "float16"), _f((64, 72), "float16", 0.5)
    y = run("bmm_b_broadcast_by_zero_batch_stride", {0: a, 1: np.broadcast_to(w, (3, 64, 72))})[2]
    _close(y, np.einsum("lmk,kn->lmn", _d(a), _d(w)), 2e-3, 2e-3)


def test_moe_combine_fewer_tokens_than_rows():
    """128 sorted rows combined into 50 tokens (the same program, Y resized): the tier's launch needs C of the
    GEMM's M rows, so this SIMT lowering runs it (a launch warning: tests/gpu/test_user_sweep26_gpu.py)."""
    x, w = _f((128, 64), "float16"), _f((64, 96), "float16", 0.5)
    tok = RNG.integers(0, 50, 128).astype(np.int32)
    tok[::7] = -1
    gate = RNG.random(128).astype(F32)
    p = sweep.resized("moe_combine_weighted_atomic_add", {4: (50, 96)})
    y = run("moe_combine_weighted_atomic_add", {0: x, 1: w, 2: tok, 3: gate, 4: np.zeros((50, 96), F32)},
            program=p)[4]
    ref = np.zeros((50, 96))
    keep = tok >= 0
    np.add.at(ref, tok[keep], (_d(x) @ _d(w))[keep] * gate[keep, None])
    _close(y, ref, 2e-3, 2e-3)



def test_gemm_store_and_scatter_unpermuted_copy():
    a, b = _f((128, 64), "float16"), _f((64, 96), "float16", 0.5)
    perm = RNG.permutation(128).astype(np.int32)
    out = run("gemm_store_and_scatter_unpermuted_copy", {0: a, 1: b, 2: perm})
    z = _d(a) @ _d(b)
    _close(out[3], z, 2e-3, 2e-3)
    ref = np.empty_like(z)
    ref[perm] = z
    _close(out[4], ref, 2e-3, 2e-3)  # (every row of D written: NaN-prefilled)


def test_gemm_scatter_rows_only():
    a, b = _f((128, 64), "float16"), _f((64, 96), "float16", 0.5)
    perm = RNG.permutation(128).astype(np.int32)
    d = run("gemm_scatter_rows_only", {0: a, 1: b, 2: perm})[3]
    ref = np.empty((128, 96))
    ref[perm] = _d(a) @ _d(b)
    _close(d, ref, 2e-3, 2e-3)


def test_gemm_tile_done_flags_by_cas():
    a, b = _f((128, 64), "float16"), _f((64, 96), "float16", 0.5)
    out = run("gemm_tile_done_flags_by_cas", {0: a, 1: b, 3: np.zeros(4, np.int32)})
    _close(out[2], _d(a) @ _d(b), 2e-3, 2e-3)
    np.testing.assert_array_equal(out[3], [1, 2, 3, 4])  # tile (bm, bn) marked bm * 2 + bn + 1



def test_gemm_amax_by_atomic_max_beside_c():
    a, b = _f((128, 64), "float16"), _f((64, 128), "float16", 0.5)
    out = run("gemm_amax_by_atomic_max_beside_c", {0: a, 1: b, 3: np.zeros(1, np.int32)})
    z = _d(a) @ _d(b)
    _close(out[2], z, 2e-3, 2e-3)
    _close(out[3].view(F32), [np.abs(z).max()], 0, 1e-5)



def test_attention_lse_stored_by_scatter():
    q, k, v = _f((2, 64, 64), "float16"), _f((2, 100, 64), "float16"), _f((2, 100, 64), "float16")
    out = run("attention_lse_stored_by_scatter", {0: q, 1: k, 2: v})
    s = np.einsum("hqd,hkd->hqk", _d(q), _d(k)) * 0.125
    m = s.max(-1, keepdims=True)
    e = np.exp(s - m)
    _close(out[3], np.einsum("hqk,hkd->hqd", e / e.sum(-1, keepdims=True), _d(v)), 2e-3, 5e-3)  # f16 out
    _close(out[4], (m + np.log(e.sum(-1, keepdims=True)))[..., 0], 1e-4, 1e-5)


# ----------------------------------------------------------------------------------------------- RoPE, caches


def test_rope_interleaved_freqs_in_kernel():
    x = _f((7, 64))
    pos = np.array([0, 1, 5, 17, 100, 2047, 3], np.int32)
    y = run("rope_interleaved_freqs_in_kernel", {0: x, 1: pos})[2]
    ang = pos[:, None].astype(np.float64) * 10000.0 ** (-2.0 * np.arange(32) / 64)
    c, s = np.cos(ang), np.sin(ang)
    x0, x1 = _d(x[:, 0::2]), _d(x[:, 1::2])
    ref = np.empty((7, 64))
    ref[:, 0::2], ref[:, 1::2] = x0 * c - x1 * s, x0 * s + x1 * c
    _close(y, ref, 2e-3)  # (an f32 angle of 2047 rad: |error| ~ 2047 * 2**-24 * a few)
    np.testing.assert_array_equal(y[0], x[0])  # position 0: the identity


def test_rope_half_split_3d_heads():
    x = _f((10, 4, 32), "bfloat16")
    ang = np.arange(10)[:, None] * 10000.0 ** (-np.arange(16) / 16)
    c, s = np.cos(ang).astype(F32), np.sin(ang).astype(F32)
    y = run("rope_half_split_3d_heads", {0: x, 1: c, 2: s})[3]
    x1, x2 = _d(x[..., :16]), _d(x[..., 16:])
    cc, ss = _d(c)[:, None, :], _d(s)[:, None, :]
    ref = np.concatenate([x1 * cc - x2 * ss, x2 * cc + x1 * ss], axis=2)
    _close(y, ref, 1e-6, 2 ** -8)  # bf16 out: half an ulp


def test_kv_cache_append_at_position():
    k, v = _f((4, 48), "float16"), _f((4, 48), "float16")
    kc, vc = _f((4, 20, 48), "float16"), _f((4, 20, 48), "float16")
    out = run("kv_cache_append_at_position", {0: k, 1: v, 2: kc.copy(), 3: vc.copy()})
    for got, old, new in ((out[2], kc, k), (out[3], vc, v)):
        ref = old.copy()
        ref[:, 13, :] = new
        np.testing.assert_array_equal(got, ref)


def test_kv_cache_scatter_per_sequence_lengths():
    k = _f((5, 40))
    n = np.array([0, 11, 3, 7, 5], np.int32)
    kc = _f((5, 12, 40))
    out = run("kv_cache_scatter_per_sequence_lengths", {0: k, 1: n.copy(), 2: kc.copy()})
    ref = kc.copy()
    ref[np.arange(5), n, :] = k
    np.testing.assert_array_equal(out[2], ref)
    np.testing.assert_array_equal(out[1], n + 1)


# ----------------------------------------------------------------------------------------------- quantization


def _int4_reference(x, g):
    """(packed int8 bytes, f32 scales) of :func:`user_programs26.quant_int4_per_group_pack_nibbles`, in f32 step
    by step (IEEE division, as the kernel's)."""
    r, n = x.shape
    xs = x.reshape(r, n // g, g)
    amax = np.abs(xs).max(axis=2)
    scale = np.where(amax > 0, amax / F32(7.0), F32(1.0)).astype(F32)
    q = np.clip(np.floor(xs / scale[..., None] + F32(0.5)), -8, 7).astype(np.int64).reshape(r, n)
    lo, hi = q[:, 0::2] & 15, q[:, 1::2] & 15
    return ((hi << 4) | lo).astype(np.uint8).view(np.int8), scale


def test_quant_int4_per_group_pack_nibbles():
    x = _f((6, 128), scale=3.0)
    x[1, 32:64] = 0.0  # an all-zero group: scale 1, every nibble 0
    x[2, :4] = [100.0, -100.0, 50.0, -7.0]
    out = run("quant_int4_per_group_pack_nibbles", {0: x})
    q, s = _int4_reference(x, 32)
    np.testing.assert_array_equal(out[2], s)
    np.testing.assert_array_equal(out[1], q)


def test_dequant_int4_nibbles_sign_extend():
    q = RNG.integers(-128, 128, (6, 64)).astype(np.int8)
    q[0, :4] = [-128, 127, -1, 0x78]
    s = (RNG.random((6, 4)) + 0.1).astype(F32)
    y = run("dequant_int4_nibbles_sign_extend", {0: q, 1: s})[2]
    b = q.astype(np.int64)
    lo = ((b & 15) ^ 8) - 8
    hi = (((b >> 4) & 15) ^ 8) - 8
    v = np.empty((6, 128), np.int64)
    v[:, 0::2], v[:, 1::2] = lo, hi
    ref = (v.astype(F32) * np.repeat(s, 32, axis=1)).astype(np.float16)
    np.testing.assert_array_equal(y, ref)


def test_quant_fp8_e4m3_per_row_scale():
    x = _f((9, 200), "bfloat16", 5.0)
    x[3] = 0.0  # an all-zero row: the 1e-12 floor
    x[4, 7] = _bf16(3e4)
    out = run("quant_fp8_e4m3_per_row_scale", {0: x})
    scale = (np.maximum(np.abs(x).max(axis=1), F32(1e-12)) / F32(448.0)).astype(F32)
    np.testing.assert_array_equal(out[2], scale)
    q = np.clip(x / scale[:, None], -448, 448).astype(ml_dtypes.float8_e4m3fn).view(np.uint8)
    np.testing.assert_array_equal(out[1], q)


# ----------------------------------------------------------------------------------------------- normalization


def test_softmax_rows_all_neg_inf_like_torch():
    x = _f((8, 50), scale=3.0)
    x[2], x[5] = -np.inf, -np.inf
    x[6, :45] = -np.inf
    y = run("softmax_rows_all_neg_inf_like_torch", {0: x})[1]
    assert np.isnan(y[2]).all() and np.isnan(y[5]).all()  # torch.softmax of an all -inf row: NaN
    live = [r for r in range(8) if r not in (2, 5)]
    xs = _d(x[live])
    e = np.exp(xs - xs.max(axis=1, keepdims=True))
    _close(y[live], e / e.sum(axis=1, keepdims=True), 1e-6, 1e-5)
    assert (y[6, :45] == 0).all()


def test_layernorm_eps_argument_1024_tile():
    x = _f((5, 1000), "float16", 2.0)
    x[1] = 3.0  # a constant row: var 0, the output is the bias (eps keeps it finite)
    w, b = _f((1000,)), _f((1000,))
    y = run("layernorm_eps_argument_1024_tile", {0: x, 1: w, 2: b})[3]
    xd = _d(x)
    mean, var = xd.mean(1, keepdims=True), xd.var(1, keepdims=True)
    _close(y, (xd - mean) / np.sqrt(var + 1e-5) * w + b, 2e-2, 2e-3)  # f16 out
    _close(y[1], b, 1e-3, 1e-3)


def test_welford_single_pass_runtime_chunks():
    x = _f((4, 300), scale=2.0) + np.arange(4, dtype=F32)[:, None] * 1000
    out = run("welford_single_pass_runtime_chunks", {0: x})
    _close(out[1], _d(x).mean(1), 1e-3, 1e-6)
    _close(out[2], _d(x).var(1), 1e-4, 1e-4)  # (rows of mean 3000: the single-pass form keeps the variance)


# ----------------------------------------------------------------------------------------------- histograms, scans


def test_histogram_float_bins_clamped():
    x = _f((300,), scale=2.0)
    x[:8] = [np.nan, -100.0, 100.0, -2.0, 1.99, 2.0, -1.6, np.inf]
    h = run("histogram_float_bins_clamped", {0: x, 1: np.zeros(10, np.int32)})[1]
    with np.errstate(invalid="ignore"):
        b = np.clip(np.floor((x - F32(-2.0)) / F32(0.4)), 0, 9)  # f32 step by step, as the kernel
    ref = np.bincount(b[~np.isnan(x)].astype(np.int64), minlength=10)
    np.testing.assert_array_equal(h, ref)


def test_exclusive_scan_one_512_tile_and_total():
    x = RNG.integers(-50, 100, 500).astype(np.int32)
    out = run("exclusive_scan_one_512_tile_and_total", {0: x})
    np.testing.assert_array_equal(out[1], np.cumsum(x) - x)
    np.testing.assert_array_equal(out[2], [x.sum()])


def test_stream_compact_positive_by_scan():
    x = _f((200,))
    out = run("stream_compact_positive_by_scan", {0: x})
    keep = x[x > 0]
    np.testing.assert_array_equal(out[1][:len(keep)], keep)
    assert np.isnan(out[1][len(keep):]).all()
    np.testing.assert_array_equal(out[2], [len(keep)])


# ----------------------------------------------------------------------------------------------- convolution


def test_depthwise_conv3x3_index_math():
    x, w = _f((3, 10, 13)), _f((3, 9))
    y = run("depthwise_conv3x3_index_math", {0: x, 1: w})[2]
    xp = np.pad(_d(x), ((0, 0), (1, 1), (1, 1)))
    ref = sum(xp[:, t // 3:t // 3 + 10, t % 3:t % 3 + 13] * _d(w)[:, t, None, None] for t in range(9))
    _close(y, ref, 1e-5, 1e-5)


# ----------------------------------------------------------------------------------------------- launch shapes


def test_three_d_grid_batch_head_row():
    x = _f((2, 3, 5, 20))
    y = run("three_d_grid_batch_head_row", {0: x})[1]
    b, h, t = np.meshgrid(np.arange(2), np.arange(3), np.arange(5), indexing="ij")
    ref = x * (1.0 + b + 10.0 * h)[..., None].astype(F32) + t[..., None].astype(F32)
    _close(y, ref, 1e-5, 1e-6)


def test_elementwise_fourteen_arguments():
    a, b8, c16, d64 = _f((100,)), RNG.integers(-128, 128, 100).astype(np.int8), _f((100,), "float16"), \
        RNG.standard_normal(100)
    e, f, g = RNG.random(100) < 0.5, _f((100,)), _f((100,))
    out = run("elementwise_fourteen_arguments", {0: a, 1: b8, 2: c16, 3: d64, 4: e, 5: f, 6: g})
    ref1 = 0.5 * _d(a) - 2.0 * _d(b8) * _d(c16) - _d(d64.astype(F32)) + 3
    _close(out[7], ref1, 1e-4, 1e-6)
    np.testing.assert_array_equal(out[8], np.where(e, f, g) * F32(1.5))


def test_activation_gelu_code_2():
    x = _f((100,), scale=3.0)
    y = run("activation_gelu_code_2", {0: x})[1]
    xd = _d(x)
    _close(y, 0.5 * xd * (1 + np.tanh(0.7978845608028654 * (xd + 0.044715 * xd ** 3))), 1e-6, 1e-5)


def test_activation_silu_code_3():
    x = _f((100,), scale=3.0)
    x[:2] = [-100.0, 100.0]
    y = run("activation_silu_code_3", {0: x})[1]
    _close(y, _d(x) / (1 + np.exp(-_d(x))), 1e-6, 1e-5)


def test_loop_zero_trips_carries_init():
    x = _f((100,))
    np.testing.assert_array_equal(run("loop_zero_trips_carries_init", {0: x})[1], x)  # 0 trips: max(-inf, x) + 0
    p = sweep.resized("loop_zero_trips_carries_init", {}, {2: 3})  # the same program, 3 trips
    y = run("loop_zero_trips_carries_init", {0: x}, program=p)[1]
    ys = [x]
    for _ in range(3):
        ys.append(F32(0.5) * (ys[-1] + F32(1.0)))
    np.testing.assert_array_equal(y, np.maximum.reduce(ys[1:]) + F32(3))


def test_tiles_of_one_two_four():
    x = _f((22,))
    out = run("tiles_of_one_two_four", {0: x})
    np.testing.assert_array_equal(out[1], x + F32(1))
    np.testing.assert_array_equal(out[2], x * np.tile(np.array([2, 3], F32), 11))
    xp = np.concatenate([x, np.zeros(2, F32)]).reshape(6, 4)
    _close(out[3], (_d(xp) - _d(xp).sum(1, keepdims=True)).ravel()[:22], 1e-5)


def test_row_sum_max_512_tile_int16():
    x = RNG.integers(-32768, 32768, (4, 500)).astype(np.int16)
    x[2] = -32768
    x[3, 499] = 32767
    out = run("row_sum_max_512_tile_int16", {0: x})
    np.testing.assert_array_equal(out[1], x.astype(np.int64).sum(1))
    np.testing.assert_array_equal(out[2], x.max(1))


def test_copy_scale_1024_tile_bf16():
    x = _f((3000,), "bfloat16", 10.0)
    y = run("copy_scale_1024_tile_bf16", {0: x})[1]
    np.testing.assert_array_equal(y, x * F32(0.5))  # (a power of two: exact in bf16)


# ----------------------------------------------------------------------------------------------- routing, RNG, bytes


def test_moe_router_top4_of_8_renormalized():
    z = _f((20, 8), scale=2.0)
    out = run("moe_router_top4_of_8_renormalized", {0: z})
    ids = np.argsort(-z, axis=1, kind="stable")[:, :4]
    np.testing.assert_array_equal(out[1], ids)
    v = _d(np.take_along_axis(z, ids, 1))
    e = np.exp(v - v.max(1, keepdims=True))
    _close(out[2], e / e.sum(1, keepdims=True), 1e-6, 1e-5)


def _hash_keep(n, seed, p):
    idx = np.arange(n, dtype=np.uint64)
    m = (1 << 32) - 1
    h = ((idx * 0x9E3779B1) & m) ^ seed
    h ^= h >> 16
    h = (h * 0x85EBCA6B) & m
    h ^= h >> 13
    return h.astype(np.uint32).astype(F32) * F32(1.0 / 4294967296.0) < F32(p)


def test_dropout_hash_mask_uint32():
    x = _f((300,))
    y = run("dropout_hash_mask_uint32", {0: x})[1]
    keep = _hash_keep(300, 1234567, 0.75)
    assert 0.6 < keep.mean() < 0.9
    np.testing.assert_array_equal(y, np.where(keep, x / F32(0.75), F32(0)))


def test_byteswap_int32_pack_unpack():
    x = RNG.integers(-(2**31), 2**31, 100).astype(np.int32)
    x[:2] = [0x01020304, -2]
    y = run("byteswap_int32_pack_unpack", {0: x})[1]
    np.testing.assert_array_equal(y, x.byteswap())


def test_softcap_helper_function_twice():
    x = _f((100,), scale=50.0)
    out = run("softcap_helper_function_twice", {0: x})
    _close(out[1], 30 * np.tanh(_d(x) / 30), 1e-4, 1e-5)
    _close(out[2], 15 * np.tanh(2 * _d(x) / 15), 1e-4, 1e-5)


def test_int64_indexed_parameter_offsets():
    x = _f((100,))
    y = run("int64_indexed_parameter_offsets", {0: x})[1]
    j = np.arange(100)
    src = (j // 64) * 64 + 63 - j % 64
    np.testing.assert_array_equal(y, np.where(src < 100, x[np.minimum(src, 99)], F32(0)))
