"""Property tests of the float encoders of constants (``float_to_bits``/``bits_to_float``)
against an independent reference, ml_dtypes (numpy's own float16/float32 for those formats).

Rules checked for every format cuda_tile has: round to nearest, ties to even; signed zeros
kept; overflow gives infinity (IEEE formats: f16, bf16, tf32, f32, f8E5M2), NaN (f8E4M3FN,
which has no infinity, and f8E8M0FNU) or the largest finite value (f4E2M1FN, finite only);
subnormals; NaN stays NaN where the format has one.  Where ml_dtypes and upstream MLIR (the
textual home of these types) differ, MLIR's parser decides and the test says so.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from xdsl.dialects.builtin import (
    BFloat16Type,
    Float16Type,
    Float32Type,
    Float4E2M1FNType,
    Float8E4M3FNType,
    Float8E5M2Type,
    Float8E8M0FNUType,
    FloatTF32Type,
)

from tileorch.dialects.cuda_tile import attrs as A

ml = pytest.importorskip("ml_dtypes")

#: (our type, numpy dtype of the reference, storage bits)
FORMATS = {
    "f16": (Float16Type(), np.float16, 16),
    "bf16": (BFloat16Type(), ml.bfloat16, 16),
    "f32": (Float32Type(), np.float32, 32),
    "f8E4M3FN": (Float8E4M3FNType(), ml.float8_e4m3fn, 8),
    "f8E5M2": (Float8E5M2Type(), ml.float8_e5m2, 8),
    "f4E2M1FN": (Float4E2M1FNType(), ml.float4_e2m1fn, 4),
    "f8E8M0FNU": (Float8E8M0FNUType(), ml.float8_e8m0fnu, 8),
}
NARROW = ("f8E4M3FN", "f8E5M2", "f4E2M1FN", "f8E8M0FNU")


def _ref_bits(x: float, dtype, width: int) -> int:
    """The reference's bit pattern of ``x`` converted (from float64, one rounding) to ``dtype``."""
    with np.errstate(all="ignore"):  # overflow to inf or NaN is what is being tested
        a = np.array([x], dtype=np.float64).astype(dtype)
    if width == 4:  # ml_dtypes stores a 4-bit float in one byte, low nibble
        return int(a.view(np.uint8)[0]) & 0xF
    return int(a.view({8: np.uint8, 16: np.uint16, 32: np.uint32}[width])[0])


def _check(name: str, x: float) -> None:
    t, dtype, width = FORMATS[name]
    ref = _ref_bits(x, dtype, width)
    ref_value = A.bits_to_float(ref, t)
    ours = A.float_to_bits(x, t)
    assert 0 <= ours < 1 << width
    if math.isnan(ref_value):
        assert math.isnan(A.bits_to_float(ours, t)), (name, x, hex(ours))
    else:
        assert ours == ref, (name, x, hex(ours), hex(ref))


def _neighbourhood(name: str):
    """Values at, between (ties) and just around the format's representable values,
    beyond its largest finite value, and in its subnormal range."""
    t, _, width = FORMATS[name]

    def around(bits: int, where: int) -> float:
        v = A.bits_to_float(bits, t)
        w = A.bits_to_float(bits + 1, t) if bits + 1 < 1 << width else math.inf
        if not math.isfinite(v):
            return v
        if not math.isfinite(w):  # past the largest finite value: use one binade's step
            w = v + (v - A.bits_to_float(bits - 1, t) if bits else 1.0)
        mid = (v + w) / 2
        return [v, mid, math.nextafter(mid, math.inf), math.nextafter(mid, -math.inf), w * 1.5][where]

    return st.builds(around, st.integers(0, (1 << width) - 2), st.integers(0, 4))


