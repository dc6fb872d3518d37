"""The SIMT programs of the fourth user sweep (``tileorch.testing.user_programs4``) run on the CPU by
the lockstep interpreter (tests/unit/simt_interp.py, through test_user_sweep_interp.run) against
numpy references computed in float64 from the same inputs (fp8 through ``ml_dtypes``), outputs
pre-filled with NaN (integers with a sentinel).  Programs with atomics run on the GPU only
(tests/gpu/test_user_sweep4_gpu.py).  Also here: the programs the tensor-core tiers refuse that
run on the SIMT path's mma.sync dots (a 16-row decoding tile, a grouped GEMM over row ranges)."""

from __future__ import annotations

import math

import numpy as np
import pytest

pytest.importorskip("xdsl")
pytest.importorskip("cuda.tile")

import test_user_sweep_interp as sweep  # noqa: E402
from test_user_sweep_interp import _close, run, sample, _softmax  # noqa: E402

from tileorch.testing.user_programs4 import PROGRAMS  # noqa: E402

sweep.PROGRAMS.update(PROGRAMS)  # run() looks programs up in test_user_sweep_interp.PROGRAMS
sweep.NP.update({"float8_e5m2": np.uint8, "float8_e4m3fn": np.uint8})  # fp8 arrays travel as their bytes

RNG = np.random.default_rng(412)


def _f(shape, dt="float32", scale=1.0):
    return sample(RNG, shape, dt, scale)


def test_layernorm_rows_block_ragged():
    """10 rows of 1000 in (4, 1024) tiles: the last program's rows 8, 9 only, the padded columns
    kept out of the variance."""
    x, w, b = _f((10, 1000), "float16", 2.0), _f((1000,)), _f((1000,))
    xd = x.astype(np.float64) + 0.5
    x = xd.astype(np.float16)
    xd = x.astype(np.float64)
    ref = (xd - xd.mean(1, keepdims=True)) / np.sqrt(xd.var(1, keepdims=True) + 1e-5) * w + b
    _close(run("layernorm_rows_block", {0: x, 1: w, 2: b})[3], ref, 1e-2, 5e-3)


def test_rmsnorm_residual_two_outputs():
    x, r, w = _f((6, 777), "bfloat16"), _f((6, 777), "bfloat16"), _f((777,), "bfloat16")
    out = run("rmsnorm_residual_two_outputs", {0: x, 1: r, 2: w})
    h = x.astype(np.float64) + r
    _close(out[4], h, 2e-2, 8e-3)
    ref = h / np.sqrt((h * h).mean(1, keepdims=True) + 1e-6) * w
    _close(out[3], ref, 3e-2, 1e-2)


def test_softmax_axis0():
    x = _f((200, 96), scale=3.0)
    _close(run("softmax_axis0", {0: x})[1], _softmax(x.astype(np.float64), 0), 1e-6, 1e-5)


def test_argmax_argmin_ties_take_the_first_index():
    x = RNG.integers(-3, 4, (16, 32)).astype(np.float32)  # integer values: many ties
    out = run("argmax_argmin_ties", {0: x})
    np.testing.assert_array_equal(out[1], x.argmax(1).astype(np.int32))
    np.testing.assert_array_equal(out[2], x.argmin(0).astype(np.int32))


def test_cumsum_2d_axes():
    x = _f((20, 50))
    out = run("cumsum_2d_axes", {0: x})
    xd = x.astype(np.float64)
    _close(out[1], np.cumsum(xd, 0), 1e-5)
    _close(out[2], np.cumsum(xd, 1), 1e-5)
    _close(out[3], np.cumsum(xd[:, ::-1], 1)[:, ::-1], 1e-5)


def _rope_tables(s, half, base=10000.0):
    inv = base ** (-np.arange(half) / half)
    ang = np.arange(s)[:, None] * inv[None, :]
    return np.cos(ang).astype(np.float32), np.sin(ang).astype(np.float32)


def test_rope_halves_tables():
    x = _f((6, 4, 64), "float16")
    cos, sin = _rope_tables(6, 32)
    y = run("rope_halves_tables", {0: x, 1: cos, 2: sin})[3].astype(np.float64)
    xd = x.astype(np.float64)
    x1, x2 = xd[..., :32], xd[..., 32:]
    c, s = cos[:, None, :].astype(np.float64), sin[:, None, :].astype(np.float64)
    _close(y, np.concatenate([x1 * c - x2 * s, x2 * c + x1 * s], -1), 2e-3, 2e-3)


