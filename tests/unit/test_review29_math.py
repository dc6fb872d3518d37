"""Review 29: elementwise math at its edges on the SIMT path (PTX emulator against numpy, NaN-prefilled).

* ``ct.atan2``: NaN operands gave pi/4 (``max.f32`` / ``min.f32`` drop a NaN), ``atan2(-0, x > 0)`` gave +0,
  ``atan2(+-0, -0)`` gave +-0 instead of +-pi (the quadrant was chosen by ``x < 0``, false for -0), and both
  operands infinite gave NaN (inf / inf) instead of +-pi/4 or +-3pi/4.  Fixed in ``Emitter.atan2``.
* ``ct.pow`` (``**``): (-0) ** odd gave +0 / +inf, (-inf) ** non-integer gave NaN, 1 ** NaN and (-1) ** +-inf
  gave NaN (C ``powf``: -0 / -inf, inf / 0, 1).  Fixed in ``Emitter.pow``.
* ``ct.bitcast`` of a bf16 NaN gave the canonical 0x7FFF (``cvt.rn.bf16.f32``), its sign and payload lost.
  Fixed in ``Emitter.bitcast``.
* ``ct.sin`` / ``ct.tan`` of -0 gave +0; ``ct.sinh`` / ``ct.cosh`` of |x| in 88.8 .. 89.4 gave inf (``e^x``
  overflowed where ``e^x / 2`` does not).  Fixed in ``Emitter.trig`` / ``Emitter.hyperbolic``.
The four tests failed before.
Needs cuda-tile and ml_dtypes."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("xdsl")
ct = pytest.importorskip("cuda.tile")
ml_dtypes = pytest.importorskip("ml_dtypes")

from test_review28_integer_loops import emulate  # noqa: E402,F401  (the fixture: SIMT programs on the emulator)

C = ct.Constant
INF, NAN = np.inf, np.nan


@ct.kernel
def atan2_of(Y, X, A, BN: C[int]):
    ct.store(A, index=(0,), tile=ct.atan2(ct.load(Y, index=(0,), shape=(BN,)), ct.load(X, index=(0,), shape=(BN,))))


PAIRS = [(NAN, 1.0), (1.0, NAN), (NAN, NAN), (-0.0, 3.0), (0.0, 3.0), (0.0, -0.0), (-0.0, -0.0), (0.0, 0.0),
         (-0.0, 0.0), (-0.0, -3.0), (0.0, -3.0), (INF, INF), (INF, -INF), (-INF, INF), (-INF, -INF), (INF, 2.0),
         (-INF, -2.0), (3.0, INF), (3.0, -INF), (-3.0, -INF), (5.5, 2.0), (-5.5, -2.0), (1e-30, 1e-30), (1.0, -1e-30),
         (2.0, 0.5), (-8.0, 1 / 3), (0.5, -1.0), (1e30, 1e-30), (-1.0, 0.5), (7.0, -7.0), (1e-38, -1.0), (4.0, 0.0)]


def test_atan2_at_zeros_infinities_and_nan(emulate):
    y = np.array([p[0] for p in PAIRS], np.float32)
    x = np.array([p[1] for p in PAIRS], np.float32)
    a = np.asarray(emulate(atan2_of, [y, x, np.full(len(PAIRS), np.nan, np.float32)], [len(PAIRS)])[2], np.float64)
    want = np.arctan2(y.astype(np.float64), x.astype(np.float64))
    np.testing.assert_array_equal(np.isnan(a), np.isnan(want))
    finite = ~np.isnan(want)
    np.testing.assert_allclose(a[finite], want[finite], rtol=4e-7, atol=0)
    np.testing.assert_array_equal(np.signbit(a[finite]), np.signbit(want[finite]))  # (+-0 and +-pi)


@ct.kernel
def pow_of(X, E, P, BN: C[int]):
    ct.store(P, index=(0,), tile=ct.load(X, index=(0,), shape=(BN,)) ** ct.load(E, index=(0,), shape=(BN,)))


POW = [(-0.0, 3.0), (-0.0, 2.0), (-0.0, 0.5), (-0.0, -3.0), (-0.0, -0.5), (0.0, -1.0), (-INF, 3.0), (-INF, 0.5),
       (-INF, -3.0), (-INF, -0.5), (-INF, 2.0), (1.0, NAN), (1.0, INF), (-1.0, INF), (-1.0, -INF), (NAN, 0.0),
       (NAN, 1.0), (2.0, NAN), (-2.0, 0.5), (-8.0, 1 / 3), (-2.0, 3.0), (-2.0, -2.0), (-0.5, INF), (-2.0, INF),
       (5.5, 2.0), (2.0, 10.0), (0.5, -3.0), (3.0, 0.0), (-3.0, -0.0), (INF, -1.0), (INF, 0.5), (1e-3, 1.5)]


def test_pow_signs_and_special_cases(emulate):
    """C ``powf``: failed before at (-0) ** odd (+0 instead of -0, +inf instead of -inf), (-inf) ** 0.5 and
    (-inf) ** -0.5 (NaN instead of inf / 0), 1 ** NaN and (-1) ** +-inf (NaN instead of 1)."""
    x = np.array([p[0] for p in POW], np.float32)
    e = np.array([p[1] for p in POW], np.float32)
    got = np.asarray(emulate(pow_of, [x, e, np.full(len(POW), np.nan, np.float32)], [len(POW)])[2], np.float64)
    with np.errstate(all="ignore"):
        want = np.power(x.astype(np.float64), e.astype(np.float64))  # (C pow: numpy follows it)
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    finite = ~np.isnan(want)
    np.testing.assert_allclose(got[finite], want[finite], rtol=4e-6, atol=0)  # (lg2 / ex2.approx: a few ulp)
    np.testing.assert_array_equal(np.signbit(got[finite]), np.signbit(want[finite]))


@ct.kernel
def bf16_bits(X, Y, BN: C[int]):
    """The sign bit flipped through the bits (a bounds-checked load: its element merged with the padding)."""
    ct.store(Y, index=(0,), tile=ct.bitcast(ct.load(X, index=(0,), shape=(BN,)), ct.int16) ^ -32768)


def test_bitcast_of_a_bf16_nan_keeps_its_bits(emulate):
    """A bf16 NaN's sign and payload survive ``ct.bitcast`` (failed before: 0x7FC0 and 0xFFC0 both read 0x7FFF,
    ``cvt.rn.bf16.f32``'s canonical NaN)."""
    bits = np.array([0x7FC0, 0xFFC0, 0x7F81, 0xFF80, 0x7F80, 0x0000, 0x8000, 0x3FC0, 0xBF80, 0x0001, 0x7F7F, 0xFFFF,
                     0x7FFF, 0x1234, 0x8001, 0xC000], np.uint16)
    x = bits.view(ml_dtypes.bfloat16)
    y = emulate(bf16_bits, [x, np.full(16, 77, np.int16)], [16])[1]
    np.testing.assert_array_equal(np.asarray(y, np.int16).view(np.uint16), bits ^ 0x8000)


