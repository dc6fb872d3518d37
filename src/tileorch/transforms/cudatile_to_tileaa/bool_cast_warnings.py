"""Warnings about float -> bool conversions of a ``cuda_tile`` program, located at the op (the user's line
through the debug info).

cuTile 1.7 writes ``x.astype(ct.bool_)`` of a float tile as ``ftoi unsigned`` to ``i1``: the Tile IR's float to
integer conversion, truncation toward zero saturating to the result's range ``[0, 1]`` with NaN 0, so 0.5,
-1.0 and NaN give False and only values of at least 1 give True -- not ``torch``'s / numpy's ``x != 0`` that a
user porting ``x.bool()`` expects (session 33's sweep 25 met it; sweep 19 pinned the semantics).  tileorch
computes what the bytecode says; :func:`bool_cast_warnings` returns one ``FILE:L:C: warning: ...`` line per
such op (one per source line) naming the difference and the comparison that gives ``x != 0``.  It only reads
the module."""

from __future__ import annotations

from xdsl.dialects.builtin import ModuleOp

from tileorch.diagnostics import format_error
from tileorch.dialects.cuda_tile import ops as ct

_FTOI = ct.op_name("FToIOp")


def _to_i1(op) -> bool:
    typ = op.results[0].type if op.results else None
    elt = getattr(typ, "element_type", typ)
    width = getattr(elt, "width", None)
    return getattr(width, "data", None) == 1


def bool_cast_warnings(module: ModuleOp) -> list[str]:
    """One located ``warning:`` line per float -> bool ``ftoi`` (per line)."""
    out: list[str] = []
    for op in module.walk():
        if op.name == _FTOI and _to_i1(op):
            line = format_error(op, "astype(bool) of a float tile is the Tile IR's float -> integer conversion to "
                                    "i1: truncation toward zero saturating to [0, 1] (0.5, negative values and NaN "
                                    "give False), not x != 0; compare (x != 0) for torch's x.bool()", "warning")
            if line not in out:
                out.append(line)
    return out


__all__ = ["bool_cast_warnings"]
