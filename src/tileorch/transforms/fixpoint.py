"""A greedy rewrite walker run to its fixpoint without the walk that only confirms it.

``PatternRewriteWalker(..., apply_recursively=True).rewrite_region(region)`` walks the region
again after every walk that changed something, until a walk changes nothing.  That last walk
visits every op, runs the greedy applier's dead-code check on each (``is_trivially_dead``: the
op's memory effects, recursively for ops with regions) and tries the patterns: on a lowered
module it was a third or more of a pass for no change.  :func:`rewrite_to_fixpoint` makes the
same walks in the same way, except that a walk after the first is made only when some op of the
region ``may_act`` (a pattern could act on it) or, under a greedy applier that erases dead ops,
is trivially dead; otherwise that walk would change nothing (its first change would need such an
op at its start), and the result is the walker's.

:func:`reconcile_unrealized_casts` is xDSL's function of that name (its walker and pattern, the
same warnings) run this way: its confirming walk was a tenth of ``convert-pipeline-to-nvvm`` on a
GEMM with a large epilogue.
"""

from __future__ import annotations

from collections.abc import Callable

from xdsl.dialects.builtin import ModuleOp, UnrealizedConversionCastOp
from xdsl.ir import Operation, Region
from xdsl.pattern_rewriter import GreedyRewritePatternApplier, PatternRewriteWalker
from xdsl.transforms.reconcile_unrealized_casts import ReconcileUnrealizedCastsPattern

from tileorch.transforms.dead_ops import is_trivially_dead


def _dead(op: Operation) -> bool:
    for result in op.results:  # a used result: not dead (is_trivially_dead's first test, inlined)
        if result.first_use is not None:
            return False
    return is_trivially_dead(op)


def _never(op: Operation) -> bool:
    return False


def rewrite_to_fixpoint(walker: PatternRewriteWalker, region: Region, may_act: Callable[[Operation], bool]) -> bool:
    """``walker.rewrite_region(region)`` (an ``apply_recursively`` walker with no
    ``post_walk_func``, whose pattern is a ``GreedyRewritePatternApplier`` without folding or a
    plain pattern), skipping the walks that would change nothing; ``may_act(op)`` must be True
    for every op the walker's patterns can change.  Returns whether the region changed."""
    pattern = walker.pattern
    greedy = isinstance(pattern, GreedyRewritePatternApplier)
    if not (walker.apply_recursively and walker.post_walk_func is None and not (greedy and pattern.folding_enabled)
            and all(hasattr(walker, a) for a in ("_populate_worklist", "_process_worklist", "_get_rewriter_listener"))):
        return walker.rewrite_region(region)  # not the walker this was written for
    dead = _dead if greedy and pattern.dce_enabled else _never  # a plain pattern erases no dead op
    listener = walker._get_rewriter_listener()
    walker._populate_worklist(region)
    changed = walker._process_worklist(listener)
    result = changed
    while changed and any(may_act(op) or dead(op) for op in region.walk()):
        walker._populate_worklist(region)
        changed = walker._process_worklist(listener)
    return result


def _is_cast(op: Operation) -> bool:
    return isinstance(op, UnrealizedConversionCastOp)


def reconcile_unrealized_casts(module: ModuleOp, *, warn_on_failure: bool = True) -> None:
    """``xdsl.transforms.reconcile_unrealized_casts.reconcile_unrealized_casts(module)`` (what
    xDSL's ``reconcile-unrealized-casts`` pass runs) without its confirming walk: its pattern
    acts on casts only."""
    walker = PatternRewriteWalker(ReconcileUnrealizedCastsPattern(warn_on_failure=warn_on_failure))
    rewrite_to_fixpoint(walker, module.body, _is_cast)


__all__ = ["reconcile_unrealized_casts", "rewrite_to_fixpoint"]
