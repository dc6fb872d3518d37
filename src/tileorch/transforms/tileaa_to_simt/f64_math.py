"""``exp``, ``exp2``, ``log``, ``log2``, ``pow``, ``tanh``, ``sinh`` and ``cosh`` of f64 elements on the SIMT path, at double precision (a few ulp),
from IEEE f64 adds, multiplies, fused multiply-adds, one division and integer bit operations (no MUFU
instruction: those are f32 only).  Before session 32 the SIMT path refused these four on f64 with a
located error (a user's f64 ``logsumexp`` did not compile; ``x ** 0.5`` of f64 neither).

The algorithms (textbook, no library's code):

* ``exp(x)``: ``k = rint(x log2 e)`` (the 1.5 * 2^52 shift), ``r = x - k ln 2`` with ln 2 in two parts
  (Cody and Waite: ``ln2_hi`` has 21 trailing zero bits, so ``k ln2_hi`` is exact) by two ``fma``, ``|r| <=
  0.35``; ``e^r`` by its Taylor polynomial to degree 13 (truncation below 2^-60 relative) in Horner form;
  ``2^k`` applied as two powers of two ``2^(k >> 1)`` and ``2^(k - (k >> 1))``, each normal, so a
  subnormal result is rounded once and the overflow / underflow edges come out of the multiplications
  (``x`` clamped to ``[-746, 710]`` first: ``+-inf`` give ``inf`` / 0, NaN stays NaN).
* ``exp2(x)``: ``k = rint(x)``, ``r = (x - k) ln 2`` (``x - k`` exact), then as ``exp``.
* ``log(x)``: ``x = m 2^e`` with ``m`` in ``[sqrt(2)/2, sqrt(2))`` (subnormals scaled by 2^54 first),
  ``s = (m - 1) / (m + 1)``, ``log m = 2 atanh s = 2 s (1 + s^2/3 + s^4/5 + ...)`` (``|s| <= 0.172``: 12
  terms, truncation below 2^-60), ``log x = e ln2_hi + (e ln2_lo + log m)``; ``log(0) = -inf``, ``log`` of
  a negative number or NaN is NaN, ``log(inf) = inf``.
* ``log2(x) = e + log(m) log2 e``.
* ``pow(x, y)``: ``exp(y ln|x|)`` with ``ln|x|`` a double-double (the quotient ``s`` with its remainder by
  ``fma``, TwoSum for the power-of-two part) and the product's rounding error ``d`` carried as ``e^p (1 + d)``;
  C ``pow``'s special cases (signs of odd integral powers, NaN for a negative base and a non-integral exponent,
  ``x ** 0 = 1 ** y = 1``).
* ``tanh(x) = sign(x) m / (m + 2)``, ``m = expm1(2|x|)`` (the Taylor polynomial below 0.35, ``exp - 1`` above).
* ``sinh`` / ``cosh`` (session 35, refused before): from ``e^|x| / 2`` and its reciprocal, ``sinh`` of ``|x| < 1`` by its
  Taylor polynomial (:func:`hyperbolic`).  ``sin`` / ``cos`` / ``tan`` / ``atan2``: ``f64_trig.py``.

tests/unit/test_f64_math_emulated.py runs their PTX on the PTX emulator against numpy over the whole range,
subnormals and the special values (exp / exp2 within 1 ulp, log / log2 / pow within 2, measured in session 32);
the SIMT interpreter runs the same ops in numpy float64."""

from __future__ import annotations

from xdsl.dialects import arith
from xdsl.dialects.builtin import IntegerAttr, f64, i64
from xdsl.ir import SSAValue

LOG2E = 1.4426950408889634
LN2_HI = 0.6931471803691238
"""ln 2 to 32 significant bits (21 trailing zeros): ``k * LN2_HI`` is exact for ``|k| < 2^21``."""
LN2_LO = 1.9082149292705877e-10
"""``ln 2 - LN2_HI`` rounded to f64."""
SHIFT = 6755399441055744.0
"""1.5 * 2^52: ``(y + SHIFT) - SHIFT`` is ``y`` rounded to the nearest integer (ties to even), ``|y| < 2^51``."""
EXP_TAYLOR = tuple(1.0 / f for f in (6227020800.0, 479001600.0, 39916800.0, 3628800.0, 362880.0, 40320.0,
                                     5040.0, 720.0, 120.0, 24.0, 6.0, 2.0, 1.0, 1.0))
