"""The twelfth user sweep (``tileorch.testing.user_programs12``: issue 21's op-coverage audit, programs
without a dot) on the CPU's lockstep SIMT interpreter (tests/unit/simt_interp.py, through
test_user_sweep_interp.run) against numpy references computed independently from the same inputs,
outputs pre-filled with NaN / an integer sentinel / the fp8 NaN byte, ragged sizes: rank-3/4
reshape + permute, cat, extract; bool, int16, uint32, uint16, int64 and int8 tiles through
reductions and scans; fp8 conversions both ways; int64 atomics with duplicate indices; a gather
whose indices ``where`` chooses; a masked scatter with duplicate targets; a bool store.
tests/gpu/test_user_sweep12_gpu.py runs every test here again on the H200."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("xdsl")
pytest.importorskip("cuda.tile")
ml_dtypes = pytest.importorskip("ml_dtypes")

import test_user_sweep_interp as sweep  # noqa: E402
from test_user_sweep_interp import _close, run, sample  # noqa: E402

from tileorch.testing.user_programs12 import PROGRAMS  # noqa: E402

sweep.PROGRAMS.update(PROGRAMS)  # run() looks programs up in test_user_sweep_interp.PROGRAMS
sweep.NP.update({"uint16": np.uint16, "uint64": np.uint64, "float8_e4m3fn": np.uint8, "float8_e5m2": np.uint8})

RNG = np.random.default_rng(1212)


def _f(shape, dt="float32", scale=1.0):
    return sample(RNG, shape, dt, scale)


def test_permute_rank4_heads():
    x = _f((10, 8, 16))
    y = run("permute_rank4_heads", {0: x})[1]
    np.testing.assert_array_equal(y, x.reshape(10, 2, 4, 16).transpose(0, 2, 1, 3).reshape(10, 8, 16))


def test_cat_rank3_last_axis():
    a, b = _f((7, 4, 8), "float16"), _f((7, 4, 8), "float16")
    y = run("cat_rank3_last_axis", {0: a, 1: b})[2]
    np.testing.assert_array_equal(y, np.concatenate([a, (b.astype(np.float32) * 2).astype(np.float16)], axis=2))


def test_extract_rank4_plane():
    x = _f((3, 2, 4, 32))
    np.testing.assert_array_equal(run("extract_rank4_plane", {0: x})[1], x[:, 1])


def test_bool_any_all_count():
    x = _f((6, 100))
    x[1] = np.abs(x[1]) + 0.5  # every element positive
    x[2] = -np.abs(x[2]) - 0.5  # none
    x[3, :] = -1.0
    x[3, 99] = 2.0  # only the last real column
    out = run("bool_any_all_count", {0: x})
    pos = x > 0
    np.testing.assert_array_equal(out[1], pos.any(1).astype(np.int8))
    np.testing.assert_array_equal(out[2], pos.all(1).astype(np.int8))
    np.testing.assert_array_equal(out[3], pos.sum(1).astype(np.int32))


def test_int16_row_sum_max_min():
    x = RNG.integers(-32768, 32768, (5, 90)).astype(np.int16)
    x[0] = -7  # a row of one negative value: the padded zeros must not win the max
    out = run("int16_row_sum_max_min", {0: x})
    np.testing.assert_array_equal(out[1], x.astype(np.int64).sum(1).astype(np.int32))
    np.testing.assert_array_equal(out[2], x.max(1))
    np.testing.assert_array_equal(out[3], x.min(1))


def test_uint32_row_max_min():
    x = RNG.integers(0, 2**32, (4, 64), dtype=np.uint64).astype(np.uint32)
    x[0, 3], x[1, 5] = 2**32 - 1, 0
    x[2] = RNG.integers(2**31, 2**32, 64, dtype=np.uint64).astype(np.uint32)  # all with the top bit set
    out = run("uint32_row_max_min", {0: x})
    np.testing.assert_array_equal(out[1], x.max(1))
    np.testing.assert_array_equal(out[2], x.min(1))


def test_uint16_cumsum_wraps():
    x = RNG.integers(0, 2**16, (3, 128)).astype(np.uint16)
    y = run("uint16_cumsum_wraps", {0: x})[1]
    np.testing.assert_array_equal(y, (np.cumsum(x.astype(np.int64), 1) % 2**16).astype(np.uint16))


def test_int64_cumsum_past_2_32():
    x = RNG.integers(-(2**33), 2**34, (3, 64)).astype(np.int64)
    np.testing.assert_array_equal(run("int64_cumsum_past_2_32", {0: x})[1], np.cumsum(x, 1))


def test_int8_argmin_rows():
    x = RNG.integers(-128, 128, (5, 64)).astype(np.int8)
    x[0, 10] = x[0, 40] = -128  # a tie: the first
    out = run("int8_argmin_rows", {0: x})
    np.testing.assert_array_equal(out[1], x.argmin(1).astype(np.int32))
    np.testing.assert_array_equal(out[2], x.min(1))


def _fp8(values, kind):
    return np.asarray(values, np.float32).astype(kind).view(np.uint8)


def test_fp8_e5m2_e4m3_both_ways():
    # values inside both formats (|x| <= 448, above e4m3's smallest normal) so that no NaN/inf appears
    v = (RNG.standard_normal(256) * 40).clip(-440, 440).astype(np.float32)
    a5, a4 = _fp8(v, ml_dtypes.float8_e5m2), _fp8(v[::-1], ml_dtypes.float8_e4m3fn)
    out = run("fp8_e5m2_e4m3_both_ways", {0: a5, 1: a4})
    f5 = a5.view(ml_dtypes.float8_e5m2).astype(np.float32)
    f4 = a4.view(ml_dtypes.float8_e4m3fn).astype(np.float32)
    np.testing.assert_array_equal(out[2], _fp8(f5, ml_dtypes.float8_e4m3fn))
    np.testing.assert_array_equal(out[3], _fp8(f4, ml_dtypes.float8_e5m2))
    np.testing.assert_array_equal(out[4], _fp8(f5 * 0.5, ml_dtypes.float8_e4m3fn))


def test_fp8_e4m3_to_bf16_scaled():
    a = _fp8(RNG.standard_normal((4, 64)) * 8, ml_dtypes.float8_e4m3fn)
    s = np.array([0.5, 3.0, -1.25, 100.0], np.float32)
    y = run("fp8_e4m3_to_bf16_scaled", {0: a, 1: s})[2]
    f = a.view(ml_dtypes.float8_e4m3fn).astype(np.float32)
    bf = lambda t: np.asarray(t, np.float32).astype(ml_dtypes.bfloat16).astype(np.float32)  # noqa: E731
    np.testing.assert_array_equal(y, bf(bf(f) * bf(s)[:, None]))


def test_atomic_add_max_int64_duplicates():
    idx = RNG.integers(0, 8, 200).astype(np.int32)
    v = RNG.integers(-(2**40), 2**40, 200).astype(np.int64)
    out = run("atomic_add_max_int64_duplicates", {0: idx, 1: v, 2: np.zeros(8, np.int64),
                                                 3: np.full(8, -(2**62), np.int64)})
    want_sum = np.zeros(8, np.int64)
    np.add.at(want_sum, idx, v)
    want_max = np.full(8, -(2**62), np.int64)
    np.maximum.at(want_max, idx, v)
    np.testing.assert_array_equal(out[2], want_sum)
    np.testing.assert_array_equal(out[3], want_max)


def test_atomic_cas_int64_claim():
    out = run("atomic_cas_int64_claim", {0: np.full(16, -1, np.int64)})
    slots, owner = out[0], out[1]
    gid = np.arange(128)
    assert ((slots - (1 << 40)) % 16 == np.arange(16)).all() and (slots >= 1 << 40).all(), slots
    winners = gid[owner == -1]
    assert sorted(winners % 16) == list(range(16)), winners  # one winner per slot
    np.testing.assert_array_equal(np.sort(slots - (1 << 40)), np.sort(winners))
    losers = owner != -1
    np.testing.assert_array_equal(owner[losers], slots[gid[losers] % 16])  # the winner's value, seen by the losers


def test_gather_where_chooses_indices():
    t = _f(50)
    ia, ib = RNG.integers(0, 60, 128).astype(np.int32), RNG.integers(0, 60, 128).astype(np.int32)
    y = run("gather_where_chooses_indices", {0: t, 1: ia, 2: ib})[3]
    j = np.maximum(ia, ib)
    np.testing.assert_array_equal(y, np.where(j < 50, t[np.minimum(j, 49)], 0.0).astype(np.float32))


def test_scatter_masked_duplicates():
    src = _f(150)
    y = run("scatter_masked_duplicates", {0: src})[1]
    np.testing.assert_array_equal(y, src[0::2])


def test_bool_tile_stored():
    x = _f(100)
    x[[3, 50]] = np.nan
    b = run("bool_tile_stored", {0: x})[1]
    np.testing.assert_array_equal(np.asarray(b, np.uint8), ((x > 0) | np.isnan(x)).astype(np.uint8))


def test_int16_cumsum_reverse_and_bool_running_count():
    x = RNG.integers(-32768, 32768, (3, 64)).astype(np.int16)
    out = run("int16_cumsum_reverse_and_bool_running_count", {0: x})
    rev = np.cumsum(x[:, ::-1].astype(np.int64), 1)[:, ::-1]
    np.testing.assert_array_equal(out[1], ((rev + 2**15) % 2**16 - 2**15).astype(np.int16))
    np.testing.assert_array_equal(out[2], np.cumsum(x < 0, 1).astype(np.int32))


def test_uint8_column_max_rank3_middle_sum():
    x = RNG.integers(0, 256, (4, 8, 32)).astype(np.uint8)
    y = _f((4, 8, 32), "float16")
    out = run("uint8_column_max_rank3_middle_sum", {0: x, 1: y})
    np.testing.assert_array_equal(out[2], x.max(0))
    _close(out[3], y.astype(np.float64).sum(1), 1e-5)


def test_cat_rows_int32_then_transpose():
    a = RNG.integers(-5000, 5000, (4, 96)).astype(np.int32)
    b = RNG.integers(-5000, 5000, (4, 96)).astype(np.int32)
    y = run("cat_rows_int32_then_transpose", {0: a, 1: b})[2]
    np.testing.assert_array_equal(y, np.concatenate([a, b + 1000], 0).T)


def test_bool_sum_and_cumsum_count():
    x = _f((4, 64))
    x[2] = -1.0  # a row with none
    np.testing.assert_array_equal(run("bool_sum_direct", {0: x})[1], (x > 0).sum(1).astype(np.int32))
    np.testing.assert_array_equal(run("bool_cumsum_direct", {0: x})[1], np.cumsum(x > 0, 1).astype(np.int32))


def test_uint32_argmax():
    x = RNG.integers(0, 2**32, (4, 64), dtype=np.uint64).astype(np.uint32)
    x[3, 7] = x[3, 50] = 2**32 - 1  # a tie at the top value: the first
    np.testing.assert_array_equal(run("uint32_argmax", {0: x})[1], x.argmax(1).astype(np.int32))


def test_uint32_to_f32_and_int64_to_f16():
    x = RNG.integers(0, 2**32, 128, dtype=np.uint64).astype(np.uint32)
    z = RNG.integers(-70000, 70000, 128).astype(np.int64)  # past f16's 65504: infinite
    out = run("uint32_to_f32_and_int64_to_f16", {0: x, 2: z})
    np.testing.assert_array_equal(out[1], x.astype(np.float32))
    with np.errstate(over="ignore"):
        np.testing.assert_array_equal(out[3], z.astype(np.float16))


def test_int_to_fp8_and_fp8_to_int():
    x = RNG.integers(-400, 400, 128).astype(np.int32)
    b = _fp8(RNG.standard_normal(128) * 50, ml_dtypes.float8_e5m2)
    out = run("int_to_fp8_and_fp8_to_int", {0: x, 2: b})
    np.testing.assert_array_equal(out[1], _fp8(x, ml_dtypes.float8_e4m3fn))
    np.testing.assert_array_equal(out[3], b.view(ml_dtypes.float8_e5m2).astype(np.float32).astype(np.int32))


def test_atomic_xchg_int64_and_uint64_add():
    idx = RNG.integers(0, 7, 128).astype(np.int32)  # slot 7 never named: keeps its 0
    v = RNG.integers(1, 2**40, 128).astype(np.int64)
    out = run("atomic_xchg_int64_and_uint64_add", {0: np.zeros(8, np.int64), 1: np.zeros(8, np.uint64), 2: idx, 3: v})
    want = np.zeros(8, np.uint64)
    np.add.at(want, idx, v.astype(np.uint64))
    np.testing.assert_array_equal(out[1], want)
    for k in range(8):
        assert out[0][k] in (set(v[idx == k].tolist()) or {0}), (k, out[0][k])  # one of the slot's writers


def test_bool_reshape_rank4_to_1():
    x = _f((2, 2, 4, 8))
    b = run("bool_reshape_rank4_to_1", {0: x})[1]
    np.testing.assert_array_equal(np.asarray(b, np.uint8), (x > 0).reshape(-1).astype(np.uint8))


def test_f16_min_propagate_nan():
    x = _f((4, 64), "float16")
    x[1, 5] = np.nan
    m = run("f16_min_propagate_nan", {0: x})[1]
    assert np.isnan(m[1])
    np.testing.assert_array_equal(m[[0, 2, 3]], x[[0, 2, 3]].min(1))


def test_uint8_cumprod_wraps():
    x = RNG.integers(0, 5, (4, 16)).astype(np.uint8)
    x[0] = np.maximum(x[0], 1)  # no zero: the product wraps modulo 256
    y = run("uint8_cumprod_wraps", {0: x})[1]
    np.testing.assert_array_equal(y, (np.cumprod(x.astype(np.int64), 1) % 256).astype(np.uint8))


def test_extract_rank3_middle():
    x = _f((4, 8, 16))
    np.testing.assert_array_equal(run("extract_rank3_middle", {0: x})[1], x[:, 4:8])


def test_cat_rank4_axis1():
    a, b = _f((2, 2, 4, 8)), _f((2, 2, 4, 8))
    np.testing.assert_array_equal(run("cat_rank4_axis1", {0: a, 1: b})[2], np.concatenate([a, b], 1))
