"""``tileorch.transforms.dense_splat.splat_value`` (a dense constant's one value, read from its bytes)
answers what the set test it replaced answers (``len(set(attr.get_values())) == 1`` and the first
value) on every element type and on the cases where bytes and values differ: ``0.0`` beside
``-0.0``, NaN splats of one and of several elements, one-element and empty tensors."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

pytest.importorskip("xdsl")

from xdsl.dialects.builtin import (DenseIntOrFPElementsAttr, IndexType, IntegerType, TensorType, f16,  # noqa: E402
                                   f32, f64, i1, i8, i32, i64)

from tileorch.transforms.dense_splat import splat_value  # noqa: E402


def _by_set(attr):
    values = attr.get_values()
    return (True, values[0]) if len(set(values)) == 1 else (False, None)


def _same(a, b) -> bool:
    (sa, xa), (sb, xb) = a, b
    if sa != sb:
        return False
    if isinstance(xa, float) and isinstance(xb, float):
        return (math.isnan(xa) and math.isnan(xb)) or (xa == xb and math.copysign(1, xa) == math.copysign(1, xb))
    return xa == xb and type(xa) is type(xb)


INT_TYPES = [(i1, 0, 1), (i8, -128, 127), (i32, -2**31, 2**31 - 1), (i64, -2**63, 2**63 - 1),
             (IndexType(), -2**63, 2**63 - 1), (IntegerType(16), -2**15, 2**15 - 1)]


@st.composite
def int_attrs(draw):
    t, lo, hi = draw(st.sampled_from(INT_TYPES))
    pool = draw(st.lists(st.integers(lo, hi), min_size=1, max_size=3))
    n = draw(st.integers(1, 40))
    values = [draw(st.sampled_from(pool)) for _ in range(n)]
    return DenseIntOrFPElementsAttr.from_list(TensorType(t, [n]), values)


@st.composite
def float_attrs(draw):
    t = draw(st.sampled_from([f16, f32, f64]))
    width = {f16: 16, f32: 32, f64: 64}[t]
    pool = draw(st.lists(st.one_of(st.sampled_from([0.0, -0.0, math.nan, math.inf, -math.inf, 1.0]),
                                   st.floats(width=width, allow_nan=False)), min_size=1, max_size=3))
    n = draw(st.integers(1, 40))
    values = [draw(st.sampled_from(pool)) for _ in range(n)]
    return DenseIntOrFPElementsAttr.from_list(TensorType(t, [n]), values)


@settings(max_examples=300, deadline=None)
@given(st.one_of(int_attrs(), float_attrs()))
def test_splat_value_is_the_set_test(attr):
    assert _same(splat_value(attr), _by_set(attr)), (attr.get_values(), splat_value(attr))


@pytest.mark.parametrize("t", [f32, f16, i32])
def test_a_128x128_splat_and_its_one_changed_element(t):
    n = 128 * 128
    one = 1.5 if t in (f32, f16) else 7
    splat = DenseIntOrFPElementsAttr.from_list(TensorType(t, [128, 128]), [one])
    assert splat_value(splat) == (True, one)
    values = [one] * n
    values[n - 1] = one * 2
    assert splat_value(DenseIntOrFPElementsAttr.from_list(TensorType(t, [128, 128]), values)) == (False, None)


def test_signed_zeros_and_nans_as_the_set_test_reads_them():
    mixed = DenseIntOrFPElementsAttr.from_list(TensorType(f32, [4]), [0.0, -0.0, 0.0, -0.0])
    assert splat_value(mixed) == (True, 0.0)  # one value for the set test, though the bytes differ
    nans = DenseIntOrFPElementsAttr.from_list(TensorType(f32, [4]), [math.nan])
    assert splat_value(nans) == (False, None)  # several NaN objects: several members
    one_nan = splat_value(DenseIntOrFPElementsAttr.from_list(TensorType(f32, [1]), [math.nan]))
    assert one_nan[0] and math.isnan(one_nan[1])


def test_what_is_not_a_dense_constant_is_not_a_splat():
    from xdsl.dialects.builtin import IntegerAttr

    assert splat_value(IntegerAttr(3, i32)) == (False, None)


def _zero_by_float_set(attr) -> bool:
    """``fold_dot_accumulate.is_zero``'s test before it read the bytes: the elements as floats
    make a set of one value, and that value is 0.0."""
    values = attr.get_values()
    return len(set(float(x) for x in values)) == 1 and float(values[0]) == 0.0


def _constant(attr):
    from xdsl.dialects import arith

    return arith.ConstantOp(attr).result


@settings(max_examples=300, deadline=None)
@given(st.one_of(int_attrs(), float_attrs()))
def test_is_zero_of_a_dense_constant_is_the_float_set_test(attr):
    from tileorch.transforms.tileas.fold_dot_accumulate import is_zero

    assert is_zero(_constant(attr)) == _zero_by_float_set(attr), attr.get_values()


@pytest.mark.parametrize("values, zero", [([0.0], True), ([0.0, -0.0, -0.0], True), ([-0.0], True),
                                          ([0.0, 0.0, 1e-30], False), ([math.nan], False),
                                          ([0.0, math.nan], False)])
def test_is_zero_reads_signed_zeros_and_nans(values, zero):
    from tileorch.transforms.tileas.fold_dot_accumulate import is_zero

    n = 128 * 256
    full = (values * (n // len(values) + 1))[:n] if len(values) > 1 else values
    attr = DenseIntOrFPElementsAttr.from_list(TensorType(f32, [128, 256]), full)
    assert is_zero(_constant(attr)) is zero