"""``1 / n!`` for n = 13 .. 0: the Horner coefficients of ``e^r``."""
ATANH_TERMS = tuple(1.0 / (2 * n + 1) for n in range(11, 0, -1))
"""``1 / (2n + 1)`` for n = 11 .. 1: ``(atanh(s) / s - 1) / s^2`` in Horner form in ``s^2``."""
SQRT2 = 1.4142135623730951
MIN_NORMAL = 2.2250738585072014e-308


def _f(e, value: float) -> SSAValue:
    return e.fconst(value, f64)


def _mul(e, a, b):
    return e.v(arith.MulfOp(a, b))


def _add(e, a, b):
    return e.v(arith.AddfOp(a, b))


def _sub(e, a, b):
    return e.v(arith.SubfOp(a, b))


def _select(e, pred: str, a, b, x, y):
    return e.v(arith.SelectOp(e.v(arith.CmpfOp(a, b, pred)), x, y))


def _pow2(e, k: SSAValue) -> SSAValue:
    """``2^k`` as an f64 for an i64 ``k`` in the normal exponent range ``[-1022, 1023]``."""
    biased = e.v(arith.AddiOp(k, e.const(1023, i64)))
    return e.v(arith.BitcastOp(e.v(arith.ShLIOp(biased, e.const(52, i64))), f64))


def _exp_of_reduced(e, r: SSAValue, k: SSAValue) -> SSAValue:
    """``e^r 2^k`` for ``|r| <= 0.35`` and an integral f64 ``k`` in ``[-1076, 1025]`` (or NaN, with ``r`` NaN)."""
    p = _f(e, EXP_TAYLOR[0])
    for c in EXP_TAYLOR[1:]:
        p = _add(e, _mul(e, p, r), _f(e, c))
    k = _select(e, "ord", k, k, k, _f(e, 0.0))  # (a NaN's k converts to 0; r carries the NaN)
    ki = e.v(arith.FPToSIOp(k, i64))
    half = e.v(arith.ShRSIOp(ki, e.const(1, i64)))
    rest = e.v(arith.SubiOp(ki, half))
    return _mul(e, _mul(e, p, _pow2(e, half)), _pow2(e, rest))


def _clamped(e, x: SSAValue, lo: float, hi: float) -> SSAValue:
    """``x`` limited to ``[lo, hi]``, NaN kept (both compares false)."""
    x = _select(e, "ogt", x, _f(e, hi), _f(e, hi), x)
    return _select(e, "olt", x, _f(e, lo), _f(e, lo), x)


def exp(e, x: SSAValue) -> SSAValue:
    """``e^x`` of an f64 ``x`` (module docstring)."""
    x = _clamped(e, x, -746.0, 710.0)
    shift = _f(e, SHIFT)
    k = _sub(e, _add(e, _mul(e, x, _f(e, LOG2E)), shift), shift)
    nk = e.v(arith.NegfOp(k))
    r = e.fma(nk, _f(e, LN2_HI), x)
    r = e.fma(nk, _f(e, LN2_LO), r)
    return _exp_of_reduced(e, r, k)


def exp2(e, x: SSAValue) -> SSAValue:
    """``2^x`` of an f64 ``x`` (module docstring)."""
    x = _clamped(e, x, -1076.0, 1025.0)
    shift = _f(e, SHIFT)
    k = _sub(e, _add(e, x, shift), shift)
    frac = _sub(e, x, k)  # exact: |frac| <= 1/2
    r = e.fma(frac, _f(e, LN2_HI), _mul(e, frac, _f(e, LN2_LO)))
    return _exp_of_reduced(e, r, k)


