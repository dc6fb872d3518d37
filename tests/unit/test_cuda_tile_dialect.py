"""Unit tests of the cuda_tile dialect's value encodings and parser entry points."""

import math

import pytest
from xdsl.dialects.builtin import BFloat16Type, Float16Type, Float32Type, Float4E2M1FNType, Float8E4M3FNType

from tileorch.dialects.cuda_tile import attrs as A
from tileorch.dialects.cuda_tile.types import TileType
from tileorch.diagnostics import parse_module, verify_located
from tileorch.registry import make_context


@pytest.mark.parametrize("t,value,bits", [
    (Float32Type(), 1.0, 0x3F800000), (Float16Type(), -2.0, 0xC000), (BFloat16Type(), 1.0, 0x3F80),
    (Float8E4M3FNType(), 448.0, 0x7E), (Float4E2M1FNType(), 6.0, 0x7), (Float4E2M1FNType(), -0.5, 0x9),
])
def test_float_bits_roundtrip(t, value, bits):
    assert A.float_to_bits(value, t) == bits
    assert A.bits_to_float(bits, t) == value


def test_float_spelling_matches_mlir():
    assert A.format_float(A.float_to_bits(3.14, Float16Type()), Float16Type()) == "3.140630e+00"
    assert A.format_float(A.float_to_bits(0.1, Float32Type()), Float32Type()) == "1.000000e-01"
    assert A.format_float(0x7FC00000, Float32Type()) == "0x7FC00000"  # NaN prints as bits
    assert math.isnan(A.bits_to_float(0x7F, Float8E4M3FNType()))


def test_enum_codes_follow_the_specification_order():
    assert A.RoundingModeAttr(A.RoundingMode.NEAREST_INT_TO_ZERO).code() == 6
    assert A.MemoryOrderingAttr.from_code(4).data == A.MemoryOrdering.ACQ_REL
    with pytest.raises(ValueError):
        A.SignednessAttr.from_code(2)


def test_splat_constant_is_stored_once():
    c = A.DenseConstantAttr.from_raw(TileType((2, 2), Float32Type()), [5, 5, 5, 5])
    assert c.is_splat() and c.raw_values() == [5, 5, 5, 5]


def test_prefix_less_module_parses_and_verifies():
    text = """cuda_tile.module @m {
  entry @k(%p: tile<ptr<f32>>) {
    %c = constant <f32: 2.0> : tile<8xf32>
    %d = addf %c, %c : tile<8xf32>
  }
}"""
    m = parse_module(make_context(), text, "t.mlir")
    assert verify_located(m) == []
    entry = m.body.block.first_op.body.block.first_op
    assert entry.name == "cuda_tile.entry"
    assert [op.name for op in entry.body.block.ops] == ["cuda_tile.constant", "cuda_tile.addf", "cuda_tile.return"]


def test_a_dense_constant_built_with_the_wrong_element_count():
    """The attribute's own rule guards the Python constructors (the parser and the bytecode reader
    refuse such a literal first, with their own located messages)."""
    from xdsl.utils.exceptions import VerifyException

    from tileorch.dialects.cuda_tile.types import TileType

    with pytest.raises(VerifyException, match=r"dense constant has 3 elements, its type tile<4xf32> 4"):
        A.DenseConstantAttr.from_raw(TileType([4], Float32Type()), [1, 2, 3])
