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

Each walk's worklist is seeded with those ops only (in the walker's order), not every op of the
region: visiting any other op does nothing (no pattern acts on it, it is not dead), and the
walker's own worklist keeps pushing what a rewrite creates, modifies, or leaves without a user,
as it does in a full walk.  A walk of ``convert-pipeline-to-nvvm`` that lowers a handful of ops
of a 3000-op GEMM kernel visited all 3000 through the worklist, the rewriter's per-op setup and
the dead-code test (4/5 of the pass).  The one thing the sparse walk can do differently: an op
that becomes dead during a walk in a way the worklist does not see (a user that keeps other
uses of it) and sits after the current op is erased by a full walk when reached, by the sparse
one in its next walk (made because that op is dead); dead ops erased later than they would be,
never different ones.  ``skip_without_candidate`` makes no walk at all when no op ``may_act``
(dead ops are then left as they are: the caller's walk would only have run for its patterns).

:func:`reconcile_unrealized_casts` is xDSL's function of that name (its walker and pattern, the
same warnings) run this way: its confirming walk was a tenth of ``convert-pipeline-to-nvvm`` on a
GEMM with a large epilogue.
"""

from __future__ import annotations

from collections.abc import Callable
from collections.abc import Set as AbstractSet
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, UnrealizedConversionCastOp
from xdsl.ir import Block, Operation, Region
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import GreedyRewritePatternApplier, PatternRewriteWalker
from xdsl.transforms.reconcile_unrealized_casts import ReconcileUnrealizedCastsPattern

from tileorch.transforms.dead_ops import is_trivially_dead, never_dead


_LINKED = ({"_first_op", "_last_op", "_next_op", "_prev_op"} <= set(getattr(Operation, "__dataclass_fields__", ()))
           | set(getattr(Block, "__dataclass_fields__", ()))
           and {"_last_block", "_prev_block"} <= set(getattr(Region, "__dataclass_fields__", ()))
           | set(getattr(Block, "__dataclass_fields__", ())))
"""Whether this xDSL links a block's ops (``_last_op``, ``_prev_op``) and a region's blocks
(``_last_block``, ``_prev_block``) in the fields :func:`_seeds_linked` reads."""


def _seeds(walker: PatternRewriteWalker, region: Region, may_act: Callable[[Operation], bool] | AbstractSet[str],
           dce: bool) -> tuple[list[Operation], bool]:
    """The ops of ``region`` that ``may_act`` (a test, or the set of the names of such ops) or,
    with ``dce``, are trivially dead, in the order the walker's ``_populate_worklist`` pushes
    every op; and whether one of them ``may_act``.  (One call per op at most: the walk runs
    over every op of the region once per walk of the walker.)

    Over the xDSL whose links :func:`_seeds_linked` reads, the ops are tested as the walk
    reaches them (no list of every op first) and what an op's class decides is asked once per
    class (:func:`_seeds_linked`)."""
    reverse, region_first = not walker.walk_reverse, not walker.walk_regions_first
    if reverse and _LINKED:
        return _seeds_linked(region, region_first, may_act, dce)
    names = may_act if isinstance(may_act, AbstractSet) else None
    seeds = []
    candidate = False
    for op in region.walk(reverse=reverse, region_first=region_first):
        if op.name in names if names is not None else may_act(op):
            candidate = True
            seeds.append(op)
        elif dce:
            for result in op.results:  # a used result: not dead (is_trivially_dead's first test)
                if result.first_use is not None:
                    break
            else:
                if is_trivially_dead(op):
                    seeds.append(op)
    return seeds, candidate


_CANDIDATE, _SKIP, _DEAD_TEST, _ASK = 1, 2, 3, 4
"""What :func:`_seeds_linked` does with an op of a class: a seed that may act; nothing (it may not act
and is never dead, or no dead-code erasure runs); the dead test; ``may_act`` asked of the op."""


def _seeds_linked(region: Region, region_first: bool, may_act: Callable[[Operation], bool] | AbstractSet[str],
                  dce: bool) -> tuple[list[Operation], bool]:
    """:func:`_seeds` in the walker's reverse orders (post-order with ``region_first``, else
    pre-order; last op first), read off the blocks' and ops' links in one recursive call per
    region, each op tested as it is reached.  Per op class, once: whether its name is in the set
    ``may_act`` (an op class's ``name`` is fixed; an op whose class has none, an unregistered op,
    is asked by its own name), and whether its class alone says it is never trivially dead
    (:func:`tileorch.transforms.dead_ops.never_dead`).  A ``may_act`` test is asked of every op, as before."""
    names = may_act if isinstance(may_act, AbstractSet) else None
    seeds: list[Operation] = []
    append = seeds.append
    kinds: dict[type, int] = {}
    found = [False]

    def kind(op: Operation) -> int:
        cls = type(op)
        name = getattr(cls, "name", None)  # (an unregistered op's is a property: not a str)
        if names is None or not isinstance(name, str):
            return _ASK  # (not cached: the test, or the name, is the op's)
        if name in names:
            k = _CANDIDATE
        elif not dce or never_dead(cls):
            k = _SKIP
        else:
            k = _DEAD_TEST
        kinds[cls] = k
        return k

    def ask(op: Operation) -> None:  # an op whose class does not decide: the test, then the dead test
        if op.name in names if names is not None else may_act(op):
            found[0] = True
            append(op)
            return
        if not dce or never_dead(type(op)):
            return
        for result in op.results:  # a used result: not dead (is_trivially_dead's first test)
            if result.first_use is not None:
                return
        if is_trivially_dead(op):
            append(op)

    get = kinds.get

    def blocks(r: Region) -> None:
        block = r._last_block
        while block is not None:
            op = block._last_op
            while op is not None:
                k = get(type(op)) or kind(op)
                nested = op.regions
                if nested and region_first:  # post-order: the op's regions first
                    for inner in reversed(nested):
                        blocks(inner)
                if k == _DEAD_TEST:  # (in line: most ops of a lowered module)
                    for result in op.results:  # a used result: not dead (is_trivially_dead's first test)
                        if result.first_use is not None:
                            break
                    else:
                        if is_trivially_dead(op):
                            append(op)
                elif k == _CANDIDATE:
                    found[0] = True
                    append(op)
                elif k == _ASK:
                    ask(op)
                if nested and not region_first:  # pre-order: the op, then its regions
                    for inner in reversed(nested):
                        blocks(inner)
                op = op._prev_op
            block = block._prev_block

    blocks(region)
    return seeds, found[0]


def rewrite_to_fixpoint(walker: PatternRewriteWalker, region: Region,
                        may_act: Callable[[Operation], bool] | AbstractSet[str], *,
                        skip_without_candidate: bool = False) -> bool:
    """``walker.rewrite_region(region)`` (an ``apply_recursively`` walker with no
    ``post_walk_func``, whose pattern is a ``GreedyRewritePatternApplier`` without folding or a
    plain pattern), each walk seeded with the ops a pattern ``may_act`` on or that are dead, and
    skipping the walks that would change nothing; ``may_act(op)`` must be True for every op the
    walker's patterns can change and depend only on the op's name or class (what no rewrite
    changes); a set of op names stands for "the op's name is in it".  With ``skip_without_candidate`` nothing is done when no op ``may_act``.  Returns
    whether the region changed."""
    pattern = walker.pattern
    greedy = isinstance(pattern, GreedyRewritePatternApplier)
    worklist = getattr(walker, "_worklist", None)
    if not (walker.apply_recursively and walker.post_walk_func is None and not (greedy and pattern.folding_enabled)
            and all(hasattr(walker, a) for a in ("_process_worklist", "_get_rewriter_listener"))
            and hasattr(worklist, "push") and not worklist):
        return walker.rewrite_region(region)  # not the walker this was written for
    dce = greedy and pattern.dce_enabled  # a plain pattern erases no dead op
    seeds, candidate = _seeds(walker, region, may_act, dce)
    if skip_without_candidate and not candidate:
        return False
    listener = walker._get_rewriter_listener()
    result = False
    while seeds:
        for op in seeds:
            worklist.push(op)
        changed = walker._process_worklist(listener)
        if not changed:
            break
        result = True
        seeds, _ = _seeds(walker, region, may_act, dce)
    return result


def reconcile_unrealized_casts(module: ModuleOp, *, warn_on_failure: bool = True) -> None:
    """``xdsl.transforms.reconcile_unrealized_casts.reconcile_unrealized_casts(module)`` (what
    xDSL's ``reconcile-unrealized-casts`` pass runs) without its confirming walk: its pattern
    acts on casts only."""
    walker = PatternRewriteWalker(ReconcileUnrealizedCastsPattern(warn_on_failure=warn_on_failure))
    rewrite_to_fixpoint(walker, module.body, {UnrealizedConversionCastOp.name})


@dataclass(frozen=True)
class ReconcileUnrealizedCasts(ModulePass):
    """xDSL's ``reconcile-unrealized-casts`` pass (same name, same result and warnings) run by
    :func:`reconcile_unrealized_casts`: its walks visit the casts, not every op of the module
    (the pipeline's last pass; tileorch's pass table wins over xDSL's on the name)."""

    name = "reconcile-unrealized-casts"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        reconcile_unrealized_casts(op)


__all__ = ["ReconcileUnrealizedCasts", "reconcile_unrealized_casts", "rewrite_to_fixpoint"]
