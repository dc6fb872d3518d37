"""The twenty-first user sweep (``tileorch.testing.user_programs21``: issue 21 item 1, fused kernels of
real models without a dot) on the CPU's lockstep SIMT interpreter (tests/unit/simt_interp.py, through
test_user_sweep_interp.run) against numpy references computed independently (float64, Python
integers for shifts and wrapping, ml_dtypes for fp8) from the same inputs; outputs pre-filled with
NaN / an integer sentinel / the fp8 NaN byte / the bool byte 2 (tables the atomics update start as
the user's ``torch.zeros``), ragged sizes: RMSNorm + residual + e4m3 with an amax by ``atomic_max``
on the bits, gated RMSNorm, QK-norm, Welford, GeGLU / SwiGLU on ``[tokens, 2 * hidden]``, softmax
with temperature and top-k, along the middle axis, an MoE router and its counts / slots, LayerNorm
backward with atomics, Lion and AMSGrad steps, a paged KV-cache append and gather, a causal conv1d,
a selective scan, an exclusive cumsum, an embedding bag, a masked mean, int8 rounding modes, an e5m2
block round trip, AWQ int4 dequantization, int4 packing, integer requantization, stochastic
rounding, byte bit tricks, bincounts and histograms, non-square transposes, strided columns, GQA
repeats, an ALiBi bias, a box IoU matrix, row ranks, interleaved rotary, ``cat`` of two sources,
integer top-k masks, cross-entropy with z-loss, im2col, capacity positions by ``cumsum``.
tests/gpu/test_user_sweep21_gpu.py runs every test here again on the GPU."""

from __future__ import annotations

import math

import numpy as np
import pytest

pytest.importorskip("xdsl")
pytest.importorskip("cuda.tile")
ml_dtypes = pytest.importorskip("ml_dtypes")

import test_user_sweep_interp as sweep  # noqa: E402
from test_user_sweep_interp import run, sample  # noqa: E402
from test_user_sweep_interp import wrap_bits as _wrap  # noqa: E402
from test_user_sweep19_interp import _close, _d  # noqa: E402  (float64 views, allclose in float64)

from tileorch.testing.user_programs21 import PROGRAMS  # noqa: E402

sweep.PROGRAMS.update(PROGRAMS)  # run() looks programs up in test_user_sweep_interp.PROGRAMS
sweep.NP.update({"uint16": np.uint16, "uint64": np.uint64, "float8_e4m3fn": np.uint8, "float8_e5m2": np.uint8})

RNG = np.random.default_rng(2121)


def _f(shape, dt="float32", scale=1.0):
    return sample(RNG, shape, dt, scale)


def _i(lo, hi, shape, dt):
    return RNG.integers(lo, hi, shape).astype(dt)


def _bf16(x):
    """``x`` rounded to bf16 (nearest even), as float32 values."""
    return sweep._bf16_value(sweep._bf16_bits(np.asarray(x, np.float32)))


def _fp8(bytes_, kind):
    return np.asarray(bytes_, np.uint8).view(kind).astype(np.float64)


def every_case(test) -> None:
    """Call the test function ``test`` (none here is parametrized: the emulated and GPU files call
    each through this, as sweep 19's do)."""
    test()


def _silu(x):
    return x / (1.0 + np.exp(-x))


# ----------------------------------------------------------------------------------------------- normalization


def test_rmsnorm_residual_fp8_quant_amax():
    x, r, w = _f((37, 300), "bfloat16"), _f((37, 300), "bfloat16"), _f(300, scale=0.5)
    amax = np.zeros(1, np.int32)
    out = run("rmsnorm_residual_fp8_quant_amax", {0: x, 1: r, 2: w, 5: amax})
    h = _bf16(x.astype(np.float32) + r.astype(np.float32))
    np.testing.assert_array_equal(out[3], h)
    hd = _d(h)
    y = hd / np.sqrt((hd * hd).mean(axis=1, keepdims=True) + 1e-6) * _d(w)
    q = _fp8(out[4], ml_dtypes.float8_e4m3fn)
    _close(q, y * 0.5, rtol=0.07, atol=2.0 ** -9)  # e4m3: 3 mantissa bits
    exact = np.clip(y * 0.5, -448, 448).astype(np.float32).astype(ml_dtypes.float8_e4m3fn).astype(np.float64)
    assert np.mean(q == exact) > 0.99
    _close(out[5].view(np.float32), [np.abs(y).max()], rtol=1e-5)


