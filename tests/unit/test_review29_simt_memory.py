"""Review 29 (issue 21 item 1): memory, reduction and scan ops of cuTile on the SIMT path -- programs without a
dot written with cuTile's Python API, compiled for sm_90a and run CTA by CTA on the PTX emulator against numpy
with NaN / sentinel-prefilled outputs.

Atomics of every kind cuTile offers on int64 / uint32 / f32 (``atomic_min`` / ``max`` / ``xchg`` / ``add`` with
relaxed / acquire / release orders and block scope, ``and`` / ``or`` / ``xor`` on words with the top bit set,
``atomic_cas`` comparing f32 bits (``-0`` is not ``+0``) and int64, tiled views' ``atomic_store_and`` / ``xor`` /
``min`` on ragged tiles), gathers with a tile of padding values under a mask and out-of-bounds / negative
indices, 2-D scatters with a broadcast mask dropping out-of-bounds rows and columns, every padding mode's bits
(``-0``, ``+inf``, NaN, ``-inf``) on f16, ``1 x N`` and ``N x 1`` tiles (a column loaded with ``order=(1, 0)``),
bool tiles (bit operations, ``where``, sums), array ``slice`` views with runtime bounds, overlapping tiled views
(``traversal_steps``), every reduction kind along each axis of 3-D tiles (ints, NaN both ways, ``argmax`` with
``propagate_nan``), a ``ct.reduce`` over a tuple (argmax by a custom combiner, ties to the first), a reversed
custom ``ct.scan`` down the columns, int64 cumsum / reversed cumprod of 3-D tiles, uint8 reductions,
``arange`` with start and step, ``insert`` of a block, and ``printf`` of f16 / int64 / bool values.

Found and fixed here: the PTX emulator had no ``cvt.f64.f16`` (a ``printf`` of an f16 tile passes doubles: an
emulator ``Fault``; ``test_printf_of_f16_int64_and_bool_values`` fails before); ``emulate_kernel`` gave a numpy
bool array the spec name ``bool`` (cuTile's is ``bool_``).  Needs cuda-tile."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("xdsl")
ct = pytest.importorskip("cuda.tile")
pytest.importorskip("ml_dtypes")

import test_user_sweep10_emulated as s10e  # noqa: E402
from test_review29_simt_math import _close, _nans, emulate  # noqa: E402,F401  (emulate: the fixture)

C = ct.Constant
SENTINEL = 77
RLX, ACQ, REL = ct.MemoryOrder.RELAXED, ct.MemoryOrder.ACQUIRE, ct.MemoryOrder.RELEASE
BLOCK = ct.MemoryScope.BLOCK


def _sent(shape, dtype, count=1):
    return [np.full(shape, SENTINEL, dtype) for _ in range(count)]


def _in_order(init, idx, step):
    """The array after, and the old values returned by, ``step(cur, k)`` applied for k = 0, 1, ... in order."""
    cur, olds = init.copy(), []
    for k in range(len(idx)):
        olds.append(cur[idx[k]])
        step(cur, k)
    return cur, np.array(olds, init.dtype)


# --------------------------------------------------------------------------------------- atomics


@ct.kernel
def atomics_i64(A, Mn, Mx, X, I, V, O1, O2, O3, BN: C[int]):
    i = ct.load(I, index=(0,), shape=(BN,))
    v = ct.load(V, index=(0,), shape=(BN,))
    ct.store(O1, index=(0,), tile=ct.atomic_min(Mn, i, v, memory_order=RLX, memory_scope=BLOCK))
    ct.store(O2, index=(0,), tile=ct.atomic_max(Mx, i, v, memory_order=ACQ))
    ct.store(O3, index=(0,), tile=ct.atomic_xchg(X, i, v, memory_order=REL))
    ct.atomic_add(A, i, v)


def test_int64_atomics_orders_and_scopes(emulate):
    i = np.array([0, 1, 1, 2, 3, 3, 3, 0], np.int32)
    v = np.array([-5, 2**40, -(2**40), 7, -1, -(2**62), 2**62, 9], np.int64)
    a, mn, mx, x = np.zeros(4, np.int64), np.full(4, 3, np.int64), np.full(4, -3, np.int64), np.full(4, 11, np.int64)
    out = emulate(atomics_i64, [a, mn, mx, x, i, v, *_sent(8, np.int64, 3)], [8])
    want_a = a.copy()
    np.add.at(want_a, i, v)
    assert (out[0] == want_a).all(), out[0]
    for got, init, ufunc, old in ((out[1], mn, np.minimum, out[6]), (out[2], mx, np.maximum, out[7])):
        after, olds = _in_order(init, i, lambda cur, k, f=ufunc: cur.__setitem__(i[k], f(cur[i[k]], v[k])))
        assert (got == after).all() and (old == olds).all(), (got, after, old, olds)
    after, olds = _in_order(x, i, lambda cur, k: cur.__setitem__(i[k], v[k]))
    assert (out[3] == after).all() and (out[8] == olds).all(), (out[3], out[8])


@ct.kernel
def atomics_u32_bits(A, O, X, Xo, I, V, BN: C[int]):
    i = ct.load(I, index=(0,), shape=(BN,))
    v = ct.load(V, index=(0,), shape=(BN,))
    ct.atomic_and(A, i, v)
    ct.atomic_or(O, i, v)
    ct.store(Xo, index=(0,), tile=ct.atomic_xor(X, i, v))
    ct.atomic_max(A, i + 2, v)


def test_uint32_bit_atomics_and_unsigned_max(emulate):
    i = np.array([0, 1, 0, 1, 0, 1, 0, 1], np.int32)
    v = np.array([0xFFFF0000, 0x80000001, 0xFFF0FFFF, 2, 0xF0F0F0F0, 0x7FFFFFFF, 0xFFFFFFFF, 4], np.uint32)
    a, o, x = np.array([0xFFFFFFFF, 0xFFFFFFFF, 5, 0x80000000], np.uint32), np.zeros(4, np.uint32), \
        np.array([1, 2, 3, 4], np.uint32)
    out = emulate(atomics_u32_bits, [a, o, x, *_sent(8, np.uint32), i, v], [8])
    wa, wo, wx = a.copy(), o.copy(), x.copy()
    np.bitwise_and.at(wa, i, v)
    np.maximum.at(wa, i + 2, v)
    np.bitwise_or.at(wo, i, v)
    np.bitwise_xor.at(wx, i, v)
    _, olds = _in_order(x, i, lambda cur, k: cur.__setitem__(i[k], cur[i[k]] ^ v[k]))
    assert (out[0] == wa).all() and (out[1] == wo).all() and (out[2] == wx).all() and (out[3] == olds).all(), out


@ct.kernel
def cas_f32_i64(F, L, I, E, D, OF, OL, BN: C[int]):
    i = ct.load(I, index=(0,), shape=(BN,))
    e = ct.load(E, index=(0,), shape=(BN,))
    d = ct.load(D, index=(0,), shape=(BN,))
    ct.store(OF, index=(0,), tile=ct.atomic_cas(F, i, e, d))
    ct.store(OL, index=(0,), tile=ct.atomic_cas(L, i, e.astype(ct.int64), d.astype(ct.int64), memory_order=RLX))


def test_atomic_cas_compares_f32_bits_and_int64(emulate):
    i = np.array([0, 0, 1, 1, 2, 2, 3, 3], np.int32)
    e = np.array([1, 5, 2, 2, -0.0, 0, 4, 9], np.float32)
    d = np.array([5, 6, 7, 8, 3, 3, 9, 10], np.float32)
    f = np.array([1, 2, 0, 4], np.float32)
    lw = f.astype(np.int64)
    out = emulate(cas_f32_i64, [f, lw, i, e, d, *_nans(8, np.float32), *_sent(8, np.int64)], [8])

    def cas(bits, ee, dd):
        return lambda cur, k: cur.__setitem__(i[k], dd[k] if bits(cur[i[k]]) == bits(ee[k]) else cur[i[k]])
    after_f, old_f = _in_order(f, i, cas(lambda z: np.float32(z).view(np.uint32), e, d))  # -0 is not +0
    after_l, old_l = _in_order(lw, i, cas(int, e.astype(np.int64), d.astype(np.int64)))
    assert (out[0].view(np.uint32) == after_f.view(np.uint32)).all() and (out[5] == old_f).all(), (out[0], out[5])
    assert (out[1] == after_l).all() and (out[6] == old_l).all(), (out[1], out[6])


@ct.kernel
def tiled_view_bit_atomics(A, X, Mn, U, BM: C[int], BN: C[int]):
    u = ct.load(U, index=(ct.bid(0), 0), shape=(BM, BN), padding_mode=ct.PaddingMode.ZERO)
    A.tiled_view((BM, BN)).atomic_store_and((0, 0), u | 1)
    X.tiled_view((BM, BN)).atomic_store_xor((0, 0), u)
    Mn.tiled_view((BM, BN)).atomic_store_min((0, 0), u)


def test_tiled_view_and_xor_min_on_a_ragged_tile(emulate):
    u = np.random.default_rng(2907).integers(-2**31, 2**31, (9, 5), dtype=np.int64).astype(np.int32)
    a, x, mn = np.full((3, 5), -1, np.int32), np.zeros((3, 5), np.int32), np.full((3, 5), 99, np.int32)
    out = emulate(tiled_view_bit_atomics, [a, x, mn, u], [4, 8], grid=(3,))
    for p in range(3):  # program p's tile: rows 4p.. of U (zero padded) onto the 3 x 5 arrays
        blk = np.zeros((4, 8), np.int32)
        rows = u[4 * p: 4 * p + 4]
        blk[:rows.shape[0], :5] = rows
        a &= (blk | 1)[:3, :5]
        x ^= blk[:3, :5]
        mn = np.minimum(mn, blk[:3, :5])
    assert (out[0] == a).all() and (out[1] == x).all() and (out[2] == mn).all(), out[:3]


# --------------------------------------------------------------------------------------- gathers, scatters, views


@ct.kernel
def gather_tile_padding(X, I, P, Y, BN: C[int]):
    i = ct.load(I, index=(0,), shape=(BN,))
    p = ct.load(P, index=(0,), shape=(BN,))
    ct.store(Y, index=(0,), tile=ct.gather(X, i, mask=(i % 3) != 0, padding_value=p))


def test_gather_pads_masked_and_out_of_bounds_from_a_tile(emulate):
    x = np.arange(10, dtype=np.float32) * 1.5
    i = np.array([0, 1, 2, 9, 10, -1, 4, 5], np.int32)
    p = -np.arange(1, 9, dtype=np.float32)
    *_, y = emulate(gather_tile_padding, [x, i, p, *_nans(8, np.float32)], [8])
    loaded = (i % 3 != 0) & (i >= 0) & (i < 10)
    _close(y, np.where(loaded, x[np.clip(i, 0, 9)], p))


@ct.kernel
def scatter_outer_masked(Y, R, Cl, V, BN: C[int]):
    r = ct.load(R, index=(0,), shape=(BN,))
    c = ct.load(Cl, index=(0,), shape=(BN,))
    v = ct.load(V, index=(0,), shape=(BN,))
    ct.scatter(Y, (r[:, None], c[None, :]), v[:, None] + v[None, :] * 100, mask=(v[:, None] > 0) & (v[None, :] != 3))


def test_scatter_2d_broadcast_mask_and_bounds(emulate):
    r = np.array([0, 1, 2, 5, -1, 3, 7, 4], np.int32)
    c = np.array([0, 4, 1, 3, 2, 9, -2, 5], np.int32)
    v = np.array([1, 2, 3, 4, 5, 6, -7, 8], np.int32)
    y = np.full((4, 5), SENTINEL, np.int32)
    out = emulate(scatter_outer_masked, [y, r, c, v], [8])
    want = y.copy()
    for a in range(8):
        for b in range(8):
            if v[a] > 0 and v[b] != 3 and 0 <= r[a] < 4 and 0 <= c[b] < 5:
                want[r[a], c[b]] = v[a] + v[b] * 100
    assert (out[0] == want).all(), out[0]


@ct.kernel
def padding_modes(X, A, B, N, M, BN: C[int]):
    ct.store(A, index=(0,), tile=ct.load(X, index=(1,), shape=(BN,), padding_mode=ct.PaddingMode.NEG_ZERO))
    ct.store(B, index=(0,), tile=ct.load(X, index=(1,), shape=(BN,), padding_mode=ct.PaddingMode.POS_INF))
    ct.store(N, index=(0,), tile=ct.load(X, index=(1,), shape=(BN,), padding_mode=ct.PaddingMode.NAN))
    ct.store(M, index=(0,), tile=ct.load(X, index=(1,), shape=(BN,), padding_mode=ct.PaddingMode.NEG_INF))


def test_padding_mode_bits_on_f16(emulate):
    x = np.arange(11, dtype=np.float16) + 1
    out = emulate(padding_modes, [x, *[np.full(8, 7, np.float16) for _ in range(4)]], [8])
    for got, pad in zip(out[1:], (-0.0, np.inf, np.nan, -np.inf)):
        want = np.full(8, pad, np.float16)
        want[:3] = x[8:]
        _close(got, want, 0)
        assert (np.signbit(got) == np.signbit(want)).all(), (got, want)


@ct.kernel
def row_and_column(X, R, Cl, BN: C[int]):
    x = ct.load(X, index=(0, 0), shape=(1, BN))
    y = ct.load(X, index=(0, 0), shape=(BN, 1), order=(1, 0))  # X's one row as a column
    ct.store(R, index=(0, 0), tile=ct.cumsum(x, axis=1) + ct.sum(y, axis=0, keepdims=True))
    ct.store(Cl, index=(0, 0), tile=ct.max(y, axis=1, keepdims=True) * 2)


def test_one_by_n_and_n_by_one_tiles(emulate):
    x = np.random.default_rng(2905).integers(-9, 9, (1, 8)).astype(np.float32)
    _, r, c = emulate(row_and_column, [x, *_nans((1, 8), np.float32), *_nans((8, 1), np.float32)], [8])
    _close(r, np.cumsum(x, 1) + x.sum())
    _close(c, x.T * 2)


@ct.kernel
def bool_tiles(A, B, O1, O2, O3, BN: C[int]):
    a = ct.load(A, index=(0,), shape=(BN,))
    b = ct.load(B, index=(0,), shape=(BN,))
    ct.store(O1, index=(0,), tile=(a & ~b) | (a ^ b))
    ct.store(O2, index=(0,), tile=ct.where(a, b.astype(ct.int32) + 5, -3))
    ct.store(O3, index=(0,), tile=ct.sum(a.astype(ct.int32), axis=0, keepdims=True) + ct.zeros((BN,), ct.int32))


def test_bool_tiles(emulate):
    a = np.array([1, 0, 1, 1, 0, 0, 1, 0], bool)
    b = np.array([1, 1, 0, 1, 0, 1, 0, 0], bool)
    out = emulate(bool_tiles, [a, b, np.zeros(8, bool), *_sent(8, np.int32, 2)], [8])
    assert (out[2].view(np.uint8) == ((a & ~b) | (a ^ b))).all(), out[2]
    assert (out[3] == np.where(a, b.astype(np.int32) + 5, -3)).all() and (out[4] == a.sum()).all(), out[3:]


@ct.kernel
def sliced_rows_max(X, Y, lo: int, hi: int, BN: C[int]):
    t = X.slice(axis=0, start=lo, stop=hi).tiled_view((2, BN), padding_mode=ct.PaddingMode.NEG_INF)
    j = ct.bid(0)
    ct.store(Y, index=(j, 0), tile=ct.max(t.load((j, 0)), axis=0, keepdims=True))


def test_slice_with_runtime_bounds_then_tiled_view(emulate):
    x = np.random.default_rng(2906).standard_normal((9, 8)).astype(np.float32)
    _, y = emulate(sliced_rows_max, [x, *_nans((3, 8), np.float32)], [2, 7, 8], grid=(3,))
    sub = x[2:7]
    _close(y, np.stack([sub[0:2].max(0), sub[2:4].max(0), sub[4:5].max(0)]))


@ct.kernel
def sliding_window_sums(X, Y, BN: C[int]):
    t = X.tiled_view((BN,), traversal_steps=(1,), padding_mode=ct.PaddingMode.ZERO)
    j = ct.bid(0)
    ct.store(Y, index=(j,), tile=ct.sum(t.load((j,)), axis=0, keepdims=True))


def test_overlapping_tiled_view_windows(emulate):
    x = np.arange(1, 11, dtype=np.float32)
    _, y = emulate(sliding_window_sums, [x, *_nans(10, np.float32)], [4], grid=(10,))
    _close(y, [x[j:j + 4].sum() for j in range(10)])


# --------------------------------------------------------------------------------------- reductions and scans


@ct.kernel
def int_reductions_axis0(X, P, Mn, Mx, Am, BN: C[int]):
    x = ct.load(X, index=(0, 0, 0), shape=(4, 2, BN))
    ct.store(P, index=(0, 0), tile=ct.prod(x, axis=0))
    ct.store(Mn, index=(0, 0), tile=ct.min(x, axis=0))
    ct.store(Mx, index=(0, 0), tile=ct.max(x, axis=0))
    ct.store(Am, index=(0, 0), tile=ct.argmax(x, axis=0).astype(ct.int16))


def test_int16_reductions_down_the_first_axis_of_a_3d_tile(emulate):
    x = np.random.default_rng(2901).integers(-5, 6, (4, 2, 8)).astype(np.int16)
    out = emulate(int_reductions_axis0, [x, *_sent((2, 8), np.int16, 4)], [8])
    for got, want in zip(out[1:], (np.prod(x, 0, dtype=np.int16), x.min(0), x.max(0), x.argmax(0))):
        assert (got == want).all(), (got, want)


@ct.kernel
def nan_reductions_3d(X, Mx, Mn, Pm, Am, BN: C[int]):
    x = ct.load(X, index=(0, 0, 0), shape=(2, 4, BN))
    ct.store(Mx, index=(0, 0), tile=ct.max(x, axis=1))
    ct.store(Mn, index=(0, 0), tile=ct.min(x, axis=0))
    ct.store(Pm, index=(0, 0), tile=ct.max(x, axis=2, propagate_nan=True))
    ct.store(Am, index=(0, 0), tile=ct.argmax(x, axis=1, propagate_nan=True).astype(ct.int32))


def test_float_reductions_with_nan_on_each_axis(emulate):
    x = np.random.default_rng(2902).standard_normal((2, 4, 8)).astype(np.float32)
    x[0, 1, 3] = np.nan
    x[1, :, 5] = np.nan
    x[0, 2, 2] = np.inf
    x[1, 3, 0] = -np.inf
    x[:, :, 7] = -np.inf
    out = emulate(nan_reductions_3d, [x, *_nans((2, 8), np.float32), *_nans((4, 8), np.float32),
                                      *_nans((2, 4), np.float32), *_sent((2, 8), np.int32)], [8])
    with np.errstate(invalid="ignore"):
        _close(out[1], np.fmax.reduce(x, 1))
        _close(out[2], np.fmin.reduce(x, 0))
        _close(out[3], np.max(x, 2))
    nan = np.isnan(x)
    want = np.where(nan.any(1), np.argmax(nan, 1), np.argmax(np.where(nan, -np.inf, x), 1))
    assert (out[4] == want).all(), out[4]


@ct.kernel
def tuple_reduce_argmax(X, V, I, BM: C[int], BN: C[int]):
    x = ct.load(X, index=(0, 0), shape=(BM, BN))
    idx = ct.broadcast_to(ct.arange(BN, dtype=ct.int32)[None, :], (BM, BN))

    def first_max(av, ai, bv, bi):
        take_b = (bv > av) | ((bv == av) & (bi < ai))
        return ct.where(take_b, bv, av), ct.where(take_b, bi, ai)
    v, i = ct.reduce((x, idx), axis=1, func=first_max, identity=(-float("inf"), 2**31 - 1))
    ct.store(V, index=(0,), tile=v)
    ct.store(I, index=(0,), tile=i)


def test_reduce_over_a_tuple_custom_argmax_ties_first(emulate):
    x = np.random.default_rng(2903).integers(-3, 3, (4, 16)).astype(np.float32)
    _, v, i = emulate(tuple_reduce_argmax, [x, *_nans(4, np.float32), *_sent(4, np.int32)], [4, 16])
    _close(v, x.max(1))
    assert (i == x.argmax(1)).all(), i


@ct.kernel
def reversed_max_scan_down(X, Y, BM: C[int], BN: C[int]):
    x = ct.load(X, index=(0, 0), shape=(BM, BN))
    ct.store(Y, index=(0, 0), tile=ct.scan(x, axis=0, func=lambda a, b: ct.maximum(a, b), identity=-2**31,
                                           reverse=True))


def test_reversed_custom_scan_down_the_columns(emulate):
    x = np.random.default_rng(2904).integers(-100, 100, (8, 4)).astype(np.int32)
    _, y = emulate(reversed_max_scan_down, [x, *_sent((8, 4), np.int32)], [8, 4])
    assert (y == np.maximum.accumulate(x[::-1], axis=0)[::-1]).all(), y


@ct.kernel
def int64_scans_3d(X, Y, BN: C[int]):
    x = ct.load(X, index=(0, 0, 0), shape=(4, 2, BN))
    ct.store(Y, index=(0, 0, 0), tile=ct.cumsum(x, axis=0) * ct.cumprod(x, axis=2, reverse=True))


def test_int64_cumsum_and_reversed_cumprod_of_a_3d_tile(emulate):
    x = np.random.default_rng(2908).integers(-2**20, 2**20, (4, 2, 8)).astype(np.int64)
    _, y = emulate(int64_scans_3d, [x, *_sent((4, 2, 8), np.int64)], [8])
    with np.errstate(over="ignore"):
        want = np.cumsum(x, 0) * np.cumprod(x[:, :, ::-1], 2)[:, :, ::-1]
    assert (y == want).all()


@ct.kernel
def uint8_reductions(X, Mn, Mx, S, Am, BM: C[int], BN: C[int]):
    x = ct.load(X, index=(0, 0), shape=(BM, BN))
    ct.store(Mn, index=(0,), tile=ct.min(x, axis=1))
    ct.store(Mx, index=(0,), tile=ct.max(x, axis=0))
    ct.store(S, index=(0,), tile=ct.sum(x, axis=1))
    ct.store(Am, index=(0,), tile=ct.argmin(x, axis=1).astype(ct.int32))


def test_uint8_reductions_compare_unsigned_and_wrap(emulate):
    x = np.random.default_rng(2909).integers(0, 256, (4, 8)).astype(np.uint8)
    x[1, 3] = 255
    x[2, :] = 200
    out = emulate(uint8_reductions, [x, *_sent(4, np.uint8), *_sent(8, np.uint8), *_sent(4, np.uint8),
                                     *_sent(4, np.int32)], [4, 8])
    assert (out[1] == x.min(1)).all() and (out[2] == x.max(0)).all(), out[1:3]
    assert (out[3] == x.sum(1, dtype=np.uint8)).all() and (out[4] == x.argmin(1)).all(), out[3:]


# --------------------------------------------------------------------------------------- construction, printf


@ct.kernel
def arange_start_step(A, B, BN: C[int]):
    ct.store(A, index=(0,), tile=ct.arange(BN, dtype=ct.int16, start=-3, step=5))
    ct.store(B, index=(0,), tile=ct.arange(BN, dtype=ct.int64, start=2**40, step=3))


def test_arange_with_start_and_step(emulate):
    a, b = emulate(arange_start_step, [*_sent(8, np.int16), *_sent(8, np.int64)], [8])
    assert (a == -3 + 5 * np.arange(8)).all() and (b == 2**40 + 3 * np.arange(8)).all(), (a, b)


@ct.kernel
def insert_block(X, Y, BN: C[int]):
    x = ct.load(X, index=(0, 0), shape=(4, BN))
    ct.store(Y, index=(0, 0), tile=ct.insert(x, index=(1, 1), value=ct.full((2, BN // 2), -1.0, ct.float32)))


def test_insert_a_block_at_a_tile_index(emulate):
    x = np.arange(32, dtype=np.float32).reshape(4, 8)
    _, y = emulate(insert_block, [x, *_nans((4, 8), np.float32)], [8])
    want = x.copy()
    want[2:4, 4:8] = -1
    _close(y, want)


@ct.kernel
def printf_mixed(X, L, BN: C[int]):
    x = ct.load(X, index=(0,), shape=(BN,))
    lw = ct.load(L, index=(0,), shape=(BN,))
    ct.printf("h=%f l=%lld b=%d\n", x, lw, lw > 0)


def test_printf_of_f16_int64_and_bool_values(emulate):
    from tileorch.testing.print_expected import printf_text

    x = np.array([1.5, -2.25, 0, 65504, -0.0, 3, 1e-3, 7], np.float16)
    lw = np.array([2**40, -1, 0, 5, -2**62, 1, 2, 3], np.int64)
    s10e.PRINTED.clear()
    emulate(printf_mixed, [x, lw], [8])
    assert s10e.PRINTED == [printf_text("h=%f l=%lld b=%d\n", x.astype(np.float64), lw, lw > 0)], s10e.PRINTED
