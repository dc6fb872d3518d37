"""The bytes a producer's bulk copies deliver to a pipeline stage, read from the IR.

A data-movement atom (``atom.bulk_copy_g2s``, :mod:`tileorch.dialects.atoms`) whose mbarrier
operand is ``cutlass.pipeline.get_producer_barrier`` / ``get_full_barrier %pipe, %state``
completes its ``bytes`` on the full barrier of that stage (``complete_tx``), in this CTA or,
with a ``multicast`` mask, in every CTA the mask names.  The checker takes these bytes as the
stage's transaction-byte source, so a copy that delivers fewer or more bytes than the commit's
``expect_tx`` leaves the barrier's transaction count non-zero.

Everything here must be known statically, else a :class:`LocatedError` says what the checker
cannot model: the copy size, the multicast mask (a constant or ``get_producer_mask``), and how
many of the agent's threads issue the copy per stage (each enclosing ``scf.if`` evaluated per
thread, each enclosing ``scf.for`` with a constant trip count).
"""

from __future__ import annotations

from collections.abc import Iterable

from xdsl.ir import Block, Operation, SSAValue

from tileorch.analysis.evaluate import Evaluator
from tileorch.diagnostics import LocatedError

TENSOR_LOAD = "nvvm.cp.async.bulk.tensor.shared.cluster.global"
BULK_LOAD = "nvvm.cp.async.bulk.shared.cluster.global"
COPIES = ("atom.bulk_copy_g2s", BULK_LOAD, TENSOR_LOAD)
TX_ATTR = "cutlass.tx_bytes"
"""Discardable ``i32`` attribute on a TMA tensor load: the bytes its box delivers (the box
shape lives in the host-built tensor map, so the IR cannot say it otherwise)."""
BARRIER_GETTERS = ("cutlass.pipeline.get_producer_barrier", "cutlass.pipeline.get_full_barrier")
PRODUCER_MASK = "cutlass.pipeline.get_producer_mask"
ROW_COL = "row_col_each"
"""Destination of a copy multicast with ``get_producer_mask``: every CTA of the cluster row and
column of the issuing CTA, each receiving the copy's full size."""
ROW, COL = "row_each", "col_each"
"""Likewise for a ``row`` / ``col`` mask: the CTAs sharing the issuer's x / its y."""
EACH = {ROW_COL: "row_col", ROW: "row", COL: "col"}
"""Multicast sentinel -> the direction it names (``pipeline.multicast_peers``)."""
ONCE = ("cutlass.pipeline.produce", "cutlass.pipeline.consume", "scf.execute_region")


def _mbar(copy: Operation) -> SSAValue:
    return copy.mbar if copy.name != COPIES[0] else copy.operands[2]


def _mask(copy: Operation) -> SSAValue | None:
    if copy.name == COPIES[0]:
        return copy.operands[4] if len(copy.operands) > 4 else None
    return copy.multicastMask


def stage_barrier(copy: Operation) -> Operation:
    """The ``get_producer_barrier`` / ``get_full_barrier`` op the copy completes on."""
    owner = _mbar(copy).owner
    if isinstance(owner, Operation) and owner.name in BARRIER_GETTERS:
        return owner
    raise LocatedError(copy, f"the checker cannot model this {copy.name}: its mbarrier is not "
                       "a pipeline stage barrier (cutlass.pipeline.get_producer_barrier or "
                       "get_full_barrier), so the stage it fills is unknown")


def size(copy: Operation, ev: Evaluator) -> int | None:
    """The copy's byte count, which must be a constant for the agent; None for a tensor load
    without :data:`TX_ATTR` (its box size is only known to the host's tensor map)."""
    if copy.name == TENSOR_LOAD:
        attr = copy.attributes.get(TX_ATTR)
        return None if attr is None else attr.value.data
    nbytes = ev.constant(copy.operands[3])
    if nbytes is None:
        raise LocatedError(copy, f"the checker cannot model {copy.name} of a non-constant "
                           "size: the bytes it delivers to the stage's full barrier must be "
                           "known to compare them with the commit's transaction bytes")
    return nbytes


def destination(copy: Operation, ev: Evaluator, ctas: int) -> str | tuple[int, ...] | None:
    """Where the bytes land: None (this CTA), :data:`ROW_COL`, or the CTA ranks of a constant
    multicast mask."""
    mask = _mask(copy)
    if mask is None or ctas == 1:
        return None
    if isinstance(mask.owner, Operation) and mask.owner.name == PRODUCER_MASK:
        return {v: k for k, v in EACH.items()}[mask_direction(mask.owner)]
    bits = ev.constant(mask)
    if bits is None or bits <= 0 or bits >> ctas:
        raise LocatedError(copy, "the checker cannot model this multicast mask: it must be "
                           f"cutlass.pipeline.get_producer_mask or a constant naming CTAs "
                           f"0..{ctas - 1} of the cluster")
    return tuple(r for r in range(ctas) if bits >> r & 1)