def test_gated_rmsnorm_groups_mamba2():
    x, z, w = _f((21, 256), "float16"), _f((21, 256), "float16"), _f(256)
    out = run("gated_rmsnorm_groups_mamba2", {0: x, 1: z, 2: w})
    g = (_d(x) * _silu(_d(z))).reshape(21, 4, 64)
    y = (g / np.sqrt((g * g).mean(axis=2, keepdims=True) + 1e-5)).reshape(21, 256) * _d(w)
    _close(out[3], y, rtol=2e-3, atol=2e-3)


def test_qk_l2norm_per_head_3d():
    q, s = _f((37, 6, 32), "bfloat16", 3.0), _f(32)
    q[0, 0] = 0.0  # a zero vector: divided by 1e-6, stays 0
    out = run("qk_l2norm_per_head_3d", {0: q, 1: s})
    n = np.sqrt((_d(q) ** 2).sum(axis=2, keepdims=True))
    _close(out[2], _d(q) / np.maximum(n, 1e-6) * _d(s), rtol=8e-3, atol=1e-3)


def test_welford_var_mean_long_rows():
    x = _f((5, 1000)) + 100.0  # a large mean: the one-pass sum of squares would lose the variance
    out = run("welford_var_mean_long_rows", {0: x})
    _close(out[1], _d(x).mean(axis=1), rtol=1e-6)
    _close(out[2], _d(x).var(axis=1), rtol=1e-3)


def test_l2_normalize_rows_flush_to_zero():
    x = _f((9, 200))
    out = run("l2_normalize_rows_flush_to_zero", {0: x})
    n = np.sqrt((_d(x) ** 2).sum(axis=1))
    _close(out[1], _d(x) / n[:, None], rtol=1e-5, atol=1e-7)
    _close(out[2], n, rtol=1e-6)


def _is_directed_root(root, x, mode) -> bool:
    """``root`` (f32 or f64) is ``sqrt(x)`` rounded ``mode``: its square on the right side of ``x``
    and the next value toward the other side on the wrong one (exact rationals)."""
    from fractions import Fraction

    r, v = root.dtype.type(root), Fraction(float(x))
    if mode in ("rm", "rz"):
        return Fraction(float(r)) ** 2 <= v < Fraction(float(np.nextafter(r, r.dtype.type(np.inf)))) ** 2
    return Fraction(float(np.nextafter(r, r.dtype.type(0)))) ** 2 < v <= Fraction(float(r)) ** 2


def test_norm_interval_bounds_directed_sqrt():
    x, d = _f((9, 200)), np.abs(_f((9, 200), "float64", 1e3))
    d[0, :3] = [0.0, 2.0, 1e-310]  # zero, a root between two doubles, a subnormal
    out = run("norm_interval_bounds_directed_sqrt", {0: x, 1: d})
    ss = out[2]
    _close(ss, (_d(x) ** 2).sum(axis=1), rtol=1e-5)
    for i in range(9):
        assert _is_directed_root(out[3][i], ss[i], "rm") and _is_directed_root(out[4][i], ss[i], "rp"), i
        assert out[3][i] < out[4][i]  # (no sum of squares here is a perfect square)
    for v, r in zip(d.reshape(-1), out[5].reshape(-1)):
        assert (v == 0 and r == 0) or _is_directed_root(r, v, "rz"), (v, r)


# ----------------------------------------------------------------------------------------------- activations