@ct.kernel
def trig_hyperbolic(X, S, T, SH, CH, BN: C[int]):
    x = ct.load(X, index=(0,), shape=(BN,))
    ct.store(S, index=(0,), tile=ct.sin(x))
    ct.store(T, index=(0,), tile=ct.tan(x))
    ct.store(SH, index=(0,), tile=ct.sinh(x))
    ct.store(CH, index=(0,), tile=ct.cosh(x))


def test_sin_tan_of_zeros_and_sinh_cosh_near_the_f32_maximum(emulate):
    """Failed before: ``sin(-0)`` and ``tan(-0)`` gave +0; ``sinh`` / ``cosh`` of 88.8 .. 89.4 gave inf (``e^x``
    overflows before ``e^x / 2`` does)."""
    x = np.array([-0.0, 0.0, 89.0, -89.0, 89.4, 88.8, -88.8, 90.0, 1.0, -1.0, 0.25, -0.25, 10.0, 3.0, -2.0, 50.0],
                 np.float32)
    s, t, sh, ch = (np.asarray(v, np.float64) for v in
                    emulate(trig_hyperbolic, [x] + [np.full(16, np.nan, np.float32) for _ in range(4)], [16])[1:])
    x64 = x.astype(np.float64)
    # (sinh / cosh: x log2(e) rounded to f32 costs up to ~5e-6 relative at |x| near 89: the existing approximation)
    for got, want, rtol in ((s, np.sin(x64), 3e-6), (t, np.tan(x64), 3e-6), (sh, np.sinh(x64), 8e-6),
                            (ch, np.cosh(x64), 8e-6)):
        with np.errstate(over="ignore"):
            want = want.astype(np.float32).astype(np.float64)  # (90: inf in f32)
        finite = np.isfinite(want)
        np.testing.assert_allclose(got[finite], want[finite], rtol=rtol, atol=1e-7 if got is s or got is t else 0)
        np.testing.assert_array_equal(got[~finite], want[~finite])
        np.testing.assert_array_equal(np.signbit(got), np.signbit(want))
