"""Warnings about integer ops of a ``cuda_tile`` program whose constant right operand makes the
result undefined or surprising, located at the op (the user's line through the debug info).

:func:`constant_operand_warnings` returns ``FILE:L:C: warning: ...`` lines for

* ``divi`` / ``remi`` by a constant 0: undefined behaviour in CUDA Tile IR; tileorch defines it
  (``transforms/defined_integer_llvm.py``: the quotient is the dividend, the remainder 0), which
  is rarely what the program meant;
* ``shli`` / ``shri`` by a constant of the element width or more (the amount is unsigned): the
  conversion gives PTX's clamped value (0, or the sign for an arithmetic right shift), which is
  rarely what the program meant;
* ``assert`` of a constant false condition: it fails whenever it is reached (the program traps
  with the assert's message), which is seldom meant outside a branch;
* ``load_view_tko`` / ``store_view_tko`` of a partition or strided view at a constant negative tile
  index (Python's ``index=(-1,)`` for "the last tile"): a view's tiles count from 0 and every
  element of that tile is out of bounds, so the load gives only padding and the store writes nothing.

It only reads the module."""

from __future__ import annotations

from xdsl.dialects.builtin import ModuleOp

from tileorch.diagnostics import format_error
from tileorch.dialects.cuda_tile import attrs as A
from tileorch.dialects.cuda_tile import ops as ct
from tileorch.dialects.cuda_tile.types import PartitionViewType, StridedViewType


def _width(op) -> int | None:
    t = op.lhs.type
    e = getattr(t, "element_type", None)
    w = getattr(e, "width", None)
    return w.data if w is not None else None


def constant_operand_warnings(module: ModuleOp) -> list[str]:
    """One located ``warning:`` line per op of the kinds above (see the module docstring)."""
    from tileorch.transforms.cudatile_to_tileaa import _uniform_int

    divi, remi, shli, shri, check, load, store = (ct.op_name(c) for c in (
        "DivIOp", "RemIOp", "ShLIOp", "ShRIOp", "AssertOp", "LoadViewTkoOp", "StoreViewTkoOp"))
    out: list[str] = []  # (by name: the classes are defined on first use, only for programs that have the ops)
    for op in module.walk():
        name = op.name
        if (name == load or name == store) and isinstance(op.view.type, (PartitionViewType, StridedViewType)):
            for dim, index in enumerate(op.index):
                value = _uniform_int(index)
                if value is not None and value < 0:
                    what = "the load gives only padding" if name == load else "the store writes nothing"
                    out.append(format_error(op, f"tile index {value} along dimension {dim} is negative: a view's tiles "
                                                f"are numbered from 0 (Python's negative indexing does not apply), "
                                                f"so {what}", "warning"))
                    break
        elif name == check and _uniform_int(op.condition) == 0:
            out.append(format_error(op, f"assert of a condition that is always false: it fails whenever it is reached "
                                        f"(the program traps with {op.message.data!r})", "warning"))
        elif (name == divi or name == remi) and _uniform_int(op.rhs) == 0:
            what = "division" if name == divi else "remainder"
            value = "the dividend" if name == divi else "0"
            out.append(format_error(op, f"integer {what} by the constant 0 is undefined behaviour in CUDA Tile IR: "
                                        f"each element becomes {value}", "warning"))
        elif name == shli or name == shri:
            width, amount = _width(op), _uniform_int(op.rhs)
            if width is None or amount is None or amount % (1 << width) < width:
                continue
            signed = name == shri and op.signedness.data == A.Signedness.SIGNED
            value = "-1 or 0 (its sign)" if signed else "0"
            out.append(format_error(op, f"shift of {width}-bit integers by {amount % (1 << width)} (the amount is "
                                        f"unsigned, at least the width): each element becomes {value}", "warning"))
    return out


__all__ = ["constant_operand_warnings"]
