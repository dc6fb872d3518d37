"""Bit patterns of the float types of ``cuda_tile`` constants: ``float_to_bits`` rounds a Python
float into a format, ``bits_to_float`` reads a pattern back.  Computed from each format's
parameters, never searched.

Contract of ``float_to_bits`` (the same as upstream MLIR's literal parser, APFloat with
round-to-nearest-even; ml_dtypes is the reference of the property tests):

* finite values round to nearest, ties to even; the sign of zero is kept; subnormals exist in
  every format except f8E8M0FNU;
* overflow (the rounded magnitude is past the largest finite value) depends on the format:
  IEEE formats (f16, bf16, tf32, f32, f64, f8E5M2) give infinity; f8E4M3FN has no infinity and
  gives NaN (sign kept); f4E2M1FN is finite-only and saturates to +-6; f8E8M0FNU gives NaN;
* infinity converts like overflow; NaN gives the format's quiet NaN (sign kept where the format
  has one);
* f8E8M0FNU (powers of two 2^-127..2^127, no sign, no zero): a tie (1.5 * 2^k) rounds up; zero
  and values below 2^-127 give 2^-127, as MLIR's parser does; a negative value (or -0.0) raises
  ``ValueError``; f4E2M1FN has no NaN: NaN raises ``ValueError``.  Callers report the message
  at the literal.
"""

from __future__ import annotations

import math
import struct
from dataclasses import dataclass

from xdsl.dialects.builtin import (BFloat16Type, Float4E2M1FNType, Float8E4M3FNType, Float8E5M2Type, Float8E8M0FNUType,
                                   Float16Type, Float32Type, Float64Type, FloatTF32Type)
from xdsl.ir import Attribute

IEEE = "ieee"  # all-ones exponent: infinity (mantissa 0) or NaN
NAN_ONLY = "nan_only"  # no infinity; the all-ones pattern (sign aside) is NaN
FINITE_ONLY = "finite_only"  # every pattern is a finite number


@dataclass(frozen=True)
class FloatFormat:
    """A binary float format: ``exponent``/``mantissa`` field widths, exponent ``bias``, how the
    top of the range is used (``nonfinite``) and the MLIR spelling (for messages)."""

    name: str
    exponent: int
    mantissa: int
    bias: int
    nonfinite: str

    @property
    def sign_bit(self) -> int:
        return 1 << (self.exponent + self.mantissa)

    @property
    def top(self) -> int:
        """The largest exponent field."""
        return (1 << self.exponent) - 1

    def quiet_nan(self) -> int:
        if self.nonfinite == IEEE:
            return self.top << self.mantissa | 1 << (self.mantissa - 1)
        return self.sign_bit - 1  # NAN_ONLY: every field bit set

    def largest(self) -> int:
        """The pattern of the largest finite magnitude."""
        if self.nonfinite == IEEE:
            return (self.top << self.mantissa) - 1
        if self.nonfinite == NAN_ONLY:
            return self.sign_bit - 2
        return self.sign_bit - 1


FORMATS: dict[type, FloatFormat] = {
    Float16Type: FloatFormat("f16", 5, 10, 15, IEEE),
    BFloat16Type: FloatFormat("bf16", 8, 7, 127, IEEE),
    FloatTF32Type: FloatFormat("tf32", 8, 10, 127, IEEE),
    Float32Type: FloatFormat("f32", 8, 23, 127, IEEE),
    Float64Type: FloatFormat("f64", 11, 52, 1023, IEEE),
    Float8E4M3FNType: FloatFormat("f8E4M3FN", 4, 3, 7, NAN_ONLY),
    Float8E5M2Type: FloatFormat("f8E5M2", 5, 2, 15, IEEE),
    Float4E2M1FNType: FloatFormat("f4E2M1FN", 2, 1, 1, FINITE_ONLY),
}
E8M0_BIAS = 127


def float_format(t: Attribute) -> FloatFormat:
    """The parameters of float type ``t`` (not f8E8M0FNU, which has no sign or mantissa)."""
    return FORMATS[type(t)]


def float_to_bits(value: float, t: Attribute) -> int:
    """Round ``value`` into float type ``t`` (see the module's contract) and return its pattern."""
    if isinstance(t, Float64Type):
        return struct.unpack("<Q", struct.pack("<d", value))[0]
    if isinstance(t, Float8E8M0FNUType):
        return _e8m0_bits(value)
    if isinstance(t, Float32Type) and math.isnan(value):  # keep the payload
        return struct.unpack("<I", struct.pack("<f", value))[0]
    if isinstance(t, Float16Type) and math.isnan(value):
        return struct.unpack("<H", struct.pack("<e", value))[0]
    return _round(value, float_format(t))


