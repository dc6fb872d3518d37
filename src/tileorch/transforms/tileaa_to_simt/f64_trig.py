"""``sin``, ``cos``, ``tan`` and ``atan2`` of f64 elements on the SIMT path at double precision, from IEEE f64
adds, multiplies, fused multiply-adds, divisions and 64-bit integer operations (no MUFU instruction: those are
f32 only; no libdevice).  Before session 35 the SIMT path refused them on f64 with a located error (a user's
double-precision geometry kernel: ``atan2 on f64``).

The algorithms (textbook; the constants computed from pi by integer arithmetic, ``f64_constants.py``):

* **Argument reduction** ``x = n pi/2 + r``, ``|r| <= pi/4``, ``r`` as an unevaluated sum ``r_hi + r_lo``:

  - ``|x| < 2^20`` (Cody and Waite): ``k = rint(x 2/pi)``; ``x - k P1`` by one ``fma`` is exact (both are
    multiples of 2^-53 and the difference is below 1), ``k P2`` and ``k P3`` subtracted in double-double
    (TwoProduct by ``fma``, TwoSum): pi/2 to 160 bits, ``r`` to about 2^-100 relative;
  - ``|x| >= 2^20`` (Payne and Hanek, in a branch): ``x = M 2^E`` with the 53-bit integer ``M``; the 192 bits of
    2/pi from weight 2^(2-E) on (the earlier ones make multiples of 8) are picked from the 20-word table by the
    exponent, multiplied by ``M`` in 64-bit integer words (``mul.lo`` / ``mul.hi.u64``) modulo 2^192: the two
    integer bits of ``x 2/pi`` mod 4 (rounded to nearest: a fraction of 1/2 or more counts one more) and its
    fraction, read as a signed 128-bit fixed-point number ``f`` in [-1/2, 1/2) (truncation error 2^-117
    absolute; the closest an f64 comes to a multiple of pi/2 is about 2^-61, so ``f`` keeps 2^-55 relative at
    worst), then ``r = f pi/2`` in double-double.  ``+-inf`` and NaN give NaN.

* ``sin r = r_hi + (r_hi z S(z) + r_lo (1 - z/2))``, ``z = r_hi^2``, ``S`` the Taylor polynomial of
  ``(sin r - r) / r^3`` to ``r^19`` (truncation below 2^-70 relative on ``|r| <= pi/4``);
  ``cos r = w + (((1 - w) - z/2) + (z^2 C(z) - r_hi r_lo))``, ``w = 1 - z/2`` (the rounding error of ``w``
  recovered exactly), ``C`` to ``r^20``; the quadrant ``n mod 4`` picks ``+-sin r`` / ``+-cos r``;
  ``tan = sin r / cos r`` (``-cos r / sin r`` for odd ``n``).  Bounds (analysis): ``sin`` / ``cos`` within
  1 ulp (the last addition's half ulp, the tail's error below 0.2 ulp), ``tan`` within 2.5 ulp (two such
  values and the division).  ``sin(-0) = tan(-0) = -0``.

* ``atan2(y, x)``: ``q = min(|x|, |y|) / max(|x|, |y|)`` with its remainder (``fma``), ``atan q`` as
  ``atan c + atan((q - c) / (1 + c q))`` with ``c`` = 0, 1/2 or 1 (``q - c`` exact: Sterbenz; ``|t| <= 1/4``),
  ``atan t`` by its Taylor polynomial to ``t^29`` (below 2^-60), carried as a double-double through the
  mirrors ``pi/2 - a`` (``|y| > |x|``) and ``pi - a`` (``x`` negative, ``-0`` included) and the sign of ``y``;
  C ``atan2``'s special cases (``atan2(+-0, -0) = +-pi``, ``atan2(+-0, +0) = +-0``, the infinities' odd
  multiples of pi/4, NaN when either operand is NaN).  Bound (analysis): 2 ulp (``t``'s two roundings weigh
  at most 0.55 of the result's ulp, the mirrors' one rounding half an ulp).

tests/unit/test_f64_trig_emulated.py runs their PTX on the PTX emulator against C's libm (hypothesis-drawn and
edge arguments: huge ones up to the largest f64, the worst case of the reduction, +-inf, NaN, +-0, subnormals).
Measured there (6144 random arguments of every exponent and the edges, session 35): ``sin`` / ``cos`` / ``atan2``
within 1 ulp, ``tan`` within 2 (``sinh`` / ``cosh``: 2).
"""