def test_geglu_erf_polynomial_tokens():
    x = _f((37, 256), "float16", 2.0)
    out = run("geglu_erf_polynomial_tokens", {0: x})
    a, b = _d(x[:, :128]), _d(x[:, 128:])
    erf = np.vectorize(math.erf)(a / math.sqrt(2.0))
    _close(out[1], 0.5 * a * (1.0 + erf) * b, rtol=2e-3, atol=2e-3)


def test_swiglu_tokens_2h_bf16_with_limit():
    x = _f((37, 256), "bfloat16", 5.0)
    out = run("swiglu_tokens_2h_bf16_with_limit", {0: x})
    g, u = np.minimum(_d(x[:, :128]), 7.0), np.clip(_d(x[:, 128:]), -7.0, 7.0)
    _close(out[1], _silu(g) * (u + 1.0), rtol=1e-2, atol=1e-2)


# ----------------------------------------------------------------------------------------------- softmax and routing


def _topk_softmax(x, k):
    out = np.zeros_like(x)
    for r in range(x.shape[0]):
        kth = np.unique(x[r])[::-1][k - 1]
        keep = x[r] >= kth
        e = np.where(keep, np.exp(x[r] - x[r].max()), 0.0)
        out[r] = e / e.sum()
    return out


def test_softmax_temperature_topk_mask():
    x = _f((7, 300), scale=3.0)
    x[0, 10] = x[0, 11] = x[0].max() + 1.0  # a tie at the top: two values, one rank
    x[1, 20] = x[1, 21] = np.sort(x[1])[-5]  # a tie at the threshold: both kept
    out = run("softmax_temperature_topk_mask", {0: x})
    t = _d(x.astype(np.float32) / np.float32(0.7))
    _close(out[1], _topk_softmax(t, 5), rtol=1e-5, atol=1e-7)


def test_softmax_3d_middle_axis_f16():
    x = _f((3, 37, 50), "float16", 2.0)
    out = run("softmax_3d_middle_axis_f16", {0: x})
    e = np.exp(_d(x) - _d(x).max(axis=1, keepdims=True))
    _close(out[1], e / e.sum(axis=1, keepdims=True), rtol=1e-3, atol=1e-4)


def test_moe_router_top2_renormalized():
    lg = _f((37, 6), scale=2.0)
    out = run("moe_router_top2_renormalized", {0: lg})
    p = np.exp(_d(lg) - _d(lg).max(axis=1, keepdims=True))
    p /= p.sum(axis=1, keepdims=True)
    order = np.argsort(-p, axis=1, kind="stable")[:, :2]
    w = np.take_along_axis(p, order, axis=1)
    np.testing.assert_array_equal(out[2], order)
    _close(out[1], w / w.sum(axis=1, keepdims=True), rtol=1e-5)


def test_moe_expert_counts_and_slots():
    ids = _i(-1, 8, 300, np.int32)
    out = run("moe_expert_counts_and_slots", {0: ids, 1: np.zeros(8, np.int32)})
    np.testing.assert_array_equal(out[1], np.bincount(ids[ids >= 0], minlength=8))
    np.testing.assert_array_equal(out[2][ids < 0], -1)
    for e in range(8):  # each expert's slots are 0 .. count - 1, in whatever order the atomics ran
        np.testing.assert_array_equal(np.sort(out[2][ids == e]), np.arange(np.sum(ids == e)))


# ---------------------------------------------------------------------------------------------- backward and optimizers


def test_layernorm_bwd_rows_block_atomic_dgamma():
    x, dy, w = _f((37, 200), "float16"), _f((37, 200), "float16"), _f(200)
    xd = _d(x)
    mean = xd.mean(axis=1)
    rstd = 1.0 / np.sqrt(xd.var(axis=1) + 1e-5)
    out = run("layernorm_bwd_rows_block_atomic_dgamma",
              {0: x, 1: dy, 2: w, 3: mean.astype(np.float32), 4: rstd.astype(np.float32),
               6: np.zeros(200, np.float32), 7: np.zeros(200, np.float32)})
    xhat = (xd - mean[:, None]) * rstd[:, None]
    wdy = _d(w) * _d(dy)
    dx = (wdy - wdy.mean(axis=1, keepdims=True) - xhat * (xhat * wdy).mean(axis=1, keepdims=True)) * rstd[:, None]
    _close(out[5], dx, rtol=5e-3, atol=5e-3)
    _close(out[6], (_d(dy) * xhat).sum(axis=0), rtol=1e-4, atol=1e-4)
    _close(out[7], _d(dy).sum(axis=0), rtol=1e-4, atol=1e-4)


