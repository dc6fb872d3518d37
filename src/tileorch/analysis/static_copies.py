"""The stage-copy rules ``tileorch compile`` decides without the model checker.

A bulk copy that completes on a pipeline stage's full barrier (:mod:`tileorch.analysis.transfers`) is wrong, in
every run, when its shared-memory destination -- known statically: constants, the stage index and the CTA's
cluster coordinates, through ``llvm.getelementptr`` / ``llvm.addrspacecast`` -- lands on the pipeline's own
mbarriers (``cutlass.pipeline.create storage(%smem)``), or when two copies issued for one stage write the same
bytes of a CTA, or two stages of one pipeline share bytes; or when two pipelines' mbarrier words overlap, or a copy lands on another pipeline's mbarriers (both
resolved to one base pointer plus constants).  ``tileorch check`` refuses these (its stage-slots property; the last
two since session 41, when they were proved); before session 41 ``tileorch compile`` did not, and built a kernel that
overwrites its barriers (a hang) or leaves part of a stage unwritten.
:func:`check_stage_copies` makes the same evaluation (:func:`transfers.stage_slots`, one code for both) on the
unlowered module; ``convert-atoms-to-nvvm``, the first pass of the compile pipeline, calls it.

Only what holds in every run is refused: a copy is taken in a CTA unless an enclosing ``scf.if`` (up to the block
that made the stage's state) is known not to take it there; two copies are compared only where the conditions
their CTA cannot decide (a thread's, a kernel argument's) are the same ones, taken the same way; a destination
that depends on anything else (a loop variable, a work tile, a kernel argument, another pipeline's stage index) is
left to ``tileorch check``.  Everything here reads the IR."""

from __future__ import annotations

import math
from collections.abc import Iterable
from functools import partial

from xdsl.ir import Block, Operation, SSAValue

from tileorch.analysis import transfers
from tileorch.analysis.evaluate import Evaluator
from tileorch.diagnostics import LocatedError

_SLICE_LIMIT = 256
"""Ops of a destination's backward slice looked at before the copy is left to the checker."""


def check_stage_copies(copies: Iterable[Operation], creates: Iterable[Operation] = (), landed: list | None = None) -> None:
    """Raise a :class:`LocatedError` at the first ``cutlass.pipeline.create`` of ``creates`` whose mbarrier words
    overlap another's, else at the first copy of ``copies`` that statically lands on a pipeline's mbarriers (its
    own or, resolved to one base pointer, another's of ``creates``) or on the bytes another copy of its stage
    writes (see the module doc).  ``landed``: where given, every (base pointer, first byte, end byte, copy, its
    pipeline's init, stage index) a decided copy writes in some CTA is appended to it."""
    blocks = transfers.barrier_blocks(creates)
    transfers.check_barrier_blocks(blocks)
    groups: dict[tuple[SSAValue, SSAValue], list[Operation]] = {}
    for copy in copies:
        if copy.name not in transfers.COPIES or len(copy.operands) < 3:
            continue
        getter = transfers._mbar(copy).owner
        if isinstance(getter, Operation) and getter.name in transfers.BARRIER_GETTERS:
            groups.setdefault((getter.operands[0], getter.operands[1]), []).append(copy)
    for (pipe, state), ops in groups.items():
        _check_group(pipe, state, ops, blocks, landed)


def check_module(module: Operation) -> None:
    """:func:`check_stage_copies` on every copy and pipeline ``create`` of ``module`` (``tileorch check``'s entry)."""
    copies, creates = [], []
    for op in module.walk():
        if op.name in transfers.COPIES:
            copies.append(op)
        elif op.name == "cutlass.pipeline.create":
            creates.append(op)
    if not creates:
        return
    landed: list = []
    check_stage_copies(copies, creates, landed)
    _shared_stages(landed)