from __future__ import annotations

from xdsl.dialects import arith
from xdsl.dialects.builtin import f64, i64
from xdsl.ir import SSAValue

from tileorch.transforms.tileaa_to_simt import f64_constants as K
from tileorch.transforms.tileaa_to_simt.f64_math import SHIFT

SMALL_LIMIT = 2.0 ** 20
"""Below it the Cody-Waite reduction; from it on the Payne-Hanek one (in a branch)."""
SIN_TAYLOR = tuple((-1) ** (n + 1) / float(_f) for n, _f in enumerate(
    (6, 120, 5040, 362880, 39916800, 6227020800, 1307674368000, 355687428096000, 121645100408832000)))
"""``S(z)`` coefficients (``z^0`` first): ``(-1)^(n+1) / (2n+3)!``."""
COS_TAYLOR = tuple((-1) ** n / float(_f) for n, _f in enumerate(
    (24, 720, 40320, 3628800, 479001600, 87178291200, 20922789888000, 6402373705728000, 2432902008176640000)))
"""``C(z)`` coefficients (``z^0`` first): ``(-1)^n / (2n+4)!``."""
ATAN_TAYLOR = tuple((-1) ** (m + 1) / (2 * m + 3) for m in range(14))
"""``P(z)`` coefficients (``z^0`` first) with ``atan t = t + t z P(z)``, ``z = t^2``: ``(-1)^(m+1) / (2m+3)``."""


def cmpi(a, b, pred: str):
    """``arith.cmpi`` (this module is imported by ``emit.py``, whose helper it cannot import)."""
    return arith.CmpiOp(a, b, pred)


def _f(e, value: float) -> SSAValue:
    return e.fconst(value, f64)


def _i(e, value: int) -> SSAValue:
    value &= (1 << 64) - 1
    return e.const(value - (1 << 64) if value >> 63 else value, i64)


def _add(e, a, b):
    return e.v(arith.AddfOp(a, b))


def _sub(e, a, b):
    return e.v(arith.SubfOp(a, b))


def _mul(e, a, b):
    return e.v(arith.MulfOp(a, b))


def _neg(e, a):
    return e.v(arith.NegfOp(a))


def _sel(e, c, a, b):
    return e.v(arith.SelectOp(c, a, b))


def _cmp(e, a, b, pred: str):
    return e.v(arith.CmpfOp(a, b, pred))


def _abs(e, a):
    return e.ptx("abs.f64", [a])


def _horner(e, z, coeffs):
    p = _f(e, coeffs[-1])
    for c in reversed(coeffs[:-1]):
        p = e.fma(p, z, _f(e, c))
    return p


def two_sum(e, a, b):
    """``(s, t)``: ``s = fl(a + b)``, ``s + t = a + b`` exactly (Knuth)."""
    s = _add(e, a, b)
    bb = _sub(e, s, a)
    return s, _add(e, _sub(e, a, _sub(e, s, bb)), _sub(e, b, bb))


def fast_two_sum(e, a, b):
    """``(s, t)`` as :func:`two_sum` where ``a`` is 0 or its exponent is at least ``b``'s (Dekker)."""
    s = _add(e, a, b)
    return s, _sub(e, b, _sub(e, s, a))


# -- reduction ---------------------------------------------------------------------------------------------------
def _reduce_small(e, x, ax):
    """``(n, r_hi, r_lo)`` for ``ax = |x| < 2^20`` (NaN: ``n`` 0, ``r`` NaN; a larger ``x``: ``n`` 0, its ``r``
    unused): module docstring."""
    p1, p2, p3 = K.PIO2
    shift = _f(e, SHIFT)
    k = _sub(e, _add(e, _mul(e, x, _f(e, K.TWO_OVER_PI)), shift), shift)
    k = _sel(e, _cmp(e, ax, _f(e, SMALL_LIMIT), "olt"), k, _f(e, 0.0))  # (NaN, past 2^20: a k that converts)
    nk = _neg(e, k)
    r1 = e.fma(nk, _f(e, p1), x)  # exact
    p = _mul(e, k, _f(e, p2))
    pe = e.fma(k, _f(e, p2), _neg(e, p))  # k P2 = p + pe exactly
    s, se = two_sum(e, r1, _neg(e, p))
    lo = e.fma(nk, _f(e, p3), _sub(e, se, pe))
    r_hi, r_lo = two_sum(e, s, lo)
    n = e.v(arith.FPToSIOp(k, i64))
    return n, r_hi, r_lo


