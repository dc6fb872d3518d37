"""Adversarial integer programs (review 27) on the PTX emulator (SIMT path), outputs sentinel-prefilled.

The CUDA Tile IR spec (``divi``, ``remi``): division by zero and the signed ``MIN / -1`` are undefined; integer
arithmetic wraps.  LLVM's ``sdiv`` / ``udiv`` / ``srem`` / ``urem`` by zero (and ``MIN / -1``) are immediate undefined
behaviour: where LLVM folded the divisor to such a constant (``x // 0``, ``x // (x * 0)``) it deleted the store
of the result, and its ``shl`` / ``lshr`` / ``ashr`` by the width or more are poison (``x >> (x * 0 + 40)``).
Since review 27 ``convert-arith-to-llvm`` (``transforms/defined_integer_llvm.py``) makes every such op defined:
a shift past the width gives PTX's clamp (0, or the sign), a division by zero the dividend (remainder 0: a
value of the spec's "undefined" the compiler now fixes on every path, the GPU included, since the hardware
divides by 1), ``MIN // -1`` wraps to ``MIN`` (``MIN % -1 = 0``).  Unsigned ``ct.cdiv`` near the largest
value was ``(a + b - 1) / b`` and wrapped (``cdiv(255, 16)`` in uint8 gave 0); it is now
``a == 0 ? 0 : (a - 1) / b + 1``.

The rest checks the semantics a user relies on against numpy (they held before): cuTile's ``//`` and ``%``
(floor, sign of the divisor) for i8/i16/i32/i64 with negative operands, unsigned max/min/compare on values
with the top bit set, truncation/extension chains, ``bitcast`` f16 <-> i16 bit for bit (NaN payloads
included), ``arange`` on a ragged last tile, integer sums and products that wrap.  Needs cuda-tile."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("xdsl")
ct = pytest.importorskip("cuda.tile")
pytest.importorskip("ml_dtypes")

import test_user_sweep10_emulated as s10e  # noqa: E402
import test_user_sweep_interp as sweep  # noqa: E402

from tileorch.testing.user_programs import UserProgram  # noqa: E402

C = ct.Constant
N = 8
SENTINEL = 77


@pytest.fixture
def emulate(monkeypatch):
    """``emulate(kernel, arrays, grid=(1,), bn=N)``: ``kernel(*arrays, bn)`` on the emulator; every array after the run."""
    monkeypatch.setitem(sweep.NP, "uint16", np.uint16)
    monkeypatch.setitem(sweep.NP, "uint64", np.uint64)

    def run(kernel, arrays, grid=(1,), bn=N):
        name = f"rv27_{kernel._pyfunc.__name__}_{'_'.join(a.dtype.name for a in arrays)}_{bn}"
        return s10e.emulate_kernel(monkeypatch, name, kernel, arrays, [bn], grid)
    return run


def _sentinels(dtype, count, n=N):
    return [np.full(n, SENTINEL, dtype) for _ in range(count)]


def _wrap(values, dtype) -> np.ndarray:
    """Python integers reduced modulo 2^bits into ``dtype`` (two's complement)."""
    bits = np.iinfo(dtype).bits
    return np.array([v & ((1 << bits) - 1) for v in values], np.uint64).astype(f"uint{bits}").view(dtype)


# --------------------------------------------------------------------------------------- division by 0 / -1


@ct.kernel
def by_zero_constant(X, Q, R, T, BN: C[int]):
    x = ct.load(X, index=(0,), shape=(BN,))
    ct.store(Q, index=(0,), tile=x // 0)
    ct.store(R, index=(0,), tile=x % 0)
    ct.store(T, index=(0,), tile=x + 1)


@ct.kernel
def by_zero_folded(X, Q, R, T, BN: C[int]):
    x = ct.load(X, index=(0,), shape=(BN,))
    z = x * 0  # zero only once LLVM folds it
    ct.store(Q, index=(0,), tile=x // z)
    ct.store(R, index=(0,), tile=x % z)
    ct.store(T, index=(0,), tile=x + 1)


@ct.kernel
def by_zero_loaded(X, Y, Q, R, BN: C[int]):
    x = ct.load(X, index=(0,), shape=(BN,))
    y = ct.load(Y, index=(0,), shape=(BN,))
    ct.store(Q, index=(0,), tile=x // y)
    ct.store(R, index=(0,), tile=x % y)


def _extremes(dtype):
    info = np.iinfo(dtype)
    return np.array([7, -7, info.min, info.max, 0, 1, -1, info.min + 1], dtype)


@pytest.mark.parametrize("dtype", ["int8", "int32", "int64"])
@pytest.mark.parametrize("kernel", [by_zero_constant, by_zero_folded], ids=["constant", "folded"])
def test_a_divisor_llvm_folds_to_zero_keeps_the_stores(emulate, kernel, dtype):
    """Before: LLVM deleted both stores (the outputs kept their sentinel); the store after them was kept."""
    x = _extremes(dtype)
    q, r, t = emulate(kernel, [x, *_sentinels(dtype, 3)])[1:]
    np.testing.assert_array_equal(q, x)
    np.testing.assert_array_equal(r, 0)
    np.testing.assert_array_equal(t, _wrap([int(v) + 1 for v in x], dtype))


@pytest.mark.parametrize("dtype", ["int16", "int64"])
def test_a_loaded_zero_divisor_is_the_same_defined_value(emulate, dtype):
    """A zero divisor from memory gives what a folded one gives (the emulator's div-by-zero value, all
    ones, is never reached: before, the quotient here was -1 or 2^32 - 1 by lane); the other lanes are
    cuTile's floor division / modulo."""
    x = _extremes(dtype)
    y = np.array([0, 0, 0, 0, 0, 3, -2, 5], dtype)
    q, r = emulate(by_zero_loaded, [x, y, *_sentinels(dtype, 2)])[2:]
    zero = y == 0
    np.testing.assert_array_equal(q[zero], x[zero])
    np.testing.assert_array_equal(r[zero], 0)
    np.testing.assert_array_equal(q[~zero], x[~zero] // y[~zero])
    np.testing.assert_array_equal(r[~zero], x[~zero] % y[~zero])


@ct.kernel
def by_minus_one(X, Y, Q, R, Q2, R2, BN: C[int]):
    x = ct.load(X, index=(0,), shape=(BN,))
    y = ct.load(Y, index=(0,), shape=(BN,))  # all -1
    ct.store(Q, index=(0,), tile=x // y)
    ct.store(R, index=(0,), tile=x % y)
    m = x * 0 - 1  # -1 once LLVM folds it
    ct.store(Q2, index=(0,), tile=x // m)
    ct.store(R2, index=(0,), tile=x % m)


@pytest.mark.parametrize("dtype", ["int8", "int16", "int32", "int64"])
def test_min_by_minus_one_wraps(emulate, dtype):
    """``MIN // -1`` is ``MIN`` (wrap-around), ``x % -1`` is 0, whether the -1 is loaded or folded."""
    x = _extremes(dtype)
    out = emulate(by_minus_one, [x, np.full(N, -1, dtype), *_sentinels(dtype, 4)])[2:]
    want = _wrap([-int(v) for v in x], dtype)
    for q, r in (out[:2], out[2:]):
        np.testing.assert_array_equal(q, want)
        np.testing.assert_array_equal(r, 0)


# --------------------------------------------------------------------------------------- floor division, cdiv


@ct.kernel
def floor_div_mod(X, Y, Q, R, BN: C[int]):
    x = ct.load(X, index=(0,), shape=(BN,))
    y = ct.load(Y, index=(0,), shape=(BN,))
    ct.store(Q, index=(0,), tile=x // y)
    ct.store(R, index=(0,), tile=x % y)


@pytest.mark.parametrize("dtype", ["int8", "int16", "int32", "int64"])
def test_floor_division_and_modulo_with_negative_operands(emulate, dtype):
    info = np.iinfo(dtype)
    x = np.array([7, -7, 7, -7, info.min, info.max, -1, info.min + 1], dtype)
    y = np.array([2, 2, -2, -2, 3, -3, 5, 7], dtype)
    q, r = emulate(floor_div_mod, [x, y, *_sentinels(dtype, 2)])[2:]
    np.testing.assert_array_equal(q, x // y)
    np.testing.assert_array_equal(r, x % y)


@ct.kernel
def ceil_div(X, Y, Q, BN: C[int]):
    x = ct.load(X, index=(0,), shape=(BN,))
    y = ct.load(Y, index=(0,), shape=(BN,))
    ct.store(Q, index=(0,), tile=ct.cdiv(x, y))


@pytest.mark.parametrize("dtype", ["uint8", "uint32", "uint64", "int32"])
def test_cdiv_near_the_largest_value(emulate, dtype):
    """Before: unsigned ``cdiv`` was ``(a + b - 1) / b`` and wrapped (uint8 ``cdiv(255, 16)`` gave 0)."""
    info = np.iinfo(dtype)
    if info.min < 0:
        x = np.array([7, -7, 7, -7, info.max, info.min, info.max, 0], dtype)
        y = np.array([2, 2, -2, -2, 2, 2, info.max, 5], dtype)
    else:
        x = np.array([7, info.max, info.max, info.max - 1, 1, 0, info.max, 5], dtype)
        y = np.array([2, 2, 1, info.max, info.max, 3, 16, 5], dtype)
    want = np.array([-((-int(a)) // int(b)) for a, b in zip(x, y)], dtype=object).astype(dtype)
    q, = emulate(ceil_div, [x, y, *_sentinels(dtype, 1)])[2:]
    np.testing.assert_array_equal(q, want)


# --------------------------------------------------------------------------------------- shifts


@ct.kernel
def shifts(X, S, L, R, BN: C[int]):
    x = ct.load(X, index=(0,), shape=(BN,))
    s = ct.load(S, index=(0,), shape=(BN,))
    ct.store(L, index=(0,), tile=x << s)
    ct.store(R, index=(0,), tile=x >> s)


@ct.kernel
def folded_right_shifts(X, R, BN: C[int]):
    x = ct.load(X, index=(0,), shape=(BN,))
    ct.store(R, index=(0,), tile=x >> (x * 0 + 40))  # 40 >= the width once LLVM folds it


def _shift_reference(x, s, dtype):
    bits = np.iinfo(dtype).bits
    left, right = [], []
    for a, b in zip(x.tolist(), s.tolist()):
        b %= 1 << bits  # the amount is unsigned (spec)
        left.append(0 if b >= bits else a << b)
        right.append((-1 if a < 0 else 0) if b >= bits else a >> b)
    return _wrap(left, dtype), _wrap(right, dtype)


@pytest.mark.parametrize("dtype", ["int8", "uint8", "int16", "int32", "uint32", "int64", "uint64"])
def test_variable_shift_amounts_past_the_width_clamp(emulate, dtype):
    info = np.iinfo(dtype)
    bits, signed = info.bits, info.min < 0
    x = np.array([1, -3 if signed else info.max - 2, 5, 7, 9, -1 if signed else 3, 2, 3], dtype)
    s = np.array([0, 1, bits - 1, bits, bits + 1, 2 * bits + 1, info.max, -1 if signed else info.max - 1], dtype)
    left, right = emulate(shifts, [x, s, *_sentinels(dtype, 2)])[2:]
    want_left, want_right = _shift_reference(x, s, dtype)
    np.testing.assert_array_equal(left, want_left)
    np.testing.assert_array_equal(right, want_right)


@pytest.mark.parametrize("dtype", ["int32", "uint32"])
def test_a_right_shift_llvm_folds_past_the_width(emulate, dtype):
    """Before: the poison shift's store was deleted (the output kept its sentinel)."""
    x = np.array([1, 5, 0x7FFFFFFF, 3, 0, 9, 100, 2], np.int64).astype(dtype)
    if dtype == "int32":
        x[1::2] = -x[1::2] - 1
    r, = emulate(folded_right_shifts, [x, *_sentinels(dtype, 1)])[1:]
    np.testing.assert_array_equal(r, np.where(x < 0, -1, 0).astype(dtype))


# --------------------------------------------------------------------------------------- unsigned compare / max / min


@ct.kernel
def unsigned_order(X, Y, MX, MN, GT, BN: C[int]):
    x = ct.load(X, index=(0,), shape=(BN,))
    y = ct.load(Y, index=(0,), shape=(BN,))
    ct.store(MX, index=(0,), tile=ct.maximum(x, y))
    ct.store(MN, index=(0,), tile=ct.minimum(x, y))
    ct.store(GT, index=(0,), tile=ct.where(x > y, x, y))


@pytest.mark.parametrize("dtype", ["uint8", "uint32", "uint64"])
def test_unsigned_max_min_and_compare_with_the_top_bit_set(emulate, dtype):
    top = np.iinfo(dtype).max
    x = np.array([0, top, 1, top // 2 + 1, 5, top - 1, 200, 3], dtype)
    y = np.array([top, 0, top // 2 + 2, top // 2, 5, 1, 100, top], dtype)
    mx, mn, gt = emulate(unsigned_order, [x, y, *_sentinels(dtype, 3)])[2:]
    np.testing.assert_array_equal(mx, np.maximum(x, y))
    np.testing.assert_array_equal(mn, np.minimum(x, y))
    np.testing.assert_array_equal(gt, np.where(x > y, x, y))


# --------------------------------------------------------------------------------------- conversions, bitcast


@ct.kernel
def int_chains(X, A, B, Cc, D, E, BN: C[int]):
    x = ct.load(X, index=(0,), shape=(BN,))
    ct.store(A, index=(0,), tile=x.astype(ct.int8).astype(ct.int32))
    ct.store(B, index=(0,), tile=x.astype(ct.uint8).astype(ct.int32))
    ct.store(Cc, index=(0,), tile=x.astype(ct.int8).astype(ct.uint32))
    ct.store(D, index=(0,), tile=x.astype(ct.int16).astype(ct.uint64))
    ct.store(E, index=(0,), tile=x.astype(ct.uint16).astype(ct.int64))


def test_truncation_and_extension_chains(emulate):
    x = np.array([1, -1, 255, 256, -129, 2 ** 31 - 1, -2 ** 31, 40000], np.int32)
    out = emulate(int_chains, [x, *_sentinels(np.int32, 2), *_sentinels(np.uint32, 1), *_sentinels(np.uint64, 1),
                               *_sentinels(np.int64, 1)])[1:]
    want = [x.astype(np.int8).astype(np.int32), x.astype(np.uint8).astype(np.int32),
            x.astype(np.int8).astype(np.uint32), x.astype(np.int16).astype(np.uint64),
            x.astype(np.uint16).astype(np.int64)]
    for got, ref in zip(out, want):
        np.testing.assert_array_equal(got, ref)


@ct.kernel
def bitcasts(X, H, A, B, BN: C[int]):
    x = ct.load(X, index=(0,), shape=(BN,))
    h = ct.load(H, index=(0,), shape=(BN,))
    ct.store(A, index=(0,), tile=ct.bitcast(x, ct.int16))
    ct.store(B, index=(0,), tile=ct.bitcast(h, ct.float16))


def test_bitcast_f16_i16_keeps_every_bit(emulate):
    """NaN payloads, -0, infinities and denormals, both ways."""
    bits = np.array([0x3C00, -32768, 0x7C00, -1, 0x7BFF, 0x0001, 0x7C01, 0x7E00 - 65536 + 32768], np.int64)
    f = bits.astype(np.int16).view(np.float16)
    h = np.array([0x7C01, -1, 0x7E00, 0x0001, -32768, 0x3C00, 0x7BFF, 0x8001 - 65536], np.int16)
    a, b = emulate(bitcasts, [f, h, *_sentinels(np.int16, 1), np.full(N, np.nan, np.float16)])[2:]
    np.testing.assert_array_equal(a, f.view(np.int16))
    np.testing.assert_array_equal(b.view(np.int16), h)


# --------------------------------------------------------------------------------------- iota, reductions


@ct.kernel
def ragged_iota(Y, Z, BN: C[int]):
    i = ct.bid(0)
    r = ct.arange(BN, dtype=ct.int32) + i * BN
    ct.store(Y, index=(i,), tile=r)
    ct.store(Z, index=(i,), tile=(r * r) % 7)


def test_arange_on_a_ragged_last_tile(emulate):
    y, z = emulate(ragged_iota, _sentinels(np.int32, 2, 13), grid=(2,))
    np.testing.assert_array_equal(y, np.arange(13))
    np.testing.assert_array_equal(z, np.arange(13) ** 2 % 7)


@ct.kernel
def wrapping_reductions(X, S, P, M, BN: C[int]):
    x = ct.load(X, index=(0,), shape=(BN,))
    ct.store(S, index=(0,), tile=ct.sum(x, axis=0).reshape((1,)))
    ct.store(P, index=(0,), tile=ct.prod(x, axis=0).reshape((1,)))
    ct.store(M, index=(0,), tile=ct.max(x, axis=0).reshape((1,)))


@pytest.mark.parametrize("dtype", ["int8", "uint8", "int32", "uint32", "int64"])
def test_integer_sum_and_product_wrap(emulate, dtype):
    top = np.iinfo(dtype).max
    x = np.array([top, top, 3, top // 2, 7, top, 1, 2], dtype)
    s, p, m = emulate(wrapping_reductions, [x, *_sentinels(dtype, 3, 1)])[1:]
    product = 1
    for v in x.tolist():
        product *= v
    np.testing.assert_array_equal(s, _wrap([sum(x.tolist())], dtype))
    np.testing.assert_array_equal(p, _wrap([product], dtype))
    np.testing.assert_array_equal(m, [top])


# --------------------------------------------------------------------------------------- select / max with NaN, +-0


@ct.kernel
def float_select(X, Y, A, B, Cc, BN: C[int]):
    x = ct.load(X, index=(0,), shape=(BN,))
    y = ct.load(Y, index=(0,), shape=(BN,))
    ct.store(A, index=(0,), tile=ct.where(x > y, x, y))
    ct.store(B, index=(0,), tile=ct.where(ct.isnan(y), x, y))
    ct.store(Cc, index=(0,), tile=ct.maximum(x, y))


def test_select_and_maximum_with_nan_and_signed_zeros(emulate):
    """``where`` keeps NaN bits as selected; ``maximum`` (maxf without propagate_nan) returns the non-NaN
    operand and, the spec says, "+0.0 is considered greater than -0.0" in either order (PTX ``max.f32``
    does; the emulator returned the second operand before review 27)."""
    x = np.array([1, np.nan, 3, -np.inf, np.nan, 0.0, -0.0, 5], np.float32)
    y = np.array([2, 1, np.nan, np.nan, np.nan, -0.0, 0.0, np.inf], np.float32)
    a, b, c = emulate(float_select, [x, y, *[np.full(N, 7.0, np.float32) for _ in range(3)]])[2:]
    np.testing.assert_array_equal(a.view(np.uint32), np.where(x > y, x, y).view(np.uint32))
    np.testing.assert_array_equal(b.view(np.uint32), np.where(np.isnan(y), x, y).view(np.uint32))
    want = np.fmax(x, y)
    want[5] = want[6] = 0.0
    np.testing.assert_array_equal(np.isnan(c), np.isnan(want))
    finite = ~np.isnan(want)
    np.testing.assert_array_equal(c[finite].view(np.uint32), want[finite].view(np.uint32))


# --------------------------------------------------------------------------------------- float remainder


@ct.kernel
def float_modulo(X, Y, R, BN: C[int]):
    x = ct.load(X, index=(0,), shape=(BN,))
    y = ct.load(Y, index=(0,), shape=(BN,))
    ct.store(R, index=(0,), tile=x % y)


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_float_modulo_is_exact_and_keeps_a_finite_dividend_over_infinity(emulate, dtype):
    """cuTile's ``%`` is the spec's ``remf`` (exact, the dividend's sign; ``remf(x, inf) = x``) plus a step by ``y``
    where the signs differ, as numpy's ``mod``.  Before: f32 (and f16) computed ``a - b * trunc(a / b)`` in f32,
    off once the quotient passed 2^24 (``50331652 % 3`` gave -1 where numpy gives 1), and NaN for ``x % inf``
    (f64 too); the f64 sequence faulted on the emulator (``cvt.rzi.f64.f64``, ``copysign.f64`` unmodelled).
    f64 quotients of 2^53 and more (``1e300 % 7e-300``, ``x`` over a subnormal ``y``) are reduced exactly first."""
    big = {"float16": 2049.0 * 3 + 3, "float32": 50331652.0, "float64": 2.0 ** 52 * 3 + 4}[dtype]
    huge = {"float16": (60000.0, 3e-7), "float32": (1e30, 3.0), "float64": (1e300, 7e-300)}[dtype]
    x = np.array([5.5, -5.5, 7.0, -7.0, 1e-3, np.inf, 3.0, big, -huge[0], huge[0], 5e-324 * 7] + [1.0] * 5, dtype)
    y = np.array([2.0, 2.0, np.inf, np.inf, 7e-4, 2.0, 0.0, 3.0, huge[1], 5e-324 * 3, 5e-324 * 2] + [1.0] * 5, dtype)
    r, = emulate(float_modulo, [x, y, np.full(16, np.nan, dtype)], bn=16)[2:]
    with np.errstate(all="ignore"):
        want = np.mod(x, y)
    np.testing.assert_array_equal(np.isnan(r), np.isnan(want))
    ok = ~np.isnan(want)
    np.testing.assert_array_equal(r[ok], want[ok])


# --------------------------------------------------------------------------------------- loops


@ct.kernel
def strided_loop(X, Y, n: int, s: int, BN: C[int]):
    acc = ct.zeros((BN,), dtype=ct.int32)
    for i in range(0, n, s):
        acc = acc + ct.load(X, index=(0,), shape=(BN,)) + i
    ct.store(Y, index=(0,), tile=acc)


@pytest.mark.parametrize("n, s", [(5, 2), (5, 0), (5, -1), (-3, -1)])
def test_a_runtime_step_of_zero_or_less_runs_no_iteration(monkeypatch, n, s):
    """A ``for`` needs a positive step (spec; cuTile checks only a constant one): a step of 0 or less at run time
    now runs no iteration (``convert-scf-while-to-cf``); before, ``range(0, 5, 0)`` never ended (the emulator's
    step budget, cut to 200000 here, ran out)."""
    from tileorch.testing.ptx_emulator import Emu

    run = Emu.run
    monkeypatch.setattr(Emu, "run", lambda self, max_steps=200_000: run(self, max_steps))
    x = np.arange(N, dtype=np.int32)
    spec_args = [x, np.full(N, SENTINEL, np.int32)]
    name = f"rv27_strided_loop_{n}_{s}".replace("-", "m")
    monkeypatch.setattr(s10e, "PROGRAMS", {name: UserProgram(strided_loop, [(x.shape, "int32"), (x.shape, "int32"),
                                                                           n, s, N], (1,), "simt")})
    y = s10e.emulate(name, dict(enumerate(spec_args)))[1]
    steps = range(0, n, s) if s > 0 else ()
    np.testing.assert_array_equal(y, sum((x + i for i in steps), np.zeros(N, np.int32)))


@ct.kernel
def unsigned_modulo(X, Y, R, Z, BN: C[int]):
    x = ct.load(X, index=(0,), shape=(BN,))
    y = ct.load(Y, index=(0,), shape=(BN,))
    ct.store(R, index=(0,), tile=x % y)
    ct.store(Z, index=(0,), tile=x % (y * 0))  # by a zero LLVM folds: 0


@pytest.mark.parametrize("dtype", ["uint8", "uint32", "uint64"])
def test_unsigned_modulo_with_the_top_bit_set(emulate, dtype):
    """``remi`` unsigned (cuTile's ``%`` of unsigned integers; its ``//`` (truncating: test_review28_integer_loops.py)) on
    values past the signed range, and by a folded zero."""
    top = np.iinfo(dtype).max
    x = np.array([top, top - 1, top // 2 + 1, 7, 0, top, 200, 1], dtype)
    y = np.array([2, top, 3, top, 5, top // 2 + 1, 7, top], dtype)
    r, z = emulate(unsigned_modulo, [x, y, *_sentinels(dtype, 2)])[2:]
    np.testing.assert_array_equal(r, x % y)
    np.testing.assert_array_equal(z, 0)
