"""One pass of a rewrite pattern over a region: every op visited once, in walk order.

:func:`rewrite_once` does what ``PatternRewriteWalker(pattern, apply_recursively=False)``
does (the ops collected up front in walk order, each op before its regions; an op the pattern
erased, or one nested in an erased op, is not visited; an exception a pattern raises is
reported as xDSL's walker reports it, ``Error while applying pattern: ...`` on the op), without
its worklist: no worklist pushes and pops, no listener chain per insertion or replacement.  The
one-walk std-to-llvm lowerings (:class:`tileorch.transforms.index_to_llvm.ToLLVMPass`) spent
about a third of their time in the walker's bookkeeping.

A pattern class may declare ``NAME_PREFIX`` (e.g. ``"arith."``): it acts on no op whose name
does not start with it, so only the ops whose name does are visited (the others cost a name
test instead of the rewriter's per-op setup and a pattern call).  A pattern may also define
``wants(op) -> bool``: False for an op it would leave unchanged; such an op gets no rewriter
setup and no pattern call either (asked when the walk reaches the op, as the pattern would be).
"""

from __future__ import annotations

from xdsl.ir import Operation, Region
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern
from xdsl.rewriter import InsertPoint


def rewrite_once(pattern: RewritePattern, region: Region, walked: list[Operation] | None = None) -> bool:
    """Apply ``pattern`` to every op of ``region`` once (ops it creates are not visited);
    returns whether it changed anything.  ``walked``: the ops of ``region`` in walk order as they
    are now, collected by the caller (``list(region.walk())``: not walked again)."""
    prefix = getattr(pattern, "NAME_PREFIX", None)
    if walked is None:
        walked = region.walk()
    ops = [op for op in walked if op.name.startswith(prefix)] if prefix else list(walked)
    if not ops:
        return False
    removed: set[int] = set()

    def on_removal(op: Operation) -> None:
        removed.add(id(op))
        if op.regions:
            removed.update(id(nested) for nested in op.walk())

    rewriter = PatternRewriter(ops[0])
    rewriter.operation_removal_handler.append(on_removal)
    changed = False
    wants = getattr(pattern, "wants", None)
    for op in ops:
        if id(op) in removed or (wants is not None and not wants(op)):
            continue
        rewriter.has_done_action = False
        rewriter._current_operation = op
        rewriter.insertion_point = InsertPoint.before(op)
        rewriter.name_hint = None
        try:
            pattern.match_and_rewrite(op, rewriter)
        except Exception as err:
            op.emit_error(f"Error while applying pattern: {err}", underlying_error=err)
        changed |= rewriter.has_done_action
    return changed


__all__ = ["rewrite_once"]
