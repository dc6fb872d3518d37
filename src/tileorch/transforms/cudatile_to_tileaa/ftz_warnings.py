"""Warnings about the ``flush_to_zero`` flags of a ``cuda_tile`` program that tileorch does not
apply, located at the op (the user's line through the debug info).

cuTile's ``flush_to_zero=True`` (``ct.add`` / ``ct.sub`` / ``ct.mul`` / ``ct.maximum`` /
``ct.minimum`` / ``ct.truediv`` / ``ct.sqrt`` / ``ct.rsqrt`` ...) asks for subnormal f32 inputs and results to become
sign-preserving zeros.  tileorch honours it on the approximate and full-range divisions
(``div.approx.ftz`` / ``div.full.ftz``); every other op keeps subnormals (IEEE), so its result
differs from the flushed one when an input or the result is below 2^-126 in magnitude.
:func:`flush_to_zero_warnings` returns one ``FILE:L:C: warning: ...`` line per such op (one per
source line and op kind).  It only reads the module."""

from __future__ import annotations

from xdsl.dialects.builtin import ModuleOp

from tileorch.diagnostics import format_error
from tileorch.dialects.cuda_tile import attrs as A
from tileorch.dialects.cuda_tile import ops as ct

KEPT_SUBNORMALS = tuple(ct.op_name(c) for c in ("AddFOp", "SubFOp", "MulFOp", "FmaOp", "MaxFOp", "MinFOp",
                                                 "SqrtOp", "RsqrtOp"))
"""Ops (by name: their classes are defined on first use) whose ``flush_to_zero`` the lowering does
not apply (a ``divf`` also, at its IEEE nearest-even rounding)."""
_DIVF = ct.op_name("DivFOp")


def _ignored(op) -> bool:
    if getattr(op, "flush_to_zero", None) is None:
        return False
    if op.name == _DIVF:
        return op.rounding_mode.data == A.RoundingMode.NEAREST_EVEN
    return op.name in KEPT_SUBNORMALS


def flush_to_zero_warnings(module: ModuleOp) -> list[str]:
    """One located ``warning:`` line per op kind and line whose ``flush_to_zero`` is not applied."""
    out: list[str] = []
    for op in module.walk():
        if _ignored(op):
            line = format_error(op, f"flush_to_zero on '{op.name}' is not applied: subnormal f32 inputs and "
                                    "results are kept (IEEE), not flushed to zero", "warning")
            if line not in out:
                out.append(line)
    return out


__all__ = ["flush_to_zero_warnings"]
