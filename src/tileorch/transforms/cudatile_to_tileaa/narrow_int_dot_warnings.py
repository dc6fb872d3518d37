"""Warnings about integer dots whose product a ``cuda_tile`` program truncates to the operands' width, located at
the dot (the user's line through the debug info).

cuTile 1.7 gives ``ct.matmul(a, b)`` / ``a @ b`` of int8 (uint8) tiles the operands' dtype: the bytecode is an
``mmai`` into a zero int32 tile followed by ``trunci`` to i8, so every element of the product wraps modulo 256.
A user who writes ``acc = acc + a @ b`` (or ``acc += ct.matmul(a, b)``) over an int32 accumulator, as they would
for f16, gets each K step's product wrapped to 8 bits before the add -- almost never what an int8 GEMM means
(sweep 29 met it: the tier refused the K loop with a message about per-K-block scales, and the SIMT path computed
the wrapped sums silently).  tileorch computes what the bytecode says; :func:`narrow_int_dot_warnings` returns one
``FILE:L:C: warning: ...`` line per such dot naming the truncation and the spelling that keeps the int32 sum
(``ct.mma(a, b, acc)`` with an int32 ``acc``).  It only reads the module."""

from __future__ import annotations

from xdsl.dialects.builtin import ModuleOp

from tileorch.diagnostics import format_error
from tileorch.dialects.cuda_tile import ops as ct
from tileorch.transforms.int_truncation import truncated_width

_MMAI = ct.op_name("MmaIOp")
_TRUNCI = ct.op_name("TruncIOp")


def truncated_to(dot) -> int | None:
    """The bit width an integer dot's result is truncated to when every use of it is a ``trunci`` to fewer bits
    (cuTile's ``ct.matmul`` / ``@`` of 8-bit integer tiles); else None."""
    return truncated_width(dot.results[0], _TRUNCI)


def narrow_int_dot_warnings(module: ModuleOp) -> list[str]:
    """One located ``warning:`` line per ``mmai`` whose product is truncated to a narrower integer (per line)."""
    out: list[str] = []
    for op in module.walk():
        if op.name != _MMAI:
            continue
        bits = truncated_to(op)
        if bits is None:
            continue
        line = format_error(op, f"ct.matmul / @ of {bits}-bit integer tiles gives {bits}-bit integers: this dot's "
                                f"int32 product is truncated to {bits} bits (each element wraps modulo "
                                f"{1 << bits}) before it is used; for the int32 sum of an integer GEMM accumulate "
                                "with acc = ct.mma(a, b, acc) into an int32 acc", "warning")
        if line not in out:
            out.append(line)
    return out


__all__ = ["narrow_int_dot_warnings", "truncated_to"]
