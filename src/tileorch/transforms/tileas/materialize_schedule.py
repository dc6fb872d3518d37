"""``tileas-materialize-schedule``: agent materialization.

A K loop whose body loads tiles by TMA (``nv_tileas.tiled_load`` with an ``sm_tma_load`` atom
into shared memory) and uses them in a ``dot`` becomes a warp-specialized region:

* one ``nv_tileas.async.pipeline`` whose slots hold one buffer per loaded tile (the tuple of
  the loads' shared-memory types, so one barrier and one transaction count per stage, as in
  CUTLASS's mainloop), with one iterator per side;
* an ``nv_tileas.async.pipeline.agent_switch`` with two agents:

  - agent 0, the MMA consumer (``num_worker_warps`` of the kernel spec): the loop, each
    iteration ``consumer_wait`` / ``consumer_read`` (the old body runs inside the read region on
    the slot's buffers) / ``consumer_release`` / ``inc_iter``; then everything that followed the
    loop in its block (the epilogue);
  - agent 1, the TMA producer (one warp): the same loop over the index computations the loads
    need, each iteration ``producer_acquire`` / ``producer_write`` (the loads, now ``into`` the
    slot buffers) / ``producer_commit`` / ``inc_iter``.

The stage count is the largest that fits the shared-memory budget (``smem-budget`` bytes, by
default the target's opt-in maximum per CTA) next to the shared memory the kernel needs outside
the loop, capped by ``max-stages``.  A tile staged only for TMA stores counts as two TMA boxes
(it drains box by box through two slots, as the GEMM epilogue does), not the whole tile.  ``warp_id`` is left to ``optimize-execution-unit-mapping``.
Diagnostics: "failed to find a schedule for " (no two stages fit; one suffices for a loop of
chained dots, :func:`chains_dots`), "unsupported operation in
warp-specialized agent dispatch" (a load depends on an op with side effects other than a weak
scalar read in a loop that writes nothing: a paged KV cache's page number), "failed to run
agent dispatcher" (a value computed after the loop escapes the agent).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import scf
from xdsl.dialects.builtin import DenseArrayBase, IntegerAttr, ModuleOp, TensorType, i32
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.traits import is_side_effect_free

from tileorch.diagnostics import LocatedError, copy_location
from tileorch.dialects import nv_tileas as base
from tileorch.dialects import nv_tileas_tile as ts
from tileorch.dialects.register_budget import most_consumer_regs
from tileorch.dialects.nv_tileas import AgentSwitchOp
from tileorch.transforms.tileas.common import functions, num_worker_warps, target_sm, tensor_bytes

SMEM_BUDGET = {80: 166912, 86: 101376, 89: 101376, 90: 232448, 100: 232448, 120: 101376}
BARRIER_BYTES_PER_STAGE = 16  # a full and an empty mbarrier
MAX_STAGES = 32  # the most stages a pipeline has (cutlass.pipeline's verifier)
PRODUCER_WARPS = 1
PRODUCER_REGS = 40
MOST_CONSUMER_REGS = 232


def consumer_regs(consumer_warps: int) -> int:
    """setmaxnreg of the consumer agent's warp groups beside the producer's :data:`PRODUCER_REGS`: the
    most (a multiple of 8, at most :data:`MOST_CONSUMER_REGS`) that fits in what the CTA starts with
    (:func:`tileorch.dialects.register_budget.slot_budget`): 232 for one or two consumer warp
    groups, 152 for three, 104 for four (the 160 and 112 of the earlier table passed that budget: a
    hang); 168 for a consumer agent that is not whole warp groups."""
    if consumer_warps % 4:
        return 168
    groups = consumer_warps // 4
    return most_consumer_regs(PRODUCER_REGS, groups, MOST_CONSUMER_REGS)


def smem_budget(sm: int) -> int:
    best = max((k for k in SMEM_BUDGET if k <= sm), default=80)
    return SMEM_BUDGET[best]


def _is_tma_load(op: Operation) -> bool:
    return isinstance(op, ts.TiledLoadOp) and isinstance(op.atom, ts.TmaLoadAtomAttr) and op.dst is None


def candidate_loops(func: Operation) -> list[scf.ForOp]:
    loops = []
    for op in func.walk():
        if not isinstance(op, scf.ForOp):
            continue
        if any(isinstance(p, AgentSwitchOp) for p in _ancestors(op)):
            continue
        body = list(op.body.block.ops)
        if any(_is_tma_load(o) for o in body) and any(isinstance(o, ts.DotOp) for o in op.walk()):
            loops.append(op)
    return loops


def chains_dots(loop: scf.ForOp) -> bool:
    """Whether the loop holds two dots, the second's A operand computed from the first's result
    (attention, a fused two-GEMM MLP).  Such a loop may run on a single stage: its lowering
    (``chained_dots``) refills a stage once every consumer has finished both dots on it, so one
    stage serializes load and compute but never deadlocks; the GEMM K loop needs two."""
    dots = [o for o in loop.walk() if isinstance(o, ts.DotOp)]
    if len(dots) != 2:
        return False
    for first, second in (dots, dots[::-1]):
        stack, seen = [second.lhs], set()
        while stack:
            v = stack.pop()
            if v is first.result:
                return True
            if id(v) in seen or not isinstance(v.owner, Operation):
                continue
            seen.add(id(v))
            for o in v.owner.walk():  # an scf.if's result depends on what its regions read
                stack.extend(o.operands)
    return False


def _ancestors(op: Operation):
    cur = op.parent_op()
    while cur is not None:
        yield cur
        cur = cur.parent_op()


def _defined_inside(value: SSAValue, block: Block) -> bool:
    owner = value.owner
    if isinstance(owner, Block):
        return owner is block
    return owner.parent_block() is block


STORE_STAGING_SLOTS = 2
"""A tile staged only for TMA stores drains box by box through this many box-sized slots (the
GEMM lowering's epilogue: one box is staged while the previous one stores, docs/gemm.md)."""


def staged_store_bytes(op: Operation) -> int | None:
    """Shared memory a ``convert_layout`` whose only users are TMA ``tiled_store``s really needs:
    ``STORE_STAGING_SLOTS`` boxes (at most the whole tile); None for any other staging."""
    if not isinstance(op, ts.ConvertLayoutOp) or not op.results[0].uses:
        return None
    boxes = []
    for use in op.results[0].uses:
        user = use.operation
        atom = user.properties.get("atom") if isinstance(user, ts.TiledStoreOp) else None
        if not isinstance(atom, ts.TmaStoreAtomAttr):
            return None
        boxes.append(atom.box_dims())
    box_elems = max(math.prod(b) for b in boxes)
    t = op.results[0].type
    return min(tensor_bytes(t), STORE_STAGING_SLOTS * box_elems * ts.bit_width(t.element_type) // 8)


def reserved_smem(func: Operation, loop: scf.ForOp) -> int:
    """Shared memory the kernel holds outside the loop's pipeline (epilogue staging etc.)."""
    total = 0
    for op in func.walk():
        if op is loop or loop.is_ancestor(op):
            continue
        if isinstance(op, ts.ConvertLayoutOp | ts.AllocTensorOp | ts.CopyOp) or _is_tma_load(op):
            lay = ts.layout_of(op.results[0].type)
            if lay is not None and lay.kind == "smem":
                staged = staged_store_bytes(op)
                total += tensor_bytes(op.results[0].type) if staged is None else staged
    return total


@dataclass
class _Plan:
    """A K loop to pipeline: the loads the producer issues and the ops its slice needs."""

    loop: scf.ForOp
    loads: list[ts.TiledLoadOp]
    producer_slice: list[Operation]


_SCALAR_CASTS = ("arith.extsi", "arith.extui", "arith.trunci", "arith.index_cast")


def _scalar_read(op: Operation) -> bool:
    """A weak load of one scalar (``ct.gather(table, (b, j))``: a paged KV cache's page number), the
    scalar pointer offset it reads through, or a scalar integer cast: the producer agent replays it
    to compute a TMA coordinate (the consumer keeps its own copy)."""
    if op.name not in ("nv_tileaa.load", "nv_tileaa.offset", *_SCALAR_CASTS) or any(
            isinstance(r.type, TensorType) and math.prod(r.type.get_shape()) != 1 for r in op.results):
        return False
    if op.name in _SCALAR_CASTS:
        return not any(isinstance(r.type, TensorType) for r in op.results)
    if op.name == "nv_tileaa.offset":
        return True
    sem = getattr(op, "mem_semantic", None)
    return sem is None or sem.value.data == "weak"


def plan_loop(loop: scf.ForOp) -> _Plan:
    block = loop.body.block
    loads = [o for o in block.ops if _is_tma_load(o)]
    needed: set[Operation] = set()
    work = [v for ld in loads for v in ld.operands]
    # a scalar read the producer replays runs ahead of the consumer: only in a loop that writes nothing
    writes = any("store" in o.name or "atomic" in o.name for o in loop.walk())
    while work:
        v = work.pop()
        if not _defined_inside(v, block) or isinstance(v.owner, Block):
            continue
        op = v.owner
        if op in needed:
            continue
        if not (is_side_effect_free(op) or (_scalar_read(op) and not writes)) or op.regions:
            raise LocatedError(op, "unsupported operation in warp-specialized agent dispatch: "
                                   f"a TMA load depends on '{op.name}', which the producer agent cannot replay")
        needed.add(op)
        work.extend(op.operands)
    slice_ops = [o for o in block.ops if o in needed]
    return _Plan(loop, loads, slice_ops)


def _escaping_why(loop: scf.ForOp, term: Operation) -> str:
    """The refusal of a K loop whose results (or its epilogue's) are used past the block's
    terminator ``term``: when the loop is nested in another loop (which carries its result on,
    e.g. an MLP's up projection with its own K loop inside the loop over hidden tiles whose down
    projection reads it), say so in the user's terms."""
    outer = loop.parent_op()
    while outer is not None and not isinstance(outer, scf.ForOp):
        outer = outer.parent_op()
    if outer is not None:
        from tileorch.diagnostics import source_position

        pos = source_position(loop.location)
        at = f" (the K loop at line {pos.line.data})" if pos is not None else ""
        return ("failed to run agent dispatcher: this loop carries on the result of a K loop nested in it" + at +
                ": the tensor-core tiers pipeline a K loop whose result the kernel's epilogue reads, not one "
                "inside another loop of dots (an MLP whose up projection has its own K loop per hidden tile: "
                "load the up projection's A once as a [tm, K] tile before the hidden loop)")
    return ("failed to run agent dispatcher: a value computed by the warp-specialized loop or its epilogue is used "
            "outside the agents")


def materialize(func: Operation, loop: scf.ForOp, budget: int, max_stages: int) -> AgentSwitchOp:
    plan = plan_loop(loop)
    elems = [ld.result.type for ld in plan.loads]
    stage_bytes = sum(tensor_bytes(t) for t in elems) + BARRIER_BYTES_PER_STAGE
    free = budget - reserved_smem(func, loop)
    stages = min(max_stages, free // stage_bytes if free > 0 else 0)
    least = 1 if chains_dots(loop) else 2
    if stages < least:
        raise LocatedError(loop, f"failed to find a schedule for the loop: {stage_bytes} bytes per stage do not fit "
                                 f"{'once' if least == 1 else 'twice'} in the {max(free, 0)} bytes of shared memory "
                                 f"left of {budget}")
    outer = loop.parent_block()
    assert outer is not None
    after = []
    cur = loop.next_op
    while cur is not None and cur is not outer.last_op:
        after.append(cur)
        cur = cur.next_op
    term = outer.last_op
    # what the block's terminator needs (e.g. the next program id of a dynamic-persistent loop)
    # stays after the agent switch, unless it depends on the loop
    outside: set[Operation] = set()
    if term is not None and term is not loop:
        work = [v.owner for v in term.operands if isinstance(v.owner, Operation)]
        while work:
            o = work.pop()
            if o in after and o not in outside:
                outside.add(o)
                work += [v.owner for v in o.operands if isinstance(v.owner, Operation)]
    after_in = [o for o in after if o not in outside]
    if term is not None and term is not loop:
        escaping = [r for op in [loop, *after_in] for r in op.results
                    for u in r.uses if not _inside_any(u.operation, [loop, *after_in])]
        if escaping:
            raise LocatedError(term, _escaping_why(loop, term))
    after = after_in
    consumer_warps = num_worker_warps(func)
    # pipeline and iterators, before the loop
    pipe_t = ts.AsyncPipelineType(stages, elems)
    create = base.CreatePipelineOp.create(
        properties={"num_stages": IntegerAttr(stages, i32), "producer_group": IntegerAttr(0, i32),
                    "consumer_group": IntegerAttr(1, i32), "num_consumers": IntegerAttr(1, i32)},
        result_types=[pipe_t])
    it_c = ts.CreateIteratorOp(create.results[0])
    it_p = ts.CreateIteratorOp(create.results[0])
    pre = [create, it_c, it_p]
    copy_location(loop, pre)
    Rewriter.insert_op(pre, InsertPoint.before(loop))
    pipe = create.results[0]
    it_t = it_c.result.type

    producer = _producer_loop(plan, pipe, it_p.result)
    consumer = _consumer_loop(plan, pipe, it_c.result, it_t)
    copy_location(loop, [producer, consumer])

    # consumer agent: the new loop, then the epilogue
    c_block = Block()
    n = len(loop.results)
    Rewriter.insert_op(consumer, InsertPoint.before(loop))
    for old, new in zip(loop.results, consumer.results[:n]):
        old.replace_all_uses_with(new)
    consumer.detach()
    c_block.add_op(consumer)
    for op in after:
        op.detach()
        c_block.add_op(op)
    c_block.add_op(base.YieldOp())
    p_block = Block([producer, base.YieldOp()])
    switch = AgentSwitchOp.create(
        properties={
            "num_warps": DenseArrayBase.from_list(i32, [consumer_warps, PRODUCER_WARPS]),
            "max_regs": DenseArrayBase.from_list(i32, [consumer_regs(consumer_warps), PRODUCER_REGS]),
            "num_agents_per_group": DenseArrayBase.from_list(i32, [1, 1]),
        },
        regions=[Region(c_block), Region(p_block)])
    copy_location(loop, [switch])
    Rewriter.insert_op(switch, InsertPoint.before(loop))
    loop.detach()
    loop.erase(safe_erase=False)
    return switch


def _inside_any(op: Operation, roots: list[Operation]) -> bool:
    return any(op is r or r.is_ancestor(op) for r in roots)


def _producer_loop(plan: _Plan, pipe: SSAValue, it0: SSAValue) -> scf.ForOp:
    loop = plan.loop
    old = loop.body.block
    block = Block(arg_types=[old.args[0].type, it0.type])
    vmap: dict[SSAValue, SSAValue] = {old.args[0]: block.args[0]}
    for op in plan.producer_slice:
        c = op.clone(value_mapper=vmap)
        block.add_op(c)
    acq = ts.ProducerAcquireOp(pipe, block.args[1])
    wbody = Block(arg_types=[ld.result.type for ld in plan.loads])
    for i, ld in enumerate(plan.loads):
        new = ts.TiledLoadOp(vmap.get(ld.view, ld.view), [vmap.get(v, v) for v in ld.indices], ld.result.type,
                             ld.atom, dst=wbody.args[i],
                             allow_tma=ld.allow_tma.value.data if ld.allow_tma is not None else None)
        if ld.padding_value is not None:
            new.padding_value = ld.padding_value
        copy_location(ld, [new])
        wbody.add_op(new)
    wbody.add_op(base.YieldOp([o.result for o in wbody.ops]))
    write = ts.ProducerWriteOp(pipe, acq.result, list(range(len(plan.loads))), Region(wbody))
    commit = ts.ProducerCommitOp(pipe, write.result)
    inc = ts.IncIterOp(block.args[1])
    for o in (acq, write, commit, inc):
        block.add_op(o)
    block.add_op(scf.YieldOp(inc.result))
    return scf.ForOp(loop.lb, loop.ub, loop.step, [it0], Region(block))


def _consumer_loop(plan: _Plan, pipe: SSAValue, it0: SSAValue, it_t) -> scf.ForOp:
    loop = plan.loop
    old = loop.body.block
    n = len(loop.iter_args)
    block = Block(arg_types=[a.type for a in old.args] + [it_t])
    for a, b in zip(old.args, block.args):
        a.replace_all_uses_with(b)
    it = block.args[-1]
    wait = ts.ConsumerWaitOp(pipe, it, 0)
    rbody = Block(arg_types=[ld.result.type for ld in plan.loads])
    for ld, arg in zip(plan.loads, rbody.args):
        ld.result.replace_all_uses_with(arg)
    old_yield = old.last_op
    assert isinstance(old_yield, scf.YieldOp)
    yielded = list(old_yield.operands)
    for op in list(old.ops):
        if op is old_yield or op in plan.loads:
            continue
        op.detach()
        rbody.add_op(op)
    rbody.add_op(base.YieldOp(yielded))
    for ld in plan.loads:
        ld.detach()
        ld.erase(safe_erase=False)
    _drop_dead_pure(rbody)
    read = ts.ConsumerReadOp(pipe, wait.result, [v.type for v in yielded], Region(rbody), 0)
    release = ts.ConsumerReleaseOp(pipe, read.res[n])
    inc = ts.IncIterOp(it)
    for o in (wait, read, release, inc):
        block.add_op(o)
    block.add_op(scf.YieldOp(*read.res[:n], inc.result))
    return scf.ForOp(loop.lb, loop.ub, loop.step, [*loop.iter_args, it0], Region(block))


def _drop_dead_pure(block: Block) -> None:
    changed = True
    while changed:
        changed = False
        for op in reversed(list(block.ops)):
            if op is block.last_op or op.regions:
                continue
            if all(not r.uses for r in op.results) and is_side_effect_free(op):
                op.detach()
                op.erase()
                changed = True


@dataclass(frozen=True)
class MaterializeSchedule(ModulePass):
    """TMA producer agent + MMA consumer agent joined by a pipeline, for each TMA K loop."""

    name = "tileas-materialize-schedule"
    smem_budget: int = 0  # 0: the target's maximum dynamic shared memory per CTA
    max_stages: int = 8

    def __post_init__(self) -> None:
        # a negative budget or a stage bound below 1 was reported as the loop's stages not fitting
        # in the shared memory; a budget past the target's was planned with (8 stages of 48 KB)
        if self.smem_budget < 0:
            raise ValueError(f"tileas-materialize-schedule: smem-budget must be >= 0 bytes (0: the target's "
                             f"maximum), got {self.smem_budget}")
        if not 1 <= self.max_stages <= MAX_STAGES:
            raise ValueError(f"tileas-materialize-schedule: max-stages must be in [1, {MAX_STAGES}] (a pipeline's "
                             f"stage count), got {self.max_stages}")

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for func in functions(op):
            most = smem_budget(target_sm(func))
            if self.smem_budget > most:
                raise LocatedError(func, f"tileas-materialize-schedule: smem-budget = {self.smem_budget} bytes is more "
                                         f"than the target's {most} bytes of shared memory per CTA")
            budget = self.smem_budget or most
            for loop in candidate_loops(func):
                materialize(func, loop, budget, self.max_stages)
