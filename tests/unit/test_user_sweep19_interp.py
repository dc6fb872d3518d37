"""The nineteenth user sweep (``tileorch.testing.user_programs19``: issue 21 item 1, every cuda_tile op
on programs without a dot) on the CPU's lockstep SIMT interpreter (tests/unit/simt_interp.py, through
test_user_sweep_interp.run) against numpy references computed independently (float64, Python
integers for wrapping and floor division) from the same inputs; outputs pre-filled with NaN / an
integer sentinel / the fp8 NaN byte / the bool byte 2 (tables the atomics update start as the user's
``torch.full`` / ``zeros``), ragged sizes: 4-D permutes and reshapes, ``cat`` along each axis,
4-D broadcasts, ``extract``, 3-D grids, one-element tiles, a grid larger than the data, 1 x 65536
rows, int16 / int8 / int64 / uint32 / bool / fp8 element types and their conversions at the edges,
scans along axis 0 and of int types, column argmax / argmin with ties, ``where`` chains, atomics of
every kind cuTile exposes (``or`` / ``and`` / ``xor`` / ``cas`` / ``xchg`` / ``add``), masked and
padded gathers, scatters with duplicates, loops of zero and negative trip counts.
tests/gpu/test_user_sweep19_gpu.py runs every test here again on the GPU."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("xdsl")
pytest.importorskip("cuda.tile")
ml_dtypes = pytest.importorskip("ml_dtypes")

import test_user_sweep_interp as sweep  # noqa: E402
from test_user_sweep_interp import run, sample  # noqa: E402
from test_user_sweep_interp import wrap_bits as _wrap  # noqa: E402

from tileorch.testing.user_programs19 import PROGRAMS  # noqa: E402

sweep.PROGRAMS.update(PROGRAMS)  # run() looks programs up in test_user_sweep_interp.PROGRAMS
sweep.NP.update({"uint16": np.uint16, "uint64": np.uint64, "float8_e4m3fn": np.uint8, "float8_e5m2": np.uint8})

RNG = np.random.default_rng(1919)


def _f(shape, dt="float32", scale=1.0):
    return sample(RNG, shape, dt, scale)


def _i(lo, hi, shape, dt):
    return RNG.integers(lo, hi, shape).astype(dt)


def _d(x):
    return np.asarray(x, np.float64)


def _close(got, want, rtol=1e-5, atol=1e-6):
    np.testing.assert_allclose(_d(got), _d(want), rtol=rtol, atol=atol)


def every_case(test) -> None:
    """Call the test function ``test`` once, or once per case of its ``parametrize`` mark (how the
    emulated and GPU files run the parametrized references here)."""
    params = [m for m in getattr(test, "pytestmark", []) if m.name == "parametrize"]
    if not params:
        test()
        return
    names = [n.strip() for n in params[0].args[0].split(",")]
    for case in params[0].args[1]:
        test(**dict(zip(names, case if isinstance(case, tuple) else (case,))))


def _pad(x, shape, value=0):
    out = np.full(shape, value, x.dtype)
    out[tuple(slice(0, n) for n in x.shape)] = x
    return out


# ----------------------------------------------------------------------------------------------- shapes


def test_permute_4d_int16_and_reshape():
    x = _i(-30000, 30000, (3, 5, 6, 2), np.int16)
    out = run("permute_4d_int16_and_reshape", {0: x})
    np.testing.assert_array_equal(out[1], x.transpose(3, 1, 0, 2))
    np.testing.assert_array_equal(out[2], _pad(x, (4, 8, 8, 2)).reshape(32, 16))


def test_reshape_1d_to_4d_sum_each_axis():
    x = _f(64)
    out = run("reshape_1d_to_4d_sum_each_axis", {0: x})
    t = _d(x).reshape(2, 4, 2, 4)
    for axis in range(4):
        _close(out[1 + axis], t.sum(axis=axis), atol=1e-5)


def test_cat_rank2_axis0_and_axis1_int32():
    a = _i(-2 ** 31, 2 ** 31, (13, 16), np.int32)
    b = _i(-1000, 1000, (13, 16), np.int32)
    out = run("cat_rank2_axis0_and_axis1_int32", {0: a, 1: b})
    pa, pb = _pad(a, (16, 16)), _pad(b, (16, 16))
    want0 = np.concatenate([np.concatenate([pa[4 * i:4 * i + 4], pb[4 * i:4 * i + 4]]) for i in range(4)])
    np.testing.assert_array_equal(out[2], want0)
    np.testing.assert_array_equal(out[3], np.concatenate([a, _wrap(b.astype(np.int64) - a, 32)], axis=1))


def test_cat_rank3_axis0_axis1_f16():
    a, b = _f((2, 4, 8), "float16"), _f((2, 4, 8), "float16")
    out = run("cat_rank3_axis0_axis1_f16", {0: a, 1: b})
    np.testing.assert_array_equal(out[2], np.concatenate([a, b], 0))
    np.testing.assert_array_equal(out[3], np.concatenate([a, b * np.float16(2)], 1))


def test_cat_chain_four_int8_pieces():
    p, q = _i(-128, 128, 100, np.int8), _i(-128, 128, 100, np.int8)
    p[:3] = [-128, 127, 0]
    q[:3] = [-1, 1, -128]
    out = run("cat_chain_four_int8_pieces", {0: p, 1: q})
    pp, qq = _pad(p, (128,)).astype(np.int64), _pad(q, (128,)).astype(np.int64)
    want = np.concatenate([np.concatenate([pp[32 * i:32 * i + 32], qq[32 * i:32 * i + 32],
                                           _wrap(pp[32 * i:32 * i + 32] + qq[32 * i:32 * i + 32], 8),
                                           _wrap(-pp[32 * i:32 * i + 32], 8)]) for i in range(4)])
    np.testing.assert_array_equal(out[2], want)


def test_broadcast_to_4d_row_and_column():
    r, c = _f(7), _f(3)
    out = run("broadcast_to_4d_row_and_column", {0: r, 1: c})
    a = np.arange(2, dtype=np.float64)[:, None, None, None] + 1
    want = _d(r)[None, None, None, :] * a + _d(c)[None, :, None, None] + np.zeros((2, 3, 4, 7))
    _close(out[2], want)


def test_extract_quadrants_swapped():
    x = _f((7, 7))
    out = run("extract_quadrants_swapped", {0: x})
    p = _pad(x, (8, 8))
    want = np.block([[p[4:, 4:], p[4:, :4]], [p[:4, 4:], p[:4, :4]]])[:7, :7]
    np.testing.assert_array_equal(out[1], want)


def test_one_element_tiles_int64_grid_3d():
    x = _i(-2 ** 40, 2 ** 40, (3, 4, 5), np.int64)
    out = run("one_element_tiles_int64_grid_3d", {0: x})
    i, j, k = np.meshgrid(np.arange(3), np.arange(4), np.arange(5), indexing="ij")
    want = _wrap([int(v) * int(w) for v, w in zip(x.ravel(), (100 * i + 10 * j + k).ravel())], 64).reshape(3, 4, 5)
    np.testing.assert_array_equal(out[1], want.transpose(2, 1, 0))


def test_tile_max_per_block_grid_3d():
    x = _f((3, 37, 50))
    x[1, 36, 49] = 50.0  # the corner of the last, ragged tile
    out = run("tile_max_per_block_grid_3d", {0: x})
    want = np.array([[[x[b, 8 * i:8 * i + 8, 16 * j:16 * j + 16].max() for j in range(4)] for i in range(5)]
                     for b in range(3)])
    np.testing.assert_array_equal(out[1], want)


def test_grid_larger_than_data():
    x = _f(300)
    out = run("grid_larger_than_data", {0: x, 2: np.zeros(1, np.int32)})
    _close(out[1], 2.0 * _d(x) + 1.0)
    assert out[2][0] == 300


def test_wide_row_1x65536_int32_sum_argmax():
    x = _i(-1000, 1000, (2, 65536), np.int32)
    x[0, [777, 60000]] = 5000  # a tie: the first
    x[1, 65535] = 4000  # the last element
    out = run("wide_row_1x65536_int32_sum_argmax", {0: x})
    np.testing.assert_array_equal(out[1], x.astype(np.int64).sum(1))
    np.testing.assert_array_equal(out[2], [777, 65535])


def test_space_to_depth_2x2_rank4():
    x = _f((7, 6))
    out = run("space_to_depth_2x2_rank4", {0: x})
    p = _pad(x, (8, 8))
    want = np.stack([p[a::2, b::2].ravel() for a in range(2) for b in range(2)])  # phase (a, b), then (row, col)
    np.testing.assert_array_equal(out[1], want)


def test_transposes_of_every_width():
    ins = [RNG.random((7, 13)) < 0.5, _i(-128, 128, (7, 13), np.int8), _i(0, 256, (7, 13), np.uint8),
           _f((7, 13), "float16"), RNG.standard_normal((7, 13)), _i(-2 ** 62, 2 ** 62, (7, 13), np.int64)]
    # the e4m3 bytes: not the NaN byte the outputs start as (0x7F), nor -NaN (0xFF): an e4m3 tile lives in f32
    # registers and cvt.rn.satfinite stores a NaN of either sign as 0x7F (measured on an H200; emit.FP8_KINDS)
    ins[2][(ins[2] & 0x7F) == 0x7F] = 1
    out = run("transposes_of_every_width", dict(enumerate(ins)))
    for k, x in enumerate(ins):
        want = x.T.astype(np.uint8) if x.dtype == np.bool_ else x.T
        np.testing.assert_array_equal(out[6 + k], want, err_msg=str(k))


def test_bool_tiles_cat_permute_reshape():
    m = RNG.random((4, 8)) < 0.5
    out = run("bool_tiles_cat_permute_reshape", {0: m})
    both = np.concatenate([m, ~m], 0)
    np.testing.assert_array_equal(out[1], both.T.astype(np.uint8))
    np.testing.assert_array_equal(out[2], both.reshape(2, 32).astype(np.uint8))


# ----------------------------------------------------------------------------------------------- element types


def test_int16_gather_by_int64_flat_index():
    x = _i(-2 ** 15, 2 ** 15, 9 * 37, np.int16)
    rows = np.array([8, 0, 3, 3, 7], np.int32)
    out = run("int16_gather_by_int64_flat_index", {0: x, 1: rows})
    np.testing.assert_array_equal(out[2], x.reshape(9, 37)[rows])


def test_bool_arrays_and_xor_not():
    a, b = RNG.random(300) < 0.5, RNG.random(300) < 0.3
    out = run("bool_arrays_and_xor_not", {0: a, 1: b, 5: np.zeros(1, np.int32)})
    np.testing.assert_array_equal(out[2], (a & b).astype(np.uint8))
    np.testing.assert_array_equal(out[3], (a ^ b).astype(np.uint8))
    np.testing.assert_array_equal(out[4], (~a).astype(np.uint8))
    assert out[5][0] == (a & b).sum()


def test_compare_stored_as_four_dtypes():
    x = _f(300)
    x[:4] = [np.nan, 0.0, -0.0, np.inf]
    out = run("compare_stored_as_four_dtypes", {0: x})
    m = x > 0
    np.testing.assert_array_equal(out[1], m.astype(np.uint8))
    np.testing.assert_array_equal(out[2], m.astype(np.uint8))
    np.testing.assert_array_equal(out[3], m.astype(np.int32))
    np.testing.assert_array_equal(out[4], m.astype(np.float16))


def test_casts_to_bool():
    x = _f(300, scale=2.0)
    x[:10] = [0.5, 2.0, -1.0, 0.0, np.nan, np.inf, -0.0, -0.5, 1.0, -np.inf]
    k = _i(-3, 4, 300, np.int32)
    k[:4] = [2, 256, -1, -2 ** 31]
    out = run("casts_to_bool", {0: x, 1: k})
    # the f32 cast is cuda_tile's ftoi (unsigned, to i1): truncation saturating to [0, 1], NaN 0
    np.testing.assert_array_equal(out[2], _saturating(x, 0, 1).astype(np.uint8))
    np.testing.assert_array_equal(out[3], (k != 0).astype(np.uint8))


def test_tf32_rounding_and_f64_bits():
    x = _f(300, scale=100.0)
    x.view(np.uint32)[:4] = [0x3F801000, 0x3F803000, 0x3F801001, 0xBF801000]  # ties (kept bit even / odd),
    x[4:8] = [np.nan, np.inf, 3.4e38, 1e-40]  # past a tie, a negative tie; NaN, inf, near the top, subnormal
    d = RNG.standard_normal(300) * 1e200
    d[:3] = [np.nan, -0.0, np.inf]
    out = run("tf32_rounding_and_f64_bits", {0: x, 1: d})
    u = x.view(np.uint32).astype(np.uint64)  # the IR's ftof to tf32: nearest even, 13 low bits cleared
    want = ((u + 0xFFF + ((u >> 13) & 1)) & ~np.uint64(0x1FFF)).astype(np.uint32).view(np.float32)
    assert np.isnan(out[2][4])
    np.testing.assert_array_equal(np.delete(out[2], 4), np.delete(want, 4))
    np.testing.assert_array_equal(out[3].view(np.uint64), d.view(np.uint64) ^ np.uint64(1 << 63))
    bits = sweep._bf16_bits(x)
    keep = ~np.isnan(x)  # (a NaN's bf16 payload is not asked)
    np.testing.assert_array_equal(out[4].view(np.uint16)[keep], bits[keep])


def test_int8_abs_negate_multiply_wrap():
    a, b = _i(-128, 128, 300, np.int8), _i(-128, 128, 300, np.int8)
    a[:4] = [-128, 127, -1, 0]
    b[:4] = [-128, 127, -128, 5]
    out = run("int8_abs_negate_multiply_wrap", {0: a, 1: b})
    a64, b64 = a.astype(np.int64), b.astype(np.int64)
    np.testing.assert_array_equal(out[2], _wrap(np.abs(a64), 8))
    np.testing.assert_array_equal(out[3], _wrap(-a64, 8))
    np.testing.assert_array_equal(out[4], _wrap(a64 * b64, 8))


def _saturating(t, lo, hi):
    """Truncation toward zero, saturating at ``[lo, hi]``, NaN 0 (cuda_tile's ``ftoi``)."""
    t = _d(t)
    return np.where(np.isnan(t), 0, np.clip(np.trunc(np.nan_to_num(t, nan=0.0, posinf=np.inf, neginf=-np.inf)),
                                            lo, hi)).astype(np.float64)


def test_float_to_int_nan_inf_out_of_range():
    x = _f(300, scale=200.0)
    x[:12] = [np.nan, np.inf, -np.inf, 3e9, -3e9, 1e19, -1e19, 2.5, -2.5, 255.9, -128.9, 127.9]
    d = RNG.standard_normal(300) * 1e9
    d[:6] = [np.nan, np.inf, -np.inf, 2147483647.9, -2147483648.9, -0.99]
    out = run("float_to_int_nan_inf_out_of_range", {0: x, 1: d})
    np.testing.assert_array_equal(out[2], _saturating(x, -2 ** 31, 2 ** 31 - 1))
    np.testing.assert_array_equal(_d(out[3]), _saturating(x, -2 ** 63, 2 ** 63 - 1))
    np.testing.assert_array_equal(out[4], _saturating(x, -128, 127))
    np.testing.assert_array_equal(out[5], _saturating(x, 0, 255))
    np.testing.assert_array_equal(out[6], _saturating(d, -2 ** 31, 2 ** 31 - 1))


def _e4m3(bytes_):
    return np.asarray(bytes_, np.uint8).view(ml_dtypes.float8_e4m3fn).astype(np.float64)


def _to_e4m3(x):
    """Nearest even, saturating past 448 (infinities too), NaN kept (``cvt.rn.satfinite``)."""
    t = _d(x)
    return np.where(np.isnan(t), np.nan, np.clip(t, -448, 448).astype(ml_dtypes.float8_e4m3fn).astype(np.float64))


def test_e4m3_from_f16_and_bf16_saturating():
    h = _f(300, "float16", scale=200.0)
    h[:8] = [np.nan, np.inf, -np.inf, 60000.0, -464.0, 448.0, 1e-7, -0.0]
    bf = _f(300, "bfloat16", scale=200.0)
    bf[:5] = [np.nan, 1e30, -1e30, 460.0, -0.001]
    out = run("e4m3_from_f16_and_bf16_saturating", {0: h, 1: bf})
    for q, r, src in ((out[2], out[4], h), (out[3], out[5], bf)):
        want = _to_e4m3(src)
        np.testing.assert_array_equal(_e4m3(q), want)
        np.testing.assert_array_equal(_d(r), want)


def test_int8_int64_floordiv_mod_negatives():
    a, b = _i(-128, 128, 300, np.int8), _i(-128, 128, 300, np.int8)
    b[b == 0] = 7
    a[:6] = [-128, -128, -7, 7, -7, 127]
    b[:6] = [1, -3, 2, -2, -2, -128]
    a64 = RNG.integers(-2 ** 41, 2 ** 41, 300)
    b64 = RNG.integers(-2 ** 20, 2 ** 20, 300)
    b64[b64 == 0] = -5
    a64[:3] = [-(2 ** 62), 2 ** 62 + 1, -1]
    b64[:3] = [3, -7, 2 ** 40]
    out = run("int8_int64_floordiv_mod_negatives", {0: a, 1: b, 4: a64, 5: b64})
    np.testing.assert_array_equal(out[2], [int(x) // int(y) for x, y in zip(a, b)])
    np.testing.assert_array_equal(out[3], [int(x) % int(y) for x, y in zip(a, b)])
    np.testing.assert_array_equal(out[6], [int(x) // int(y) for x, y in zip(a64, b64)])
    np.testing.assert_array_equal(out[7], [int(x) % int(y) for x, y in zip(a64, b64)])


def test_uint32_divmod_past_2_31():
    a = RNG.integers(0, 2 ** 32, 300).astype(np.uint32)
    b = RNG.integers(1, 2 ** 32, 300).astype(np.uint32)
    b[:100] = RNG.integers(1, 1000, 100)
    a[:3], b[:3] = [2 ** 32 - 1, 2 ** 31, 3], [2 ** 31 + 1, 2 ** 32 - 1, 2 ** 31]
    out = run("uint32_divmod_past_2_31", {0: a, 1: b})
    np.testing.assert_array_equal(out[2], [int(x) // int(y) for x, y in zip(a, b)])
    np.testing.assert_array_equal(out[3], [int(x) % int(y) for x, y in zip(a, b)])


# ----------------------------------------------------------------------------------------------- scans and selection


def test_scans_axis0_int_types():
    x = _i(-3, 4, (16, 37), np.int32)
    x[:, 0] = 2 ** 30  # the int32 cumsum wraps down column 0; the int64 cumprod passes 2**63 and wraps
    w = _i(-2 ** 15, 2 ** 15, (16, 37), np.int16)
    out = run("scans_axis0_int_types", {0: x, 3: w})
    xs = x.astype(object)
    np.testing.assert_array_equal(out[1], _wrap(np.cumsum(xs, axis=0), 32).reshape(16, 37))
    np.testing.assert_array_equal(out[2], _wrap(np.cumprod(xs[::-1], axis=0)[::-1], 64).reshape(16, 37))
    wp = _pad(w, (16, 48)).astype(object).reshape(16, 3, 16)  # each program scans its own 16 columns
    np.testing.assert_array_equal(out[4], _wrap(np.cumsum(wp, axis=2), 16).reshape(16, 48)[:, :37])


def test_cumprod_axis0_f32_zeros_nan():
    x = 1.0 + _f((16, 37), scale=0.1)
    x[5, 0] = 0.0
    x[3, 1] = np.nan
    x[2, 2], x[9, 2] = np.inf, 0.0  # inf * 0 = NaN from row 9 on
    x[0, 36] = -np.inf
    out = run("cumprod_axis0_f32_zeros_nan", {0: x})
    with np.errstate(invalid="ignore"):
        want = np.cumprod(_d(x), axis=0)
    _close(out[1], want, rtol=1e-5)


def test_uint8_saturating_add_clamp():
    a, b = _i(0, 256, 300, np.uint8), _i(0, 256, 300, np.uint8)
    a[:3], b[:3] = [255, 0, 128], [255, 255, 127]
    out = run("uint8_saturating_add_clamp", {0: a, 1: b})
    a64, b64 = a.astype(np.int64), b.astype(np.int64)
    np.testing.assert_array_equal(out[2], np.minimum(a64 + b64, 255))
    np.testing.assert_array_equal(out[3], np.maximum(a64 - b64, 0))


def test_bool_running_count_axis0():
    m = RNG.random((32, 50)) < 0.4
    out = run("bool_running_count_axis0", {0: m})
    np.testing.assert_array_equal(out[1], np.cumsum(m, axis=0))


def test_column_argmax_argmin_ties():
    x = np.round(_f((21, 50), "float16") * 2).astype(np.float16)  # many ties
    x[:, 3] = -np.inf  # every value -inf: row 0
    w = _i(-3, 3, (21, 50), np.int16)
    w[:, 5] = 32767  # every value the padding's: row 0
    out = run("column_argmax_argmin_ties", {0: x, 1: w})
    np.testing.assert_array_equal(out[2], np.argmax(x, axis=0))
    np.testing.assert_array_equal(out[3], np.argmin(w, axis=0))


def test_argmax_argmin_middle_and_first_axis_3d():
    x = _i(-3, 3, (3, 7, 13), np.int64) * 2 ** 40  # ties, values past 2**32
    x[1, :, 4] = -(2 ** 63)  # every value the padding's: index 0
    h = np.round(_f((3, 7, 13), "float16") * 2).astype(np.float16)
    h[:, 2, 5] = np.inf  # every value the padding's: index 0
    out = run("argmax_argmin_middle_and_first_axis_3d", {0: x, 1: h})
    np.testing.assert_array_equal(out[2], np.argmax(x, axis=1))
    np.testing.assert_array_equal(out[3], np.argmin(h, axis=0))


def test_top3_down_columns_int16():
    x = _i(-5, 5, (21, 50), np.int16)
    x[:, 7] = -32768  # all at the padding value
    out = run("top3_down_columns_int16", {0: x})
    np.testing.assert_array_equal(out[1], -np.sort(-x.astype(np.int64), axis=0)[:3])


def test_argmax_argmin_index_past_16_bits_f16():
    x = (RNG.random((2, 65536)) * 100).astype(np.float16)
    x[0, 50000], x[0, 60000] = 1000.0, 1000.0  # a tie past 2**15: the first
    x[0, 65535] = -5.0
    x[1, 65535] = 2000.0
    x[1, 40000] = -7.0
    out = run("argmax_argmin_index_past_16_bits_f16", {0: x})
    np.testing.assert_array_equal(out[1], np.argmax(x, axis=1))
    np.testing.assert_array_equal(out[2], np.argmin(x, axis=1))


def test_argmin_argmax_uint8_index_past_255():
    x = _i(1, 255, (4, 300), np.uint8)
    x[0, 299], x[1, 256], x[2, 5] = 0, 0, 0
    x[0, 280], x[3, 290] = 255, 255
    x[3, :] = 7  # all equal: index 0 of both
    out = run("argmin_argmax_uint8_index_past_255", {0: x})
    np.testing.assert_array_equal(out[1], np.argmin(x, axis=1))
    np.testing.assert_array_equal(out[2], np.argmax(x, axis=1))


def test_where_chain_piecewise():
    x = _f(300, scale=3.0)
    x[:7] = [np.nan, -2.0, 0.0, 1.0, 3.0, -np.inf, np.inf]
    out = run("where_chain_piecewise", {0: x})
    t = _d(x)
    with np.errstate(invalid="ignore"):
        want = np.where(t < -2, -1.0, np.where(t < 0, t / 2, np.where(t < 1, t * t, np.where(t < 3, np.sqrt(np.abs(t)),
                                                                                             3.0))))
        code = np.where(t < -2, 0, np.where(t < 0, 1, np.where(t < 1, 2, np.where(t < 3, 3, 4))))
    _close(out[1], want)
    np.testing.assert_array_equal(out[2], code)


def test_where_int64_and_f16_branches():
    a = _i(-2 ** 50, 2 ** 50, 300, np.int64)
    h = _f(300, "float16")
    h[:3] = [np.nan, -0.0, -np.inf]
    out = run("where_int64_and_f16_branches", {0: a, 1: h})
    neg = h < 0
    np.testing.assert_array_equal(out[2], np.where(neg, a, 5_000_000_000))
    np.testing.assert_array_equal(out[3], np.where(neg, -h, h * np.float16(0.5)))


# ----------------------------------------------------------------------------------------------- atomics


def test_atomic_or_bitmap_uint32():
    k = _i(0, 300, 300, np.int32)
    k[:4] = [31, 31, 63, 299]  # bit 31 (twice), the last bit used
    out = run("atomic_or_bitmap_uint32", {0: k, 1: np.zeros(10, np.uint32)})
    want = np.zeros(10, np.uint64)
    for v in k:
        want[v // 32] |= np.uint64(1 << (v % 32))
    np.testing.assert_array_equal(out[1], want.astype(np.uint32))


def test_atomic_and_xor_int64_words():
    m = RNG.integers(0, 2 ** 62, 300).astype(np.int64) & (1 << np.arange(300) % 63).astype(np.int64)
    m[:2] = [-(2 ** 63), 1 << 40]
    idx = _i(0, 7, 300, np.int32)
    init_and = np.full(7, -1, np.int64)
    init_xor = RNG.integers(-2 ** 62, 2 ** 62, 7).astype(np.int64)
    out = run("atomic_and_xor_int64_words", {0: m, 1: idx, 2: init_and, 3: init_xor})
    want_and, want_xor = init_and.copy(), init_xor.copy()
    for v, k in zip(m, idx):
        want_and[k] &= ~v
        want_xor[k] ^= v
    np.testing.assert_array_equal(out[2], want_and)
    np.testing.assert_array_equal(out[3], want_xor)


def test_histogram_sum_by_cas_add_loop():
    v = _i(-1000, 1000, 300, np.int32)
    b = _i(0, 4, 300, np.int32)  # bin 4 keeps its start
    init = np.array([0, 5, -5, 2 ** 30, 77], np.int32)
    out = run("histogram_sum_by_cas_add_loop", {0: v, 1: b, 2: init})
    want = init.astype(np.int64) + np.bincount(b, weights=v, minlength=5).astype(np.int64)
    np.testing.assert_array_equal(out[2], want)


def test_atomic_xchg_f32_returns_old():
    idx = np.full(300, 40, np.int32)  # past the table: dropped
    idx[RNG.permutation(300)[:40]] = np.arange(40)
    tab = _f(40)
    v = _f(300)
    out = run("atomic_xchg_f32_returns_old", {0: tab, 1: idx, 2: v})
    hit = idx < 40
    np.testing.assert_array_equal(out[3][hit], tab[idx[hit]])
    want = tab.copy()
    want[idx[hit]] = v[hit]
    np.testing.assert_array_equal(out[0], want)


def test_scatter_duplicates_beside_atomic_add():
    idx = _i(0, 20, 300, np.int32)
    idx[:6] = 3  # six writers in one tile
    v = np.round(_f(300) * 8)  # small integers: sums exact in any order
    out = run("scatter_duplicates_beside_atomic_add", {0: idx, 1: v, 3: np.zeros(20, np.float32)})
    np.testing.assert_array_equal(out[3], np.bincount(idx, weights=v, minlength=20))
    for k in range(20):
        assert out[2][k] in set(v[idx == k].tolist()), k  # one of the writers


def test_atomic_add_int64_tickets():
    start = 2 ** 40 + 3
    out = run("atomic_add_int64_tickets", {0: np.array([start], np.int64)})
    assert out[0][0] == start + 300
    np.testing.assert_array_equal(np.sort(out[1]), start + np.arange(300))


def test_histogram_of_int8_values():
    x = _i(-128, 128, 300, np.int8)
    x[:2] = [-128, 127]
    out = run("histogram_of_int8_values", {0: x, 1: np.zeros(256, np.int32)})
    np.testing.assert_array_equal(out[1], np.bincount(x.astype(np.int64) + 128, minlength=256))


# ----------------------------------------------------------------------------------------------- gather / scatter


def test_gather_masked_nan_padding_f16():
    x = _f(50, "float16")
    k = _i(-60, 110, 300, np.int32)
    m = RNG.random(300) < 0.8
    out = run("gather_masked_nan_padding_f16", {0: x, 1: k, 2: m})
    ok = m & (k >= 0) & (k < 50)
    np.testing.assert_array_equal(out[3], np.where(ok, x[np.clip(k, 0, 49)], np.float16(np.nan)))


def test_gather_and_atomic_by_small_unsigned_indices():
    x = _f(300)
    u8 = _i(0, 256, 300, np.uint8)
    u8[:3] = [255, 128, 200]
    i16 = _i(-300, 300, 300, np.int16)
    u32 = RNG.integers(0, 300, 300).astype(np.uint32)
    u32[:3] = [2 ** 31, 2 ** 32 - 1, 2 ** 31 + 5]  # past the table (as int32 they would be negative)
    out = run("gather_and_atomic_by_small_unsigned_indices", {0: x, 1: u8, 2: i16, 3: u32, 7: np.zeros(300, np.int32)})
    np.testing.assert_array_equal(out[4], x[u8])
    np.testing.assert_array_equal(out[5], np.where(i16 >= 0, x[np.clip(i16, 0, 299)], 0.0))
    np.testing.assert_array_equal(out[6], np.where(u32 < 300, x[np.minimum(u32, 299)], 0.0))
    np.testing.assert_array_equal(out[7], np.bincount(u8, minlength=300))


def test_gather_2d_index_pair_padding_minus_one():
    x = _i(0, 1000, (9, 11), np.int32)
    r = np.array([0, 8, -1, 9, 4, 4, 100, 3, 2, 1, 0, 5, 6, 7, -100, 8], np.int32)
    c = np.array([10, 0, 11, -1, 5, 5, 3, 2, 1, 9, 8, 7, 6, 4, 12, 0], np.int32)
    out = run("gather_2d_index_pair_padding_minus_one", {0: x, 1: r, 2: c})
    ok = ((r >= 0) & (r < 9))[:, None] & ((c >= 0) & (c < 11))[None, :]
    want = np.where(ok, x[np.clip(r, 0, 8)][:, np.clip(c, 0, 10)], -1)
    np.testing.assert_array_equal(out[3], want)


def test_reverse_rows_by_gather():
    x = _f((5, 37))
    out = run("reverse_rows_by_gather", {0: x})
    np.testing.assert_array_equal(out[1], x[:, ::-1])


def test_inverse_permutation_scatter_int64():
    perm = RNG.permutation(300).astype(np.int64)
    x = _f(300)
    out = run("inverse_permutation_scatter_int64", {0: perm, 1: x})
    want = np.empty(300, np.float32)
    want[perm] = x
    np.testing.assert_array_equal(out[2], want)
    np.testing.assert_array_equal(out[3], np.argsort(perm))


def test_scatter_adjacent_bytes_int8_bool():
    perm = RNG.permutation(300).astype(np.int32)
    x = _i(-128, 128, 300, np.int8)
    out = run("scatter_adjacent_bytes_int8_bool", {0: perm, 1: x})
    want = np.empty(300, np.int8)
    want[perm] = x
    np.testing.assert_array_equal(out[2], want)
    np.testing.assert_array_equal(out[3], (want > 0).astype(np.uint8))


def test_atomic_cas_f32_claims():
    idx = _i(0, 30, 300, np.int32)
    idx[[0, 1, 2]] = 29
    v = 1.0 + RNG.random(300).astype(np.float32)  # never 0.0: every claim sticks
    out = run("atomic_cas_f32_claims", {0: np.zeros(30, np.float32), 1: idx, 2: v})
    tab, old = out[0], out[3]
    for k in range(30):
        lanes = np.flatnonzero(idx == k)
        won = lanes[old[lanes] == 0.0]
        assert len(won) == (1 if len(lanes) else 0), k
        if len(lanes):
            assert tab[k] == v[won[0]] and (old[lanes[old[lanes] != 0.0]] == tab[k]).all(), k
        else:
            assert tab[k] == 0.0


# ----------------------------------------------------------------------------------------------- loops


@pytest.mark.parametrize("lo,hi", [(0, 3), (2, 2), (3, 0), (-5, -8), (1, 2)])
def test_runtime_range_zero_and_negative_trips(lo, hi):
    x = _f(300)
    out = run("runtime_range_zero_and_negative_trips", {0: x, 2: lo, 3: hi})
    xp = _pad(x, (384,)).reshape(3, 128).astype(np.float64)
    want = 0.5 + sum((xp[k] for k in range(lo, hi)), np.zeros(128))
    _close(out[1], want)


@pytest.mark.parametrize("n", [5, 4, 1, 0, -3])
def test_range_negative_step_weights(n):
    x = _f(300)
    out = run("range_negative_step_weights", {0: x, 2: n})
    xp = _pad(x, (320,)).reshape(5, 64).astype(np.float64)
    want = sum((xp[k] * (t + 1) for t, k in enumerate(range(n - 1, -1, -2))), np.zeros(64))
    _close(out[1], want)


def test_loop_carried_bool_int8_f16_int64():
    x = _f((159, 20))
    x[:, 3] = np.abs(x[:, 3]) + 0.1  # 159 positives: the int8 count wraps to -97
    x[:, 5] = np.minimum(x[:, 5], 0.5)  # never > 1
    x[:, 7] = -np.abs(x[:, 7]) - 0.1  # no positive, no value past 1
    out = run("loop_carried_bool_int8_f16_int64", {0: x})
    anyb = (x > 1).any(0)
    cnt = _wrap((x > 0).sum(0), 8)
    want_cnt = _wrap(np.where(anyb.any(), -cnt, cnt), 8)
    xp = np.concatenate([x, np.zeros((1, 20), np.float32)])  # the ragged row reads 0
    tot = [sum(int(v) for v in np.trunc(_d(xp[:, c]) * 2 ** 33)) for c in range(20)]
    np.testing.assert_array_equal(out[1][0], anyb.astype(np.uint8))
    np.testing.assert_array_equal(out[2][0], want_cnt)
    np.testing.assert_array_equal(out[3][0], np.max(xp, 0).astype(np.float16))
    np.testing.assert_array_equal(out[4][0], tot)


def test_static_iter_empty_and_single():
    x = _f(300)
    out = run("static_iter_empty_and_single", {0: x})
    _close(out[1], 3.0 * _d(x))


# ----------------------------------------------------------------------------------------------- ordered views


def test_ordered_view_loads_and_stores():
    x, w = _f(300), _f(300)
    out = run("ordered_view_loads_and_stores", {0: x, 1: w})
    np.testing.assert_array_equal(out[2], x + w)
    np.testing.assert_array_equal(out[3], x * w)


def test_ordered_views_of_narrow_and_wide_types():
    a = _i(-128, 128, 300, np.int8)
    h = _f(300, "float16")
    ln = _i(-2 ** 62, 2 ** 62, 300, np.int64)
    out = run("ordered_views_of_narrow_and_wide_types", {0: a, 1: h, 2: ln})
    np.testing.assert_array_equal(out[3], (a < 0).astype(np.uint8))
    np.testing.assert_array_equal(out[4], h * np.float16(2))
    np.testing.assert_array_equal(out[5], -ln)


def test_chained_sum_by_acquire_spin_release_flag():
    x = _f(300)
    out = run("chained_sum_by_acquire_spin_release_flag",
              {0: x, 2: np.array([0, np.nan, np.nan, np.nan], np.float32), 3: np.array([1, 0, 0, 0], np.int32)})
    _close(out[1], np.cumsum(_d(x)), rtol=1e-5, atol=1e-4)
    _close(out[2][1:], [_d(x[:128]).sum(), _d(x[:256]).sum(), _d(x).sum()], rtol=1e-5, atol=1e-4)
    np.testing.assert_array_equal(out[3], [1, 1, 1, 1])


def test_ordered_tiny_tiles_early_return():
    x = _f(75)
    out = run("ordered_tiny_tiles_early_return", {0: x})
    kept = np.repeat(_pad(x, (76,))[::2] >= 0, 2)[:75]
    np.testing.assert_array_equal(out[1][kept], 3 * x[kept])
    assert np.isnan(out[1][~kept]).all()