def test_lion_step_sign_update():
    p, g, m = _f(1000, "bfloat16"), _f(1000), _f(1000)
    g[:5], m[:5] = 0.0, 0.0  # sign(0) = 0: the weight only decays
    out = run("lion_step_sign_update", {0: p, 1: g, 2: m})
    c = 0.9 * _d(m) + 0.1 * _d(g)
    want = _d(p) * (1.0 - 1e-2 * 0.1) - 1e-2 * np.sign(c)
    _close(out[0], want, rtol=8e-3, atol=1e-6)
    _close(out[2], 0.99 * _d(m) + 0.01 * _d(g), rtol=1e-6, atol=1e-7)


def test_adam_amsgrad_unscale_found_inf():
    p, g = _f(1000), _f(1000, "float16", 1000.0)
    m, v, vmax = _f(1000, scale=0.01), np.abs(_f(1000, scale=0.01)), np.abs(_f(1000, scale=0.01))
    g[700] = np.inf  # the fourth block's gradient overflowed
    out = run("adam_amsgrad_unscale_found_inf", {0: p, 1: g, 2: m, 3: v, 4: vmax, 5: np.zeros(1, np.int32)})
    gd = _d(g) / 1024.0
    m2 = 0.9 * _d(m) + 0.1 * gd
    v2 = 0.999 * _d(v) + 0.001 * gd * gd
    vm = np.maximum(_d(vmax), v2)
    with np.errstate(invalid="ignore"):
        want = _d(p) - 1e-3 * m2 / (np.sqrt(vm) + 1e-8)
    assert out[5][0] == 1
    # (``1 - beta2`` of the f32 scalar 0.999 is 0.001 to 1e-5 only: the tolerance)
    _close(out[0], want, rtol=5e-5, atol=1e-6)
    _close(out[2], m2, rtol=5e-5, atol=1e-7)
    _close(out[3], v2, rtol=5e-5, atol=1e-9)
    _close(out[4], vm, rtol=5e-5, atol=1e-9)


# ----------------------------------------------------------------------------------------------- caches and sequences