def _mulhi(e, a, b):
    return e.ptx("mul.hi.u64", [a, b])


def _shr(e, a, k):
    return e.v(arith.ShRUIOp(a, k if isinstance(k, SSAValue) else _i(e, k)))


def _shl(e, a, k):
    return e.v(arith.ShLIOp(a, k if isinstance(k, SSAValue) else _i(e, k)))


def _or(e, a, b):
    return e.v(arith.OrIOp(a, b))


def _and(e, a, b):
    return e.v(arith.AndIOp(a, b if isinstance(b, SSAValue) else _i(e, b)))


def _iadd(e, a, b):
    return e.v(arith.AddiOp(a, b))


def _reduce_large(e, ax):
    """``(n, r_hi, r_lo)`` for ``2^20 <= ax`` (positive; ``inf``: any): module docstring.  ``M F mod 2^192`` with
    ``F`` the 192-bit window of 2/pi; the table word ``T[j]`` (``T[0] = 0``, then :data:`TWO_OVER_PI_WORDS`)
    picked by a chain of selects on the word index ``j`` (0..16 for a biased exponent 1043..2047)."""
    bits = e.v(arith.BitcastOp(ax, i64))
    biased = _shr(e, bits, 52)
    mant = _or(e, _and(e, bits, (1 << 52) - 1), _i(e, 1 << 52))
    p0 = e.v(arith.SubiOp(biased, _i(e, 1014)))  # bit index (0: T[0]'s top) of weight 2^(2 - E): E + 61
    j = _shr(e, p0, 6)
    s = _and(e, p0, 63)
    table = (0, *K.TWO_OVER_PI_WORDS)
    top = len(table) - 4  # (j <= 16)
    hits = [e.v(cmpi(j, _i(e, c), "eq")) for c in range(1, top + 1)]

    def word(offset: int):
        w = _i(e, table[offset])
        for c, hit in zip(range(1, top + 1), hits):
            w = _sel(e, hit, _i(e, table[c + offset]), w)
        return w

    g = [word(i) for i in range(4)]
    back = e.v(arith.SubiOp(_i(e, 63), s))

    def window(i: int):  # bits s.. of g[i] followed by g[i + 1]'s (no shift by 64: (w >> 1) >> (63 - s))
        return _or(e, _shl(e, g[i], s), _shr(e, _shr(e, g[i + 1], 1), back))

    f2, f1, f0 = window(0), window(1), window(2)
    lo0, hi0 = e.v(arith.MuliOp(mant, f0)), _mulhi(e, mant, f0)
    lo1, hi1 = e.v(arith.MuliOp(mant, f1)), _mulhi(e, mant, f1)
    lo2 = e.v(arith.MuliOp(mant, f2))
    w0 = lo0
    w1 = _iadd(e, hi0, lo1)
    carry = e.v(arith.ExtUIOp(e.v(cmpi(w1, hi0, "ult")), i64))
    w2 = _iadd(e, _iadd(e, hi1, lo2), carry)
    frac_hi = _or(e, _shl(e, w2, 3), _shr(e, w1, 61))  # fraction bits 1..64 (of weight 2^-1..2^-64)
    frac_lo = _or(e, _shl(e, w1, 3), _shr(e, w0, 61))  # bits 65..128
    n = _and(e, _iadd(e, _shr(e, w2, 61), _shr(e, frac_hi, 63)), 3)  # rounded to nearest
    # f = (frac_hi, frac_lo) read as a signed 128-bit fraction (the fraction less 1 where it is 1/2 or more); its
    # magnitude by the ones' complement (2^-128 short: nothing next to the truncation) so that no conversion
    # cancels: m_hi's top 53 bits exactly, its low 11 exactly, m_lo rounded once (2^-117 absolute)
    mask = e.v(arith.ShRSIOp(frac_hi, _i(e, 63)))
    m_hi, m_lo = e.v(arith.XOrIOp(frac_hi, mask)), e.v(arith.XOrIOp(frac_lo, mask))
    a = _mul(e, e.v(arith.SIToFPOp(_shr(e, m_hi, 11), f64)), _f(e, 2.0 ** -53))
    b1 = _mul(e, e.v(arith.SIToFPOp(_and(e, m_hi, 0x7FF), f64)), _f(e, 2.0 ** -64))
    b2 = _mul(e, e.v(arith.UIToFPOp(m_lo, f64)), _f(e, 2.0 ** -128))
    s1, t1 = fast_two_sum(e, a, b1)  # (exact: a is 0 or at least 2^-53 > b1)
    f_hi, f_lo = fast_two_sum(e, s1, _add(e, t1, b2))
    p1, p2, _p3 = K.PIO2
    r_hi = _mul(e, f_hi, _f(e, p1))
    err = e.fma(f_hi, _f(e, p1), _neg(e, r_hi))
    r_lo = _add(e, err, e.fma(f_lo, _f(e, p1), _mul(e, f_hi, _f(e, p2))))
    r_hi, r_lo = fast_two_sum(e, r_hi, r_lo)
    negative = e.v(cmpi(mask, _i(e, 0), "ne"))
    r_hi, r_lo = _sel(e, negative, _neg(e, r_hi), r_hi), _sel(e, negative, _neg(e, r_lo), r_lo)
    return n, r_hi, r_lo