def _round(value: float, f: FloatFormat) -> int:
    sign = f.sign_bit if math.copysign(1.0, value) < 0 else 0
    if math.isnan(value):
        if f.nonfinite == FINITE_ONLY:
            raise ValueError(f"{f.name} has no NaN")
        return sign | f.quiet_nan()
    a = abs(value)
    if a == 0.0:
        return sign
    if math.isinf(a):
        return sign | _overflow(f)
    e = max(math.frexp(a)[1] - 1, 1 - f.bias)  # the binade's exponent (subnormals: the smallest normal's)
    q = round(math.ldexp(a, f.mantissa - e))  # exact scaling; round() is round-half-even
    if q >= 1 << (f.mantissa + 1):  # rounded up into the next binade
        q >>= 1
        e += 1
    if q < 1 << f.mantissa:  # subnormal (or zero)
        return sign | q
    bits = (e + f.bias) << f.mantissa | (q - (1 << f.mantissa))
    if e + f.bias > f.top or bits > f.largest():
        return sign | _overflow(f)
    return sign | bits


def _overflow(f: FloatFormat) -> int:
    if f.nonfinite == IEEE:
        return f.top << f.mantissa  # infinity
    if f.nonfinite == NAN_ONLY:
        return f.quiet_nan()
    return f.largest()  # finite only: saturate


def _e8m0_bits(value: float) -> int:
    if math.isnan(value):
        return 0xFF
    if math.copysign(1.0, value) < 0:
        raise ValueError("f8E8M0FNU has no negative values")
    if value == 0.0:
        return 0
    if math.isinf(value):
        return 0xFF
    m, e = math.frexp(value)  # value = m * 2^e, 0.5 <= m < 1
    k = e if m >= 0.75 else e - 1  # nearest power of two; the tie 1.5 * 2^(e-1) rounds up
    if k > E8M0_BIAS:
        return 0xFF
    return max(k, -E8M0_BIAS) + E8M0_BIAS


def bits_to_float(bits: int, t: Attribute) -> float:
    """The value of pattern ``bits`` of float type ``t`` (NaN patterns read as ``math.nan``)."""
    if isinstance(t, Float64Type):
        return struct.unpack("<d", struct.pack("<Q", bits))[0]
    if isinstance(t, Float32Type):
        return struct.unpack("<f", struct.pack("<I", bits))[0]
    if isinstance(t, Float16Type):
        return struct.unpack("<e", struct.pack("<H", bits))[0]
    if isinstance(t, Float8E8M0FNUType):
        return math.nan if bits == 0xFF else 2.0 ** (bits - E8M0_BIAS)
    f = float_format(t)
    sign = -1.0 if bits & f.sign_bit else 1.0
    e = bits >> f.mantissa & f.top
    m = bits & ((1 << f.mantissa) - 1)
    if f.nonfinite == IEEE and e == f.top:
        return sign * math.inf if m == 0 else math.nan
    if f.nonfinite == NAN_ONLY and bits & ~f.sign_bit == f.quiet_nan():
        return math.nan
    if e == 0:
        return sign * m * 2.0 ** (1 - f.bias - f.mantissa)
    return sign * (1 + m / (1 << f.mantissa)) * 2.0 ** (e - f.bias)


def is_exact_conversion(source: Attribute, target: Attribute) -> bool:
    """Whether every value of float type ``source`` (infinities and NaN included) is a value of
    float type ``target``, so that converting rounds nothing and its rounding mode cannot matter:
    at least as many mantissa bits, a largest exponent at least as large, a smallest subnormal step
    at least as small, and infinities where the source has them (f16 -> f32, e4m3 -> bf16, f32 ->
    f64; not f16 -> bf16, f32 -> tf32, e5m2 -> e4m3).  False for f8E8M0FNU on either side."""
    if isinstance(source, Float8E8M0FNUType) or isinstance(target, Float8E8M0FNUType):
        return False
    s, t = float_format(source), float_format(target)
    keeps_nonfinite = (s.nonfinite != IEEE or t.nonfinite == IEEE) and (s.nonfinite == FINITE_ONLY
                                                                         or t.nonfinite != FINITE_ONLY)
    return (t.mantissa >= s.mantissa and _largest_exponent(t) >= _largest_exponent(s)
            and 1 - t.bias - t.mantissa <= 1 - s.bias - s.mantissa and keeps_nonfinite)


def _largest_exponent(f: FloatFormat) -> int:
    """The unbiased exponent of ``f``'s largest finite value (IEEE formats keep the top field for
    infinity and NaN)."""
    return f.top - f.bias - (1 if f.nonfinite == IEEE else 0)


def mantissa_bits(t: Attribute) -> int:
    """Explicit mantissa bits of float type ``t`` (0 for f8E8M0FNU)."""
    return 0 if isinstance(t, Float8E8M0FNUType) else float_format(t).mantissa
