"""Warnings about ``cuda_tile.loop`` ops no path leaves, located at the loop.

A ``loop`` ends only by a ``break`` of its own (directly in its body or in ``if`` branches
there: a ``break`` inside an inner ``for`` or ``loop`` belongs to that one) or by a ``return``
from such a branch.  Without either, the program never finishes; tileorch compiles it as
written (a loop with no side effects may be removed: the kernel then ends), but not silently:
:func:`endless_loop_warnings` returns one ``FILE:L:C: warning: ...`` line per such loop.  It
only reads the module."""

from __future__ import annotations

from xdsl.dialects.builtin import ModuleOp

from tileorch.diagnostics import format_error
from tileorch.dialects.cuda_tile import ops as ct


def _exits(loop: ct.LoopOp) -> bool:
    """Whether a ``break`` of ``loop`` or a ``return`` is in its body (through ``if`` branches)."""
    todo = list(loop.regions)
    while todo:
        for op in todo.pop().walk():
            if isinstance(op, (ct.BreakOp, ct.ReturnOp)):
                owner = op.parent_op()
                while isinstance(owner, ct.IfOp):
                    owner = owner.parent_op()
                if owner is loop:
                    return True
    return False


def endless_loop_warnings(module: ModuleOp) -> list[str]:
    """One located ``warning:`` line per ``cuda_tile.loop`` without a ``break`` or ``return``."""
    return [format_error(op, "this loop has no break (and no return): it never ends, and the kernel never finishes",
                         "warning")
            for op in module.walk() if isinstance(op, ct.LoopOp) and not _exits(op)]