def reduce(e, x):
    """``(n mod 4 (i64), r_hi, r_lo)`` with ``x = n pi/2 + r_hi + r_lo`` (module docstring); once per value and
    block where the emitter only appends (``Emitter.f64_reduced``: ``sin`` and ``cos`` of one ``x``)."""
    memo = e.f64_reduced if e.appends_only else None
    if memo is not None and x in memo:
        return memo[x]
    out = _reduce(e, x)
    if memo is not None:
        memo[x] = out
    return out


def _reduce(e, x):
    ax = _abs(e, x)
    n, r_hi, r_lo = _reduce_small(e, x, ax)
    large = _cmp(e, ax, _f(e, SMALL_LIMIT), "oge")

    def big(b):
        m, h, lo = _reduce_large(b, ax)
        negative = b.v(cmpi(b.v(arith.BitcastOp(x, i64)), _i(b, 0), "slt"))
        m = _sel(b, negative, _and(b, b.v(arith.SubiOp(_i(b, 4), m)), 3), m)
        return [m, _sel(b, negative, _neg(b, h), h), _sel(b, negative, _neg(b, lo), lo)]

    n, r_hi, r_lo = e.if_(large, big, lambda b: [n, r_hi, r_lo], [i64, f64, f64])
    return _and(e, n, 3), r_hi, r_lo


# -- sin, cos, tan -----------------------------------------------------------------------------------------------
def _sin_cos_reduced(e, r_hi, r_lo):
    """``(sin r, cos r)`` for ``|r| <= pi/4`` given as ``r_hi + r_lo``."""
    z = _mul(e, r_hi, r_hi)
    hz = _mul(e, z, _f(e, 0.5))
    tail = e.fma(_mul(e, z, r_hi), _horner(e, z, SIN_TAYLOR), e.fma(_neg(e, hz), r_lo, r_lo))
    sin = _add(e, r_hi, tail)
    w = _sub(e, _f(e, 1.0), hz)
    rest = e.fma(_mul(e, z, z), _horner(e, z, COS_TAYLOR), _neg(e, _mul(e, r_hi, r_lo)))
    cos = _add(e, w, _add(e, _sub(e, _sub(e, _f(e, 1.0), w), hz), rest))
    return sin, cos


def _bit(e, n, k: int):
    return e.v(cmpi(_and(e, n, k), _i(e, 0), "ne"))


def trig(e, kind: str, x: SSAValue) -> SSAValue:
    """``sin`` / ``cos`` / ``tan`` of an f64 ``x`` (module docstring)."""
    n, r_hi, r_lo = reduce(e, x)
    sin, cos = _sin_cos_reduced(e, r_hi, r_lo)
    odd = _bit(e, n, 1)
    if kind == "tan":
        out = _sel(e, odd, _neg(e, e.v(arith.DivfOp(cos, sin))), e.v(arith.DivfOp(sin, cos)))
    else:
        first, second = (sin, cos) if kind == "sin" else (cos, sin)
        out = _sel(e, odd, second, first)
        flip = _bit(e, n, 2) if kind == "sin" else _bit(e, e.v(arith.AddiOp(n, _i(e, 1))), 2)
        out = _sel(e, flip, _neg(e, out), out)
    if kind != "cos":  # (sin / tan of -0 is -0)
        out = _sel(e, _cmp(e, x, _f(e, 0.0), "oeq"), x, out)
    return _sel(e, _cmp(e, _abs(e, x), _f(e, float("inf")), "oeq"), _f(e, float("nan")), out)


