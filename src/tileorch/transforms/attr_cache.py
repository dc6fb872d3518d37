"""Attributes the lowerings build many times over, built once per value.

``DenseArrayBase.from_list(i64, [i])`` (an ``llvm.extractvalue`` position) normalizes and packs
its values on every call, ``IntegerAttr(v, t)`` verifies its value against its type: the
lowering of one 128 x 256 WGMMA GEMM built some 2,300 positions (the 128 accumulator registers
of each ``wgmma`` and each stored fragment) and hundreds of constants, a tenth of
``convert-nvvm-to-llvm``.  Attributes are immutable values, so ops may share one.
"""

from __future__ import annotations

from functools import cache

from xdsl.dialects.builtin import DenseArrayBase, IntegerAttr, IntegerType, i64


@cache
def position(index: int) -> DenseArrayBase:
    """``DenseArrayBase.from_list(i64, [index])`` (the same object for the same index)."""
    return DenseArrayBase.from_list(i64, [index])


def integer(value: int, typ: IntegerType | int) -> IntegerAttr:
    """``IntegerAttr(value, typ)`` (the same object for the same ``int`` value and type; any
    other value, e.g. a ``bool``, which equals an int as a key, is built anew)."""
    if type(value) is not int:
        return IntegerAttr(value, typ)
    return _integer(value, typ)


@cache
def _integer(value: int, typ: IntegerType | int) -> IntegerAttr:
    return IntegerAttr(value, typ)


__all__ = ["integer", "position"]