def mask_direction(mask_op: Operation) -> str:
    """``row`` / ``col`` / ``row_col``: the op's direction, else its pipeline's multicast set."""
    from tileorch.dialects.cutlass.pipeline import pipeline_init_of

    direction = mask_op.properties.get("direction")
    if direction is not None:
        return direction.data.value
    init = pipeline_init_of(mask_op.operands[0])
    return init.multicast_direction().value if init is not None else "row_col"


def issuers(copy: Operation, threads: Iterable[int], scope: Block,
            leaders: frozenset[int] = frozenset()) -> int:
    """How many times the agent's threads issue ``copy`` per execution of ``scope`` (the block
    that defines the stage's state): summed over threads, the product of the enclosing loops'
    trip counts if every enclosing ``scf.if`` takes the copy's branch for that thread.  A copy
    in a ``cutlass.pipeline.produce`` body outside any ``scf.if`` of it is issued by the
    producer group's leader only (``leaders``: the first thread of each producer group), as
    ``convert-pipeline-to-nvvm`` lowers it."""
    total = 0
    for t in threads:
        ev = Evaluator((t, t))
        count = 1
        op = copy
        guarded = False
        while count and op.parent_block() is not scope:
            child_region = op.parent_region()
            op = op.parent_op()
            if op is None:
                break
            count *= _executions(copy, op, child_region, ev)
            guarded = guarded or op.name == "scf.if"
            if op.name == "cutlass.pipeline.produce" and not guarded:
                count *= int(t in leaders)
        total += count
    return total


