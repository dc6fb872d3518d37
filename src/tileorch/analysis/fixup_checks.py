"""Checks of hand-written Stream-K fix-ups (``fixup_wait`` / ``fixup_increment`` with
``cutlass.block_striped.*``) beyond the three-way split protocol of :mod:`extract`:

* an output tile that is **not split** runs the same work-tile body once (K tile 0, every K tile,
  final): it must not read or reduce into the workspace, which no split wrote (the model
  checker's fix-up-order property reports the read);
* every output tile needs its **own partial-tile region**: a workspace pointer defined outside the
  work-tile loop is the same for all tiles (rejected with a located error).
"""

from __future__ import annotations

from xdsl.dialects.builtin import IntegerAttr
from xdsl.ir import Operation

from tileorch.analysis.evaluate import Evaluator
from tileorch.analysis.protocol import Agent, Epilogue, Protocol
from tileorch.diagnostics import LocatedError
from tileorch.dialects.nvvm_common import address_space

SPLITS = 3  # K tiles of the unsplit tile (as many as the split protocol's splits)


def _work_tile_body(kernel):
    first, rg, threads = kernel.fixup_user[0]
    body = first.parent_block()
    holder = body.parent_op() if body is not None else None
    while holder is not None and holder is not rg.owner and holder.name not in ("scf.for", "scf.while"):
        body = holder.parent_block()
        holder = body.parent_op()
    return body, holder, rg, threads


def unsplit_protocol(kernel, name: str, fixup_block) -> Protocol:
    """The fix-up protocol of an output tile done by one unit of work (not split)."""
    body, holder, rg, threads = _work_tile_body(kernel)
    ev = Evaluator((min(threads), max(threads)), {"k_tile_start": 0, "k_tile_count": SPLITS, "final": 1})
    prog = fixup_block(body, ev) + [Epilogue("tile", origin=holder)]
    check_final_value(body, ev)
    agent = Agent("unsplit", "fixup", tuple(prog), threads=len(threads), partial=0, origin=rg.owner)
    return Protocol(f"{name}.fixup_unsplit", (), (agent,), deterministic=True,
                    partials=(("tile", (0,)),), origin=holder)


def cta_local_tile(op: Operation) -> bool:
    """A ``cutlass.block_striped`` op on a shared-memory tile (``!llvm.ptr<3>``, or a memref in address space 3):
    the CTA's own fragments, never a Stream-K workspace partial other splits read."""
    if not op.name.startswith("cutlass.block_striped."):
        return False
    ptr = getattr(op, "ptr", None)
    if ptr is None:
        return False
    if address_space(ptr) == 3:
        return True
    space = getattr(ptr.type, "memory_space", None)
    return isinstance(space, IntegerAttr) and space.value.data == 3


def check_per_tile_workspace(body, holder: Operation | None) -> None:
    """Reject a ``cutlass.block_striped`` workspace pointer defined outside the work-tile loop."""
    if holder is None or holder.name not in ("scf.for", "scf.while") or body is None:
        return
    for top in body.ops:
        for op in top.walk():
            ptr = getattr(op, "ptr", None) if op.name.startswith("cutlass.block_striped.") else None
            if ptr is None or cta_local_tile(op):
                continue
            owner = ptr.owner
            defining = owner if isinstance(owner, Operation) else owner.parent_op()
            if defining is None or not (defining is holder or holder.is_ancestor(defining)):
                raise LocatedError(
                    op, "the partial-tile workspace pointer is defined outside the work-tile loop "
                    f"({holder.name}), so every output tile uses the same region; offset it by the "
                    "work tile (e.g. its linear tile index times the tile size)")
            _check_region_stride(op)


def _constant(value) -> int | None:
    owner = value.owner
    if isinstance(owner, Operation) and owner.name == "arith.constant":
        attr = owner.properties.get("value", owner.attributes.get("value"))
        return attr.value.data if isinstance(attr, IntegerAttr) else None
    return None


