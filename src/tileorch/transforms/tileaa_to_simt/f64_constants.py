"""The constants of the f64 trigonometric functions (``f64_trig.py``), computed from pi by integer arithmetic
(no table copied from anywhere, nothing to mistype): pi by Machin's formula ``pi = 16 atan(1/5) - 4 atan(1/239)``
in fixed point with 1500 bits, each ``atan(1/m)`` by its alternating series.  From it

* :data:`PIO2` = ``(P1, P2, P3)``: pi / 2 as three f64 whose sum is pi / 2 within 2^-160 (``P1`` the nearest f64,
  ``P2`` the nearest to the rest, ...);
* :data:`TWO_OVER_PI_WORDS`: the bits of 2 / pi after the binary point, 64 a word, most significant first
  (word ``j`` holds the bits of weight 2^-(64 j + 1) .. 2^-(64 j + 64)); 20 words, 1280 bits: the reduction of the
  largest f64 reads bits up to 1216;
* :data:`ATAN_HALF`: atan(1/2) as an unevaluated sum of two f64.

Computed once, on first use (about a millisecond)."""

from __future__ import annotations

from fractions import Fraction
from functools import lru_cache

BITS = 1500
"""Fixed-point bits of the computation (the reduction uses 1280 bits of 2 / pi; the rest guards the rounding)."""
WORDS = 20


def _atan_inv(m: int, scale: int) -> int:
    """``atan(1 / m) * 2^scale`` truncated (error below the number of terms, a few units)."""
    total, power, n, sign = 0, (1 << scale) // m, 1, 1
    m2 = m * m
    while power:
        total += sign * (power // n)
        power //= m2
        n += 2
        sign = -sign
    return total


@lru_cache(maxsize=1)
def _pi_fixed() -> int:
    """``floor(pi 2^BITS)`` within a few units (32 guard bits dropped)."""
    guard = 32
    s = BITS + guard
    return (16 * _atan_inv(5, s) - 4 * _atan_inv(239, s)) >> guard


def _split(x: Fraction, parts: int) -> tuple[float, ...]:
    out = []
    for _ in range(parts):
        f = float(x)  # (correctly rounded)
        out.append(f)
        x -= Fraction(f)
    return tuple(out)


@lru_cache(maxsize=1)
def constants() -> dict[str, object]:
    pi = Fraction(_pi_fixed(), 1 << BITS)
    two_over_pi = (1 << (2 * BITS + 1)) // _pi_fixed()  # floor(2 / pi 2^BITS), within a few units
    width = 64 * WORDS
    bits = two_over_pi >> (BITS - width)  # the first `width` bits after the point
    words = tuple((bits >> (64 * (WORDS - 1 - j))) & ((1 << 64) - 1) for j in range(WORDS))
    guard = 32
    half = Fraction(_atan_inv(2, BITS + guard), 1 << (BITS + guard))
    return {"PIO2": _split(pi / 2, 3), "TWO_OVER_PI": float(2 / pi), "TWO_OVER_PI_WORDS": words,
            "ATAN_HALF": _split(half, 2)}


def __getattr__(name: str):  # PIO2, TWO_OVER_PI, TWO_OVER_PI_WORDS, ATAN_HALF: computed on first use
    table = constants()
    if name in table:
        return table[name]
    raise AttributeError(name)
