"""Which global tile loads of an ``scf.for`` the SIMT lowering issues one iteration ahead.

A loop that loads a tile and then reduces it (a row sum walking the columns, a column sum
walking the rows) waits for every load before its reduction, and the reduction (shuffles, a
barrier) before the next loads: few bytes in flight.  Prefetching loads the first iteration's
tiles before the loop and, at the top of each iteration, the next iteration's tiles (the
induction variable plus the step), carrying them in registers: the loads of iteration ``i + 1``
are in flight while iteration ``i`` reduces.

:func:`prefetchable_loads` says which loads may move (empty: the loop is lowered as written):

* the loop body (nested regions included) writes no memory (no ``tiled_store``, ``store``,
  ``atomic_rmw``, ``atomic_cas``): a load issued one iteration early then reads what it would
  have read -- or, with ``TILEORCH_PREFETCH_PAST_STORES=1`` (:func:`past_stores`, default off), its
  only writes are weak ``tiled_store`` / ``store`` ops and no access of the body has a memory order
  other than weak: the loads that move take a token, defined outside the loop (below), so no store
  of the loop is ordered before them (cuTile ties a load to a store that may touch the same memory
  by threading the store's result token into it, through the loop's carried token when they are in
  one loop; accesses not so tied are unordered, as ``store_chunks.py`` also reads them), and
  issuing them before the previous iteration's stores is a permitted order (a log-softmax's second
  pass, ``y = x - lse`` tile by tile: its next tile of ``x`` in flight while this tile is stored);
* the load is a weak ``tiled_load`` at the top level of the body whose view and token are
  defined outside the loop and whose indices are computed from values defined outside the
  loop and the induction variable by scalar ``arith`` ops of the body (the *slice*, returned
  too: it is lowered once more for the next iteration's indices);
* the prefetched tiles hold at most ``MAX_PREFETCH_SLOTS`` registers per thread (beyond that
  the loop would spill).

The load one iteration past the end is a load of a tile index the loop never uses: global
accesses are bounds-checked per element (outside the array nothing is read), so it is safe;
its values are discarded.

:func:`unrolled`: a prefetching loop is emitted two iterations per trip (the second under
``iv + step < ub``).  With one iteration per trip the next tile's registers are live together with
the current tile's, so the back edge copies the new tile into the carried registers; the copy
reads the loads just issued and waits for them there (ptxas: a ``MOV`` per word at the end of the
loop, each stalled on its ``LDG``), so only one tile is ever in flight.  Two iterations per trip
alternate two register sets: iteration ``i + 1``'s tile goes to registers of its own while ``i``'s
is used, and ``i + 2``'s to the registers ``i``'s held (dead by then): no copy, two tiles in flight
at each wait.
"""

from __future__ import annotations


from xdsl.dialects import scf
from xdsl.dialects.builtin import TensorType
from xdsl.ir import Operation, SSAValue
from tileorch import settings

MAX_PREFETCH_SLOTS = 64
WRITES = ("nv_tileaa.tiled_store", "nv_tileaa.store", "nv_tileaa.atomic_rmw", "nv_tileaa.atomic_cas", "nv_tileaa.print")
"""Ops with a visible effect (a print's output counts: no load moves above it, a loop with one is
not prefetched or split over a cluster, a warp's later programs run it under ``id < programs``)."""


def ordered_access(op: Operation) -> bool:
    """``op`` accesses memory with an order other than ``weak`` (``memory_order=ACQUIRE`` / ``RELEASE`` /
    ``RELAXED``...): it keeps its place among the kernel's accesses (no reordering, no loop split over a
    cluster, whose iterations would then run concurrently)."""
    sem = op.properties.get("mem_semantic")
    return sem is not None and getattr(getattr(sem, "value", None), "data", "weak") != "weak"
SCALAR_INT_OPS = ("nv_tileaa.addi", "nv_tileaa.subi", "nv_tileaa.muli")


PAST_STORES_ATTR = "tileorch.prefetched_past_stores"
"""On a SIMT kernel: how many of its loops holding stores prefetch their loads (:func:`past_stores`)."""
STORES = ("nv_tileaa.tiled_store", "nv_tileaa.store")
"""The writes :func:`past_stores` lets a prefetching loop hold (weak: :func:`ordered_access` refuses others)."""


def past_stores() -> bool:
    """Whether a loop whose writes are weak stores may prefetch its untied loads
    (``TILEORCH_PREFETCH_PAST_STORES=1``; module docstring)."""
    return settings.value("TILEORCH_PREFETCH_PAST_STORES") == "1"