def _shared_stages(landed: list) -> None:
    """Stages of two pipelines on the same bytes: legal where the kernel uses the pipelines one after the other
    (CUTLASS reuses the mainloop's shared memory for the epilogue), a race where it holds both at once.  The model
    has no shared-memory contents to tell which, so ``tileorch check`` stops with a located "cannot model" instead of
    proving the kernel (before session 41 it proved three operand rings whose stages overlapped); ``tileorch
    compile`` accepts it."""
    from tileorch.diagnostics import location_str

    by_base: dict[int, list] = {}
    for entry in landed:
        by_base.setdefault(id(entry[0]), []).append(entry)
    for entries in by_base.values():
        entries.sort(key=lambda e: (e[1], e[2]))
        for i, (_, lo, hi, copy, init, index) in enumerate(entries):
            for _, lo2, hi2, copy2, init2, index2 in entries[i + 1:]:
                if lo2 >= hi:
                    break
                if init2 is not init:
                    first, second = sorted(((copy, init, index, lo, hi), (copy2, init2, index2, lo2, hi2)),
                                           key=lambda e: _position(e[0]))
                    raise LocatedError(second[0], f"the checker cannot model stages of two pipelines on the same "
                                       f"bytes: stage {second[2]} of this copy's pipeline (initialised at "
                                       f"{location_str(second[1])}) writes bytes [{second[3]}, {second[4]}) past its "
                                       f"base pointer and stage {first[2]} of the copy at {location_str(first[0])} "
                                       f"(pipeline initialised at {location_str(first[1])}) writes [{first[3]}, "
                                       f"{first[4]}): used one after the other this is legal shared-memory reuse, "
                                       "held at once it is a race, and the model has no shared-memory contents to "
                                       "tell which; give each pipeline its own stages")


def _position(op: Operation) -> tuple:
    """The op's (line, column) where known (to name the later of two copies), else (0, 0)."""
    from tileorch.diagnostics import location_str

    text = location_str(op)
    parts = text.rsplit(":", 2)
    try:
        return int(parts[-2]), int(parts[-1])
    except (ValueError, IndexError):
        return 0, 0