def test_kv_cache_append_paged_slots():
    k, v = _f((13, 96), "float16"), _f((13, 96), "float16")
    slots = RNG.permutation(40)[:13].astype(np.int32)
    slots[[3, 9]] = -1  # padding tokens
    out = run("kv_cache_append_paged_slots", {0: k, 1: v, 2: slots})
    for src, got in ((k, out[3]), (v, out[4])):
        want = np.full((5, 8, 96), np.nan, np.float16)
        for t, s in enumerate(slots):
            if s >= 0:
                want[s // 8, s % 8] = src[t]
        np.testing.assert_array_equal(got, want)


def test_paged_kv_gather_block_table():
    cache = _f((6, 8, 40), "float16")
    table = np.array([[5, 2, 0, 3], [1, 4, 0, 0], [2, 2, 2, 2]], np.int32)
    lens = np.array([29, 13, 0], np.int32)
    out = run("paged_kv_gather_block_table", {0: cache, 1: table, 2: lens})
    want = np.zeros((3, 32, 40), np.float16)
    for s in range(3):
        for p in range(lens[s]):
            want[s, p] = cache[table[s, p // 8], p % 8]
    np.testing.assert_array_equal(out[3], want)


def test_causal_conv1d_width4_silu():
    x, w, b = _f((40, 50)), _f((40, 4)), _f(40)
    out = run("causal_conv1d_width4_silu", {0: x, 1: w, 2: b})
    xp = np.concatenate([np.zeros((40, 3)), _d(x)], axis=1)
    acc = _d(b)[:, None] + sum(_d(w)[:, k:k + 1] * xp[:, k:k + 50] for k in range(4))
    _close(out[3], _silu(acc), rtol=1e-5, atol=1e-5)


def test_selective_scan_sequence_loop():
    x, b, c = _f((11, 40)), _f((11, 16)), _f((11, 16))
    dt = np.log1p(np.exp(_f((11, 40)))).astype(np.float32) * 0.1  # softplus, as Mamba's dt
    a = (-np.exp(_f((40, 16), scale=0.5))).astype(np.float32)
    dsk = _f(40)
    out = run("selective_scan_sequence_loop", {0: x, 1: dt, 2: a, 3: b, 4: c, 5: dsk})
    h = np.zeros((40, 16))
    want = np.zeros((11, 40))
    for t in range(11):
        h = np.exp(_d(dt[t])[:, None] * _d(a)) * h + _d(dt[t])[:, None] * _d(b[t])[None, :] * _d(x[t])[:, None]
        want[t] = (h * _d(c[t])[None, :]).sum(axis=1) + _d(dsk) * _d(x[t])
    _close(out[6], want, rtol=1e-4, atol=1e-5)


def test_exclusive_cumsum_seq_axis_3d():
    x = _f((2, 37, 50))
    out = run("exclusive_cumsum_seq_axis_3d", {0: x})
    _close(out[1], np.cumsum(_d(x), axis=1) - _d(x), rtol=1e-5, atol=1e-5)


def test_embedding_bag_mean_offsets():
    wt, ids = _f((50, 24), "bfloat16"), _i(0, 50, 70, np.int32)
    offs = np.array([0, 5, 5, 40, 41, 70], np.int32)  # an empty bag, a long one (3 chunks), a single id
    out = run("embedding_bag_mean_offsets", {0: wt, 1: ids, 2: offs})
    want = np.zeros((5, 24))
    for bag in range(5):
        rows = ids[offs[bag]:offs[bag + 1]]
        if len(rows):
            want[bag] = _d(wt)[rows].mean(axis=0)
    _close(out[3], want, rtol=1e-5, atol=1e-6)


def test_masked_mean_per_row_lengths():
    x = _f((4, 37, 50), "float16")
    lens = np.array([37, 13, 0, 1], np.int32)
    out = run("masked_mean_per_row_lengths", {0: x, 1: lens})
    want = np.stack([_d(x[b, :n]).mean(axis=0) if n else np.zeros(50) for b, n in enumerate(lens)])
    _close(out[2], want, rtol=1e-5, atol=1e-6)


# ----------------------------------------------------------------------------------------------- quantization


def test_int8_per_token_quant_rounding_modes():
    x = _f((13, 200), scale=2.0)
    x[0, :8] = [127.0, 2.5, -2.5, 3.5, 0.5, -0.5, -126.5, 1.5]  # row 0: scale 1, exact ties
    out = run("int8_per_token_quant_rounding_modes", {0: x})
    scale = np.maximum(np.abs(x).max(axis=1, keepdims=True), np.float32(1e-8)) / np.float32(127.0)
    _close(out[1], scale[:, 0], rtol=1e-7)
    y = _d(x / scale)  # (f32 division, as the kernel's)
    away = np.sign(y) * np.floor(np.abs(y) + 0.5)
    for got, want in zip([out[k] for k in range(2, 7)], (np.rint(y), np.trunc(y), np.floor(y), np.ceil(y), away)):
        # (|x| / scale may pass 127 by an ulp: ceil gives 128, which the conversion saturates)
        np.testing.assert_array_equal(got, np.clip(want, -128, 127).astype(np.int8))


def test_e5m2_block_quant_roundtrip_recip_scale():
    x = _f((37, 50), scale=4.0)
    out = run("e5m2_block_quant_roundtrip_recip_scale", {0: x})
    e5 = ml_dtypes.float8_e5m2
    q = _fp8(out[1], e5)
    for i in range(3):
        for j in range(2):
            blk = np.s_[16 * i:16 * i + 16, 32 * j:32 * j + 32]
            scale = np.float32(max(np.abs(x[blk]).max(), 1e-12)) / np.float32(57344.0)
            y = np.clip(x[blk] / scale, -57344, 57344)
            _close(q[blk], y, rtol=0.125, atol=2.0 ** -16)  # e5m2: 2 mantissa bits
            assert np.mean(q[blk] == y.astype(e5).astype(np.float64)) > 0.97, (i, j)
            _close(out[2][i, j], 1.0 / _d(scale), rtol=1e-6)
            _close(out[3][blk], q[blk] * _d(scale) - _d(x[blk]), rtol=1e-5, atol=1e-6)


def test_awq_int4_dequant_zero_points():
    qw = _i(0, 256, (40, 32), np.uint8)
    sc, zp = np.abs(_f((3, 64), "float16", 0.1)), _i(0, 16, (3, 64), np.uint8)
    out = run("awq_int4_dequant_zero_points", {0: qw, 1: sc, 2: zp})
    nib = np.empty((40, 64), np.int64)
    nib[:, 0::2], nib[:, 1::2] = qw & 15, qw >> 4
    g = np.arange(40) // 16
    want = ((nib - zp[g]).astype(np.float32) * sc[g].astype(np.float32)).astype(np.float16)
    np.testing.assert_array_equal(out[3], want)


def test_int4_signed_pack_unpack_shifts():
    x = _i(-8, 8, 300, np.int8)
    x[:4] = [-8, 7, -1, 0]
    out = run("int4_signed_pack_unpack_shifts", {0: x})
    lo, hi = x[0::2].astype(np.int64), x[1::2].astype(np.int64)
    np.testing.assert_array_equal(out[1], _wrap((hi << 4) | (lo & 15), 8))
    np.testing.assert_array_equal(out[2], x)


def test_int32_requant_multiplier_rounding_shift():
    acc, bias = _i(-2 ** 24, 2 ** 24, 300, np.int32), _i(-1000, 1000, 300, np.int32)
    acc[:3] = [2 ** 31 - 1001, -2 ** 31 + 1000, 0]
    out = run("int32_requant_multiplier_rounding_shift", {0: acc, 1: bias})
    want = [min(max(((int(a) + int(b)) * 1518500250 + (1 << 37) >> 38) - 3, -128), 127) for a, b in zip(acc, bias)]
    np.testing.assert_array_equal(out[2], want)


def test_stochastic_round_f32_to_bf16():
    x, rnd = _f(300, scale=10.0), _i(0, 2 ** 32, 300, np.uint32)
    x[:4] = [np.nan, np.inf, -np.inf, np.finfo(np.float32).max]
    out = run("stochastic_round_f32_to_bf16", {0: x, 1: rnd})
    bits = _wrap(x.view(np.int32).astype(np.int64) + (rnd.astype(np.int64) & 0xFFFF), 32) & -65536
    want = np.where(np.isfinite(x), _wrap(bits, 32).astype(np.int32).view(np.float32), x)
    np.testing.assert_array_equal(out[2], want)


def test_truncating_casts_with_one_rounding_mode():
    x, h = _f(300, scale=100.0), _f(300, "float16")
    x[:5] = [np.nan, np.inf, -np.inf, np.finfo(np.float32).max, -1.0e-40]  # (a subnormal: truncated too)
    h[:3] = [np.float16(6.0e-8), np.inf, -65504.0]  # an f16 subnormal widens exactly
    out = run("truncating_casts_with_one_rounding_mode", {0: x, 1: h})
    cut = (x.view(np.uint32) & np.uint32(0xFFFF0000)).view(np.float32)
    finite = ~np.isnan(x)
    np.testing.assert_array_equal(out[2][finite], cut[finite])
    np.testing.assert_array_equal(out[3][finite], cut[finite])
    assert np.isnan(out[2][~finite]).all() and np.isnan(out[3][~finite]).all()
    np.testing.assert_array_equal(out[4], h.astype(np.float32))


# ----------------------------------------------------------------------------------------------- bits and counting


def test_byte_popcount_reverse_parity():
    x = np.concatenate([np.arange(256), _i(0, 256, 44, np.int64)]).astype(np.uint8)
    out = run("byte_popcount_reverse_parity", {0: x})
    pc = np.array([bin(int(v)).count("1") for v in x])
    rv = np.array([int(f"{int(v):08b}"[::-1], 2) for v in x])
    np.testing.assert_array_equal(out[1], pc)
    np.testing.assert_array_equal(out[2], rv)
    np.testing.assert_array_equal(out[3], pc & 1)


def test_bincount_drops_bad_ids():
    ids = _i(-3, 13, 300, np.int32)
    ids[:2] = [-2 ** 31, 2 ** 31 - 1]
    out = run("bincount_drops_bad_ids", {0: ids, 1: np.zeros(10, np.int32)})
    np.testing.assert_array_equal(out[1], np.bincount(ids[(ids >= 0) & (ids < 10)], minlength=10))


def test_per_channel_pixel_histogram_u8():
    img = _i(0, 256, (77, 3), np.uint8)
    out = run("per_channel_pixel_histogram_u8", {0: img, 1: np.zeros((3, 256), np.int32)})
    np.testing.assert_array_equal(out[1], np.stack([np.bincount(img[:, c], minlength=256) for c in range(3)]))


# ----------------------------------------------------------------------------------------------- shapes


def test_transpose_nonsquare_tiles_2d_grid():
    x = _f((37, 50), "float16")
    np.testing.assert_array_equal(run("transpose_nonsquare_tiles_2d_grid", {0: x})[1], x.T)


def test_every_second_column_by_reshape_extract():
    x = _i(-30000, 30000, (21, 74), np.int16)
    out = run("every_second_column_by_reshape_extract", {0: x})
    np.testing.assert_array_equal(out[1], x[:, 0::2])
    np.testing.assert_array_equal(out[2], x[:, 1::2])


def test_gqa_repeat_kv_heads_broadcast_rank4():
    kv = _f((13, 2, 16), "bfloat16")
    out = run("gqa_repeat_kv_heads_broadcast_rank4", {0: kv})
    np.testing.assert_array_equal(out[1], np.repeat(kv, 4, axis=1))


def test_swin_window_partition_rank5():
    x = _f((7, 6, 4), "float16")
    out = run("swin_window_partition_rank5", {0: x})
    pad = np.zeros((8, 8, 4), np.float16)
    pad[:7, :6] = x
    want = pad.reshape(2, 4, 2, 4, 4).transpose(0, 2, 1, 3, 4).reshape(4, 16, 4)
    np.testing.assert_array_equal(out[1], want)


def test_alibi_causal_bias_heads():
    slopes = np.array([0.5, 0.25, 0.0625], np.float32)
    out = run("alibi_causal_bias_heads", {0: slopes})
    q, k = np.arange(37)[:, None], np.arange(50)[None, :]
    want = np.where(k <= q, (k - q).astype(np.float32)[None] * slopes[:, None, None], -np.inf)
    np.testing.assert_array_equal(out[1], want.astype(np.float32))


def test_box_iou_matrix_extract_coords():
    xy, wh = _f((37, 2), scale=5.0), np.abs(_f((37, 2), scale=3.0)) + 0.1
    bx = np.concatenate([xy, xy + wh], axis=1).astype(np.float32)
    bx[5] = bx[6]  # a box twice: IoU 1
    out = run("box_iou_matrix_extract_coords", {0: bx})
    b = _d(bx)
    iw = np.maximum(np.minimum(b[:, None, 2], b[None, :, 2]) - np.maximum(b[:, None, 0], b[None, :, 0]), 0)
    ih = np.maximum(np.minimum(b[:, None, 3], b[None, :, 3]) - np.maximum(b[:, None, 1], b[None, :, 1]), 0)
    area = (b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1])
    inter = iw * ih
    _close(out[1], inter / (area[:, None] + area[None, :] - inter), rtol=1e-5, atol=1e-6)


def test_rank_in_row_by_pairwise_compare():
    x = _i(-6, 6, (5, 50), np.int64).astype(np.float32)  # many ties: broken by position
    x[4] = _f(50)
    out = run("rank_in_row_by_pairwise_compare", {0: x})
    want = np.argsort(np.argsort(x, axis=1, kind="stable"), axis=1, kind="stable")
    np.testing.assert_array_equal(out[1], want)


def test_rope_interleaved_pairs_extract_cat():
    x = _f((37, 64), "bfloat16")
    ang = np.arange(100)[:, None] * (10000.0 ** (-np.arange(32) / 32.0))[None, :]
    cos, sin = np.cos(ang).astype(np.float32), np.sin(ang).astype(np.float32)
    pos = _i(0, 100, 37, np.int32)
    out = run("rope_interleaved_pairs_extract_cat", {0: x, 1: cos, 2: sin, 3: pos})
    x0, x1, c, s = _d(x[:, 0::2]), _d(x[:, 1::2]), _d(cos[pos]), _d(sin[pos])
    want = np.empty((37, 64))
    want[:, 0::2], want[:, 1::2] = x0 * c - x1 * s, x1 * c + x0 * s
    _close(out[4], want, rtol=8e-3, atol=1e-2)


def test_cat_two_halves_of_different_sources():
    a, b = _i(-128, 128, 100, np.int8), _f(37, "float16")
    out = run("cat_two_halves_of_different_sources", {0: a, 1: b})
    pa = np.concatenate([a, np.zeros(28, np.int8)]).astype(np.float32)  # (zero padding)
    pb = np.concatenate([b.astype(np.float32), np.full(91, np.nan, np.float32)])  # (NaN padding)
    want = np.concatenate([np.concatenate([pa[64 * i:64 * i + 64], pb[64 * i:64 * i + 64]]) for i in range(2)])
    np.testing.assert_array_equal(out[2], want)


def test_topk_threshold_mask_int16_scores():
    s = _i(-5, 6, (6, 50), np.int16)
    s[5] = np.where(np.arange(50) % 2, 7, -32767)  # two distinct values: the 4th largest is the padding's
    out = run("topk_threshold_mask_int16_scores", {0: s})
    want = np.zeros((6, 50), bool)
    for r in range(6):
        u = np.unique(s[r])[::-1]
        want[r] = s[r] >= (u[3] if len(u) >= 4 else -32768)
    np.testing.assert_array_equal(out[1], want)


def test_cross_entropy_z_loss_bf16_rows():
    x, t = _f((9, 300), "bfloat16", 3.0), _i(0, 300, 9, np.int32)
    t[[2, 7]] = [-100, 299]
    out = run("cross_entropy_z_loss_bf16_rows", {0: x, 1: t})
    xd = _d(x)
    lse = xd.max(axis=1) + np.log(np.exp(xd - xd.max(axis=1, keepdims=True)).sum(axis=1))
    loss = np.where(t == -100, 0.0, lse - xd[np.arange(9), np.clip(t, 0, 299)] + 1e-4 * lse * lse)
    _close(out[2], loss, rtol=1e-5, atol=1e-5)
    _close(out[3], lse, rtol=1e-5, atol=1e-5)


def test_im2col_3x3_pad1_gather():
    img = _f((7, 9))
    out = run("im2col_3x3_pad1_gather", {0: img})
    pad = np.pad(img, 1)
    want = np.stack([pad[y:y + 3, x:x + 3].reshape(9) for y in range(7) for x in range(9)])
    np.testing.assert_array_equal(out[1], want)


def test_token_dropping_capacity_by_cumsum():
    ids = _i(0, 8, 300, np.int32)
    out = run("token_dropping_capacity_by_cumsum", {0: ids})
    pos = np.array([np.sum(ids[t - t % 128:t] == ids[t]) for t in range(300)])
    np.testing.assert_array_equal(out[2], pos)
    np.testing.assert_array_equal(out[1], pos < 5)
