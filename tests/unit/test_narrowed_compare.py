"""An integer compare of two sign-extended values is taken on the narrow values
(``tileaa_to_simt._narrowed_compare_operands``, session 19): sign extension keeps equality and both
the signed and the unsigned order, so every ``cmpi`` predicate gives the same answer (a hypothesis
property over i8 and i32 values), and the SIMT lowering emits the narrow compare only when both
operands are extensions from the same type."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

pytest.importorskip("xdsl")

from xdsl.dialects import arith  # noqa: E402
from xdsl.dialects.builtin import IntegerType, i32, i64  # noqa: E402
from xdsl.ir import Block  # noqa: E402

from tileorch.transforms.tileaa_to_simt import _narrowed_compare_operands  # noqa: E402

PREDICATES = {"eq": lambda a, b: a == b, "ne": lambda a, b: a != b, "slt": lambda a, b: a < b,
              "sle": lambda a, b: a <= b, "sgt": lambda a, b: a > b, "sge": lambda a, b: a >= b}


def _signed(v: int, bits: int) -> int:
    v &= (1 << bits) - 1
    return v - (1 << bits) if v >> (bits - 1) else v


def _holds(pred: str, a: int, b: int, bits: int) -> bool:
    """``cmpi pred`` of the ``bits``-wide patterns of ``a`` and ``b``."""
    if pred[0] == "u":
        ua, ub = a & ((1 << bits) - 1), b & ((1 << bits) - 1)
        return PREDICATES["s" + pred[1:]](ua, ub)
    return PREDICATES[pred](_signed(a, bits), _signed(b, bits))


@given(st.sampled_from(["eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge"]),
       st.sampled_from([8, 32]), st.integers(), st.integers())
def test_sign_extension_keeps_every_predicate(pred, bits, a, b):
    a, b = _signed(a, bits), _signed(b, bits)  # narrow values; sign-extended to 64 bits they keep their value
    assert _holds(pred, a, b, 64) == _holds(pred, a, b, bits)


def test_only_two_extensions_from_one_type_are_narrowed():
    block = Block(arg_types=[i32, i32, IntegerType(16), i64])
    x, y, h, w = block.args
    ex, ey, eh = arith.ExtSIOp(x, i64), arith.ExtSIOp(y, i64), arith.ExtSIOp(h, i64)
    zx = arith.ExtUIOp(x, i64)
    block.add_ops([ex, ey, eh, zx])
    assert _narrowed_compare_operands([ex.result, ey.result]) == [x, y]
    assert _narrowed_compare_operands([ex.result, eh.result]) == [ex.result, eh.result]  # i32 and i16
    assert _narrowed_compare_operands([zx.result, ey.result]) == [zx.result, ey.result]  # a zero extension
    assert _narrowed_compare_operands([ex.result, w]) == [ex.result, w]
