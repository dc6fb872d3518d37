"""The arithmetic of ``tileaa_to_simt/uniform_division.py`` checked exactly, independent of the
compiler: with ``r0`` any f32 within 2 ulp of ``1/b`` (``rcp.approx.ftz``'s error is 1 ulp),
``r = fma(r0, fma(-b, r0, 1), r0)``, ``q = a r``, ``rem = fma(b, q, -a)``, ``fma(-r, rem, q)`` is
the correctly rounded ``a / b`` (rationals, round to nearest even at f32) for ``|a|`` and ``b``
in ``[2^-60, 2^60]``; for ``a = +-0`` and ``b > 0`` it is a zero of the sign of ``a`` (the sign
rule ``div.rn`` gives), while ptxas's order (``rem = fma(q, -b, a)``, ``fma(r, rem, q)``) gives
``+0`` for ``-0 / b``; and the range test's low side (``2 bits(a) - 1`` unsigned at least
``2 bits(2^-60) - 1``) passes zeros of both signs and refuses every nonzero below ``2^-60``."""

from __future__ import annotations

import math
import random
import struct
from fractions import Fraction as F

import numpy as np
import pytest

from tileorch.transforms.tileaa_to_simt.uniform_division import HIGH, LOW


def _rn32(x: F) -> F:
    """``x`` rounded to the nearest f32 (ties to even; subnormals on their grid; no overflow here)."""
    if x == 0:
        return F(0)
    sign, x = (-1 if x < 0 else 1), abs(x)
    e = x.numerator.bit_length() - x.denominator.bit_length()
    if F(2) ** e > x:
        e -= 1
    scale = F(2) ** (23 - max(e, -126))
    m = x * scale
    whole, frac = divmod(m.numerator, m.denominator)
    if 2 * frac > m.denominator or (2 * frac == m.denominator and whole % 2):
        whole += 1
    return sign * F(whole) / scale


def _ulp(x: F) -> F:
    e = x.numerator.bit_length() - x.denominator.bit_length()
    if F(2) ** e > x:
        e -= 1
    return F(2) ** (max(e, -126) - 23)


def _f32(x: float) -> F:
    return F(struct.unpack("<f", struct.pack("<f", x))[0])


def _sequence(a: F, b: F, r0: F) -> F:
    r = _rn32(r0 + r0 * _rn32(1 - b * r0))
    q = _rn32(a * r)
    rem = _rn32(b * q - a)
    return _rn32(q - r * rem)


def test_sequence_is_correctly_rounded_in_range():
    rng = random.Random(5)
    bad = []
    for i in range(1500):
        b = _f32(math.ldexp(rng.uniform(1, 2), rng.randint(-60, 59)))
        if i % 3 == 0:
            a = _f32(math.ldexp(rng.uniform(1, 2), rng.randint(-60, 59)))
        elif i % 3 == 1:  # a quotient next to a rounding boundary: a = b * (a f32 q +- a quarter ulp)
            q = _f32(rng.uniform(1, 2))
            a = _rn32(b * (q + _ulp(q) / 2 + rng.choice([-1, 1]) * _ulp(q) * F(1, 2 ** 20)))
        else:
            a = _f32(rng.uniform(-8, 8))
        exact = _rn32(a / b)
        for k in (-2, -1, 0, 1, 2):
            r0 = _rn32(1 / b)
            r0 += k * _ulp(r0)
            if _sequence(a, b, r0) != exact:
                bad.append((a, b, k))
    assert not bad, bad[:3]


def test_sequence_outside_the_range_can_misround():
    """Why the test refuses tiny numerators: below 2^-100 the remainder is inexact."""
    rng = random.Random(6)
    wrong = 0
    for _ in range(400):
        b = _f32(math.ldexp(rng.uniform(1, 2), rng.randint(-20, 0)))
        a = _rn32(F(rng.randint(1, 2 ** 23)) * F(2) ** rng.randint(-172, -140))
        wrong += _sequence(a, b, _rn32(1 / b)) != _rn32(a / b)
    assert wrong > 0


def _fma(x, y, z) -> np.float32:
    """f32 fma for operands whose product is exact in f64 and a zero or exactly cancelling sum."""
    return np.float32(np.float64(x) * np.float64(y) + np.float64(z))


@pytest.mark.parametrize("b", [3.7, 1.0, 2.0 ** -60, 2.0 ** 60])
@pytest.mark.parametrize("a", [0.0, -0.0])
def test_zero_numerators_keep_their_sign(a, b):
    a, b = np.float32(a), np.float32(b)
    r = np.float32(1) / b
    q = np.float32(a * r)
    ours = _fma(-r, _fma(b, q, -a), q)
    ptxas_order = _fma(r, _fma(q, -b, a), q)
    assert ours == 0 and np.signbit(ours) == np.signbit(a)
    if np.signbit(a):
        assert not np.signbit(ptxas_order)  # the fast path ptxas guards with FCHK gets -0 wrong


def _passes_low(x: float) -> bool:
    bits = struct.unpack("<I", struct.pack("<f", x))[0]
    low = struct.unpack("<I", struct.pack("<f", LOW))[0]
    return ((2 * bits - 1) & 0xFFFFFFFF) >= 2 * low - 1


@pytest.mark.parametrize("x,ok", [(0.0, True), (-0.0, True), (LOW, True), (-LOW, True), (1.0, True), (HIGH, True),
                                  (1e-45, False), (-1e-45, False), (LOW * 0.75, False), (-LOW * 0.5, False),
                                  (1.1754944e-38, False)])
def test_range_test_low_side(x, ok):
    assert _passes_low(x) == ok