def _values(name: str):
    base = st.one_of(st.floats(allow_nan=True, allow_infinity=True), _neighbourhood(name),
                     st.floats(min_value=-1e6, max_value=1e6), st.floats(min_value=-1e-5, max_value=1e-5))
    if name == "f8E8M0FNU":  # unsigned and no zero: the negative side and zero are tested below
        return base.filter(lambda x: math.isnan(x) or x > 0).map(abs)
    if name == "f4E2M1FN":  # no NaN: tested below
        return base.filter(lambda x: not math.isnan(x))
    return base


@pytest.mark.parametrize("name", list(FORMATS))
def test_float_to_bits_matches_the_reference(name):
    @settings(max_examples=1500, deadline=None)
    @given(_values(name))
    @example(math.inf)
    @example(1e300)
    @example(5e-324)
    def prop(x):
        _check(name, x)

    prop()


@pytest.mark.parametrize("name", NARROW)
def test_every_pattern_reads_like_the_reference_and_round_trips(name):
    t, dtype, width = FORMATS[name]
    for bits in range(1 << width):
        raw = np.array([bits], dtype=np.uint8).view(dtype)[0]
        ref = float(raw)
        v = A.bits_to_float(bits, t)
        if math.isnan(ref):
            assert math.isnan(v), (name, hex(bits))
            continue
        assert v == ref and math.copysign(1, v) == math.copysign(1, ref), (name, hex(bits), v, ref)
        assert A.float_to_bits(v, t) == bits, (name, hex(bits))


@pytest.mark.parametrize("x,bits", [
    (448.0, 0x7E), (464.0, 0x7E),  # the tie between 448 and the NaN slot rounds to even (448)
    (465.0, 0x7F), (1000.0, 0x7F), (-1000.0, 0xFF),  # overflow: NaN (no infinity), sign kept
    (math.inf, 0x7F), (-math.inf, 0xFF), (-0.0, 0x80), (2.0 ** -10, 0x0), (2.0 ** -9, 0x1),
])
def test_e4m3fn_saturation_rules(x, bits):
    assert A.float_to_bits(x, Float8E4M3FNType()) == bits


@pytest.mark.parametrize("x,bits", [
    (57344.0, 0x7B), (61439.0, 0x7B), (61440.0, 0x7C), (1e6, 0x7C), (-1e6, 0xFC),  # overflow: inf
    (math.inf, 0x7C), (-math.inf, 0xFC), (-0.0, 0x80), (2.0 ** -16, 0x1), (2.0 ** -17, 0x0),
])
def test_e5m2_overflow_is_infinity(x, bits):
    assert A.float_to_bits(x, Float8E5M2Type()) == bits


def test_e5m2_nan_is_a_nan():
    assert math.isnan(A.bits_to_float(A.float_to_bits(math.nan, Float8E5M2Type()), Float8E5M2Type()))
    assert math.isnan(A.bits_to_float(A.float_to_bits(math.nan, Float8E4M3FNType()), Float8E4M3FNType()))


@pytest.mark.parametrize("x,bits", [
    (7.0, 0x7), (1e9, 0x7), (-1e9, 0xF), (math.inf, 0x7), (-math.inf, 0xF),  # finite only: saturate
    (5.0, 0x6), (0.25, 0x0), (0.26, 0x1), (-0.0, 0x8),
])
def test_f4_saturates(x, bits):
    assert A.float_to_bits(x, Float4E2M1FNType()) == bits


def test_f4_has_no_nan():
    with pytest.raises(ValueError, match="f4E2M1FN has no NaN"):
        A.float_to_bits(math.nan, Float4E2M1FNType())


@pytest.mark.parametrize("x,bits", [
    (1.0, 0x7F), (1.5, 0x80), (1.49, 0x7F), (3.0, 0x81), (2.0 ** 127, 0xFE), (2.0 ** 127 * 1.5, 0xFF),
    (math.inf, 0xFF), (math.nan, 0xFF),
    (0.0, 0x00), (1e-300, 0x00),  # no zero: MLIR's parser gives the smallest value, 2^-127
])
def test_e8m0_rules(x, bits):
    assert A.float_to_bits(x, Float8E8M0FNUType()) == bits


