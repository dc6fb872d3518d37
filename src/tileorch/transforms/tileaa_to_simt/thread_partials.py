"""Reductions whose result is each thread's own partial, and their combination across threads: the SIMT
side of ``tileaa-hoist-online-softmax``'s per-thread form (``hoist_online_softmax.py``).

Two discardable attributes on an ``nv_tileaa.reduce`` change what the SIMT lowering computes:

* :data:`THREAD_PARTIAL` (on a reduction to one element): every thread folds only the elements of
  the source it holds (in element order; a slot past a ragged tile's end contributes the
  reduction's identity) and keeps that partial as the one-element result, held in every slot as
  a replicated value is (``Tile.replicated``: a broadcast or extract of it stays in the thread).
  No shuffle, shared memory or barrier.  The value differs between threads: only the rewrite that
  combines the partials afterwards (below) may ask for it.
* :data:`THREAD_COMBINE` (on the first reduction of a chain over a tile whose every slot of a thread
  holds the same per-thread value, a broadcast of such a partial): each thread keeps its first
  slot (when the tile's element is there) and gives the identity for the others, so the chain
  folds one value per thread; then the reduction is lowered as any other (across threads).

Both are set only by ``tileaa-hoist-online-softmax`` (the per-thread form), which makes the folds
over the same tile layout on both sides; they are not part of the dialect's semantics and no other
pass sets or reads them.
"""

from __future__ import annotations

from collections.abc import Callable

from xdsl.dialects import arith
from xdsl.ir import Operation, SSAValue

THREAD_PARTIAL = "tileorch.simt.thread_partial"
"""On an ``nv_tileaa.reduce`` to one element: the result is the thread's fold of its own elements."""
THREAD_COMBINE = "tileorch.simt.thread_combine"
"""On an ``nv_tileaa.reduce``: one value per thread (its first slot) enters the fold."""


def asks_partial(op: Operation) -> bool:
    return THREAD_PARTIAL in op.attributes


def asks_combine(op: Operation) -> bool:
    return THREAD_COMBINE in op.attributes


def own_slots(e, slots: list[SSAValue], flats: list[SSAValue] | None, numel: int, identity: SSAValue,
              keep_first: bool) -> list[SSAValue]:
    """``slots`` with those past the tile's end (``flats``: each slot's flat element index, None when
    the tile is not ragged) replaced by ``identity``, and, with ``keep_first``, every slot but the
    first one too."""
    out = []
    for s, v in enumerate(slots):
        if keep_first and s > 0:
            out.append(identity)
        elif flats is None:
            out.append(v)
        else:
            out.append(e.v(arith.SelectOp(e.in_range(flats[s], numel), v, identity)))
    return out


def fold_in_order(slots_per_operand: list[list[SSAValue]],
                  combine: Callable[[list[SSAValue], list[SSAValue]], list[SSAValue]]) -> list[SSAValue]:
    """The fold of each operand's slots in slot order (``combine(accs, nexts)``: the reduction's body),
    one partial per operand."""
    accs = [slots[0] for slots in slots_per_operand]
    for s in range(1, len(slots_per_operand[0])):
        accs = combine(accs, [slots[s] for slots in slots_per_operand])
    return accs
