"""A greedy rewrite walker run to its fixpoint without the walk that only confirms it.

``PatternRewriteWalker(..., apply_recursively=True).rewrite_region(region)`` walks the region
again after every walk that changed something, until a walk changes nothing.  That last walk
visits every op, runs the greedy applier's dead-code check on each (``is_trivially_dead``: the
op's memory effects, recursively for ops with regions) and tries the patterns: on a lowered
module it was a third or more of a pass for no change.  :func:`rewrite_to_fixpoint` makes the
same walks in the same way, except that a walk after the first is made only when some op of the
region ``may_act`` (a pattern could act on it) or is trivially dead; otherwise that walk would
change nothing, and the result is the walker's.
"""

from __future__ import annotations

from collections.abc import Callable

from xdsl.ir import Operation, Region
from xdsl.pattern_rewriter import PatternRewriteWalker

from tileorch.transforms.dead_ops import is_trivially_dead


def _dead(op: Operation) -> bool:
    for result in op.results:  # a used result: not dead (is_trivially_dead's first test, inlined)
        if result.first_use is not None:
            return False
    return is_trivially_dead(op)


def rewrite_to_fixpoint(walker: PatternRewriteWalker, region: Region, may_act: Callable[[Operation], bool]) -> bool:
    """``walker.rewrite_region(region)`` (an ``apply_recursively`` walker whose pattern is a
    ``GreedyRewritePatternApplier`` without folding, with no ``post_walk_func``), skipping the
    walks that would change nothing; ``may_act(op)`` must be True for every op one of the
    applier's patterns can change.  Returns whether the region changed."""
    if not (walker.apply_recursively and walker.post_walk_func is None
            and all(hasattr(walker, a) for a in ("_populate_worklist", "_process_worklist", "_get_rewriter_listener"))):
        return walker.rewrite_region(region)  # not the walker this was written for
    listener = walker._get_rewriter_listener()
    walker._populate_worklist(region)
    changed = walker._process_worklist(listener)
    result = changed
    while changed and any(may_act(op) or _dead(op) for op in region.walk()):
        walker._populate_worklist(region)
        changed = walker._process_worklist(listener)
    return result


__all__ = ["rewrite_to_fixpoint"]