def _check_region_stride(op: Operation) -> None:
    """Each output tile's partial region must not overlap the next tile's: the workspace pointer is
    ``llvm.getelementptr %ws[X * C]`` (X from the work tile, C constant) with ``C`` elements covering the partial
    (threads x fragment elements), else regions of consecutive tiles share slots (before session 40 an offset of the
    tile index alone -- regions 1 element apart -- was proved); another form is a located "cannot model"."""
    from tileorch.diagnostics import location_str

    gep = op.ptr.owner
    fragment = op.fragment_type()
    need = op.num_threads() * fragment.get_shape()[0]
    elem_bits = getattr(fragment.get_element_type(), "bitwidth", None) or \
        getattr(getattr(fragment.get_element_type(), "width", None), "data", None)
    why = None
    if not isinstance(gep, Operation) or gep.name != "llvm.getelementptr" or len(gep.operands) != 2:
        why = "it is not llvm.getelementptr %ws[offset]"
    else:
        gep_type = gep.properties.get("elem_type")
        gep_bits = getattr(gep_type, "bitwidth", None) or getattr(getattr(gep_type, "width", None), "data", None)
        mul = gep.operands[1].owner
        if not isinstance(mul, Operation) or mul.name != "arith.muli" or not gep_bits or not elem_bits:
            hint = gep.operands[1].name_hint
            why = f"its offset{f' %{hint}' if hint else ''} is not a product X * C with C constant"
        else:
            a, b = (_constant(v) for v in mul.operands)
            stride, other = (a, mul.operands[1]) if a is not None else (b, mul.operands[0])
            if stride is None or _constant(other) is not None:
                why = "its offset is not a product of a work-tile value and a constant"
            elif stride * gep_bits < need * elem_bits:
                raise LocatedError(op, f"fix-up-count: the output tiles' partial regions are {stride * gep_bits // 8} "
                                   f"bytes apart (the workspace offset at {location_str(mul)}), but a partial of "
                                   f"{op.num_threads()} threads x {fragment} takes {need * elem_bits // 8}: the "
                                   "regions of consecutive tiles overlap and their splits race")
    if why is not None:
        raise LocatedError(op, f"the checker cannot model this workspace pointer: {why}, so it cannot tell that "
                           "each output tile's partial region is its own (write %ws[tile index * size])")


_STRIPED = "cutlass.block_striped."
_FIXUP_VALUE_OPS = (_STRIPED + "store", _STRIPED + "reduce", _STRIPED + "load_add")


def check_plain_load(op: Operation) -> None:
    """A plain ``cutlass.block_striped.load`` of a Stream-K workspace partial: the model follows a split's
    accumulator through ``load_add`` (accumulator + partial); a plain load's result may replace the accumulator or be
    added to it later by arithmetic the model does not follow, so it cannot say which (before session 40 it was read
    as a ``load_add``: a final split that dropped its own accumulator was proved)."""
    raise LocatedError(op, "the checker cannot model a plain cutlass.block_striped.load of a Stream-K partial tile: it "
                       "follows the split's accumulator through cutlass.block_striped.load_add (accumulator plus the "
                       "partial), not through the arithmetic on a loaded value, so nothing is checked; write "
                       "load_add (or the monolithic cutlass.tile_scheduler.fixup)")