@pytest.mark.parametrize("x", [-1.0, -0.0, -math.inf])
def test_e8m0_has_no_sign(x):
    with pytest.raises(ValueError, match="f8E8M0FNU has no negative values"):
        A.float_to_bits(x, Float8E8M0FNUType())


@pytest.mark.parametrize("t,x,bits", [
    (Float32Type(), math.nextafter(2.0 ** 128 - 2.0 ** 103, 0), 0x7F7FFFFF),  # above FLT_MAX, rounds to it
    (Float32Type(), 2.0 ** 128 - 2.0 ** 103, 0x7F800000),  # the tie with 2^128: infinity
    (Float32Type(), 1e39, 0x7F800000), (Float16Type(), 65519.0, 0x7BFF), (Float16Type(), 65520.0, 0x7C00),
    (FloatTF32Type(), 1.0 + 2.0 ** -11, 0x1FC00), (FloatTF32Type(), 1.0 + 3 * 2.0 ** -11, 0x1FC02),
    (FloatTF32Type(), 1e39, 0x3FC00), (BFloat16Type(), -1e39, 0xFF80),
])
def test_wide_formats_overflow_to_infinity(t, x, bits):
    assert A.float_to_bits(x, t) == bits


def test_unrepresentable_literal_is_a_located_error():
    from tileorch.diagnostics import parse_module
    from tileorch.registry import make_context

    src = ("cuda_tile.module @m {\n  entry @k() {\n"
           "    %c = constant <f8E8M0FNU: -2.0> : tile<f8E8M0FNU>\n    return\n  }\n}\n")
    with pytest.raises(Exception) as e:
        parse_module(make_context(), src, "t.mlir")
    assert "3:" in str(e.value) and "f8E8M0FNU has no negative values" in str(e.value)



def _converts_exactly(src, dst) -> bool:
    """Every pattern of ``src`` (at most 16 bits: enumerated) read, rounded into ``dst`` and read
    back gives the same value (NaN: a NaN; ml_dtypes / numpy's conversion, one rounding)."""
    (_, sdt, sw), (_, ddt, _) = FORMATS[src], FORMATS[dst]
    raw = np.arange(1 << sw, dtype=np.uint16 if sw == 16 else np.uint8)
    if sw == 4:
        raw = raw & 0xF
    with np.errstate(all="ignore"):
        values = raw.view(sdt).astype(np.float64)
        back = values.astype(ddt).astype(np.float64)
    same = (back == values) | (np.isnan(back) & np.isnan(values))
    return bool(same.all())


@pytest.mark.parametrize("src", ["f16", "bf16", "f8E4M3FN", "f8E5M2", "f4E2M1FN"])
@pytest.mark.parametrize("dst", ["f16", "bf16", "f32", "f8E4M3FN", "f8E5M2"])
def test_is_exact_conversion_matches_converting_every_pattern(src, dst):
    """float_bits.is_exact_conversion (an ftof that rounds nothing takes any rounding mode) against
    the conversion of every bit pattern of the source type by the reference."""
    from tileorch.dialects.cuda_tile.float_bits import is_exact_conversion

    assert is_exact_conversion(FORMATS[src][0], FORMATS[dst][0]) == _converts_exactly(src, dst)


def test_is_exact_conversion_of_the_wide_types_and_e8m0():
    from xdsl.dialects.builtin import Float64Type

    from tileorch.dialects.cuda_tile.float_bits import is_exact_conversion

    f32, tf32, f64 = Float32Type(), FloatTF32Type(), Float64Type()
    assert is_exact_conversion(f32, f64) and is_exact_conversion(tf32, f32) and is_exact_conversion(f32, f32)
    assert not is_exact_conversion(f64, f32) and not is_exact_conversion(f32, tf32)
    assert is_exact_conversion(Float16Type(), tf32)  # tf32's 10 bits and f32's range
    assert not is_exact_conversion(Float8E8M0FNUType(), f32) and not is_exact_conversion(f32, Float8E8M0FNUType())