def test_rope_interleaved_3d():
    x = _f((8, 64), "bfloat16")
    cos, sin = _rope_tables(8, 32)
    y = run("rope_interleaved_3d", {0: x, 1: cos, 2: sin})[3]
    a, b = x[:, 0::2].astype(np.float64), x[:, 1::2].astype(np.float64)
    ref = np.empty((8, 64))
    ref[:, 0::2] = a * cos - b * sin
    ref[:, 1::2] = b * cos + a * sin
    _close(y, ref, 2e-2, 8e-3)


def test_top3_rows():
    x = _f((5, 300))
    x[1, [10, 20, 30]] = 7.0  # a three-way tie: columns in order
    out = run("top3_rows", {0: x})
    order = np.argsort(-x, axis=1, kind="stable")[:, :3]
    np.testing.assert_array_equal(out[2], order.astype(np.int32))
    np.testing.assert_array_equal(out[1], np.take_along_axis(x, order, 1))


def test_where_piecewise():
    x = _f((500,), scale=3.0)
    x[::41] = np.nan
    out = run("where_piecewise", {0: x})
    xd = x.astype(np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        ref = np.where(xd < -1, -1 - np.log(np.where(xd < -1, -xd, 1.0)),
                       np.where(np.abs(xd) <= 1, xd ** 3, np.sqrt(np.abs(xd))))
    np.testing.assert_allclose(out[1], ref, rtol=1e-5, atol=1e-6)  # NaN where x is NaN, both sides
    flag = ((xd > 0) ^ (xd > 2)) | np.isnan(xd)
    np.testing.assert_array_equal(out[2], flag.astype(np.int8))


def test_int_divmod_negatives_floor_semantics():
    """``//`` rounds toward minus infinity and ``%`` takes the divisor's sign (cuTile's Python
    semantics, the bytecode's ``divi`` rounding ``negative_inf``), by a tile of divisors of both
    signs and by the scalar -7; numpy's ``//`` / ``%`` are the same semantics."""
    x = RNG.integers(-1000, 1000, 300).astype(np.int32)
    d = RNG.integers(-9, 10, 300).astype(np.int32)
    out = run("int_divmod_negatives", {0: x, 1: d})
    dd = np.where(d == 0, 1, d)
    np.testing.assert_array_equal(out[2], x // dd)
    np.testing.assert_array_equal(out[3], x % dd)
    np.testing.assert_array_equal(out[4], x // -7)
    np.testing.assert_array_equal(out[5], x % -7)


def test_conversion_chain():
    """e4m3 bytes -> f16 (exact) -> bf16 (exact: e4m3 has 3 mantissa bits) -> f32 * 3.3 -> int32
    (toward zero) and uint8 of the value clamped to [0, 255]."""
    import ml_dtypes

    vals = (RNG.standard_normal(300) * 40).astype(np.float32)
    e4 = vals.astype(ml_dtypes.float8_e4m3fn)
    out = run("conversion_chain", {0: e4.view(np.uint8)})
    ev = e4.astype(np.float32)
    np.testing.assert_array_equal(out[1], ev.astype(np.float16))
    np.testing.assert_array_equal(out[2], ev)
    f = ev * np.float32(3.3)
    np.testing.assert_array_equal(out[3], f)
    np.testing.assert_array_equal(out[4], np.trunc(f).astype(np.int32))
    np.testing.assert_array_equal(out[5], np.trunc(np.clip(f, 0, 255)).astype(np.uint8))


def test_softmax_3d_last():
    x = _f((4, 16, 100), "float16", 2.0)
    _close(run("softmax_3d_last", {0: x})[1], _softmax(x.astype(np.float64), 2), 1e-3, 3e-3)


def test_reduce_3d_axes():
    x = _f((4, 8, 16))
    out = run("reduce_3d_axes", {0: x})
    xd = x.astype(np.float64)
    _close(out[1], xd.sum(0), 1e-5)
    np.testing.assert_array_equal(out[2], x.max(1))
    _close(out[3], xd - xd.mean(2, keepdims=True), 1e-5)


def test_polar_floor_ceil():
    x, y = _f((300,)), _f((300,))
    x[:3], y[:3] = [1.0, -1.0, 0.0], [0.0, 0.0, 1.0]  # angles 0, 180 and 90 degrees exactly
    out = run("polar_floor_ceil", {0: x, 1: y})
    xd, yd = x.astype(np.float64), y.astype(np.float64)
    _close(out[2], np.hypot(xd, yd), 1e-6, 1e-6)
    _close(out[3], np.arctan2(yd, xd), 1e-6, 1e-6)
    deg = out[3] * np.float32(57.29577951308232)  # the program's own f32 angle in degrees: floor/ceil exact
    np.testing.assert_array_equal(out[4], np.floor(deg) + (np.ceil(deg) - np.floor(deg)) * np.float32(1000))
    assert list(out[4][:3]) == [0.0, 180.0, 90.0]  # whole degrees: ceil == floor


def test_transpose_ragged():
    x = _f((100, 70))
    np.testing.assert_array_equal(run("transpose_ragged", {0: x})[1], x.T)


def test_embedding_2d_ids_with_padding_id():
    ids = RNG.integers(0, 50, (3, 16)).astype(np.int32)
    ids[1, [0, 5, 15]] = -1
    table = _f((50, 32))
    out = run("embedding_2d_ids_pad", {0: ids, 1: table})[2]
    ref = np.where(ids[..., None] >= 0, table[np.maximum(ids, 0)], 0.0)
    np.testing.assert_array_equal(out, ref.astype(np.float32))


def test_cummax_scan():
    x = _f((4, 90))
    np.testing.assert_array_equal(run("cummax_scan", {0: x})[1], np.maximum.accumulate(x, axis=1))


@pytest.mark.parametrize("flag", [1, 0, -3])
def test_where_scalar_flag(flag):
    x, y = _f((256,), "bfloat16"), _f((256,), "bfloat16")
    z = run("where_scalar_flag", {0: x, 1: y, 3: flag})[2]
    np.testing.assert_array_equal(z[:256], x if flag > 0 else y)
    np.testing.assert_array_equal(z[256:], x * 2 if flag > 0 else y)


def test_reverse_chunk_suffix_checkerboard():
    x = _f((3, 300))
    y = run("reverse_chunk_suffix", {0: x})[1]
    suffix = np.cumsum(x.astype(np.float64)[:, ::-1], 1)[:, ::-1]
    sign = np.where((np.arange(300)[None, :] + np.arange(3)[:, None]) % 2 == 0, 1.0, -1.0)
    _close(y, suffix * sign, 1e-4)


# ----------------------------------------------------------------------------------------------- refused by the tiers


def test_decode_16_row_tile_on_the_simt_path():
    """16 query rows (below a WGMMA's 64): the chained kernel refuses it, the SIMT path's mma.sync
    dots run the online softmax."""
    q, k, v = _f((4, 16, 64), "float16"), _f((4, 256, 64), "float16"), _f((4, 256, 64), "float16")
    o = run("attn_decode_small_tile", {0: q, 1: k, 2: v})[3].astype(np.float64)
    s = q.astype(np.float64) @ k.astype(np.float64).transpose(0, 2, 1) * 0.125
    _close(o, _softmax(s, 2) @ v.astype(np.float64), 4e-3, 1e-2)


def test_grouped_gemm_row_ranges_on_the_simt_path():
    """Groups of 100, 0 and 200 rows (an empty group; ragged row tiles) times their own W[g]; rows
    past a group's end must not be written by its last tile (they belong to the next group)."""
    x = _f((300, 64), "float16")
    w = _f((3, 64, 128), "float16", 0.125)
    offs = np.array([0, 100, 100, 300], np.int32)
    y = run("mm_grouped_row_ranges", {0: x, 1: w, 2: offs})[3].astype(np.float64)
    ref = np.concatenate([x[offs[g]:offs[g + 1]].astype(np.float64) @ w[g].astype(np.float64) for g in range(3)])
    _close(y, ref, 2e-3, 2e-3)


def test_two_dot_loops_with_state_between_on_the_simt_path():
    """Two key loops with O halved between them (not one loop's halves: the tiers refuse it,
    test_user_sweep4_compile.py): the SIMT path runs the program as written."""
    q, k, v = _f((2, 128, 64), "float16"), _f((2, 128, 64), "float16"), _f((2, 128, 64), "float16")
    o = run("attn_two_loops_state_between", {0: q, 1: k, 2: v})[3].astype(np.float64)
    s = q.astype(np.float64) @ k.astype(np.float64).transpose(0, 2, 1) * 0.125 * 1.4426950408889634
    ref = np.empty((2, 128, 64))
    for qt in range(2):
        rows = slice(64 * qt, 64 * qt + 64)
        sc = s[:, rows, :64 * (qt + 1)]
        e = np.exp2(sc - sc.max(-1, keepdims=True))
        weight = np.where(np.arange(64 * (qt + 1)) < 64 * qt, 0.5, 1.0)  # the first loop's share halved
        ref[:, rows] = (e * weight) @ v[:, :64 * (qt + 1)].astype(np.float64) / e.sum(-1, keepdims=True)
    _close(o, ref, 4e-3, 1e-2)


def test_paged_kv_attention_simt_fallback():
    """Sequences of 200, 64 and 130 keys in 64-key pages scattered over a 12-page cache (the page
    numbers from the block table inside the loop), on the SIMT fallback (the chained kernel's run:
    test_user_sweep4_emulated.py)."""
    q = _f((3, 64, 64), "float16")
    kc, vc = _f((12, 64, 64), "float16"), _f((12, 64, 64), "float16")
    table = RNG.permutation(12).astype(np.int32).reshape(3, 4)
    lens = np.array([200, 64, 130], np.int32)
    o = run("attn_paged_kv", {0: q, 1: kc, 2: vc, 3: table, 4: lens})[5].astype(np.float64)
    for b in range(3):
        k = kc[table[b]].reshape(256, 64)[:lens[b]].astype(np.float64)
        v = vc[table[b]].reshape(256, 64)[:lens[b]].astype(np.float64)
        s = q[b].astype(np.float64) @ k.T * 0.125
        _close(o[b], _softmax(s, 1) @ v, 4e-3, 1e-2)


def test_attention_without_a_loop_on_the_simt_path():
    """All 128 keys in one tile, a plain softmax between the two dots (no loop for the tiers)."""
    q, k, v = _f((2, 128, 64), "float16"), _f((2, 128, 64), "float16"), _f((2, 128, 64), "float16")
    o = run("attn_short_no_loop", {0: q, 1: k, 2: v})[3].astype(np.float64)
    s = q.astype(np.float64) @ k.astype(np.float64).transpose(0, 2, 1) * 0.125
    _close(o, _softmax(s, 2) @ v.astype(np.float64), 4e-3, 1e-2)


# ----------------------------------------------------------------------------------------------- tier programs whose
# operand types the PTX emulator does not take (bf16, int8): their SIMT fallback against numpy (the program's
# semantics and this file's references; the tensor-core kernels run in tests/gpu/test_user_sweep4_gpu.py)


def test_mqa_group_from_shape_simt_fallback():
    q, k, v = _f((4, 256, 64), "bfloat16"), _f((2, 256, 64), "bfloat16"), _f((2, 256, 64), "bfloat16")
    o = run("attn_mqa_group_from_shape", {0: q, 1: k, 2: v})[3]
    kk, vv = np.repeat(k, 2, 0).astype(np.float64), np.repeat(v, 2, 0).astype(np.float64)
    s = q.astype(np.float64) @ kk.transpose(0, 2, 1) * 0.125
    _close(o, _softmax(s, 2) @ vv, 2e-2, 2e-2)


def test_cross_ragged_both_simt_fallback():
    q, k, v = _f((2, 192, 64), "bfloat16"), _f((2, 328, 64), "bfloat16"), _f((2, 328, 64), "bfloat16")
    o = run("attn_cross_ragged_both", {0: q, 1: k, 2: v})[3]
    s = q.astype(np.float64) @ k.astype(np.float64).transpose(0, 2, 1) * 0.125
    _close(o, _softmax(s, 2) @ v.astype(np.float64), 2e-2, 2e-2)


def test_int8_ragged_k_scales_simt_fallback():
    a = RNG.integers(-128, 128, (192, 200)).astype(np.int8)
    b = RNG.integers(-128, 128, (200, 160)).astype(np.int8)
    rs, cs = _f((192,), scale=1e-3), _f((160,), scale=1e-2)
    c = run("mm_int8_ragged_k_scales", {0: a, 1: b, 2: rs, 3: cs})[4]
    ref = (a.astype(np.int64) @ b.astype(np.int64)).astype(np.float64) * rs[:, None] * cs[None, :]
    _close(c, ref, 1e-3, 2e-3)


def test_both_transposed_simt_fallback():
    at, bt = _f((256, 128), "bfloat16"), _f((256, 256), "bfloat16")
    c = run("mm_both_transposed", {0: at, 1: bt})[2]
    _close(c, at.astype(np.float64).T @ bt.astype(np.float64).T, 1e-3, 1e-4)
