"""The one width an integer value is truncated to by all of its uses (cuTile's ``ct.matmul`` of int8 tiles).

cuTile 1.7 writes ``a @ b`` of 8-bit integer tiles as an int32 dot followed by a truncation to 8 bits, so each
element of the product wraps.  Two places read that shape: the warning at the user's line
(``cudatile_to_tileaa.narrow_int_dot_warnings``, on ``cuda_tile`` ops) and the tier's refusal of such a dot
(``tileas.convert_to_cutlass``, on ``nv_tileaa`` ops seen through ``nv_tileas.convert_layout``): one rule, two
dialects' op names.
"""

from __future__ import annotations

from collections.abc import Iterable

from xdsl.dialects.builtin import IntegerType
from xdsl.ir import SSAValue


def int_width(value: SSAValue) -> int | None:
    """The bit width of ``value``'s integer (element) type; None for a float or an unknown type."""
    typ = value.type
    elt = getattr(typ, "element_type", typ)
    width = getattr(elt, "width", None)
    return getattr(width, "data", None) if isinstance(elt, IntegerType) else None


def truncated_width(value: SSAValue, trunc: str, through: Iterable[str] = ()) -> int | None:
    """The width every use of ``value`` truncates it to with an op named ``trunc`` (uses followed through the ops
    named in ``through``, which pass their operand on unchanged), when all of them truncate to one width narrower
    than ``value``'s; else None (a value without uses, or with any other use, is not truncated)."""
    full = int_width(value)
    if full is None:
        return None
    passing = frozenset(through)
    todo, widths, used = [value], set(), False
    while todo:
        for use in list(todo.pop().uses):
            used = True
            user = use.operation
            if user.name in passing:
                todo.append(user.results[0])
            elif user.name == trunc:
                widths.add(int_width(user.results[0]))
            else:
                return None
    if not used or len(widths) != 1 or None in widths:
        return None
    width = widths.pop()
    return width if width < full else None


__all__ = ["int_width", "truncated_width"]