# -- atan2 -------------------------------------------------------------------------------------------------------
def _sign(e, v):
    return e.v(cmpi(e.v(arith.BitcastOp(v, i64)), _i(e, 0), "slt"))


def _minus(e, c_hi: float, c_lo: float, h, lo):
    """``(c_hi + c_lo) - (h + lo)`` as a double-double."""
    s, t = two_sum(e, _f(e, c_hi), _neg(e, h))
    return fast_two_sum(e, s, _add(e, t, _sub(e, _f(e, c_lo), lo)))


def atan2(e, y: SSAValue, x: SSAValue) -> SSAValue:
    """``atan2(y, x)`` of f64 ``y``, ``x`` (module docstring)."""
    ay, ax = _abs(e, y), _abs(e, x)
    hi = e.ptx("max.f64", [ax, ay])
    lo = e.ptx("min.f64", [ax, ay])
    inf = _f(e, float("inf"))
    q = e.v(arith.DivfOp(lo, hi))
    regular = e.v(arith.AndIOp(_cmp(e, hi, inf, "olt"), _cmp(e, hi, _f(e, 0.0), "ogt")))
    q_lo = e.v(arith.DivfOp(e.fma(_neg(e, q), hi, lo), hi))
    q_lo = _sel(e, regular, q_lo, _f(e, 0.0))
    q = _sel(e, _cmp(e, hi, _f(e, 0.0), "oeq"), _f(e, 0.0), q)
    q = _sel(e, _cmp(e, lo, inf, "oeq"), _f(e, 1.0), q)  # (inf / inf)
    mid = _cmp(e, q, _f(e, 0.25), "oge")  # (c = 1/2 from 1/4, 1 from 23/32: |t| <= 1/4)
    upper = _cmp(e, q, _f(e, 0.71875), "oge")
    c = _sel(e, upper, _f(e, 1.0), _sel(e, mid, _f(e, 0.5), _f(e, 0.0)))
    # t = (q - c + q_lo) / (1 + c q) as t_hi + t_lo: q - c and c q exact (Sterbenz; c a power of two), the
    # denominator's rounding error by TwoSum, the quotient's remainder by fma
    d_hi, d_lo = two_sum(e, _f(e, 1.0), _mul(e, c, q))
    n_hi = _sub(e, q, c)
    t_hi = e.v(arith.DivfOp(n_hi, d_hi))
    rem = e.fma(_neg(e, t_hi), d_hi, n_hi)
    t_lo = e.v(arith.DivfOp(e.fma(_neg(e, t_hi), d_lo, _add(e, rem, q_lo)), d_hi))
    t = _sel(e, mid, t_hi, q)  # (c = 0: t = q exactly, its remainder q_lo)
    t_lo = _sel(e, mid, t_lo, q_lo)
    z = _mul(e, t, t)
    poly = e.fma(_mul(e, t, z), _horner(e, z, ATAN_TAYLOR), e.fma(_neg(e, z), t_lo, t_lo))  # (+ t_lo atan'(t))
    half_hi, half_lo = K.ATAN_HALF
    p1, p2, _p3 = K.PIO2
    base_hi = _sel(e, upper, _f(e, p1 * 0.5), _sel(e, mid, _f(e, half_hi), _f(e, 0.0)))
    base_lo = _sel(e, upper, _f(e, p2 * 0.5), _sel(e, mid, _f(e, half_lo), _f(e, 0.0)))
    h, err = two_sum(e, base_hi, t)
    lo_part = _add(e, err, _add(e, base_lo, poly))
    h, lo_part = fast_two_sum(e, h, lo_part)
    steep = _cmp(e, ay, ax, "ogt")
    m_hi, m_lo = _minus(e, p1, p2, h, lo_part)
    h, lo_part = _sel(e, steep, m_hi, h), _sel(e, steep, m_lo, lo_part)
    back = _sign(e, x)
    m_hi, m_lo = _minus(e, 2.0 * p1, 2.0 * p2, h, lo_part)
    h, lo_part = _sel(e, back, m_hi, h), _sel(e, back, m_lo, lo_part)
    out = _add(e, h, lo_part)
    out = _sel(e, _sign(e, y), _neg(e, out), out)
    return _sel(e, _cmp(e, y, x, "uno"), _add(e, y, x), out)


__all__ = ["atan2", "reduce", "trig"]
