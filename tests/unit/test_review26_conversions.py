"""Adversarial float -> 64-bit integer conversions (session 25: ``ftoi`` to i64 selects NaN to 0 after
``cvt.rzi.s64``; the Tile IR spec: toward zero, saturating, NaN 0) and sqrt with directed rounding
(``sqrt.rp/.rm/.rz``), on the PTX emulator (SIMT path) against exact references, outputs sentinel-prefilled.
Chosen to break them: +-inf, NaN, 2^63 and 2^64 exactly, -2^63, the largest f32 below 2^63, -1 and -0.5 to
unsigned, f64 sources, and the same values as constants in the program (where LLVM's ``fptosi`` of an
out-of-range constant is poison: folding must not decide the result); sqrt of values whose root is exact, just
off exact, denormals, 0, -0, +inf, NaN and negatives.  Needs cuda-tile."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

pytest.importorskip("xdsl")
ct = pytest.importorskip("cuda.tile")
pytest.importorskip("ml_dtypes")

import test_user_sweep10_emulated as s10e  # noqa: E402
import test_user_sweep_interp as sweep  # noqa: E402

from tileorch.testing.user_programs import UserProgram  # noqa: E402

C = ct.Constant
ZERO = ct.PaddingMode.ZERO
RM = ct.RoundingMode


@ct.kernel
def f_to_64(X, D, I64, U64, DI64, DU64, BN: C[int]):
    i = ct.bid(0)
    x = ct.load(X, index=(i,), shape=(BN,), padding_mode=ZERO)
    d = ct.load(D, index=(i,), shape=(BN,), padding_mode=ZERO)
    ct.store(I64, index=(i,), tile=x.astype(ct.int64))
    ct.store(U64, index=(i,), tile=x.astype(ct.uint64))
    ct.store(DI64, index=(i,), tile=d.astype(ct.int64))
    ct.store(DU64, index=(i,), tile=d.astype(ct.uint64))


@ct.kernel
def constants_to_ints(I64, U64, I32, I8):
    """Out-of-range and NaN constants converted in the program: element j of each output is constant j
    (:data:`CONSTANTS`)."""
    t = ct.full((1,), float("inf"), ct.float32)
    for j in ct.static_iter((0, 1, 2, 3, 4, 5, 6, 7)):
        if j == 1:
            t = ct.full((1,), float("-inf"), ct.float32)
        elif j == 2:
            t = ct.full((1,), float("nan"), ct.float32)
        elif j == 3:
            t = ct.full((1,), 9223372036854775808.0, ct.float32)
        elif j == 4:
            t = ct.full((1,), -9223372036854775808.0, ct.float32)
        elif j == 5:
            t = ct.full((1,), 18446744073709551616.0, ct.float32)
        elif j == 6:
            t = ct.full((1,), 1e30, ct.float32)
        elif j == 7:
            t = ct.full((1,), -1.0, ct.float32)
        ct.store(I64, index=(j,), tile=t.astype(ct.int64))
        ct.store(U64, index=(j,), tile=t.astype(ct.uint64))
        ct.store(I32, index=(j,), tile=t.astype(ct.int32))
        ct.store(I8, index=(j,), tile=t.astype(ct.int8))


@ct.kernel
def int_round_trip(X, F32, F64, BN: C[int]):
    """``x.astype(int32).astype(float32)`` (truncation through an integer: saturating, NaN 0) and through int64."""
    i = ct.bid(0)
    x = ct.load(X, index=(i,), shape=(BN,), padding_mode=ZERO)
    ct.store(F32, index=(i,), tile=x.astype(ct.int32).astype(ct.float32))
    ct.store(F64, index=(i,), tile=x.astype(ct.int64).astype(ct.float64))


@ct.kernel
def to_every_integer(X, I16, U16, I32, U32, I64, U64, BN: C[int]):
    """One float array (f16, f32 or f64: the spec says) to every integer width of 16 bits and more, both signs."""
    i = ct.bid(0)
    x = ct.load(X, index=(i,), shape=(BN,), padding_mode=ZERO)
    ct.store(I16, index=(i,), tile=x.astype(ct.int16))
    ct.store(U16, index=(i,), tile=x.astype(ct.uint16))
    ct.store(I32, index=(i,), tile=x.astype(ct.int32))
    ct.store(U32, index=(i,), tile=x.astype(ct.uint32))
    ct.store(I64, index=(i,), tile=x.astype(ct.int64))
    ct.store(U64, index=(i,), tile=x.astype(ct.uint64))


CONSTANTS = [np.inf, -np.inf, np.nan, 2.0 ** 63, -(2.0 ** 63), 2.0 ** 64, 1e30, -1.0]


@ct.kernel
def sqrt_directed(X, D, Rp, Rm, Rz, Dp, Dm, Dz, BN: C[int]):
    i = ct.bid(0)
    x = ct.load(X, index=(i,), shape=(BN,), padding_mode=ZERO)
    d = ct.load(D, index=(i,), shape=(BN,), padding_mode=ZERO)
    ct.store(Rp, index=(i,), tile=ct.sqrt(x, rounding_mode=RM.RP))
    ct.store(Rm, index=(i,), tile=ct.sqrt(x, rounding_mode=RM.RM))
    ct.store(Rz, index=(i,), tile=ct.sqrt(x, rounding_mode=RM.RZ))
    ct.store(Dp, index=(i,), tile=ct.sqrt(d, rounding_mode=RM.RP))
    ct.store(Dm, index=(i,), tile=ct.sqrt(d, rounding_mode=RM.RM))
    ct.store(Dz, index=(i,), tile=ct.sqrt(d, rounding_mode=RM.RZ))


@pytest.fixture(autouse=True)
def _wide_types(monkeypatch):
    monkeypatch.setattr(sweep, "NP", {**sweep.NP, "uint64": np.uint64, "uint16": np.uint16})


def _emulate(monkeypatch, name, kernel, spec, grid, inputs):
    monkeypatch.setattr(s10e, "PROGRAMS", {name: UserProgram(kernel, spec, grid, "simt")})
    return s10e.emulate(name, inputs)


def _saturated(x, lo: int, hi: int) -> list[int]:
    """Tile IR ``ftoi`` of each float64 value: toward zero, clamped to [lo, hi], NaN 0 (exact, as Python ints)."""
    out = []
    for v in np.asarray(x, np.float64):
        out.append(0 if np.isnan(v) else lo if v == -np.inf else hi if v == np.inf else
                   min(max(int(v), lo), hi))  # (int() truncates toward zero exactly)
    return out


I64, U64 = (-(2 ** 63), 2 ** 63 - 1), (0, 2 ** 64 - 1)
SPECIAL = [np.inf, -np.inf, np.nan, 2.0 ** 63, -(2.0 ** 63), 2.0 ** 64, 1e30, -1e30, -1.0, -0.5, 0.99, -0.0,
           float(np.nextafter(np.float32(2.0 ** 63), np.float32(0))), 2.0 ** 62 + 2.0 ** 40, 4294967296.0, 1.5]


def test_floats_to_64_bit_integers(monkeypatch):
    n = 40
    x = np.zeros(n, np.float32)
    x[:len(SPECIAL)] = SPECIAL
    x[len(SPECIAL):] = np.random.default_rng(2630).standard_normal(n - len(SPECIAL)) * 1e12
    d = x.astype(np.float64)
    d[12] = float(np.nextafter(2.0 ** 63, 0))  # the largest double below 2^63 (an exact integer)
    d[13] = 2.0 ** 64 - 2048  # the largest double below 2^64
    spec = [((n,), "float32"), ((n,), "float64"), ((n,), "int64"), ((n,), "uint64"), ((n,), "int64"),
            ((n,), "uint64"), 32]
    sent = {2: np.full(n, 77, np.int64), 3: np.full(n, 77, np.uint64), 4: np.full(n, 77, np.int64),
            5: np.full(n, 77, np.uint64)}
    out = _emulate(monkeypatch, "rv26_f_to_64", f_to_64, spec, (2,), {0: x, 1: d, **sent})
    for got, src, (lo, hi), what in ((out[2], x, I64, "f32->i64"), (out[3], x, U64, "f32->u64"),
                                    (out[4], d, I64, "f64->i64"), (out[5], d, U64, "f64->u64")):
        want = _saturated(src, lo, hi)
        got = [int(v) for v in np.asarray(got)]
        bad = [(float(s), g, w) for s, g, w in zip(src, got, want) if g != w]
        assert not bad, (what, bad[:6])


WIDTHS = [("int16", -2 ** 15, 2 ** 15 - 1), ("uint16", 0, 2 ** 16 - 1), ("int32", -2 ** 31, 2 ** 31 - 1),
          ("uint32", 0, 2 ** 32 - 1), ("int64", *I64), ("uint64", *U64)]


@pytest.mark.parametrize("src", ["float16", "float32", "float64"])
def test_every_source_to_every_integer_width(monkeypatch, src):
    """NaN, +-inf, values past each width's range, fractions of both signs, -0: saturated toward zero, NaN 0
    (PTX's cvt.rzi gives INT_MIN for NaN at 64 bits and from f64, which the lowering selects away)."""
    n = 40
    vals = [np.nan, np.inf, -np.inf, -np.nan, 65504.0, -65504.0, 40000.0, -40000.0, 70000.5, -1.0, -0.5, 0.99,
            -0.0, 2.5, -2.5, 32767.9, -32768.9, 3e9, -3e9, 5e9, 1e19, -1e19, 2.0 ** 63, 2.0 ** 64, 1e30, 1e300]
    x = np.zeros(n, np.float64)
    x[:len(vals)] = vals
    x[len(vals):] = np.random.default_rng(2632).standard_normal(n - len(vals)) * 3e4
    with np.errstate(over="ignore"):
        x = x.astype(src)
    spec = [((n,), src), *[((n,), w) for w, _, _ in WIDTHS], 32]
    sent = {1 + j: np.full(n, 77, w) for j, (w, _, _) in enumerate(WIDTHS)}
    out = _emulate(monkeypatch, f"rv26_every_int_{src}", to_every_integer, spec, (2,), {0: x, **sent})
    for j, (w, lo, hi) in enumerate(WIDTHS):
        want = _saturated(x.astype(np.float64), lo, hi)
        got = [int(v) for v in np.asarray(out[1 + j])]
        bad = [(float(s_), g, w_) for s_, g, w_ in zip(x, got, want) if g != w_]
        assert not bad, (src, w, bad[:6])


def test_constant_out_of_range_conversions(monkeypatch):
    """The same saturation when the value is a constant of the program (no load for LLVM to stop at)."""
    n = len(CONSTANTS)
    spec = [((n,), "int64"), ((n,), "uint64"), ((n,), "int32"), ((n,), "int8")]
    sent = {0: np.full(n, 77, np.int64), 1: np.full(n, 77, np.uint64), 2: np.full(n, 77, np.int32),
            3: np.full(n, 77, np.int8)}
    out = _emulate(monkeypatch, "rv26_const_to_int", constants_to_ints, spec, (1,), sent)
    c = np.array(CONSTANTS, np.float32)
    for got, (lo, hi), what in ((out[0], I64, "i64"), (out[1], U64, "u64"), (out[2], (-2 ** 31, 2 ** 31 - 1), "i32"),
                                (out[3], (-128, 127), "i8")):
        want = _saturated(c, lo, hi)
        got = [int(v) for v in np.asarray(got)]
        assert got == want, (what, list(zip(CONSTANTS, got, want)))


def _exact(v) -> Fraction:
    return Fraction(float(v))


def _sqrt_directed(x, ftype, mode):
    """The float of ``ftype`` nearest ``sqrt(x)`` in direction ``mode`` ("p", "m", "z"), exactly: NaN for NaN and
    negatives (not -0), +-0 and +inf as themselves."""
    out = []
    for v in np.asarray(x, ftype):
        if np.isnan(v) or v < 0:
            out.append(np.nan)
            continue
        if v == 0 or np.isinf(v):
            out.append(float(v))
            continue
        r = ftype(np.sqrt(np.float64(v)) if ftype == np.float32 else np.sqrt(v))
        # step r to the largest float with r^2 <= v (the root rounded down), exactly
        while _exact(r) ** 2 > _exact(v):
            r = np.nextafter(r, ftype(0))
        while _exact(np.nextafter(r, ftype(np.inf))) ** 2 <= _exact(v):
            r = np.nextafter(r, ftype(np.inf))
        if mode == "p" and _exact(r) ** 2 != _exact(v):
            r = np.nextafter(r, ftype(np.inf))
        out.append(float(r))
    return np.array(out, np.float64)


def test_sqrt_directed_rounding(monkeypatch):
    n = 64
    rng = np.random.default_rng(2631)
    x = (rng.random(n) * 1e3).astype(np.float32)
    x[:14] = [2.0, 4.0, 0.0, -0.0, np.inf, np.nan, -1.0, 1e-45, 1e-40, 3.4e38, 1.0000001, 0.9999999, -np.inf,
              float(np.float32(16777215.0) ** 2)]
    d = rng.random(n) * 1e3
    d[:12] = [2.0, 9.0, 0.0, -0.0, np.inf, np.nan, -2.0, 5e-324, 2.2e-308, 1.7e308, 1.0000000000000002,
              float(2 ** 52 + 1) ** 2]
    spec = [((n,), "float32"), ((n,), "float64"), *[((n,), "float32")] * 3, *[((n,), "float64")] * 3, 32]
    out = _emulate(monkeypatch, "rv26_sqrt_directed", sqrt_directed, spec, (2,), {0: x, 1: d})
    for i, (src, ft, mode) in enumerate([(x, np.float32, "p"), (x, np.float32, "m"), (x, np.float32, "z"),
                                         (d, np.float64, "p"), (d, np.float64, "m"), (d, np.float64, "z")]):
        got = np.asarray(out[2 + i], np.float64)
        want = _sqrt_directed(src, ft, mode)
        same = (got == want) | (np.isnan(got) & np.isnan(want))
        assert same.all() and (np.signbit(got) == np.signbit(want))[~np.isnan(want)].all(), \
            (ft.__name__, mode, [(float(s), g, w) for s, g, w in zip(src[~same], got[~same], want[~same])][:6])


def test_truncation_through_an_integer_saturates(monkeypatch):
    """A float converted to an integer and back is the saturated integer (LLVM may fold ``sitofp(fptosi x)`` to a
    truncation when an out-of-range ``fptosi`` is poison: 1e10 would come back as 1e10, NaN as NaN)."""
    n = 32
    x = np.zeros(n, np.float32)
    x[:len(SPECIAL)] = SPECIAL
    x[len(SPECIAL):] = [1e10, -1e10, 2.5e9, -2.5e9, 3.7, -3.7, 2147483520.0, -2147483648.0] + [0.0] * (
        n - len(SPECIAL) - 8)
    spec = [((n,), "float32"), ((n,), "float32"), ((n,), "float64"), 32]
    out = _emulate(monkeypatch, "rv26_int_round_trip", int_round_trip, spec, (1,), {0: x})
    want32 = np.array(_saturated(x, -2 ** 31, 2 ** 31 - 1), np.float64).astype(np.float32)
    want64 = np.array([float(v) for v in _saturated(x, *I64)], np.float64)
    np.testing.assert_array_equal(np.asarray(out[1]), want32)
    np.testing.assert_array_equal(np.asarray(out[2]), want64)


def test_scalar_conversions_stay_one_cvt_rzi():
    """f32 -> i32 / i64 is PTX's own saturating ``cvt.rzi`` (NVVM's intrinsic), not LLVM's generic expansion of
    ``fptosi.sat`` (compares against the bounds and selects: 0f4EFFFFFF is 2^31's neighbour)."""
    from tileorch.testing.compile_memo import compile_once
    from tileorch.testing.export import cutile_bytecode

    spec = [((32,), "float32"), ((32,), "float32"), ((32,), "float64"), 32]
    ptx = compile_once(cutile_bytecode(int_round_trip, spec), "rv26_int_round_trip", arch="sm_90a", ptxas=False).ptx
    assert "cvt.rzi.s32.f32" in ptx and "cvt.rzi.s64.f32" in ptx
    assert "0f4EFFFFFF" not in ptx and "0f5EFFFFFF" not in ptx
