"""The shape every ``convert-pipeline-to-nvvm`` pattern shares.

A pattern names the op it lowers (``OP``) and implements :meth:`OpLowering.lower`, which gets
the op and an :class:`Emitter` and returns the lowered values of the op's results (or ``None``
for an op without results).  The base class matches by op name, converts the results back to
their source types for not-yet-lowered users, keeps the source location, adds the emitter's
module-level ops (storage, strings) at the module start and its entry ops (allocas) at the
start of the enclosing function, and replaces the op.
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Sequence

from xdsl.ir import Block, Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern
from xdsl.rewriter import InsertPoint

from tileorch.diagnostics import LocatedError, copy_location
from tileorch.transforms.pipeline_to_nvvm.emit import Emitter
from tileorch.transforms.pipeline_to_nvvm.types import as_lowered, as_source


class OpLowering(RewritePattern):
    """Lower every op named ``OP``."""

    OP: str = ""

    @abstractmethod
    def lower(self, op: Operation, e: Emitter) -> Sequence[SSAValue] | None:
        """Emit the replacement of ``op`` into ``e``; return the values of its results."""

    def applies_to(self, op: Operation) -> bool:
        """Extra match condition for patterns sharing an op name (e.g. increment vs bump)."""
        return True

    @staticmethod
    def operand(e: Emitter, value: SSAValue) -> SSAValue:
        return as_lowered(e, value)

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if op.name != self.OP or not self.applies_to(op):
            return
        e = Emitter()
        results = self.lower(op, e) or []
        new_results = [as_source(e, v, r.type) for v, r in zip(results, op.results, strict=True)]
        copy_location(op, e.ops)
        if e.globals:
            module = op.get_toplevel_object()
            rewriter.insert(e.globals, InsertPoint.at_start(module.regions[0].block))
        if e.entry_ops:
            copy_location(op, e.entry_ops)
            rewriter.insert(e.entry_ops, InsertPoint.at_start(function_entry(op)))
        rewriter.replace(op, e.ops, new_results)


FUNCTION_OPS = ("func.func", "llvm.func", "nv_tileas.kernel")


def function_entry(op: Operation) -> Block:
    """The entry block of the function enclosing ``op`` (where allocas must live)."""
    parent = op.parent_op()
    while parent is not None and parent.name not in FUNCTION_OPS:
        parent = parent.parent_op()
    if parent is None:
        raise LocatedError(op, f"'{op.name}' needs an enclosing function for its debug-timeout report buffer")
    return parent.regions[0].blocks[0]
