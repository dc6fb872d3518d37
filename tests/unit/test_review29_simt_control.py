"""Review 29 (issue 21 item 1): control flow, shapes, indexing and integer programs of cuTile on the SIMT path --
programs without a dot written with cuTile's Python API, compiled for sm_90a and run on the PTX emulator against
numpy with NaN / sentinel-prefilled outputs: a scalar from ``Tile.item()`` deciding a store and an early
``return``, a ``while`` loop that ``break``s on a loaded value, a runtime loop bound read from memory (0, 3 and 5
iterations), nested loops carrying a maximum, ``ct.static_iter``, a rank-5 ``permute``, ``cat`` along the last axis
and ``extract`` at a non-zero tile index, loads / gathers / stores / atomics with ``check_bounds=False``, 3-D
gathers by three broadcast index tiles with out-of-bounds padding, ``load_advanced_indexing`` /
``store_advanced_indexing`` of gathered rows, ``pack_to_bytes`` / ``unpack_from_bytes``, tiles past either end of
the array, int8 and int64 (past 32 bits) gather / scatter indices, powers by Python ints, bool reductions, int64
argmax / argmin with ties, int8 and uint64 floor division and remainder at the edges, f32 / f64 / uint64 atomic
adds and an f32 ``atomic_xchg``, and program ids on a 3-D grid.  All held (nothing found here).  Needs cuda-tile."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("xdsl")
ct = pytest.importorskip("cuda.tile")
pytest.importorskip("ml_dtypes")

from test_review27_integer_semantics import floor_div_mod  # noqa: E402  (x // y and x % y of two loaded tiles)
from test_review29_simt_math import _close, _nans, emulate  # noqa: E402,F401  (emulate: the fixture)

C = ct.Constant
SENTINEL = 77
ZERO = ct.PaddingMode.ZERO


def _sent(shape, dtype, count=1):
    return [np.full(shape, SENTINEL, dtype) for _ in range(count)]


@ct.kernel
def item_decides_the_store(X, Y, BN: C[int]):
    s = ct.sum(ct.load(X, index=(0,), shape=(BN,))).item()
    if s > 10:
        ct.store(Y, index=(0,), tile=s * 2)
        return
    ct.store(Y, index=(1,), tile=s)


@pytest.mark.parametrize("scale", [3.0, 0.5])
def test_a_scalar_from_item_decides_the_store_and_returns_early(emulate, scale):
    x = np.arange(4, dtype=np.float32) * scale
    _, y = emulate(item_decides_the_store, [x, *_nans(2, np.float32)], [4])
    s = x.sum()
    _close(y, [2 * s, np.nan] if s > 10 else [np.nan, s])


@ct.kernel
def while_until_negative(X, Y, n: int, BN: C[int]):
    acc = ct.zeros((BN,), ct.float32)
    k = 0
    while k < n:
        t = ct.load(X, index=(k,), shape=(BN,), padding_mode=ZERO)
        if ct.max(t).item() < 0:
            break
        acc = acc + t
        k += 1
    ct.store(Y, index=(0,), tile=acc)


def test_while_loop_breaks_on_a_loaded_value(emulate):
    x = np.ones(40, np.float32)
    x[20:24] = -1
    x[:8] = 2
    _, y = emulate(while_until_negative, [x, *_nans(4, np.float32)], [10, 4])
    _close(y, x[:20].reshape(5, 4).sum(0))


@ct.kernel
def loop_bound_from_memory(N, X, Y, BN: C[int]):
    acc = ct.zeros((BN,), ct.int32)
    for k in range(ct.load(N, index=(0,), shape=(1,)).item()):
        acc = acc + ct.load(X, index=(k,), shape=(BN,), padding_mode=ZERO)
    ct.store(Y, index=(0,), tile=acc)


@pytest.mark.parametrize("n", [0, 3, 5])
def test_a_loop_bound_read_from_memory(emulate, n):
    x = np.arange(18, dtype=np.int32)
    *_, y = emulate(loop_bound_from_memory, [np.array([n], np.int32), x, *_sent(4, np.int32)], [4])
    padded = np.zeros(20, np.int32)
    padded[:18] = x
    assert (y == padded[:4 * n].reshape(n, 4).sum(0)).all(), y


@ct.kernel
def nested_loops_max_of_sums(X, Y, n: int, m: int, BN: C[int]):
    acc = ct.full((BN,), -float("inf"), ct.float32)
    for i in range(n):
        row = ct.zeros((BN,), ct.float32)
        for j in range(m):
            row = row + ct.load(X, index=(i, j), shape=(1, BN)).reshape((BN,))
        acc = ct.maximum(acc, row)
    ct.store(Y, index=(0,), tile=acc)


def test_nested_loops_carry_a_maximum(emulate):
    x = np.random.default_rng(2911).standard_normal((3, 12)).astype(np.float32)
    _, y = emulate(nested_loops_max_of_sums, [x, *_nans(4, np.float32)], [3, 3, 4])
    _close(y, x.reshape(3, 3, 4).sum(1).max(0), 1e-6)


@ct.kernel
def static_iter_digits(X, Y, BN: C[int]):
    acc = ct.zeros((BN,), ct.int32)
    for k in ct.static_iter(range(3)):
        acc = acc * 10 + ct.load(X, index=(k,), shape=(BN,))
    ct.store(Y, index=(0,), tile=acc)


def test_static_iter(emulate):
    x = np.arange(12, dtype=np.int32) % 10
    _, y = emulate(static_iter_digits, [x, *_sent(4, np.int32)], [4])
    assert (y == x[0:4] * 100 + x[4:8] * 10 + x[8:12]).all(), y


@ct.kernel
def rank5_permute(X, Y):
    x = ct.load(X, index=(0, 0, 0, 0, 0), shape=(2, 1, 2, 2, 4))
    ct.store(Y, index=(0, 0, 0, 0, 0), tile=ct.permute(x, (4, 3, 2, 1, 0)) + 1)


def test_rank5_permute(emulate):
    x = np.arange(32, dtype=np.float32).reshape(2, 1, 2, 2, 4)
    _, y = emulate(rank5_permute, [x, *_nans((4, 2, 2, 1, 2), np.float32)], [])
    _close(y, x.transpose(4, 3, 2, 1, 0) + 1)


@ct.kernel
def cat_then_extract(X, Y, Z, BN: C[int]):
    y = ct.cat((ct.load(X, index=(0, 0), shape=(2, BN)), -ct.load(X, index=(0, 0), shape=(2, BN))), axis=1)
    ct.store(Y, index=(0, 0), tile=y)
    ct.store(Z, index=(0, 0), tile=ct.extract(y, index=(1, 1), shape=(1, BN)))


def test_cat_along_the_last_axis_and_extract_at_a_tile_index(emulate):
    x = np.arange(8, dtype=np.int16).reshape(2, 4)
    _, y, z = emulate(cat_then_extract, [x, *_sent((2, 8), np.int16), *_sent((1, 4), np.int16)], [4])
    want = np.concatenate([x, -x], 1)
    assert (y == want).all() and (z == want[1:2, 4:8]).all(), (y, z)


@ct.kernel
def unchecked_accesses(X, I, Y, A, BN: C[int]):
    i = ct.load(I, index=(0,), shape=(BN,), check_bounds=False)
    g = ct.gather(X, i, check_bounds=False)
    ct.store(Y, index=(0,), tile=g, check_bounds=False)
    ct.atomic_add(A, i % 2, g, check_bounds=False)


def test_accesses_without_bounds_checks(emulate):
    x = np.arange(10, dtype=np.float32)
    i = np.array([9, 3, 0, 1, 5, 2, 7, 8], np.int32)
    *_, y, a = emulate(unchecked_accesses, [x, i, *_nans(8, np.float32), np.zeros(2, np.float32)], [8])
    _close(y, x[i])
    _close(a, [x[i][i % 2 == 0].sum(), x[i][i % 2 == 1].sum()])


@ct.kernel
def gather_3d_outer(X, A, B, Cl, Y, BM: C[int], BN: C[int], BK: C[int]):
    a = ct.load(A, index=(0,), shape=(BM,))
    b = ct.load(B, index=(0,), shape=(BN,))
    c = ct.load(Cl, index=(0,), shape=(BK,))
    ct.store(Y, index=(0, 0, 0), tile=ct.gather(X, (a[:, None, None], b[None, :, None], c[None, None, :]),
                                                 padding_value=-1.0))


def test_3d_gather_by_three_broadcast_index_tiles(emulate):
    x = np.arange(3 * 5 * 7, dtype=np.float32).reshape(3, 5, 7)
    a, b, c = np.array([0, 2, 3, 1], np.int32), np.array([4, 0], np.int32), np.array([6, 7, 0, -1], np.int32)
    *_, y = emulate(gather_3d_outer, [x, a, b, c, *_nans((4, 2, 4), np.float32)], [4, 2, 4])
    ok = (a < 3)[:, None, None] & (b < 5)[None, :, None] & ((c >= 0) & (c < 7))[None, None, :]
    _close(y, np.where(ok, x[np.clip(a, 0, 2)][:, np.clip(b, 0, 4)][:, :, np.clip(c, 0, 6)], -1))


@ct.kernel
def gathered_rows_scaled(X, I, Y, BN: C[int]):
    i = ct.load(I, index=(0,), shape=(4,))
    t = ct.load_advanced_indexing(X, (i, ct.Slice(2, BN)), padding_mode=ZERO)
    ct.store_advanced_indexing(Y, (i, ct.Slice(0, BN)), t * 2)


def test_advanced_indexing_rows_in_and_out(emulate):
    x = np.arange(6 * 9, dtype=np.float32).reshape(6, 9)
    i = np.array([5, 0, 3, 2], np.int32)
    *_, y = emulate(gathered_rows_scaled, [x, i, *_nans((6, 8), np.float32)], [8])
    want = np.full((6, 8), np.nan, np.float32)
    for k in i:
        want[k] = np.concatenate([x[k, 2:9], [0]]) * 2
    _close(y, want)


@ct.kernel
def bytes_round_trip(X, B, Y, BN: C[int]):
    b = ct.pack_to_bytes(ct.load(X, index=(0,), shape=(BN,)))
    ct.store(B, index=(0,), tile=b)
    ct.store(Y, index=(0,), tile=ct.unpack_from_bytes(b, ct.int16))


def test_pack_to_bytes_and_unpack_as_int16(emulate):
    x = np.array([0x04030201, -1, 0x7FFF8000, 5], np.int32)
    _, b, y = emulate(bytes_round_trip, [x, *_sent(16, np.uint8), *_sent(8, np.int16)], [4])
    assert (b == x.view(np.uint8)).all() and (y == x.view(np.int16)).all(), (b, y)


@ct.kernel
def int64_arg_extremes(X, I, J, BM: C[int], BN: C[int]):
    x = ct.load(X, index=(0, 0), shape=(BM, BN))
    ct.store(I, index=(0,), tile=ct.argmax(x, axis=1))
    ct.store(J, index=(0,), tile=ct.argmin(x, axis=0))


def test_int64_argmax_argmin_with_ties_and_extremes(emulate):
    x = np.random.default_rng(2912).integers(-2, 2, (4, 8)).astype(np.int64)
    x[0] = 2**62
    x[1, 5] = -2**63
    _, i, j = emulate(int64_arg_extremes, [x, *_sent(4, np.int32), *_sent(8, np.int32)], [4, 8])
    assert (i == x.argmax(1)).all() and (j == x.argmin(0)).all(), (i, j)


def test_int8_floor_division_at_the_edges(emulate):
    x = np.array([-128, -128, 127, -1, 5, -5, -128, 0], np.int8)
    y = np.array([-1, -128, -128, -128, -3, 3, 127, -128], np.int8)
    *_, q, r = emulate(floor_div_mod, [x, y, *_sent(8, np.int8, 2)], [8])
    assert (q == (x.astype(np.int64) // y).astype(np.int8)).all(), q  # -128 // -1 wraps to -128
    assert (r == (x.astype(np.int64) % y).astype(np.int8)).all(), r


def test_uint64_floor_division_past_the_sign_bit(emulate):
    x = np.array([2**64 - 1, 2**63, 12345678901234567890, 5, 2**64 - 2, 7, 0, 2**40], np.uint64)
    y = np.array([3, 2**63 + 1, 2**32 + 7, 10, 2**64 - 1, 7, 9, 2**63], np.uint64)
    *_, q, r = emulate(floor_div_mod, [x, y, *_sent(8, np.uint64, 2)], [8])
    assert (q == x // y).all() and (r == x % y).all(), (q, r)


@ct.kernel
def float_and_u64_atomics(F, D, U, I, V, O, BN: C[int]):
    i = ct.load(I, index=(0,), shape=(BN,))
    v = ct.load(V, index=(0,), shape=(BN,))
    ct.store(O, index=(0,), tile=ct.atomic_add(F, i, v, memory_order=ct.MemoryOrder.RELAXED,
                                               memory_scope=ct.MemoryScope.BLOCK))
    ct.atomic_add(D, i, v.astype(ct.float64))
    ct.atomic_add(U, i, v.astype(ct.uint64))
    ct.atomic_xchg(F, i + 4, v)


def test_f32_f64_u64_atomic_adds_and_an_f32_exchange(emulate):
    i = np.array([0, 1, 1, 2, 3, 3, 3, 0], np.int32)
    v = np.array([1.5, 2, 3, 4, 5, 6, 7, 8], np.float32)
    f, d, u = np.zeros(8, np.float32), np.zeros(4), np.full(4, 2**64 - 3, np.uint64)
    f_after, d_after, u_after, *_, old = emulate(float_and_u64_atomics, [f, d, u, i, v, *_nans(8, np.float32)], [8])
    want_f, want_d, want_u = np.zeros(4, np.float32), np.zeros(4), u.copy()
    np.add.at(want_f, i, v)
    np.add.at(want_d, i, v)
    np.add.at(want_u, i, v.astype(np.uint64))  # wraps past 2^64
    _close(f_after[:4], want_f)
    _close(d_after, want_d)
    assert (u_after == want_u).all(), u_after
    last = {k: v[np.nonzero(i == k)[0][-1]] for k in range(4)}  # the exchange in lane order: the last lane's value
    _close(f_after[4:], [last[k] for k in range(4)])
    cur, olds = np.zeros(4, np.float32), []
    for k in range(8):
        olds.append(cur[i[k]])
        cur[i[k]] += v[k]
    _close(old, olds)


@ct.kernel
def grid_3d_program_ids(Y, BN: C[int]):
    x, y, z = ct.bid(0), ct.bid(1), ct.bid(2)
    nx, ny, nz = ct.num_blocks(0), ct.num_blocks(1), ct.num_blocks(2)
    ct.store(Y, index=((z * ny + y) * nx + x,), tile=ct.full((BN,), x + nx * (y + ny * z) + nz * 1000, ct.int32))


def test_program_ids_and_counts_on_a_3d_grid(emulate):
    (y,) = emulate(grid_3d_program_ids, [*_sent(2 * 3 * 2 * 4, np.int32)], [4], grid=(2, 3, 2))
    assert (y == np.repeat(np.arange(12), 4) + 2000).all(), y


@ct.kernel
def tiles_past_the_end(X, Y, Z, k: int, BN: C[int]):
    t = ct.load(X, index=(k,), shape=(BN,), padding_mode=ct.PaddingMode.POS_INF)
    ct.store(Y, index=(0,), tile=t)
    ct.store(Z, index=(k,), tile=t * 0 + 5)


@pytest.mark.parametrize("k", [2, 3, 100, -1])
def test_a_tile_index_past_either_end_loads_padding_and_stores_nothing(emulate, k):
    x = np.arange(10, dtype=np.float32)
    _, y, z = emulate(tiles_past_the_end, [x, *_nans(4, np.float32), *_nans(10, np.float32)], [k, 4])
    want_y, want_z = np.full(4, np.inf, np.float32), np.full(10, np.nan, np.float32)
    if k >= 0:
        seg = x[4 * k: 4 * k + 4]
        want_y[:len(seg)] = seg
        want_z[4 * k: 4 * k + 4] = 5
    np.testing.assert_array_equal(y, want_y)
    np.testing.assert_array_equal(z, want_z)


@ct.kernel
def int8_and_int64_ids(X, I8, I64, A, B, BN: C[int]):
    a = ct.gather(X, ct.load(I8, index=(0,), shape=(BN,)), padding_value=-7.0)
    b = ct.gather(X, ct.load(I64, index=(0,), shape=(BN,)), padding_value=-9.0)
    ct.store(A, index=(0,), tile=a)
    ct.store(B, index=(0,), tile=b)
    ct.scatter(X, ct.load(I64, index=(0,), shape=(BN,)), b * 0 + 100.0)


def test_int8_and_int64_indices_past_32_bits_are_out_of_bounds(emulate):
    x = np.arange(10, dtype=np.float32)
    i8 = np.array([-128, 127, 9, 0, -1, 5, 10, 3], np.int8)
    i64 = np.array([2**32 + 1, -2**40, 9, 2**63 - 1, 0, 2**32, -1, 7], np.int64)
    x_after, _, _, a, b = emulate(int8_and_int64_ids, [x.copy(), i8, i64, *_nans(8, np.float32, 2)], [8])
    np.testing.assert_array_equal(a, np.where((i8 >= 0) & (i8 < 10), x[np.clip(i8, 0, 9)], -7))
    np.testing.assert_array_equal(b, np.where((i64 >= 0) & (i64 < 10), x[np.clip(i64, 0, 9)], -9))
    want = x.copy()
    want[[9, 0, 7]] = 100
    np.testing.assert_array_equal(x_after, want)


@ct.kernel
def integer_powers(X, P2, P3, Pm1, P0, P5, BN: C[int]):
    x = ct.load(X, index=(0,), shape=(BN,))
    ct.store(P2, index=(0,), tile=x ** 2)
    ct.store(P3, index=(0,), tile=x ** 3)
    ct.store(Pm1, index=(0,), tile=x ** -1)
    ct.store(P0, index=(0,), tile=x ** 0)
    ct.store(P5, index=(0,), tile=x ** 5)


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_powers_by_python_ints_keep_signs_and_specials(emulate, dtype):
    with np.errstate(over="ignore"):
        x = np.array([-2, -0.0, 0, np.nan, np.inf, -np.inf, 1e-3, 3.5, -1, 1e10, 1e-30, -40, 300, 0.5, 2, -3], dtype)
    _, *got = emulate(integer_powers, [x, *_nans(16, dtype, 5)], [16])
    for g, n in zip(got, (2, 3, -1, 0, 5)):
        with np.errstate(all="ignore"):
            want = (x.astype(np.float64) ** n).astype(dtype)
        _close(g, want, 2e-3 if dtype == np.float16 else 2e-6)
        assert (np.signbit(g) == np.signbit(want))[~np.isnan(want)].all(), (n, g, want)


@ct.kernel
def bool_row_reductions(A, Mx, Mn, S, Cs, BM: C[int], BN: C[int]):
    a = ct.load(A, index=(0, 0), shape=(BM, BN))
    ct.store(Mx, index=(0,), tile=ct.max(a, axis=1))
    ct.store(Mn, index=(0,), tile=ct.min(a, axis=1))
    ct.store(S, index=(0,), tile=ct.sum(a, axis=1))
    ct.store(Cs, index=(0, 0), tile=ct.cumsum(a, axis=1))


def test_bool_reductions_any_all_count_and_running_count(emulate):
    """cuTile reduces bool tiles as int32: max is "any", min "all", sum a count."""
    a = np.array([[1, 0, 0, 0], [1, 1, 1, 1], [0, 0, 0, 0], [0, 1, 0, 1]], bool)
    _, mx, mn, s, cs = emulate(bool_row_reductions, [a, *_sent(4, np.int32, 3), *_sent((4, 4), np.int32)], [4, 4])
    assert (mx == a.any(1)).all() and (mn == a.all(1)).all() and (s == a.sum(1)).all(), (mx, mn, s)
    assert (cs == np.cumsum(a, 1)).all(), cs