def _log_parts(e, x: SSAValue) -> tuple[SSAValue, SSAValue]:
    """``(e, log m)`` with ``x = m 2^e``, ``m`` in ``[sqrt(2)/2, sqrt(2))``, for a positive finite ``x``
    (other inputs give values the callers replace); ``e`` an integral f64."""
    small = e.v(arith.CmpfOp(x, _f(e, MIN_NORMAL), "olt"))
    xs = e.v(arith.SelectOp(small, _mul(e, x, _f(e, 18014398509481984.0)), x))  # 2^54: subnormals normal
    bits = e.v(arith.BitcastOp(xs, i64))
    exponent = e.v(arith.SubiOp(e.v(arith.ShRSIOp(bits, e.const(52, i64))), e.const(1023, i64)))
    mbits = e.v(arith.OrIOp(e.v(arith.AndIOp(bits, e.const((1 << 52) - 1, i64))), e.const(1023 << 52, i64)))
    m = e.v(arith.BitcastOp(mbits, f64))  # [1, 2)
    big = e.v(arith.CmpfOp(m, _f(e, SQRT2), "oge"))
    m = e.v(arith.SelectOp(big, _mul(e, m, _f(e, 0.5)), m))
    exponent = e.v(arith.AddiOp(exponent, e.v(arith.SelectOp(big, e.const(1, i64), e.const(0, i64)))))
    exponent = e.v(arith.SubiOp(exponent, e.v(arith.SelectOp(small, e.const(54, i64), e.const(0, i64)))))
    f = _sub(e, m, _f(e, 1.0))  # exact (Sterbenz)
    s = e.v(arith.DivfOp(f, _add(e, f, _f(e, 2.0))))
    z = _mul(e, s, s)
    q = _f(e, ATANH_TERMS[0])
    for c in ATANH_TERMS[1:]:
        q = _add(e, _mul(e, q, z), _f(e, c))
    two_s = _add(e, s, s)
    log_m = _add(e, two_s, _mul(e, two_s, _mul(e, z, q)))
    return e.v(arith.SIToFPOp(exponent, f64)), log_m


def _special(e, x: SSAValue, value: SSAValue) -> SSAValue:
    """``value`` with the logarithm's special cases of ``x``: ``inf -> inf``, ``0 -> -inf``, negative or NaN
    -> NaN."""
    value = _select(e, "oeq", x, _f(e, float("inf")), x, value)
    value = _select(e, "oeq", x, _f(e, 0.0), _f(e, float("-inf")), value)
    return _select(e, "ult", x, _f(e, 0.0), _f(e, float("nan")), value)


def log(e, x: SSAValue) -> SSAValue:
    """``ln x`` of an f64 ``x`` (module docstring)."""
    k, log_m = _log_parts(e, x)
    lo = _add(e, _mul(e, k, _f(e, LN2_LO)), log_m)
    return _special(e, x, _add(e, _mul(e, k, _f(e, LN2_HI)), lo))


def log2(e, x: SSAValue) -> SSAValue:
    """``log2 x`` of an f64 ``x`` (module docstring)."""
    k, log_m = _log_parts(e, x)
    return _special(e, x, _add(e, k, _mul(e, log_m, _f(e, LOG2E))))


def _two_sum(e, a, b):
    """``(s, t)`` with ``s = fl(a + b)`` and ``s + t = a + b`` exactly (Knuth's TwoSum)."""
    s_ = _add(e, a, b)
    bb = _sub(e, s_, a)
    t = _add(e, _sub(e, a, _sub(e, s_, bb)), _sub(e, b, bb))
    return s_, t


def _log_dd(e, a: SSAValue) -> tuple[SSAValue, SSAValue]:
    """``ln a`` as an unevaluated sum ``hi + lo`` (about 2^-100 relative) for a positive finite ``a``: the
    quotient ``s = (m - 1) / (m + 1)`` kept with its remainder (``fma``), the power-of-two part added by
    TwoSum."""
    small = e.v(arith.CmpfOp(a, _f(e, MIN_NORMAL), "olt"))
    xs = e.v(arith.SelectOp(small, _mul(e, a, _f(e, 18014398509481984.0)), a))
    bits = e.v(arith.BitcastOp(xs, i64))
    exponent = e.v(arith.SubiOp(e.v(arith.ShRSIOp(bits, e.const(52, i64))), e.const(1023, i64)))
    mbits = e.v(arith.OrIOp(e.v(arith.AndIOp(bits, e.const((1 << 52) - 1, i64))), e.const(1023 << 52, i64)))
    m = e.v(arith.BitcastOp(mbits, f64))
    big = e.v(arith.CmpfOp(m, _f(e, SQRT2), "oge"))
    m = e.v(arith.SelectOp(big, _mul(e, m, _f(e, 0.5)), m))
    exponent = e.v(arith.AddiOp(exponent, e.v(arith.SelectOp(big, e.const(1, i64), e.const(0, i64)))))
    exponent = e.v(arith.SubiOp(exponent, e.v(arith.SelectOp(small, e.const(54, i64), e.const(0, i64)))))
    k = e.v(arith.SIToFPOp(exponent, f64))
    f = _sub(e, m, _f(e, 1.0))  # exact
    t = _add(e, f, _f(e, 2.0))
    t_err = _sub(e, f, _sub(e, t, _f(e, 2.0)))  # t + t_err = f + 2 exactly
    s_hi = e.v(arith.DivfOp(f, t))
    rem = e.fma(e.v(arith.NegfOp(s_hi)), t, f)  # f - s_hi t, exact
    s_lo = e.v(arith.DivfOp(_sub(e, rem, _mul(e, s_hi, t_err)), t))
    z = _mul(e, s_hi, s_hi)
    q = _f(e, ATANH_TERMS[0])
    for c in ATANH_TERMS[1:]:
        q = _add(e, _mul(e, q, z), _f(e, c))
    two_s = _add(e, s_hi, s_hi)
    tail = _add(e, _add(e, s_lo, s_lo), _mul(e, two_s, _mul(e, z, q)))
    hi, lo = _two_sum(e, _mul(e, k, _f(e, LN2_HI)), two_s)
    lo = _add(e, lo, _add(e, _mul(e, k, _f(e, LN2_LO)), tail))
    return _two_sum(e, hi, lo)


