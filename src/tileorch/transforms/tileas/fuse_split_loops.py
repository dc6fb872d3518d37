"""``tileas-fuse-split-loops``: two loops that one source loop was split into become one loop
with a branch again.

cuTile splits a loop whose body branches on ``j >= X`` (a loop-invariant X) into two loops over
consecutive ranges — the FlashAttention samples' ``if (CAUSAL or not EVEN_K) and j >= mask_start:
mask`` becomes a loop without the mask followed by a loop with it::

    %r1 = scf.for %j = %a to minsi(%n, %X) iter_args(%init)   { B1 }
    %r2 = scf.for %j = maxsi(%a, %X) to %n iter_args(%r1)     { B2 = B1 plus pure ops }

The tier's schedule (one TMA producer, one consumer loop) wants one loop.  When ``B2`` is ``B1``
with extra side-effect-free ops whose results take the place of some ``B1`` values ``v`` (the
masked scores instead of the raw ones), the pair becomes::

    %r2 = scf.for %j = %a to %n iter_args(%init) {
      B1, where each replaced v is  scf.if (%j >= maxsi(%a, %X)) { extra ops; yield w } else { yield v }
    }

over the same iterations in the same order (``[a, min(n, X))`` then ``[max(a, X), n)`` is
``[a, n)`` split at ``max(a, X)``, empty pieces included).  The same pair written by hand,
``range(a, X)`` then ``range(X, n)`` (FlashAttention-2's causal loops: the key tiles below the
diagonal, then the masked diagonal ones), is fused over ``[min(a, X), max(X, n))`` with the branch
at X; the side-effect-free ops between the two loops (the second loop's views, ranges and bounds)
move before the first, and repeated ones are merged, so that the bodies can match.  Two dot loops
over the same range, one after the other, whose bodies only accumulate dots become one loop running
both bodies (:mod:`tileorch.transforms.tileas.same_range_loops`).  Two dot loops
left after this are a located error (the tier's kernels run one dot loop; the driver then takes the
SIMT path with the error as a warning).

When ``B2`` is not ``B1`` plus pure ops but both have the same side effects (loads, dots, stores:
the same ops in the same order reading the same arguments, results and outside values) and differ
in the pure ops between them — the Triton tutorial's two causal stages, one applying the scale
after the max and the other adding a mask before it — :func:`fuse_pure_differences` fuses them
too: the side effects once, each stretch of pure ops before one of them in an ``scf.if`` on the
same ``j >= split`` whose branches are ``B2``'s and ``B1``'s own ops.  A last step written out after
a dot loop (attention's ragged last key tile, masked there) is taken as a second loop of one
iteration (:func:`wrap_peeled_step`) when the pair then fuses.  Pairs of any other shape are left
alone.  Only loops holding a dot are fused (the tier's consumer loops); ``B1``'s ops must all
reappear in ``B2`` in order (a body with ops only the first loop has is left alone).  A value
only one body's later ops read (the rescale factor of an online softmax, which a first step does
not have) takes a slot whose other branch yields a zero placeholder that body never reads.

A first step written out before a dot loop (an attention-sink key tile) becomes the loop's first
iteration: :mod:`tileorch.transforms.tileas.peeled_first_step` (run first).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation

from tileorch.diagnostics import copy_location
from tileorch.transforms.pass_kinds import ModuleTransform
from tileorch.transforms.tileas.column_loop_to_tiles import column_loop_refusal
from tileorch.transforms.tileas.loop_pair_fusion import (fuse, fuse_pure_differences, hoist_between, match_bodies,
                                                         split_point, wrap_peeled_step)
from tileorch.transforms.tileas.peeled_first_step import fuse_peeled_first_steps
from tileorch.transforms.tileas.same_range_loops import fuse_same_range, reads_first, reads_first_why, why_not_fused

def fuse_split_loops(module: Operation) -> int:
    """Fuse every such pair of dot loops, and every dot loop with a first step written out before
    it (:mod:`~tileorch.transforms.tileas.peeled_first_step`); returns how many."""
    count = fuse_peeled_first_steps(module)
    changed = True
    while changed:
        changed = False
        for l1 in list(module.walk()):
            if not isinstance(l1, scf.ForOp) or not any(o.name.endswith(".dot") for o in l1.walk()):
                continue
            peeled = None
            if not isinstance(l1.next_op, scf.ForOp) and hoist_between(l1) is None:
                peeled = wrap_peeled_step(l1)  # a last step written out after the loop
                if peeled is None:
                    continue
            l2 = peeled.loop if peeled is not None else l1.next_op
            split = split_point(l1, l2)
            if split is None:
                if peeled is not None:
                    peeled.abort()
                elif fuse_same_range(l1, l2):  # two K loops over the same tiles, one after the other
                    count += 1
                    changed = True
                    break
                continue
            m = match_bodies(l1.body.block, l2.body.block)
            lb2, a, n = split
            bounds_ops: list[Operation] = []
            if a is not None:  # range(a, X) then range(X, n): the fused loop runs [min(a, X), max(X, n))
                bounds_ops = [arith.MinSIOp(a, lb2), arith.MaxSIOp(lb2, n)]
            bounds = tuple(o.results[0] for o in bounds_ops) if bounds_ops else (None, None)
            new = fuse(l1, l2, lb2, m, bounds) if m is not None else fuse_pure_differences(l1, l2, lb2, bounds)
            if new is None:
                for o in bounds_ops:  # (built, not inserted: they read the bounds)
                    o.drop_all_references()
                if peeled is not None:
                    peeled.abort()
                continue
            if peeled is not None:
                peeled.commit()
            copy_location(l1, [*bounds_ops, new])
            block = l1.parent_block()
            for o in bounds_ops:
                block.insert_op_before(o, l1)
            block.insert_op_before(new, l1)
            for old, r in zip(l2.results, new.results):
                old.replace_all_uses_with(r)
            l2.detach()
            l2.erase()
            l1.detach()
            l1.erase()
            count += 1
            changed = True
            break
    return count


def innermost_dot_loops(module: Operation) -> list[scf.ForOp]:
    """The ``scf.for`` loops holding a dot and no inner loop that holds one, in program order."""
    loops = [o for o in module.walk() if isinstance(o, scf.ForOp) and any(x.name.endswith(".dot") for x in o.walk())]
    return [lp for lp in loops if not any(o is not lp and o in loops for o in lp.walk())]


def check_one_dot_loop(module: Operation) -> None:
    """A located error at the second of two dot loops of a function left after fusion: the tier's
    kernels run the dots of one loop (its schedule: one TMA producer loop, one consumer loop)."""
    for func in (module.ops if isinstance(module, ModuleOp) else [module]):
        _check_function(func)


def _check_function(func: Operation) -> None:
    from tileorch.diagnostics import LocatedError

    loops = innermost_dot_loops(func)
    if len(loops) > 1 and _in_other_branches(loops[0], loops[1]):
        raise LocatedError(loops[1], f"{len(loops)} loops with dots in the branches of an if (e.g. one K loop per "
                                     "weight chosen by the program id): the tensor-core kernels run the dots of one "
                                     "loop that every program runs; launch one kernel per branch, or stack the "
                                     "weights into one array ([3, K, N]) read at the program id's index in one loop")
    if len(loops) > 1:
        l1, l2 = loops[0], loops[1]
        why = None
        if l1.parent_block() is l2.parent_block():
            why = why_not_fused(l1, l2) if l1.next_op is l2 else reads_first_why(l1, l2)
            stores = any(o.name == "nv_tileaa.tiled_store" for o in l2.walk())  # (an output tile per iteration)
            column = (column_loop_refusal(l2, func) if stores and reads_first(l1, l2) and l2.parent_op() is func
                      else None)
            if why is not None and column is not None:
                why = ("the second loop reads the first loop's result (e.g. acc2 += f(acc1) @ w2), so its steps need "
                       "the first loop complete; a loop over the output's column tiles whose iterations are "
                       "independent (each one dot of f(acc1) with the second operand's tile j from zeros, and its "
                       "store at column tile j) runs as the grid's axis 1 (tileas-column-loop-to-tiles), but this one "
                       f"is not: {column}")
        if why is not None:
            raise LocatedError(l2, f"{len(loops)} loops with dots one after another: the tensor-core kernels run the "
                                   f"dots of one loop, and these two are not fused into one: {why}")
        raise LocatedError(l2, f"{len(loops)} loops with dots one after another: the tensor-core kernels run "
                               "the dots of one loop (two loops over consecutive ranges, range(a, X) then "
                               "range(X, n) with bodies that differ only by side-effect-free ops such as a "
                               "mask, are fused into one, and two over the same range whose dots accumulate "
                               "apart; these are not: write one loop, the mask under ct.where on the tile index)")


def _in_other_branches(a: Operation, b: Operation) -> bool:
    """Whether ``a`` and ``b`` sit in different regions of one ``scf.if`` (``if / else`` branches)."""
    chain = []
    op = a.parent_op()
    while op is not None:
        chain.append(op)
        op = op.parent_op()
    op = b
    while op is not None:
        parent = op.parent_op()
        if isinstance(parent, scf.IfOp) and parent in chain:
            region_b = op.parent_region()
            inner = a
            while inner.parent_op() is not parent:
                inner = inner.parent_op()
            return inner.parent_region() is not region_b
        op = parent
    return False


def _fuse_and_check(module: Operation) -> int:
    count = fuse_split_loops(module)
    check_one_dot_loop(module)
    return count


@dataclass(frozen=True)
class FuseSplitLoops(ModuleTransform):
    """Two dot loops over the halves of one range (cuTile's split of a ``j >= X`` branch) become
    one loop with the branch (see the module doc)."""

    name = "tileas-fuse-split-loops"
    transform = staticmethod(_fuse_and_check)
