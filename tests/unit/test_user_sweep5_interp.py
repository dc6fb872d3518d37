"""The SIMT programs of the fifth user sweep (``tileorch.testing.user_programs5``) run on the CPU by
the lockstep interpreter (tests/unit/simt_interp.py, through test_user_sweep_interp.run) against
numpy references computed in float64 from the same inputs, outputs pre-filled with NaN (integers
with a sentinel).  Also here: programs the tensor-core tiers refuse that run on the SIMT path's
mma.sync dots (a weight-only int8 GEMM, the 4-D batch, split-K into a workspace, the table-driven
grouped GEMM, the attention backward's dQ and dK / dV loops)."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("xdsl")
pytest.importorskip("cuda.tile")

import test_user_sweep_interp as sweep  # noqa: E402
from test_user_sweep_interp import _close, resized, run, sample  # noqa: E402

from tileorch.testing.user_programs5 import PROGRAMS  # noqa: E402

sweep.PROGRAMS.update(PROGRAMS)  # run() looks programs up in test_user_sweep_interp.PROGRAMS

RNG = np.random.default_rng(513)
LOG2E = 1.4426950408889634


def _f(shape, dt="float32", scale=1.0):
    return sample(RNG, shape, dt, scale)


def _d(x):
    return np.asarray(x, np.float64)


# ----------------------------------------------------------------------------------------------- memory-bound


def test_splitk_reduce_3d_tile_over_ragged_splits():
    """3 splits in a 4-deep tile (the padding split zero), 96 x 80 in 32 x 32 tiles."""
    w = _f((3, 96, 80))
    _close(run("splitk_reduce", {0: w})[1], _d(w).sum(0), 2e-2, 2e-3)


def test_softmax_backward_rows():
    y = _f((10, 300), "float16")
    g = _f((10, 300), "float16")
    yd, gd = _d(y), _d(g)
    _close(run("softmax_bwd_rows", {0: y, 1: g})[2], yd * (gd - (yd * gd).sum(1, keepdims=True)), 2e-2, 5e-3)


def test_layernorm_backward_weight_bias_partials():
    x, g = _f((10, 96)), _f((10, 96))
    mu, rs = _f((10,)), np.abs(_f((10,))) + 0.5
    out = run("layernorm_bwd_dwdb", {0: x, 1: g, 2: mu, 3: rs})
    xhat = (_d(x) - _d(mu)[:, None]) * _d(rs)[:, None]
    for p, (lo, hi) in enumerate([(0, 4), (4, 8), (8, 10)]):
        _close(out[4][p], (_d(g) * xhat)[lo:hi].sum(0), 1e-5, 1e-5)
        _close(out[5][p], _d(g)[lo:hi].sum(0), 1e-5, 1e-5)


def test_cross_entropy_chunked_with_ignore_index():
    x = _f((5, 300), "bfloat16", 3.0)
    labels = np.array([0, 299, -100, 128, 77], np.int32)
    loss = run("cross_entropy_chunked_ignore", {0: x, 1: labels})[2]
    xd = _d(x)
    m = xd.max(1)
    lse = m + np.log(np.exp(xd - m[:, None]).sum(1))
    ref = np.where(labels == -100, 0.0, lse - xd[np.arange(5), np.where(labels < 0, 0, labels)])
    _close(loss, ref, 1e-4, 1e-5)


def test_online_argmax_over_chunks_ties_first():
    x = _f((4, 200))
    x[1, [30, 150]] = 9.0  # a tie across chunks: the first
    x[2, [70, 71]] = 9.0  # a tie inside a chunk
    x[3, :] = -1.0
    x[3, 199] = 0.0  # the last column (the tail chunk)
    out = run("argmax_online_chunks", {0: x})
    np.testing.assert_array_equal(out[2], x.argmax(1).astype(np.int32))
    np.testing.assert_array_equal(out[1], x.max(1))


def test_column_cumsums_carried_over_row_chunks():
    x = _f((50, 20))
    out = run("cumsum_cols_carry", {0: x})
    inc = np.cumsum(_d(x), 0)
    _close(out[1], inc, 1e-5, 1e-6)
    _close(out[2], inc - _d(x), 1e-5, 1e-6)


def test_rope_on_4d_tiles_with_cat():
    x = _f((2, 8, 2, 32), "float16")
    inv = 10000.0 ** (-np.arange(16) / 16)
    ang = np.arange(8)[:, None] * inv[None, :]
    cos, sin = np.cos(ang).astype(np.float32), np.sin(ang).astype(np.float32)
    y = run("rope_bshd_cat", {0: x, 1: cos, 2: sin})[3]
    x1, x2 = _d(x)[..., :16], _d(x)[..., 16:]
    c, s = _d(cos)[None, :, None, :], _d(sin)[None, :, None, :]
    _close(y, np.concatenate([x1 * c - x2 * s, x2 * c + x1 * s], -1), 4e-3, 2e-3)


def test_permute_bshd_to_bhsd_ragged():
    x = _f((2, 10, 2, 8))
    np.testing.assert_array_equal(run("permute_bshd_bhsd", {0: x})[1], x.transpose(0, 2, 1, 3))


def test_cat_rank3_both_axes():
    a, b = _f((4, 8, 8)), _f((4, 8, 8))
    out = run("cat_rank3", {0: a, 1: b})
    np.testing.assert_array_equal(out[2], np.concatenate([a, b], 1))
    np.testing.assert_array_equal(out[3], np.concatenate([b * 2, a], 2))


def test_reshape_rank4_sum_and_reverse_permute():
    x = _f((4, 64))
    out = run("reshape_rank4", {0: x})
    u = _d(x).reshape(2, 2, 8, 8)
    _close(out[1], u.sum(3).sum(1).reshape(16), 1e-5, 1e-6)
    np.testing.assert_array_equal(out[2], x.reshape(2, 2, 8, 8).transpose(3, 2, 1, 0).reshape(256))


def test_int4_unpack_sign_extend_dequant():
    p = RNG.integers(0, 256, 96).astype(np.uint8)
    p[:4] = [0x00, 0xFF, 0x87, 0x78]
    s = np.array([0.5, 1.0, 0.125], np.float32)
    y = run("int4_unpack_dequant", {0: p, 1: s})[2]
    lo = (p & 15).astype(np.int64)
    hi = (p >> 4).astype(np.int64)
    lo, hi = np.where(lo >= 8, lo - 16, lo), np.where(hi >= 8, hi - 16, hi)
    ref = np.stack([lo, hi], 1).reshape(-1) * np.repeat(s, 64)
    np.testing.assert_array_equal(_d(y), ref)


def _hash_keep(n, seed):
    idx = np.arange(n, dtype=np.uint64)
    h = (idx * 0x9E3779B1 + seed) & 0xFFFFFFFF
    h ^= h >> 16
    h = (h * 0x7FEB352D) & 0xFFFFFFFF
    h ^= h >> 15
    return (h & 1) == 1


def test_hash_dropout_elements():
    x = _f((300,))
    y = run("hash_dropout", {0: x})[1]
    keep = _hash_keep(300, 7)
    assert 0.35 < keep.mean() < 0.65
    np.testing.assert_array_equal(y, np.where(keep, x * 2, 0).astype(np.float32))


def test_bool_rows_any_all_count():
    b = RNG.random((4, 16)) < 0.4
    b[0] = False
    b[1] = True
    out = run("bool_rows_any_all", {0: b})
    np.testing.assert_array_equal(out[1].astype(bool), b.any(1))
    np.testing.assert_array_equal(out[2].astype(bool), b.all(1))
    np.testing.assert_array_equal(out[3], b.sum(1).astype(np.int32))
    np.testing.assert_array_equal(out[4].astype(bool), b)


def test_int_where_chain():
    a = RNG.integers(-20, 20, 300).astype(np.int32)
    b = RNG.integers(-50, 50, 300).astype(np.int32)
    y = run("int_where_chain", {0: a, 1: b})[2]
    c = np.clip(a, -5, 7)
    c = np.where(a % 2 == 0, b, c)  # numpy's % is Python's (floor) like cuTile's
    c = np.where((a % 3 == 0) & (a % 2 != 0), -c, c)
    np.testing.assert_array_equal(y, (c + np.minimum(a, b) - np.maximum(a, b)).astype(np.int32))


def test_groupnorm_3d_tiles():
    x = _f((2, 8, 32), "float16", 2.0)
    w, bb = _f((8,)), _f((8,))
    y = run("groupnorm_3d", {0: x, 1: w, 2: bb})[3]
    g = _d(x).reshape(2, 4, 2 * 32)
    ref = ((g - g.mean(2, keepdims=True)) / np.sqrt(g.var(2, keepdims=True) + 1e-5)).reshape(2, 8, 32)
    _close(y, ref * _d(w)[None, :, None] + _d(bb)[None, :, None], 1e-2, 5e-3)


def test_pairwise_squared_distances_ragged():
    x, z = _f((20, 8)), _f((12, 8))
    d = run("pairwise_sqdist", {0: x, 1: z})[2]
    _close(d, ((_d(x)[:, None, :] - _d(z)[None, :, :]) ** 2).sum(-1), 1e-4, 1e-5)


def test_loop_start_stop_step_from_scalars():
    x = _f((10, 32))
    y = run("scalar_loop_bounds", {0: x})[1]
    _close(y, _d(x)[1:9:3].mean(0, keepdims=True), 1e-6, 1e-6)


def test_welford_merges_with_a_ragged_tail():
    x = _f((3, 150), scale=2.0) + 5.0
    out = run("welford_chunks", {0: x})
    _close(out[1], _d(x).mean(1), 1e-5, 1e-6)
    _close(out[2], _d(x).var(1), 1e-4, 1e-5)


def test_embedding_bag_with_lengths():
    ids = RNG.integers(0, 20, (3, 8)).astype(np.int32)
    ids[0, 5:] = 1000  # past the length: never read
    lens = np.array([5, 8, 0], np.int32)
    e = _f((20, 16))
    out = run("embedding_bag_lengths", {0: ids, 1: lens, 2: e})[3]
    ref = np.stack([_d(e)[ids[b, :lens[b]]].sum(0) / max(lens[b], 1) for b in range(3)])
    _close(out, ref, 1e-5, 1e-6)


def test_quantise_rows_to_int8():
    x = _f((4, 100), "float16", 3.0)
    x[2] = 0  # an all-zero row: scale 1
    x[3, 7] = 0.0
    out = run("quant_int8_rows", {0: x})
    xd = _d(x)
    amax = np.abs(xd).max(1, keepdims=True)
    s = np.where(amax > 0, amax / 127, 1.0).astype(np.float32).astype(np.float64)
    q = np.sign(xd) * np.minimum(np.floor(np.abs(xd) / s + 0.5), 127)
    _close(out[2], s[:, 0], 1e-7, 1e-6)
    assert np.abs(out[1].astype(np.int64) - q).max() <= 1  # f32 division vs f64 at .5 ties
    assert (np.abs(out[1].astype(np.int64) - q) == 0).mean() > 0.98


def test_compaction_by_exclusive_scan():
    x = _f((100,))
    out = run("compact_positive", {0: x})
    kept = x[x > 0]
    assert out[2][0] == kept.size
    np.testing.assert_array_equal(out[1][:kept.size], kept)
    assert np.isnan(out[1][kept.size:]).all()  # the rest untouched


def test_gemv_ragged():
    a, x = _f((50, 70), "float16"), _f((70,), "float16")
    _close(run("gemv_rows", {0: a, 1: x})[2], _d(a) @ _d(x), 1e-3, 1e-4)


# ----------------------------------------------------------------------------------------------- refused by the tiers


def test_weight_only_int8_gemm_on_the_simt_path():
    a = _f((128, 128), "float16")
    w = RNG.integers(-127, 128, (128, 128)).astype(np.int8)
    s = (np.abs(_f((128,))) * 0.01).astype(np.float32)
    c = run("mm_weight_only_int8", {0: a, 1: w, 2: s})[3]
    _close(c, (_d(a) @ _d(w)) * _d(s), 2e-2, 5e-3)


def test_split_k_into_a_workspace_on_the_simt_path():
    a, b = _f((128, 512), "float16"), _f((512, 128), "float16")
    ws = run("mm_splitk_workspace", {0: a, 1: b})[2]
    for z in range(3):
        ks = np.concatenate([np.arange(k * 64, k * 64 + 64) for k in range(z, 8, 3)])
        _close(ws[z], _d(a)[:, ks] @ _d(b)[ks], 1e-3, 1e-4)


def test_attention_backward_dq_on_the_simt_path():
    q, k, v, do = (_f((2, 128, 64), "float16") for _ in range(4))
    s = _d(q) @ _d(k).transpose(0, 2, 1) * 0.125
    m = s.max(-1, keepdims=True)
    lse = (m + np.log(np.exp(s - m).sum(-1, keepdims=True)))[..., 0]
    p = np.exp(s - lse[..., None])
    o = p @ _d(v)
    delta = (o * _d(do)).sum(-1)
    dq = run("attn_bwd_dq", {0: q, 1: k, 2: v, 3: do, 4: (lse * LOG2E).astype(np.float32),
                             5: delta.astype(np.float32)})[6]
    dp = _d(do) @ _d(v).transpose(0, 2, 1)
    ref = (p * (dp - delta[..., None])) @ _d(k) * 0.125
    _close(dq, ref, 2e-2, 2e-2)


def test_4d_batch_and_head_gemm_on_the_simt_path():
    a, b = _f((2, 2, 128, 128), "float16"), _f((2, 2, 128, 256), "float16")
    c = run("mm_4d_heads", {0: a, 1: b})[2]
    _close(c, _d(a) @ _d(b), 6e-2, 2e-3)


def test_grouped_gemm_from_a_tile_table_on_the_simt_path():
    """5 of the 6 (group, m tile) pairs listed (group 1's second row tile left out: stays NaN)."""
    a, b = _f((3, 128, 128), "float16"), _f((3, 128, 128), "float16")
    table = np.array([[0, 0, 0], [0, 1, 0], [1, 0, 0], [2, 1, 0], [2, 0, 0]], np.int32)
    c = run("mm_grouped_tile_table", {0: a, 1: b, 3: table})[2]
    ref = _d(a) @ _d(b)
    for g, i, _ in table:
        _close(c[g, i * 64:(i + 1) * 64], ref[g, i * 64:(i + 1) * 64], 1e-3, 1e-4)
    assert np.isnan(c[1, 64:]).all()


def test_attention_backward_dk_dv_on_the_simt_path():
    q, k, v, do = (_f((2, 128, 64), "float16") for _ in range(4))
    s = _d(q) @ _d(k).transpose(0, 2, 1) * 0.125
    m = s.max(-1, keepdims=True)
    lse = (m + np.log(np.exp(s - m).sum(-1, keepdims=True)))[..., 0]
    p = np.exp(s - lse[..., None])
    delta = ((p @ _d(v)) * _d(do)).sum(-1)
    out = run("attn_bwd_dkdv", {0: q, 1: k, 2: v, 3: do, 4: (lse * LOG2E).astype(np.float32),
                                5: delta.astype(np.float32)})
    dp = _d(do) @ _d(v).transpose(0, 2, 1)
    ds = p * (dp - delta[..., None])
    _close(out[7], p.transpose(0, 2, 1) @ _d(do), 2e-2, 2e-2)
    _close(out[6], ds.transpose(0, 2, 1) @ _d(q) * 0.125, 2e-2, 2e-2)


# ----------------------------------------------------------------------------------------------- batch 2


def test_negative_axes_on_3d_tiles():
    x = _f((2, 8, 32))
    out = run("neg_axes_3d", {0: x})
    xd = _d(x)
    e = np.exp(xd - xd.max(-1, keepdims=True))
    _close(out[1], e / e.sum(-1, keepdims=True), 1e-6, 1e-5)
    ref_z = np.concatenate([np.cumsum(xd[:, 4 * i:4 * i + 4], axis=-2) for i in range(2)], axis=1)
    _close(out[2], ref_z, 1e-5, 1e-6)
    np.testing.assert_array_equal(out[3], np.concatenate([x[..., 16:], x[..., :16]], -1).max(0))


def test_uint32_and_int32_integer_ops():
    u = RNG.integers(0, 2**32, 256, dtype=np.uint64).astype(np.uint32)
    u[:3] = [0, 0x80000000, 0xFFFFFFFF]
    x = RNG.integers(-2**31, 2**31, 256, dtype=np.int64).astype(np.int32)
    x[:3] = [-1, -2**31, 2**31 - 1]
    out = run("uint_int_ops", {0: u, 1: x})
    ud, xd = u.astype(np.int64), x.astype(np.int64)
    np.testing.assert_array_equal(out[2], ((ud // 7 + ud % 7 + (ud >> 29)) & 0xFFFFFFFF).astype(np.uint32))
    np.testing.assert_array_equal(out[3], ((xd >> 3) + xd // -4).astype(np.int32))  # numpy: floor division
    np.testing.assert_array_equal(out[4], (~x) ^ (x << 2))
    np.testing.assert_array_equal(out[5], (ud > 0x80000000).astype(np.int32))


def test_int64_sums_past_int32():
    x = RNG.integers(2**30, 2**31 - 1, (3, 64), dtype=np.int64).astype(np.int32)
    x[2] = -x[2]
    out = run("int64_row_sums", {0: x})
    np.testing.assert_array_equal(out[1], x.astype(np.int64).sum(1))
    np.testing.assert_array_equal(out[2], x[:, 0].astype(np.int64) * x[:, 1])


def test_none_indexing_min_plus_product():
    a, b = _f((20, 16)), _f((16, 16))
    y = run("none_indexing_3d", {0: a, 1: b})[2]
    np.testing.assert_array_equal(y, (a[:, :, None] + b[None, :, :]).min(1))


def _attn(q, k, v, scale=0.125):
    s = _d(q) @ np.swapaxes(_d(k), -1, -2) * scale
    e = np.exp(s - s.max(-1, keepdims=True))
    return (e / e.sum(-1, keepdims=True)) @ _d(v)


def test_attention_on_3d_tiles_on_the_simt_path():
    q, k, v = (_f((2, 256, 64), "float16") for _ in range(3))
    _close(run("attn_3d_tiles", {0: q, 1: k, 2: v})[3], _attn(q, k, v), 3e-3, 1e-2)


def test_two_query_heads_per_program_on_the_simt_path():
    q = _f((2, 4, 128, 64), "float16")
    k, v = _f((2, 2, 128, 64), "float16"), _f((2, 2, 128, 64), "float16")
    o = run("attn_two_heads_shared_kv", {0: q, 1: k, 2: v})[3]
    _close(o, _attn(q, k[:, [0, 0, 1, 1]], v[:, [0, 0, 1, 1]]), 3e-3, 1e-2)


def test_static_iter_k_gemm_on_the_simt_path():
    a, b = _f((128, 256), "float16"), _f((256, 128), "float16")
    _close(run("mm_static_iter_k", {0: a, 1: b})[2], _d(a) @ _d(b), 1e-3, 1e-4)


def test_two_k_loops_into_one_accumulator_on_the_simt_path():
    a1, b1 = _f((128, 128), "float16"), _f((128, 128), "float16")
    a2, b2 = _f((128, 192), "float16"), _f((192, 128), "float16")
    c = run("mm_two_k_loops", {0: a1, 1: b1, 2: a2, 3: b2})[4]
    _close(c, _d(a1) @ _d(b1) + _d(a2) @ _d(b2), 2e-3, 1e-4)


def test_fp8_attention_on_the_simt_path():
    """Q, K, V in e4m3 (their bytes), P rounded to e4m3 for the PV dot (the reference runs the same
    online softmax and rounding in float64; the interpreter's mma.sync decodes e4m3 bytes exactly)."""
    import ml_dtypes

    sweep.NP.update({"float8_e4m3fn": np.uint8})
    e4 = ml_dtypes.float8_e4m3fn
    q, k, v = ((RNG.standard_normal((2, n, 64)) * 0.5).astype(e4) for n in (256, 128, 128))
    p = resized("attn_fp8_e4m3", {1: (2, 128, 64), 2: (2, 128, 64)})  # 2 key tiles of 64 (the table: 4)
    o = run("attn_fp8_e4m3", {0: q.view(np.uint8), 1: k.view(np.uint8), 2: v.view(np.uint8)}, p)[3]
    qd, kd, vd = (x.astype(np.float64) for x in (q, k, v))
    s = qd @ kd.transpose(0, 2, 1) * (0.125 * LOG2E)  # log2 units, as the program's exp2
    # the program's online softmax over 64-key tiles, P rounded to e4m3 before the PV dot
    m = np.full((2, 128 * 2, 1), -np.inf)
    den = np.zeros((2, 256, 1))
    acc = np.zeros((2, 256, 64))
    for j in range(k.shape[1] // 64):
        sj = s[:, :, 64 * j:64 * j + 64]
        m2 = np.maximum(m, sj.max(-1, keepdims=True))
        pj = np.exp2(sj - m2)
        c = np.exp2(m - m2)
        den = den * c + pj.sum(-1, keepdims=True)
        acc = acc * c + pj.astype(np.float32).astype(e4).astype(np.float64) @ vd[:, 64 * j:64 * j + 64]
        m = m2
    ref = acc * 0.5 / den
    assert not np.isnan(o.astype(np.float64)).any()
    np.testing.assert_allclose(o.astype(np.float64), ref, atol=2e-3, rtol=1e-2)