def power(e, x: SSAValue, y: SSAValue) -> SSAValue:
    """``x ** y`` of f64 ``x`` and ``y`` as C ``pow``: ``exp(y ln|x|)`` with ``ln|x|`` as a double-double and the
    product's rounding error carried into the exponential (``e^(p + d) = e^p + e^p d``), within a few ulp; the
    sign of an odd integral power of a negative ``x`` (``-0`` included), NaN for a negative finite ``x`` and a
    non-integral ``y``, ``x ** 0 = 1 ** y = 1`` (NaN operands included), ``(-1) ** +-inf = 1``."""
    ab = e.ptx("abs.f64", [x])
    hi, lo = _log_dd(e, ab)
    big = float("inf")
    regular = e.v(arith.AndIOp(e.v(arith.CmpfOp(ab, _f(e, 0.0), "ogt")), e.v(arith.CmpfOp(ab, _f(e, big), "olt"))))
    hi = e.v(arith.SelectOp(regular, hi, e.v(arith.SelectOp(
        e.v(arith.CmpfOp(ab, _f(e, 0.0), "oeq")), _f(e, float("-inf")), ab))))  # ln 0 = -inf, ln inf = inf, NaN
    lo = e.v(arith.SelectOp(regular, lo, _f(e, 0.0)))
    p = _mul(e, y, hi)
    d = _add(e, e.fma(y, hi, e.v(arith.NegfOp(p))), _mul(e, y, lo))
    d = _select(e, "olt", e.ptx("abs.f64", [p]), _f(e, 1e300), d, _f(e, 0.0))
    r = exp(e, p)
    r = _select(e, "olt", r, _f(e, big), e.fma(r, d, r), r)  # (an infinite e^p stays itself)
    yi = e.ptx("cvt.rzi.f64.f64", [y])
    half = _mul(e, yi, _f(e, 0.5))
    odd = e.v(arith.CmpfOp(e.ptx("cvt.rzi.f64.f64", [half]), half, "one"))
    integral = e.v(arith.CmpfOp(yi, y, "oeq"))
    negative_sign = e.v(arith.CmpiOp(e.v(arith.BitcastOp(x, i64)), e.const(0, i64), "slt"))
    flip = e.v(arith.AndIOp(negative_sign, e.v(arith.AndIOp(integral, odd))))
    r = e.v(arith.SelectOp(flip, e.v(arith.NegfOp(r)), r))
    finite_negative = e.v(arith.AndIOp(e.v(arith.CmpfOp(x, _f(e, 0.0), "olt")),
                                       e.v(arith.CmpfOp(ab, _f(e, big), "one"))))
    not_integral = e.v(arith.XOrIOp(integral, e.v(arith.ConstantOp(IntegerAttr(1, 1)))))
    r = e.v(arith.SelectOp(e.v(arith.AndIOp(finite_negative, not_integral)), _f(e, float("nan")), r))
    unit_inf = e.v(arith.AndIOp(e.v(arith.CmpfOp(ab, _f(e, 1.0), "oeq")),
                                e.v(arith.CmpfOp(e.ptx("abs.f64", [y]), _f(e, big), "oeq"))))
    one = e.v(arith.OrIOp(e.v(arith.CmpfOp(x, _f(e, 1.0), "oeq")), unit_inf))
    one = e.v(arith.OrIOp(one, e.v(arith.CmpfOp(y, _f(e, 0.0), "oeq"))))
    return e.v(arith.SelectOp(one, _f(e, 1.0), r))