def check_thread_indices(body, ev_for, threads) -> None:
    """Each thread of the agent must address its own stripe slots of the partial tile: the ``thread_idx`` of every
    global ``cutlass.block_striped`` op in the work-tile body takes a distinct value per thread (before session 40 a
    thread index that was the same for every thread -- all threads storing one thread's slots, the other slots never
    written -- was proved), inside ``0 .. n_threads_in_block - 1`` (the verifier checks this only where the op runs
    unconditionally).  ``ev_for(t)``: an :class:`Evaluator` for thread ``t`` alone."""
    evs = {t: ev_for(t) for t in sorted(threads)}
    for op in body.walk():
        if not op.name.startswith(_STRIPED) or cta_local_tile(op):
            continue
        seen: dict[int, int] = {}
        for t, ev in evs.items():
            v = ev.constant(op.thread_idx)
            if v is None:
                raise LocatedError(op, f"the checker cannot model {op.name} with a thread_idx it cannot evaluate per "
                                   "thread: the fix-up model needs each thread to own its stripe slots of the partial "
                                   "tile (thread_idx from gpu.thread_id / tid.x), so nothing is checked")
            if not 0 <= v < op.num_threads():
                raise LocatedError(op, f"fix-up-count: thread {t} uses thread_idx {v} in {op.name}, outside "
                                   f"0..{op.num_threads() - 1} (n_threads_in_block = {op.num_threads()}): it addresses "
                                   f"the next stripe's slots of thread {v - op.num_threads()} (or past the tile), so "
                                   "two threads write the same slots")
            if v in seen:
                raise LocatedError(op, f"fix-up-count: threads {seen[v]} and {t} both use thread_idx {v} in {op.name}: "
                                   "they address the same stripe slots of the partial tile, so the slots of the "
                                   "other thread indices are never stored or read (each thread of the block must "
                                   "pass its own index)")
            seen[v] = t


def check_final_value(body, ev) -> None:
    """The value the final split writes must be the accumulator with the other splits' partials folded in: after a
    ``load_add`` runs, its accumulator operand is superseded, and an op that runs after it and uses the superseded
    value (the epilogue given the accumulator before the fold) writes a tile without the other splits' partials
    (before session 40 the model assumed the epilogue writes the folded value and proved such a kernel).  Values are
    followed through ``scf.if`` results whose condition is known for the split (``ev``); an unknown one yields
    either branch's value."""
    roots: dict = {}
    superseded: set = set()

    def rooted(value) -> set:
        return roots.get(value, {value})

    def uses_stale(op: Operation):
        for sub in op.walk():
            for operand in sub.operands:
                if rooted(operand) & superseded:
                    return sub
        return None

    def walk(block) -> None:
        for op in block.ops:
            name = op.name
            if name == "scf.if" and op.regions:
                taken = ev.truth(op.operands[0])
                arms = [r for i, r in enumerate(op.regions) if r.blocks and (taken is None or i == (0 if taken else 1))]
                merged: list[set] = [set() for _ in op.results]
                for region in arms:
                    walk(region.block)
                    term = region.block.last_op
                    if term is not None and term.name == "scf.yield":
                        for i, operand in enumerate(term.operands):
                            merged[i] |= rooted(operand)
                for result, where in zip(op.results, merged):
                    if where:
                        roots[result] = where
                continue
            if name == "scf.yield":
                continue
            if name in (_STRIPED + "load_add", "cutlass.tile_scheduler.fixup"):
                stale = op.operands[2]  # load_add's fragment, fixup's accumulator
                if rooted(stale) & superseded:
                    raise LocatedError(op, f"fix-up-count: {name} folds the partials into an accumulator that an "
                                       "earlier load_add already folded them into (they are added twice)")
                superseded.update(rooted(stale))
                continue
            if name in _FIXUP_VALUE_OPS:
                continue
            bad = uses_stale(op) if superseded else None
            if bad is not None:
                raise LocatedError(bad, "fix-up-count: the final split uses its accumulator from before the "
                                   "cutlass.block_striped.load_add / cutlass.tile_scheduler.fixup that folded the "
                                   "other splits' partials in: the output tile misses them (use its result)")

    walk(body)


def check_stripe_layouts(body) -> None:
    """Every global ``cutlass.block_striped`` op of the fix-up must lay the partial tile out alike (threads in the
    block, access width, fragment type): element ``i`` of thread ``t`` sits at a slot that depends on all three, so a
    split storing 4-wide and a later split reducing or loading element-wise (the reduce and load_add have no access
    width) touch different slots (before session 40 such a fix-up was proved)."""
    first = None
    for op in body.walk():
        if not op.name.startswith(_STRIPED) or cta_local_tile(op):
            continue
        layout = (op.num_threads(), op.access_width(), op.fragment_type())
        if first is None:
            first = (op, layout)
            continue
        if layout != first[1]:
            from tileorch.diagnostics import location_str

            (t0, w0, f0), (t1, w1, f1) = first[1], layout
            raise LocatedError(op, f"fix-up-count: {op.name} lays the partial tile out as {t1} threads, access width "
                               f"{w1}, {f1}, but {first[0].name} at {location_str(first[0])} as {t0} threads, access "
                               f"width {w0}, {f0}: the splits address different slots of the same partial")


