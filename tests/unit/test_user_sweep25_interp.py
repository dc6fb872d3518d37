"""The twenty-fifth user sweep's programs without a tensor-core path (``tileorch.testing.user_programs25``: the
SIMT path's reductions, integer math, conversions, control flow, memory and launch shapes, and the one-row GEMV
the tier refuses) on the CPU's lockstep SIMT interpreter (tests/unit/simt_interp.py, through
test_user_sweep_interp.run) against numpy references computed from the inputs alone (float64; Python integers
for integer semantics; ml_dtypes for fp8 and bf16), ragged sizes, outputs pre-filled with NaN / an integer
sentinel / the bool byte 2 (tables the atomics update start as the user's initial values).
tests/gpu/test_user_sweep25_gpu.py runs every test here again on the GPU; test_user_sweep25_emulated.py runs
them on the PTX emulator."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

pytest.importorskip("xdsl")
pytest.importorskip("cuda.tile")
ml_dtypes = pytest.importorskip("ml_dtypes")

import test_user_sweep_interp as sweep  # noqa: E402
from test_user_sweep_interp import run, sample  # noqa: E402

from tileorch.testing.user_programs25 import PROGRAMS  # noqa: E402

sweep.PROGRAMS.update(PROGRAMS)  # run() looks programs up in test_user_sweep_interp.PROGRAMS
sweep.NP.update({"uint16": np.uint16, "uint32": np.uint32, "uint64": np.uint64, "float8_e4m3fn": np.uint8,
                 "float8_e5m2": np.uint8})

RNG = np.random.default_rng(2525)
I32_MAX, I32_MIN, U32_MAX = 2**31 - 1, -(2**31), 2**32 - 1


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


def test_decode_gemv_one_row_tile():
    """On the interpreter K = 80 (two K tiles, the second partial) and one column block of the spec's three (the
    same compiled program; the GPU runs the spec's K = 200 and N = 96)."""
    k, n = (80, 32) if not _FULL else (200, 96)
    x, w = _f((1, k), "float16"), _f((k, n), "float16", 0.5)
    p = dataclasses.replace(sweep.resized("decode_gemv_one_row_tile", {0: (1, k), 1: (k, n), 2: (1, n)}), grid=(n // 32,))
    y = run("decode_gemv_one_row_tile", {0: x, 1: w}, program=p)[2]
    _close(y, _d(x) @ _d(w), 2e-3, 2e-3)


def test_gemm_one_column_tile():
    a, v = _f((100, 64), "float16"), _f((64, 1), "float16")
    y = run("gemm_one_column_tile", {0: a, 1: v})[2]
    _close(y, _d(a) @ _d(v), 2e-3, 2e-3)


# ----------------------------------------------------------------------------------------------- reductions


def test_argmin_ties_both_axes():
    x = RNG.integers(0, 3, (13, 21)).astype(np.int32)
    out = run("argmin_ties_both_axes", {0: x})
    pad = np.full((16, 32), I32_MAX, np.int64)
    pad[:13, :21] = x
    np.testing.assert_array_equal(out[1], np.argmin(pad, axis=1))  # numpy: the first index of the min
    np.testing.assert_array_equal(out[2], np.argmin(pad, axis=0))


def test_prod_rows_keepdims_and_not():
    x = (1.0 + 0.05 * RNG.standard_normal((9, 45))).astype(np.float32)
    out = run("prod_rows_keepdims_and_not", {0: x})
    p = _d(x).prod(1)
    _close(out[1], p, 0, 2e-5)
    _close(out[2], _d(x) / p[:, None], 0, 2e-5)


def test_any_all_of_bool_rows():
    m = RNG.random((10, 40)) < 0.5
    m[2], m[5] = True, False
    m[7] = RNG.random(40) < 0.02
    out = run("any_all_of_bool_rows", {0: m})
    np.testing.assert_array_equal(out[1].view(np.uint8), m.any(1))
    np.testing.assert_array_equal(out[2].view(np.uint8), m.all(1))


def test_reduce_axis0_of_a_3d_tile():
    x = _f((5, 12, 24))
    out = run("reduce_axis0_of_a_3d_tile", {0: x})
    _close(out[1], _d(x).sum(0), 1e-5)
    np.testing.assert_array_equal(out[2], x.min(0))


def test_running_max_scan_and_reverse_int_cumsum():
    x, c = _f((7, 50)), RNG.integers(-5, 9, (7, 50)).astype(np.int32)
    out = run("running_max_scan_and_reverse_int_cumsum", {0: x, 1: c})
    np.testing.assert_array_equal(out[2], np.maximum.accumulate(x, axis=1))
    np.testing.assert_array_equal(out[3], np.cumsum(c[:, ::-1], axis=1)[:, ::-1])


# ----------------------------------------------------------------------------------------------- integers


def test_int64_floordiv_mod_negative_divisors():
    a = RNG.integers(-(2**40), 2**40, 150)
    b = RNG.integers(-50, 50, 150)
    a[:6] = [-7, 7, -7, 7, -(2**62), 2**62 + 3]
    b[:6] = [2, -2, -2, 0, 3, -7]
    out = run("int64_floordiv_mod_negative_divisors", {0: a, 1: b})
    bb = [int(v) if v != 0 else 1 for v in b]
    np.testing.assert_array_equal(out[2], [int(x) // y for x, y in zip(a, bb)])
    np.testing.assert_array_equal(out[3], [int(x) % y for x, y in zip(a, bb)])
    np.testing.assert_array_equal(out[4], [int(x) // y - 1 for x, y in zip(a, bb)])


def test_uint64_and_int64_shifts_bitwise():
    a = RNG.integers(0, 2**64 - 1, 100, dtype=np.uint64, endpoint=True)
    a[:3] = [2**63, 2**64 - 1, 1]
    s = RNG.integers(0, 64, 100).astype(np.uint64)
    s[:3] = [63, 0, 63]
    out = run("uint64_and_int64_shifts_bitwise", {0: a, 1: s})
    m = 2**64
    np.testing.assert_array_equal(out[2], np.array([(int(x) << int(k)) % m for x, k in zip(a, s)], np.uint64))
    np.testing.assert_array_equal(out[3], np.array([int(x) >> int(k) for x, k in zip(a, s)], np.uint64))
    signed = [int(x) - m if int(x) >= 2**63 else int(x) for x in a]
    np.testing.assert_array_equal(out[4], np.array([x >> int(k) for x, k in zip(signed, s)], np.int64))
    mix = [((int(x) ^ (int(x) >> 33)) & (~0xFF00 % m)) | 1 for x in a]
    np.testing.assert_array_equal(out[5], np.array(mix, np.uint64))


def test_uint8_uint16_min_max_across_the_sign_bit():
    a8, b8 = (RNG.integers(0, 256, 90).astype(np.uint8) for _ in range(2))
    a16, b16 = (RNG.integers(0, 65536, 90).astype(np.uint16) for _ in range(2))
    a8[:2], b8[:2], a16[:2], b16[:2] = [127, 255], [128, 0], [32767, 65535], [32768, 1]
    out = run("uint8_uint16_min_max_across_the_sign_bit", {0: a8, 1: b8, 2: a16, 3: b16})
    np.testing.assert_array_equal(out[4], np.minimum(a8, b8))
    np.testing.assert_array_equal(out[5], np.maximum(a8, b8))
    np.testing.assert_array_equal(out[6], np.minimum(a16, b16))
    np.testing.assert_array_equal(out[7], np.maximum(a16, b16))


def _py_floordiv_mod(a, b, bits):
    """Python's ``//`` and ``%`` wrapped to ``bits`` bits (int8 -128 // -1 is 128, which wraps to -128)."""
    m = 1 << bits
    wrap = lambda v: ((v + m // 2) % m) - m // 2  # noqa: E731
    return [wrap(int(x) // int(y)) for x, y in zip(a, b)], [wrap(int(x) % int(y)) for x, y in zip(a, b)]


def test_narrow_int_div_mod_and_unsigned_div():
    a8, b8 = RNG.integers(-128, 128, 100).astype(np.int8), RNG.integers(-128, 128, 100).astype(np.int8)
    a8[:4], b8[:4] = [-128, -7, 7, -128], [-1, 2, -2, 3]
    a16, b16 = RNG.integers(-32768, 32768, 100).astype(np.int16), RNG.integers(-300, 300, 100).astype(np.int16)
    a16[:2], b16[:2] = [-32768, -1], [-1, 7]
    au = RNG.integers(0, 2**32, 100, dtype=np.uint64).astype(np.uint32)
    bu = RNG.integers(1, 2**32, 100, dtype=np.uint64).astype(np.uint32)
    au[:3], bu[:3] = [2**32 - 1, 2**31 + 5, 7], [2**31, 3, 2**32 - 1]
    out = run("narrow_int_div_mod_and_unsigned_div", {0: a8, 1: b8, 2: a16, 3: b16, 4: au, 5: bu})
    bb8 = np.where(b8 == 0, 1, b8)
    bb16 = np.where(b16 == 0, 1, b16)
    bbu = np.where(bu == 0, 1, bu)
    for (q, r), qi, ri in ((_py_floordiv_mod(a8, bb8, 8), 6, 7), (_py_floordiv_mod(a16, bb16, 16), 8, 9)):
        np.testing.assert_array_equal(out[qi], q)
        np.testing.assert_array_equal(out[ri], r)
    np.testing.assert_array_equal(out[10], [int(x) // int(y) for x, y in zip(au, bbu)])
    np.testing.assert_array_equal(out[11], [int(x) % int(y) for x, y in zip(au, bbu)])


def test_float_mod_floordiv_pow_atan2():
    x, y = _f(100, scale=5.0), _f(100, scale=3.0)
    x[:8] = [7.0, -7.0, 7.0, -7.0, -2.0, 0.0, -0.0, 5.0]
    y[:8] = [-2.0, 2.0, 2.0, -2.0, 0.0, -1.0, -1.0, 5.0]
    out = run("float_mod_floordiv_pow_atan2", {0: x, 1: y})
    with np.errstate(all="ignore"):
        r = np.fmod(x, y)  # cuTile's %: remf, then + y where the signs differ and r != 0 (Python's sign rule)
        md = np.where((r != 0) & ((r < 0) != (y < 0)), r + y, r).astype(np.float32)
        fd = np.floor(x / y)  # cuTile's //: floor of the IEEE quotient
        cube, root = np.power(_d(x), 3.0), np.power(_d(x), 0.5)
        at = np.arctan2(_d(y), _d(x))
    np.testing.assert_array_equal(out[2], md)
    np.testing.assert_array_equal(out[3], fd)
    _close(out[4][:, 0], cube, 1e-30, 2e-6)
    assert np.array_equal(np.isnan(out[4][:, 1]), np.isnan(root))
    _close(out[4][:, 1][~np.isnan(root)], root[~np.isnan(root)], 1e-30, 2e-6)
    _close(out[5], at, 2e-6, 2e-6)
    assert np.signbit(out[5][6]) == np.signbit(at[6])  # atan2(-1, -0) = -pi


def test_float_to_narrow_ints_saturating():
    x = _f(100, scale=200.0)
    x[:10] = [300.0, -300.0, np.nan, 127.9, -128.9, -0.9, 255.5, 1e10, -3e9, 2.5]
    out = run("float_to_narrow_ints_saturating", {0: x})
    with np.errstate(invalid="ignore"):
        t = np.where(np.isnan(x), 0, np.trunc(_d(x)))
    np.testing.assert_array_equal(out[1], np.clip(t, -128, 127))
    np.testing.assert_array_equal(out[2], np.clip(t, 0, 255))
    np.testing.assert_array_equal(out[3], np.clip(t, -(2**63), 2**63 - 1).astype(np.int64))


def test_floor_ceil_abs_min_signed_zeros():
    x = _f(100, scale=4.0)
    x[:6] = [-0.5, 0.5, -0.0, -1.0, 2.5, 0.0]
    x.view(np.int32)[6] = -(2**31)  # (-0.0's bits: the int32 abs of -2**31 wraps to itself)
    out = run("floor_ceil_abs_min_signed_zeros", {0: x})
    np.testing.assert_array_equal(out[1], np.floor(x))
    np.testing.assert_array_equal(out[2], np.ceil(x))
    assert np.signbit(out[2][0]) and np.signbit(out[1][2])  # ceil(-0.5) = -0.0; floor(-0.0) = -0.0
    bits = x.view(np.int32).astype(np.int64)
    np.testing.assert_array_equal(out[3], [int(v) if v == -(2**31) else abs(int(v)) for v in bits])
    np.testing.assert_array_equal(out[4], np.minimum(x, np.float32(0)))  # (the sign of min(-0.0, 0.0): not checked)


# ----------------------------------------------------------------------------------------------- conversions


def test_f32_to_fp8_both_formats_saturating():
    x = (RNG.standard_normal(120) * 30).astype(np.float32)
    x[:10] = [1e6, -1e6, 500.0, -60000.0, 1e-9, -3e-3, 0.0, -0.0, 464.0, 57000.0]
    out = run("f32_to_fp8_both_formats_saturating", {0: x})
    q4 = np.clip(x, -448, 448).astype(ml_dtypes.float8_e4m3fn).view(np.uint8)
    q5 = np.clip(x, -57344, 57344).astype(ml_dtypes.float8_e5m2).view(np.uint8)
    np.testing.assert_array_equal(out[1], q4)
    np.testing.assert_array_equal(out[2], q5)


def test_bf16_f16_round_trips():
    b = _f(100, "bfloat16", 100.0)
    b[:6] = _bf16([1e5, -7e4, 65504.0, 1e-8, 3e-5, -0.0])
    h = (RNG.standard_normal(100) * 50).astype(np.float16)
    h[:4] = [65504, -0.0, 6e-8, 1.0009765625]
    out = run("bf16_f16_round_trips", {0: b, 1: h})
    with np.errstate(over="ignore"):
        np.testing.assert_array_equal(out[2], b.astype(np.float16))  # (bf16 values as f32: exact) rounded once
    got = out[3]
    np.testing.assert_array_equal(got, _bf16(h.astype(np.float32)))
    assert np.signbit(got[1]) and np.signbit(out[2][5])


def test_int_float_conversions_rounding():
    x = (RNG.standard_normal(100) * 1000).astype(np.float32)
    x[:4] = [-2.9, 2.9, -0.5, 2**31 - 256]
    n = RNG.integers(2**24 - 40, 2**24 + 40, 100).astype(np.int32)
    n[:3] = [16777217, 16777219, -16777219]
    big = 2**53
    l = RNG.integers(big - 10, big + 10, 100).astype(np.int64)
    l[:2] = [big + 1, -(big + 3)]
    out = run("int_float_conversions_rounding", {0: x, 1: n, 2: l})
    np.testing.assert_array_equal(out[3], np.trunc(x.astype(np.float64)).astype(np.int64))
    np.testing.assert_array_equal(out[4], np.array([float(np.float32(int(v))) for v in n]))
    np.testing.assert_array_equal(out[5], np.array([float(int(v)) for v in l]))  # Python: nearest even


def test_bool_to_and_from_numbers():
    x = _f(80)
    x[:8] = [0.0, -0.0, np.nan, np.inf, 0.5, -3.0, 1.0, 2.5]
    k = RNG.random(80) < 0.5
    k[:4] = True
    out = run("bool_to_and_from_numbers", {0: x, 1: k})
    with np.errstate(invalid="ignore"):
        ref = np.where(k, x, np.float32(0) * x)
    np.testing.assert_array_equal(out[2], ref)
    with np.errstate(invalid="ignore"):  # cuda_tile's ftoi to i1: truncation saturating to [0, 1], NaN 0
        ref_nz = np.where(np.isnan(x), 0, np.clip(np.trunc(x), 0, 1)).astype(np.uint8)
    np.testing.assert_array_equal(out[3].view(np.uint8), ref_nz)


# ----------------------------------------------------------------------------------------------- control flow


def _newton(x):
    """The program's iteration in f32, step by step (IEEE division), per block of 64 (padding 0 + 1)."""
    ys, ns = [], []
    for blk in range(0, 256, 64):
        xs = np.ones(64, np.float32)
        part = x[blk:blk + 64]
        xs[:len(part)] = part + np.float32(1.0)
        y, n, moved = xs.copy(), 0, np.float32(1.0)
        while moved > 1e-6 and n < 60:
            nxt = np.float32(0.5) * (y + xs / y)
            moved = (np.abs(nxt - y) / nxt).max()
            y, n = nxt, n + 1
        ys.append(y[:len(part)])
        ns.append(n)
    return np.concatenate(ys), np.array(ns)


def test_newton_sqrt_while_until_converged():
    x = (np.abs(RNG.standard_normal(200)) * 100).astype(np.float32)
    x[:3] = [0.0, 1e4, 2.0]
    out = run("newton_sqrt_while_until_converged", {0: x})
    y, n = _newton(x)
    _close(out[1], np.sqrt(_d(x) + 1), 0, 1e-6)
    np.testing.assert_array_equal(out[1], y)
    np.testing.assert_array_equal(out[2], n)


def test_lower_triangle_nested_dependent_bounds():
    x = _f((12, 16))
    y = run("lower_triangle_nested_dependent_bounds", {0: x})[1]
    _close(y, np.cumsum(_d(x), 0) / np.arange(1, 13)[:, None], 1e-6, 1e-6)


def test_early_return_past_the_rows():
    x = _f((10, 30))
    y = run("early_return_past_the_rows", {0: x})[1]
    np.testing.assert_array_equal(y[:7], 2 * x[:7])
    assert np.isnan(y[7:]).all()


# ----------------------------------------------------------------------------------------------- memory


def test_masked_gather_scatter_permutation():
    x = _f(100)
    perm = RNG.permutation(100).astype(np.int32)
    keep = RNG.random(100) < 0.6
    out = run("masked_gather_scatter_permutation", {0: x, 1: perm, 2: keep})
    np.testing.assert_array_equal(out[3], np.where(keep, x[perm], np.float32(-7.5)))
    z = np.full(100, np.nan, np.float32)
    z[perm[keep]] = 2 * x[keep]
    np.testing.assert_array_equal(out[4], z)


def test_atomic_cas_first_wins_and_xchg_last():
    out = run("atomic_cas_first_wins_and_xchg_last", {0: np.full(32, -1, np.int32), 1: np.full(32, -100, np.int32)})
    slot, last, won = out[0], out[1], out[2]
    np.testing.assert_array_equal(won.sum(0), np.ones(32))  # one winner per slot, whatever the order
    np.testing.assert_array_equal(slot, won.argmax(0))  # the slot holds its winner's id
    assert set(np.unique(won)) <= {0, 1} and ((0 <= last) & (last < 6)).all()


def test_atomic_min_max_signed_and_unsigned():
    x = RNG.integers(-(2**31), 2**31 - 1, 150).astype(np.int32)
    u = RNG.integers(0, 2**32 - 1, 150, dtype=np.uint64, endpoint=True).astype(np.uint32)
    u[:4] = [2**31, 2**31 - 1, 2**32 - 1, 0]
    init = {2: np.full(4, I32_MAX, np.int32), 3: np.full(4, I32_MIN, np.int32), 4: np.full(4, U32_MAX, np.uint32),
            5: np.zeros(4, np.uint32)}
    out = run("atomic_min_max_signed_and_unsigned", {0: x, 1: u, **init})
    b = np.arange(150) % 4
    np.testing.assert_array_equal(out[2], [x[b == k].min() for k in range(4)])
    np.testing.assert_array_equal(out[3], [x[b == k].max() for k in range(4)])
    np.testing.assert_array_equal(out[4], [u[b == k].min() for k in range(4)])
    np.testing.assert_array_equal(out[5], [u[b == k].max() for k in range(4)])


def test_atomic_bit_sets_and_or_xor():
    bits = RNG.integers(0, 1000, 130).astype(np.int32)
    rows = RNG.integers(0, 8, 130).astype(np.int32)
    init = {2: np.full(8, -1, np.int32), 3: np.zeros(8, np.int32), 4: np.zeros(8, np.int32)}
    out = run("atomic_bit_sets_and_or_xor", {0: bits, 1: rows, **init})
    a, o, x = [(1 << 32) - 1] * 8, [0] * 8, [0] * 8
    for v, r in zip(bits, rows):
        bit = 1 << (int(v) % 32)
        a[r] &= ~bit & ((1 << 32) - 1)
        o[r] |= bit
        x[r] ^= bit
    for got, ref in ((out[2], a), (out[3], o), (out[4], x)):
        np.testing.assert_array_equal(got.view(np.uint32), np.array(ref, np.uint32))


def test_atomic_add_f16_and_uint64_counters():
    x = RNG.integers(-8, 9, 150).astype(np.float16)
    out = run("atomic_add_f16_and_uint64_counters", {0: x, 1: np.zeros(4, np.float16), 2: np.zeros(4, np.uint64)})
    b = np.arange(150) % 4
    np.testing.assert_array_equal(out[1], [x[b == k].astype(np.float64).sum() for k in range(4)])
    np.testing.assert_array_equal(out[2], np.bincount(b, minlength=4))


def test_atomic_cas_f32_and_xchg_f64():
    f = _f(100)
    f[::3], f[1] = 0.0, -0.0
    d = RNG.standard_normal(100)
    out = run("atomic_cas_f32_and_xchg_f64", {0: f.copy(), 1: d})
    j = np.arange(100)
    matched = f.view(np.uint32) == 0  # bit for bit (atom.cas.b32): -0.0 is no match for 0.0
    np.testing.assert_array_equal(out[0], np.where(matched, j + 0.5, f).astype(np.float32))
    assert np.signbit(out[0][1])
    np.testing.assert_array_equal(out[1], j * -2.0)
    np.testing.assert_array_equal(out[2], d)


def test_cumsum_axis0_of_a_3d_tile():
    x = _f((6, 10, 20))
    _close(run("cumsum_axis0_of_a_3d_tile", {0: x})[1], np.cumsum(_d(x), 0), 1e-5)


def test_column_tiles_normalize():
    x = _f((50, 7))
    y = run("column_tiles_normalize", {0: x})[1]
    _close(y, _d(x) / np.sqrt((_d(x) ** 2).sum(0, keepdims=True) + 1e-12), 1e-6, 1e-5)


def test_every_other_column_view():
    x = _f((20, 30))
    y = run("every_other_column_view", {0: x})[1]
    np.testing.assert_array_equal(y, 3 * x)


def test_every_padding_mode():
    x = _f((3, 20))
    x[0, 0] = -0.0
    out = run("every_padding_mode", {0: x, 3: np.full((3, 32), 1234.0, np.float32)})
    pad = np.full((3, 12), 1.0, np.float32)
    with np.errstate(divide="ignore"):
        for i, value in ((1, 0.0), (3, np.nan), (4, np.inf), (5, -np.inf)):
            np.testing.assert_array_equal(out[i], np.concatenate([x, pad * np.float32(value)], 1))
        np.testing.assert_array_equal(out[2], np.concatenate([1 / x, pad * -np.inf], 1))
    assert not np.signbit(out[1][:, 20:]).any() and np.signbit(out[1][0, 0])


# ----------------------------------------------------------------------------------------------- launch shapes


def test_three_axis_grid_ids():
    y = run("three_axis_grid_ids", {})[0]
    z, r, c = np.meshgrid(np.arange(5), np.arange(4), np.arange(24), indexing="ij")
    valid = c < 24
    ref = 100 * z + 10 * r + c // 8 + (c % 8) * 60
    np.testing.assert_array_equal(y[valid], ref[valid])


def test_two_axis_grid_swapped_roles():
    x = _f((40, 70))
    np.testing.assert_array_equal(run("two_axis_grid_swapped_roles", {0: x})[1], x * x)


def test_grid_larger_than_the_machine():
    """On the interpreter 300 of the 4000 programs (the same compiled program at a smaller size; the GPU runs
    all 4000)."""
    n = 300 * 32 if not _FULL else 128000
    x = _f(n)
    p = sweep.resized("grid_larger_than_the_machine", {0: (n,), 1: (n,)})
    p = dataclasses.replace(p, grid=(n // 32,))
    y = run("grid_larger_than_the_machine", {0: x}, program=p)[1]
    np.testing.assert_array_equal(y, x + np.repeat(np.arange(n // 32, dtype=np.float32), 32))


_FULL = False
"""The GPU file sets it: the launch of all 4000 programs."""