def _expm1_nonnegative(e, t: SSAValue) -> SSAValue:
    """``e^t - 1`` for ``0 <= t <= 40``: below 0.35 its Taylor polynomial without the 1 (no cancellation), above
    ``exp(t) - 1`` (``e^t >= 1.42`` there: the subtraction costs under 2 bits)."""
    p = _f(e, EXP_TAYLOR[0])
    for c in EXP_TAYLOR[1:-1]:
        p = _add(e, _mul(e, p, t), _f(e, c))
    small = _mul(e, p, t)
    large = _sub(e, exp(e, t), _f(e, 1.0))
    return _select(e, "olt", t, _f(e, 0.35), small, large)


def tanh(e, x: SSAValue) -> SSAValue:
    """``tanh x`` of an f64 ``x``: ``m / (m + 2)`` with ``m = e^(2|x|) - 1`` (|x| clamped to 20, where tanh rounds
    to 1), the sign of ``x`` copied back (``-0`` kept, NaN stays NaN)."""
    a = _clamped(e, e.ptx("abs.f64", [x]), 0.0, 20.0)
    m = _expm1_nonnegative(e, _add(e, a, a))
    return e.ptx("copysign.f64", [x, e.v(arith.DivfOp(m, _add(e, m, _f(e, 2.0))))])


SINH_TAYLOR = tuple(1.0 / f for f in (51090942171709440000.0, 121645100408832000.0, 355687428096000.0,
                                      1307674368000.0, 6227020800.0, 39916800.0, 362880.0, 5040.0, 120.0, 6.0))
"""``1 / (2n + 1)!`` for n = 10 .. 1: ``(sinh a - a) / a^3`` in Horner form in ``a^2`` (``a^23 / 23!`` and on:
below 2^-70 relative for ``a < 1``)."""


def _half_exp(e, a: SSAValue) -> SSAValue:
    """``e^a / 2`` of an f64 ``a >= 0`` (NaN kept), as :func:`exp` with the power of two one less: one rounding
    (no ``e^a`` that overflows first: finite up to ``a = 710.47``, as ``sinh`` / ``cosh``)."""
    a = _clamped(e, a, 0.0, 711.0)
    shift = _f(e, SHIFT)
    k = _sub(e, _add(e, _mul(e, a, _f(e, LOG2E)), shift), shift)
    nk = e.v(arith.NegfOp(k))
    r = e.fma(nk, _f(e, LN2_HI), a)
    r = e.fma(nk, _f(e, LN2_LO), r)
    return _exp_of_reduced(e, r, _sub(e, k, _f(e, 1.0)))


def hyperbolic(e, kind: str, x: SSAValue) -> SSAValue:
    """``sinh`` / ``cosh`` of an f64 ``x``: with ``a = |x|`` and ``h = e^a / 2`` (:func:`_half_exp`), ``cosh x = h +
    (1/4) / h`` and ``sinh x = h - (1/4) / h`` for ``a >= 1`` (the subtraction cancels at most a factor 1.2 there),
    below 1 ``a + a^3 S(a^2)`` (:data:`SINH_TAYLOR`: no cancellation); the sign of ``x`` copied to ``sinh`` (``-0``
    kept); overflow to ``inf`` past 710.47, ``+-inf`` give ``inf`` / ``+-inf``, NaN stays NaN.  Bound (analysis):
    ``h`` within 1 ulp (:func:`exp`'s), the rest within a half: 2 ulp."""
    a = e.ptx("abs.f64", [x])
    h = _half_exp(e, a)
    inv = e.v(arith.DivfOp(_f(e, 0.25), h))
    if kind == "cosh":
        return _add(e, h, inv)
    z = _mul(e, a, a)
    p = _f(e, SINH_TAYLOR[0])
    for c in SINH_TAYLOR[1:]:
        p = e.fma(p, z, _f(e, c))
    small = e.fma(_mul(e, a, z), p, a)
    mag = _select(e, "olt", a, _f(e, 1.0), small, _sub(e, h, inv))
    return e.ptx("copysign.f64", [x, mag])


KINDS = {"exp": exp, "exp2": exp2, "log": log, "log2": log2, "tanh": tanh}
"""The f64 functions this module computes, by the SIMT lowering's kind name."""