def _executions(copy: Operation, op: Operation, region, ev: Evaluator) -> int:
    """How often one thread runs ``region`` of ``op`` per execution of ``op``."""
    if op.name == "scf.if":
        taken = ev.truth(op.operands[0])
        if taken is None:
            raise LocatedError(copy, "the checker cannot tell which threads issue this copy: "
                               "the condition of its enclosing scf.if is not known per thread")
        return int(taken == (region is op.regions[0]))
    if op.name == "scf.for":
        lo, hi, step = (ev.constant(v) for v in op.operands[:3])
        if lo is None or hi is None or not step or step < 0:
            raise LocatedError(copy, "the checker cannot count the copies this scf.for issues "
                               "per stage: its trip count is not a constant")
        return max(0, -(-(hi - lo) // step))
    if op.name in ONCE:
        return 1
    raise LocatedError(copy, f"the checker cannot count the copies issued per stage inside "
                       f"{op.name} (scf.if and scf.for are modelled)")


def scope_of(state: SSAValue) -> Block | None:
    """The block that defines a pipeline state value."""
    if isinstance(state.owner, Block):
        return state.owner
    return state.owner.parent_block()


def _elem_bytes(t) -> int | None:
    shape = getattr(t, "get_shape", None)
    if shape is not None and hasattr(t, "element_type"):  # a vector: its elements' bytes times their count
        inner, dims = _elem_bytes(t.element_type), shape()
        if inner is None or any(not isinstance(d, int) or d < 0 for d in dims):
            return None
        count = 1
        for d in dims:
            count *= d
        return inner * count
    width = getattr(t, "bitwidth", None)
    if width is None:
        width = getattr(getattr(t, "width", None), "data", None)
    return width // 8 if isinstance(width, int) and width % 8 == 0 else None


def stage_offset(copy: Operation, ev: Evaluator) -> tuple[SSAValue, int] | None:
    """:func:`pointer_offset` of the copy's shared-memory destination."""
    return pointer_offset(copy.operands[0], ev)


def pointer_offset(value: SSAValue, ev: Evaluator) -> tuple[SSAValue, int] | None:
    """(base pointer, byte offset) of a shared-memory pointer (a copy's destination, a pipeline's ``storage``): the
    pointer itself (offset 0), or
    ``llvm.getelementptr %p[%i]`` chains down to a pointer that is not one, each ``%i`` known to ``ev`` (a dynamic
    index or a constant one), through ``llvm.addrspacecast`` (a hand-written nvvm copy's shared::cluster
    destination); None otherwise."""
    offset = 0
    for _ in range(16):
        gep = value.owner
        if isinstance(gep, Operation) and gep.name == "llvm.addrspacecast":
            value = gep.operands[0]  # shared::cta -> shared::cluster: the same bytes of the issuing CTA
            continue
        if not isinstance(gep, Operation) or gep.name != "llvm.getelementptr":
            return value, offset
        raw = gep.properties.get("rawConstantIndices")
        values = raw.get_values() if raw is not None else ()
        size = _elem_bytes(gep.properties.get("elem_type"))
        if len(values) != 1 or size is None:
            return None
        if len(gep.operands) == 2:
            index = ev.constant(gep.operands[1])
        elif len(gep.operands) == 1 and values[0] != -2147483648:
            index = values[0]
        else:
            return None
        if index is None:
            return None
        value, offset = gep.operands[0], offset + index * size
    return None


def barrier_overlap(copy: Operation, nbytes: int, barriers: tuple[SSAValue, int, int], facts: dict,
                    others: tuple = ()) -> None:
    """Raise where ``copy`` (``nbytes`` bytes), its destination evaluated under ``facts`` (a CTA's cluster
    coordinates and ``stage_index``), lands on the pipeline's mbarriers: ``barriers`` = (its ``storage`` pointer,
    the bytes of its 2 x stages mbarrier words there, its stages); or on another pipeline's, ``others`` = (base
    pointer, first byte, end byte, its ``cutlass.pipeline.create``) as :func:`barrier_blocks` gives them (each
    compared where both pointers resolve to one base, :func:`pointer_offset`)."""
    from tileorch.diagnostics import location_str

    storage, size, _ = barriers
    at = stage_offset(copy, Evaluator(None, facts))
    if at is None:
        return
    own = None if storage is None else pointer_offset(storage, Evaluator()) or (storage, 0)
    if own is not None and at[0] is own[0] and at[1] < own[1] + size and at[1] + nbytes > own[1]:
        lo = at[1] - own[1]
        raise LocatedError(copy, f"stage-slots: this copy of stage {facts['stage_index']} writes bytes [{lo}, "
                           f"{lo + nbytes}) of the pipeline's storage pointer, where its "
                           f"{size // 16} x 2 mbarriers live (bytes 0..{size - 1}, "
                           f"cutlass.pipeline.create storage(...)): the data lands on the barriers it "
                           "completes on; put the stages past them (or give the pipeline its own "
                           "storage)")
    for base, first, end, create in others:
        if at[0] is base and at[1] < end and at[1] + nbytes > first:
            raise LocatedError(copy, f"stage-slots: this copy of stage {facts['stage_index']} writes bytes "
                               f"[{at[1]}, {at[1] + nbytes}) past its base pointer, where the {(end - first) // 16} x 2 "
                               f"mbarriers of the pipeline created at {location_str(create)} live (bytes {first}.."
                               f"{end - 1}): the data lands on another pipeline's barriers, which that pipeline's "
                               "waits then read; put the stages past every pipeline's barriers")


def barrier_blocks(creates) -> list[tuple[SSAValue, int, int, Operation]]:
    """(base pointer, first byte, end byte, the create) of the mbarrier words of each ``cutlass.pipeline.create
    storage(%p)`` in ``creates`` whose pointer resolves to a base and a constant offset (:func:`pointer_offset`): 2 x
    stages words of 8 bytes (an mbarrier pipeline without an elided side; others are left out)."""
    blocks = []
    for create in creates:
        storage = getattr(create, "storage", None)
        typ = create.results[0].type if create.results else None
        stages = getattr(typ, "stages", None)
        if (storage is None or not isinstance(stages, int)
                or getattr(getattr(typ, "barrier", None), "value", "mbarrier") != "mbarrier"
                or getattr(getattr(typ, "elide", None), "value", "none") != "none"):
            continue
        at = pointer_offset(storage, Evaluator())
        if at is not None:
            blocks.append((at[0], at[1], at[1] + 16 * stages, create))
    return blocks


def check_barrier_blocks(blocks) -> None:
    """Two pipelines whose mbarrier words share a byte initialise and wait on the same barriers: a located error at
    the later ``cutlass.pipeline.create`` (in the order of ``blocks``)."""
    from tileorch.diagnostics import location_str

    for i, (base, first, end, create) in enumerate(blocks):
        for base2, first2, end2, create2 in blocks[:i]:
            if base is base2 and first < end2 and first2 < end:
                raise LocatedError(create, f"stage-slots: this pipeline's {(end - first) // 16} x 2 mbarriers (bytes "
                                   f"[{first}, {end}) past their base pointer) overlap those of the pipeline created "
                                   f"at {location_str(create2)} (bytes [{first2}, {end2})): both inits set the same "
                                   "barrier words and each pipeline's arrivals land on the other's phases; give each "
                                   "pipeline its own 16 x stages bytes")


def stage_slots(copies: list, cluster: tuple[int, int, int], ctas: int, work: dict,
                peers, barriers: tuple[SSAValue, int, int] | None = None, issued=None,
                unmodelled: Iterable[int] = ()) -> None:
    """The bytes of one stage that the copies issued for it write must not overlap in any CTA:
    for each issuing CTA (its cluster rank and x / y known) and the stage at index 0, each copy
    lands ``[offset, offset + bytes)`` of the stage in each CTA of its destination set, and two
    such ranges in one CTA sharing a byte are two writes of the same shared memory -- and, as
    the transaction bytes still add up, part of the stage is never written while the consumer
    reads it (e.g. a B tile multicast along the cluster row instead of its column).  Only
    destinations ``llvm.getelementptr %base[i]`` whose index is known per CTA are compared
    (before session 40 no destination was: the stage's byte count was the whole model).
    ``copies``: (copy op, bytes, destination as :func:`destination`, issues per stage);
    ``peers(cta, direction)``: the CTAs of a multicast set.  ``barriers``: (the pipeline's ``storage`` pointer, the
    bytes of its 2 x stages mbarrier words there, its stages): a copy of any stage into those bytes overwrites the
    barriers it completes on (examples/ws_pipeline.mlir copied stage 0 onto them before session 40).
    ``issued(copy, facts)``: whether the copy is issued in the CTA and stage of ``facts`` (None: every copy in
    every CTA, as the checker counts them per agent).  ``unmodelled``: the agent's threads, where a destination
    that does not resolve for one of them is a located "cannot model" (the checker's call: before session 41 it
    proved a ring whose copies landed at the k tile's offset, past the stages the consumers read); a destination
    that resolves per thread only is not compared (nor is any that does not resolve on the compile path's call,
    ``()``)."""
    from tileorch.diagnostics import location_str

    cx = max(cluster[0], 1)
    if barriers is not None:
        for copy, nbytes, _, count in copies:
            if not nbytes or not count:
                continue
            for cta in range(ctas):
                for index in range(barriers[2]):
                    facts = {**work, "cta_rank": cta, "cta_x": cta % cx, "cta_y": cta // cx, "stage_index": index}
                    if issued is None or issued(copy, facts):
                        barrier_overlap(copy, nbytes, barriers, facts)
    landed: dict[int, list] = {}
    for copy, nbytes, dst, count in copies:
        if not nbytes or not count:
            continue
        for cta in range(ctas):
            facts = {**work, "cta_rank": cta, "cta_x": cta % cx, "cta_y": cta // cx, "stage_index": 0}
            if issued is not None and not issued(copy, facts):
                continue
            at = stage_offset(copy, Evaluator(None, facts))
            if at is None and unmodelled and not all(
                    stage_offset(copy, Evaluator((t, t), facts)) is not None for t in unmodelled):
                raise LocatedError(copy, "the checker cannot model where this copy lands: its shared-memory "
                                   "destination must be a pointer plus constants, the stage index "
                                   "(cutlass.pipeline.state.get_index) and the CTA's cluster coordinates, so that "
                                   "the stage the consumers read is the one it fills (a destination from a loop "
                                   "variable, a kernel argument or a thread index is not followed)")
            if at is None:
                return
            targets = ((cta,) if dst is None else tuple(peers(cta, EACH[dst])) if dst in EACH else dst)
            for d in targets:
                landed.setdefault(d, []).append((at[0], at[1], at[1] + nbytes, copy, cta))
    for d, ranges in sorted(landed.items()):
        if len({r[0] for r in ranges}) != 1:
            return
        ranges.sort(key=lambda r: (r[1], r[2]))
        for (_, lo1, hi1, op1, c1), (_, lo2, hi2, op2, c2) in zip(ranges, ranges[1:]):
            if lo2 < hi1:
                raise LocatedError(op2, f"stage-slots: in CTA {d} of the cluster, this copy from CTA {c2} writes "
                                   f"bytes [{lo2}, {hi2}) past the copies' base pointer (stage 0) and the copy at "
                                   f"{location_str(op1)} from CTA {c1} writes [{lo1}, {hi1}): two writes of the same "
                                   "shared memory in one stage, so "
                                   "part of the stage is never written although its transaction bytes add up "
                                   "(check each copy's offset and multicast direction)")
