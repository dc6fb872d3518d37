"""Where a prefetching loop's first loads are issued: as early in its block as they can be.

A prefetching ``scf.for`` (``prefetch.py``) loads its first iteration's tiles just before the loop.
When ops before the loop take time without writing memory -- an online softmax's peeled first
tile, reduced across the CTA (shuffles, barriers) before the loop starts -- those loads wait for
them: the row's first two tiles arrive one memory latency after the other (a cross entropy over
a 4096-wide row in 1024-element tiles: the peel's load, its two CTA reductions, then the loop's
first load).  With ``TILEORCH_EARLY_PREFETCH=1`` (default 0) the lowering issues the loop's first
loads right after the last op of the block they depend on or that writes memory, so they are in
flight while those ops run.

:func:`issue_points` (the contract): for each ``scf.for`` of the block ``ops`` that ``loads_of`` gives
prefetchable loads (and ``eligible`` accepts), the index ``i`` of the op after which its first loads
may be issued (``-1``: before the first op), when that is before the op just before the loop:

* every value the loads and their index slice read from outside the loop, and the loop's lower
  bound, is defined outside the block or by ``ops[:i + 1]`` -- except values of region-free scalar
  ``arith`` ops of the block (a peeled loop's ``lb + step``), which are recomputed at the early
  point (returned with the loop, in block order) when their operands are available there;
* no op after ``ops[i]`` and before the loop (nested regions included) writes memory or accesses it
  with an order other than weak (``prefetch.WRITES``, ``prefetch.ordered_access``): the early loads
  read what the loop's first iteration would have read.
"""

from __future__ import annotations

from xdsl.dialects import scf
from xdsl.dialects.builtin import TensorType
from xdsl.ir import Operation, SSAValue

from tileorch import settings
from tileorch.transforms.tileaa_to_simt.prefetch import WRITES, ordered_access


def enabled() -> bool:
    """``TILEORCH_EARLY_PREFETCH=1`` issues prefetching loops' first loads early."""
    return settings.value("TILEORCH_EARLY_PREFETCH") == "1"


def _inside(loop: Operation) -> set[SSAValue]:
    out: set[SSAValue] = set()
    for o in loop.walk():
        out.update(o.results)
        for r in o.regions:
            for b in r.blocks:
                out.update(b.args)
    return out


def _writes(op: Operation) -> bool:
    return any(o.name in WRITES or ordered_access(o) for o in op.walk())


def _scalar_arith(op: Operation) -> bool:
    return (op.name.startswith("arith.") and not op.regions and len(op.results) == 1
            and not isinstance(op.results[0].type, TensorType))


def issue_points(ops: list[Operation], loads_of, eligible) -> dict[int, list[tuple[scf.ForOp, list[Operation]]]]:
    """Index of the op after which (``-1``: before all) -> the loops whose first loads go there, each
    with the scalar ``arith`` ops to recompute first (see the module docstring); ``loads_of(loop)``:
    ``(slice ops, loads)`` as ``prefetch.prefetchable_loads`` gives them."""
    index = {id(o): i for i, o in enumerate(ops)}
    out: dict[int, list] = {}
    for j, loop in enumerate(ops):
        if not isinstance(loop, scf.ForOp) or not eligible(loop):
            continue
        slice_ops, loads = loads_of(loop)
        if not loads:
            continue
        inside = _inside(loop)
        needed = [v for o in (*slice_ops, *loads) for v in o.operands if v not in inside] + [loop.lb]
        last, moved, seen = -1, [], set()
        while needed:
            v = needed.pop()
            owner = v.owner
            if not isinstance(owner, Operation) or id(owner) not in index or index[id(owner)] >= j:
                continue  # a block argument or a value from outside the block
            if _scalar_arith(owner) and owner.results[0] is v:
                if id(owner) not in seen:
                    seen.add(id(owner))
                    moved.append(owner)
                    needed.extend(owner.operands)
                continue
            last = max(last, index[id(owner)])
        for i in range(j - 1, last, -1):
            if _writes(ops[i]):
                last = i
                break
        if last < j - 1:
            moved.sort(key=lambda o: index[id(o)])
            out.setdefault(last, []).append((loop, moved))
    return out


__all__ = ["enabled", "issue_points"]
