"""Whether a weak tile store needs the CTA barrier the SIMT lowering puts after it (``TILEORCH_STORE_BARRIERS``).

The SIMT lowering spreads a tile over the CTA's threads: an element one thread stores may be read back by another
thread's later load, which sees it only after a CTA barrier (``bar.sync`` orders the CTA's global accesses).  Until
session 34 every weak ``tiled_store`` that a global read may follow (one in a loop, or any read after it) was
followed by ``bar.sync``: a cross entropy's gradient loop (``dlogits`` tiles stored, the next logits tile loaded)
paid one barrier per 1024-element tile, every thread of the CTA waiting for the slowest one's store to issue.

cuTile's memory model orders a load after a store only through memory tokens: the front end ties a load to each
store that may alias it (its token operand is, through joins and loop-carried values, that store's result token);
accesses whose tokens do not chain are unordered -- the load may see the memory before or after the store, each is
a legal execution (the same statement ``row_smem_cache.py``'s pairing and ``combined_atomics.py`` rely on).  So the
barrier after a store ``S`` is needed only where some read of the kernel (``tiled_load``, ``load``, ``atomic_rmw``,
``atomic_cas``) is ordered after ``S``: :func:`ordered_after` walks each read's token back through joins,
``scf.for`` / ``scf.if`` results and loop-carried block arguments (a loop's next iteration included) to the writes
it depends on.  Conservative where the walk cannot see: a read without a token, a token carried by ``scf.while``
or another region op, or produced by an op it does not know counts as ordered after every store.

Only weak tile stores are decided here (ordered views and pointer-tile stores keep their barriers).
``TILEORCH_STORE_BARRIERS=always`` keeps the barrier after every store a read may follow (the earlier lowering).
"""

from __future__ import annotations

from xdsl.dialects import scf
from xdsl.ir import BlockArgument, Operation, SSAValue

from tileorch import settings
from tileorch.dialects.block_sources import iteration_sources

ENV = "TILEORCH_STORE_BARRIERS"
ATTR = "tileorch.store_barriers_dropped"
"""On a SIMT kernel: how many weak tile stores a read may follow got no barrier after them (the driver's remark)."""
READS = ("nv_tileaa.tiled_load", "nv_tileaa.load", "nv_tileaa.atomic_rmw", "nv_tileaa.atomic_cas")
WRITES = ("nv_tileaa.tiled_store", "nv_tileaa.store", "nv_tileaa.atomic_rmw", "nv_tileaa.atomic_cas")
_PASS_THROUGH = ("nv_tileaa.join_mem_token", "nv_tileaa.tiled_load", "nv_tileaa.load", *WRITES)
"""Ops whose result token follows their token operands (a read's token, a write's, a join's)."""
UNKNOWN = "unknown"


def by_tokens() -> bool:
    """``tokens`` (the default): the barrier only after a store a read is ordered after; ``always``: the earlier
    lowering."""
    return (settings.value(ENV) or "tokens") == "tokens"


def _is_token(v: SSAValue) -> bool:
    return "mem_token" in str(v.type)


def writes_before(token: SSAValue | None) -> set[Operation] | str:
    """The write ops whose result tokens flow into ``token``, or :data:`UNKNOWN` where the walk cannot follow it
    (module docstring)."""
    if token is None:
        return UNKNOWN
    seen: set[SSAValue] = set()
    found: set[Operation] = set()
    todo = [token]
    while todo:
        t = todo.pop()
        if t in seen:
            continue
        seen.add(t)
        if isinstance(t, BlockArgument):
            sources = iteration_sources(t) if isinstance(t.block.parent_op(), scf.ForOp) else None
            if sources is None:  # (an scf.for's carried token: its initial and yielded values)
                return UNKNOWN
            todo += sources
            continue
        owner = t.owner
        if isinstance(owner, (scf.ForOp, scf.IfOp)):
            for region in owner.regions:
                for blk in region.blocks:
                    if blk.last_op is None or t.index >= len(blk.last_op.operands):
                        return UNKNOWN
                    todo.append(blk.last_op.operands[t.index])
            if isinstance(owner, scf.ForOp):
                todo.append(owner.iter_args[t.index])
            continue
        if owner.name == "nv_tileaa.create_mem_token":
            continue
        if owner.name not in _PASS_THROUGH:
            return UNKNOWN
        if owner.name in WRITES:
            found.add(owner)
        todo += [o for o in owner.operands if _is_token(o)]
    return found


def ordered_writes(fn: Operation) -> set[Operation] | str:
    """The writes of ``fn`` some read is ordered after by its memory token, or :data:`UNKNOWN` (a read whose
    token the walk cannot follow: every store counts as ordered)."""
    out: set[Operation] = set()
    for op in fn.walk():
        if op.name in READS:
            before = writes_before(getattr(op, "token", None))
            if before == UNKNOWN:
                return UNKNOWN
            out |= before
    return out


def ordered_after(fn: Operation, store: Operation, ordered: set[Operation] | str | None = None) -> bool:
    """Whether some read of ``fn`` is ordered after ``store`` by its memory token (or may be: the walk's unknowns);
    ``ordered``: :func:`ordered_writes` of ``fn``, when the caller keeps it."""
    ordered = ordered_writes(fn) if ordered is None else ordered
    return ordered == UNKNOWN or store in ordered


def remark(name: str, count: int) -> str:
    return (f"remark: @{name}: {count} tile store(s) a later load may follow without the CTA barrier after them: no "
            "read of the kernel is ordered after them by its token chain (cuTile leaves such accesses unordered; "
            f"tileaa_to_simt/store_barriers.py; {ENV}=always: the barrier)")


__all__ = ["ATTR", "ENV", "by_tokens", "ordered_after", "ordered_writes", "remark", "writes_before"]
