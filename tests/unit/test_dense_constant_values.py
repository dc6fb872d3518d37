"""``DenseConstantAttr.values()``: the element values of a ``cuda_tile`` constant, against numpy /
ml_dtypes reading the same bit patterns, and a splat's one pattern converted once (issue 22: a
``ct.zeros((128, 128))`` accumulator was 16384 conversions of the same pattern, most of
``convert-cudatile-to-tileaa`` on a GEMM)."""

from __future__ import annotations

import math
import struct

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from xdsl.dialects.builtin import BFloat16Type, Float16Type, Float32Type

from tileorch.dialects.cuda_tile import attrs as A
from tileorch.dialects.cuda_tile.types import TileType

ml = pytest.importorskip("ml_dtypes")

#: name -> (our type, reference dtype, the unsigned dtype of its bit patterns)
FORMATS = {
    "f16": (Float16Type(), np.float16, np.uint16),
    "bf16": (BFloat16Type(), ml.bfloat16, np.uint16),
    "f32": (Float32Type(), np.float32, np.uint32),
}


def _reference(patterns: list[int], fmt: str) -> list[float]:
    _, dtype, bits = FORMATS[fmt]
    return [float(x) for x in np.array(patterns, dtype=bits).view(dtype).astype(np.float64)]


def _same(a: float, b: float) -> bool:
    """Equal values, NaN equal to NaN, signed zeros told apart."""
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return struct.pack("<d", a) == struct.pack("<d", b)


@settings(max_examples=60, deadline=None)
@given(fmt=st.sampled_from(sorted(FORMATS)), data=st.data(),
       shape=st.lists(st.sampled_from([1, 2, 4, 8]), min_size=1, max_size=3), splat=st.booleans())
def test_values_match_reference(fmt, data, shape, splat):
    t, _, bits = FORMATS[fmt]
    n = math.prod(shape)
    pattern = st.integers(0, int(np.iinfo(bits).max))
    patterns = [data.draw(pattern)] * n if splat else data.draw(st.lists(pattern, min_size=n, max_size=n))
    attr = A.DenseConstantAttr.from_raw(TileType(shape, t), patterns)
    got = attr.values()
    want = _reference(patterns, fmt)
    assert len(got) == n
    assert all(_same(g, w) for g, w in zip(got, want)), (fmt, patterns[:4], got[:4], want[:4])


def test_splat_converted_once(monkeypatch):
    calls = []
    real = A.bits_to_float

    def counting(b, t):
        calls.append(b)
        return real(b, t)

    monkeypatch.setattr(A, "bits_to_float", counting)
    attr = A.DenseConstantAttr.from_raw(TileType((128, 128), Float32Type()), [0x3F800000])  # 1.0 everywhere
    values = attr.values()
    assert len(values) == 128 * 128 and set(values) == {1.0}
    assert len(calls) == 1