def _check_group(pipe: SSAValue, state: SSAValue, ops: list[Operation], blocks: list, landed: list | None) -> None:
    from tileorch.dialects.cutlass.arrive_counts import multicast_peers
    from tileorch.dialects.cutlass.attrs import MulticastDirection
    from tileorch.dialects.cutlass.pipeline import pipeline_init_of
    from tileorch.dialects.cutlass.pipeline_facts import cluster_shape

    init = pipeline_init_of(pipe)
    typ = init.results[0].type if init is not None else None
    stages = getattr(typ, "stages", None)
    if not isinstance(stages, int) or getattr(getattr(typ, "barrier", None), "value", "mbarrier") != "mbarrier":
        return
    cluster = cluster_shape(init)
    ctas = math.prod(cluster)
    scope = transfers.scope_of(state)
    create = init.operands[0].owner
    storage = getattr(create, "storage", None) if isinstance(create, Operation) else None
    elided = getattr(getattr(typ, "elide", None), "value", "none") != "none"
    barriers = None if storage is None or elided else (storage, 16 * stages, stages)
    plain = Evaluator()
    entries, paths = [], {}
    for copy in ops:
        path = _path(copy, scope)
        if path is None or not _stage_indices_of(copy, path, stages):
            continue
        try:
            nbytes = transfers.size(copy, plain)
            dst = transfers.destination(copy, plain, ctas)
        except LocatedError:
            continue  # not decidable here: tileorch check says why
        if nbytes:
            entries.append((copy, nbytes, dst, 1))
            paths[copy] = path
    if not entries:
        return
    issued = partial(_issued, paths)
    cx = max(cluster[0], 1)
    others = tuple(b for b in blocks if b[3] is not create)
    if landed is not None:
        for copy, nbytes, _, _ in entries:
            for cta in range(ctas):
                for index in range(stages):
                    facts = {"cta_rank": cta, "cta_x": cta % cx, "cta_y": cta // cx, "stage_index": index}
                    at = transfers.stage_offset(copy, Evaluator(None, facts)) if issued(copy, facts) else None
                    if at is not None:
                        landed.append((at[0], at[1], at[1] + nbytes, copy, init, index))
    if barriers is not None or others:
        own = barriers or (None, 0, stages)
        for copy, nbytes, _, _ in entries:
            for cta in range(ctas):
                for index in range(stages):
                    facts = {"cta_rank": cta, "cta_x": cta % cx, "cta_y": cta // cx, "stage_index": index}
                    if issued(copy, facts):
                        transfers.barrier_overlap(copy, nbytes, own, facts, others)
    for cta in range(ctas):
        facts = {"cta_rank": cta, "cta_x": cta % cx, "cta_y": cta // cx, "stage_index": 0}
        undecided = {_undecided(paths[c], facts) for c, *_ in entries if issued(c, facts)}
        if len(undecided) > 1:
            return  # copies under different thread- or argument-dependent conditions: not compared here
    peers = lambda cta, direction: multicast_peers(cta, cluster, MulticastDirection(direction))  # noqa: E731
    transfers.stage_slots(entries, cluster, ctas, {}, peers, None, issued)
    if stages > 1:
        _stages_apart(entries, ctas, cx, stages, issued, peers)


def _stages_apart(entries: list, ctas: int, cx: int, stages: int, issued, peers) -> None:
    """Two stages of one pipeline must not share a byte in any CTA: a ring of two or more stages has the producer
    filling one stage while a consumer reads another, so a copy of stage j landing on stage i's bytes overwrites
    what is being read (session 41: stages 2048 bytes apart with 4096-byte copies were proved)."""
    from tileorch.diagnostics import location_str

    landed: dict[int, list] = {}
    for copy, nbytes, dst, _ in entries:
        for cta in range(ctas):
            for index in range(stages):
                facts = {"cta_rank": cta, "cta_x": cta % cx, "cta_y": cta // cx, "stage_index": index}
                if not issued(copy, facts):
                    continue
                at = transfers.stage_offset(copy, Evaluator(None, facts))
                if at is None:
                    return
                targets = ((cta,) if dst is None else tuple(peers(cta, transfers.EACH[dst])) if dst in transfers.EACH
                           else dst)
                for d in targets:
                    landed.setdefault(d, []).append((id(at[0]), at[1], at[1] + nbytes, index, copy, cta))
    for d, ranges in sorted(landed.items()):
        ranges.sort(key=lambda r: (r[0], r[1], r[2]))
        for i, (base, lo, hi, index, copy, cta) in enumerate(ranges):
            for base2, lo2, hi2, index2, copy2, cta2 in ranges[i + 1:]:
                if base2 != base or lo2 >= hi:
                    break
                if index2 != index:
                    raise LocatedError(copy2, f"stage-slots: in CTA {d} of the cluster, this copy of stage {index2} "
                                       f"(from CTA {cta2}) writes bytes [{lo2}, {hi2}) past its base pointer and the "
                                       f"copy of stage {index} at {location_str(copy)} (from CTA {cta}) writes [{lo}, "
                                       f"{hi}): two stages of one pipeline on the same bytes, so the producer refills "
                                       "one while a consumer reads the other; space the stages at least a stage's "
                                       "bytes apart")


def _path(copy: Operation, scope: Block | None) -> tuple | None:
    """The ops between ``copy`` and ``scope`` that decide whether it runs: (``scf.if``, then-branch?) pairs, and
    ``scf.for`` loops (a copy in one is left to the checker: its destination may change per iteration); None when
    ``copy`` is not nested in ``scope`` or sits in a loop."""
    path = []
    op = copy
    while op.parent_block() is not scope:
        region = op.parent_region()
        op = op.parent_op()
        if op is None or region is None:
            return None
        if op.name == "scf.if":
            path.append((op, region is op.regions[0]))
        elif op.name in ("scf.for", "scf.while", "scf.parallel", "scf.forall"):
            return None
    return tuple(path)


def _issued(paths: dict, copy: Operation, facts: dict) -> bool:
    """Whether ``copy`` may run in the CTA and stage of ``facts``: no enclosing ``scf.if`` known not to take it."""
    ev = Evaluator(None, facts)
    return all(ev.truth(op.operands[0]) in (None, then) for op, then in paths[copy])


def _undecided(path: tuple, facts: dict) -> tuple:
    ev = Evaluator(None, facts)
    return tuple((op, then) for op, then in path if ev.truth(op.operands[0]) is None)


def _stage_indices_of(copy: Operation, path: tuple, stages: int) -> bool:
    """Whether every ``cutlass.pipeline.state.get_index`` the copy's destination and conditions read is an index
    of a ``stages``-stage state (the evaluator reads each as the stage enumerated: another pipeline's index ranges
    over its own stages), within :data:`_SLICE_LIMIT` ops."""
    todo = [copy.operands[0], *(op.operands[0] for op, _ in path)]
    seen: set[SSAValue] = set()
    while todo:
        value = todo.pop()
        if value in seen:
            continue
        seen.add(value)
        if len(seen) > _SLICE_LIMIT:
            return False
        owner = value.owner
        if not isinstance(owner, Operation):
            continue
        if owner.name == "cutlass.pipeline.state.get_index":
            if getattr(owner.operands[0].type, "stages", None) != stages:
                return False
            continue
        todo.extend(owner.operands)
    return True