_MONOLITHIC = "cutlass.tile_scheduler.fixup"
_SPLIT_FACTS = ((0, 1, 0), (1, 1, 0), (2, 1, 1), (0, SPLITS, 1))
"""(k_tile_start, k_tile_count, final) of the first, a middle and the final split of a tile split three ways, and of
an unsplit tile."""


def _sink(op: Operation) -> bool:
    """An op that makes a value observable: a call, or an op without results (a store) that is not a terminator."""
    return op.name in ("func.call", "llvm.call") or (not op.results and op.name not in (
        "scf.yield", "scf.condition", "func.return", "llvm.return") and not op.regions)


def check_monolithic_fixup(fix: Operation) -> None:
    """What the work-tile body does with ``cutlass.tile_scheduler.fixup``'s result, per split (before session 40 the
    fix-up was modelled by its reference protocol alone, whatever the kernel wrote, and a kernel that ran the
    epilogue on every split, or on the accumulator from before the fix-up, was proved):

    * a non-final split's fixed accumulator is not the tile (the fix-up stored or reduced it): no call or store may
      use it, or a value computed from it -- the epilogue must be guarded by ``compute_epilogue``;
    * the final split (and an unsplit tile) must write the fixed accumulator, not the one given to the fix-up.

    Conditions are evaluated with the split's work-tile facts; where one is unknown and its branch would use the
    value, a located "cannot model"."""
    body = fix.parent_block()
    holder = body.parent_op() if body is not None else None
    while holder is not None and holder.name not in ("scf.for", "scf.while", "cutlass.async.exec"):
        body = holder.parent_block()
        holder = body.parent_op() if body is not None else None
    if body is None:
        return
    from tileorch.analysis.evaluate import Evaluator

    for start, count, final in _SPLIT_FACTS:
        ev = Evaluator(None, {"k_tile_start": start, "k_tile_count": count, "final": final})
        if final:
            check_final_value(body, ev)
        else:
            _check_not_written(body, ev, fix)


def _check_not_written(body, ev, fix: Operation) -> None:
    derived = {fix.results[0]}

    def walk(block, known: bool) -> None:
        for op in block.ops:
            if op.name == "scf.if" and op.regions:
                taken = ev.truth(op.operands[0])
                for i, region in enumerate(op.regions):
                    if region.blocks and (taken is None or i == (0 if taken else 1)):
                        walk(region.block, known and taken is not None)
                        term = region.block.last_op
                        if term is not None and term.name == "scf.yield":
                            for operand, result in zip(term.operands, op.results):
                                if operand in derived:
                                    derived.add(result)
                continue
            uses = [o for sub in op.walk() for o in sub.operands if o in derived]
            if not uses:
                continue
            if any(_sink(sub) and any(o in derived for o in sub.operands) for sub in op.walk()):
                if not known:
                    raise LocatedError(op, f"the checker cannot model this use of the {_MONOLITHIC} result: it "
                                       "cannot tell whether it runs for a non-final split (whose fixed accumulator "
                                       "is not the tile); guard the epilogue by cutlass.tile_scheduler."
                                       "compute_epilogue")
                raise LocatedError(op, f"fix-up-count: a non-final split (k_tile_start {ev.work['k_tile_start']}) "
                                   f"writes the result of {_MONOLITHIC}, which holds only its own partial (the fix-up "
                                   "stored or reduced it for the final split): guard the epilogue by "
                                   "cutlass.tile_scheduler.compute_epilogue")
            derived.update(op.results)

    walk(body, True)