def _writes_block(loop: scf.ForOp) -> bool:
    """Whether ``loop``'s writes or ordered accesses keep its loads in place (module docstring): any write or
    access with a memory order other than weak, or with :func:`past_stores` an atomic, a print or such an
    access (weak stores then let it through)."""
    if not past_stores():  # an ordered access (an acquire load) keeps the next iteration's loads below it too
        return any(inner.name in WRITES or ordered_access(inner) for inner in loop.walk())
    return any((inner.name in WRITES and inner.name not in STORES) or ordered_access(inner) for inner in loop.walk())


def stores_in(loop: scf.ForOp) -> bool:
    """Whether ``loop``'s body (nested regions included) holds a ``tiled_store`` or ``store``."""
    return any(inner.name in STORES for inner in loop.walk())


MAX_DEPTH_WORDS = 64
"""The most 32-bit words per thread that a loop's prefetched iterations hold together (:func:`prefetch_depth`)."""


def prefetch_depth(words: int = 0) -> int:
    """Iterations whose loads a prefetching loop keeps in flight: ``TILEORCH_PREFETCH_DEPTH`` (default 1, the
    next iteration's), at most :data:`MAX_DEPTH_WORDS` words of ``words`` each (one iteration's prefetched
    tiles, packed).  With ``D > 1`` the loop runs ``D + 1`` iterations per trip, each loading the tiles of the
    iteration ``D`` ahead into the registers of the one it consumes, so the back edge copies none (as
    :func:`unrolled` does for ``D = 1``).  A switch for measuring (issue 21): more bytes in flight per CTA,
    for kernels run with fewer CTAs per SM (``TILEORCH_SIMT_CTAS_PER_SM``)."""
    depth = settings.integer("TILEORCH_PREFETCH_DEPTH") or 1
    return max(1, min(depth, MAX_DEPTH_WORDS // words)) if words else depth


def unrolled() -> bool:
    """Whether prefetching loops run two iterations per trip (module docstring);
    ``TILEORCH_PREFETCH_UNROLL=0`` keeps one (for measuring the difference)."""
    return settings.value("TILEORCH_PREFETCH_UNROLL") != "0"


def _outside(loop: Operation, v: SSAValue) -> bool:
    owner = v.owner
    op = owner if isinstance(owner, Operation) else owner.parent_op()
    while op is not None:
        if op is loop:
            return False
        op = op.parent_op()
    return True


def prefetchable_loads(loop: scf.ForOp, slots_of) -> tuple[list[Operation], list[Operation]]:
    """``(slice ops, loads)`` of ``loop`` to prefetch (see the module docstring); ``slots_of(type,
    op)`` gives the register slots of a tile type."""
    body = loop.body.blocks[0]
    if _writes_block(loop):
        return [], []
    stores = stores_in(loop)  # (only where past_stores() let the loop through)
    iv = body.args[0]
    computable: set[SSAValue] = {iv}
    slice_ops: list[Operation] = []
    loads: list[Operation] = []
    budget = MAX_PREFETCH_SLOTS

    def ok(v: SSAValue) -> bool:
        return v in computable or _outside(loop, v)

    for inner in body.ops:
        if inner.name == "nv_tileaa.tiled_load":
            sem = inner.mem_semantic
            if sem is not None and sem.value.data != "weak":
                continue
            if not (_outside(loop, inner.view) and all(_outside(loop, t) for t in inner.operands
                                                           if t is not inner.view and t not in inner.indices)):
                continue
            if not all(ok(i) for i in inner.indices):
                continue
            if stores and inner.token is None:  # beside stores, only a load cuTile ordered by a token
                continue
            slots = slots_of(inner.results[0].type, inner)
            if slots > budget:
                continue
            budget -= slots
            loads.append(inner)
            continue
        scalar = (not inner.regions and inner.results
                  and all(not isinstance(r.type, TensorType) for r in inner.results)
                  and (inner.name.startswith("arith.") or inner.name in SCALAR_INT_OPS))
        if scalar and all(ok(o) for o in inner.operands):
            slice_ops.append(inner)
            computable.update(inner.results)
    if not loads:
        return [], []
    return slice_ops, loads


__all__ = ["MAX_DEPTH_WORDS", "MAX_PREFETCH_SLOTS", "PAST_STORES_ATTR", "STORES", "past_stores", "prefetch_depth",
           "prefetchable_loads", "stores_in", "unrolled"]
