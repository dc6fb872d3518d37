"""``lower-cutlass-pipeline-to-tileas``: CUTLASS pipeline objects become TileAS pipeline regions.

The seed's ``lower_cutlass_pipeline``, keeping stage identity and executor identity:

* every ``cutlass.pipeline.init`` gets one ``nv_tileas.async.pipeline.create_pipeline`` (stage
  count, storage = the initialised cutlass pipeline, producer group 0, consumer group 1);
* a producer acquire and the commit of the same pipeline value and the same state value in the
  same block (and ``cutlass.pipeline.produce``) become one ``nv_tileas.async.pipeline.producer``
  region on that TileAS pipeline; a consumer wait and the release of the same pipeline and state
  (and ``cutlass.pipeline.consume``) become one ``consumer`` region, whose ``consumer_idx`` is the
  wait's ``consumer_idx`` or, without one, the consumer group its executor runs (seed 002's
  ``replace_with_consumer_wait(as_pipeline, op.stage, op.consumer_idx)``; absent when the executor
  overlaps several consumer groups).  The handshake ops stay
  inside the region as its first and last op, so their attributes (transaction bytes, tokens)
  reach the NVVM lowering unchanged; values defined inside and used after are yielded;
* a ``cutlass.pipeline.switch_by_executor`` inside a warp or warpgroup ``cutlass.async.exec``
  with one mask per arm becomes ``nv_tileas.async.pipeline.agent_switch`` (``num_warps`` /
  ``warp_id`` from the arm's mask, ``agent_strides`` 0: masks are contiguous).

Handshake ops that do not pair up (e.g. a consumer releasing one stage behind its wait) stay
cutlass ops; ``convert-pipeline-to-nvvm`` lowers both forms with the same emitters.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import IntegerAttr, ModuleOp, i32
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.passes import ModulePass

from tileorch.diagnostics import copy_location
from tileorch.dialects import nv_tileas
from tileorch.dialects.cutlass import consumer_index
from tileorch.dialects.cutlass import pipeline as cp
from tileorch.dialects.cutlass.pipeline_facts import UNIT_THREADS, find_init
from tileorch.transforms.pipeline_to_nvvm.context import enclosing_exec

PAIRS = {
    "cutlass.pipeline.producer_acquire": ("cutlass.pipeline.producer_commit", nv_tileas.ProducerOp),
    "cutlass.pipeline.consumer_wait": ("cutlass.pipeline.consumer_release", nv_tileas.ConsumerOp),
}


def consumer_indices(module: ModuleOp) -> dict[Operation, int]:
    """The consumer group of every consumer wait / consume, read before executor switches are
    restructured into agent switches (the executor sets are those of the cutlass form)."""
    found: dict[Operation, int] = {}
    for op in module.walk():
        if op.name not in ("cutlass.pipeline.consumer_wait", "cutlass.pipeline.consume"):
            continue
        idx = consumer_index.index_of(op)
        if idx is None:
            idx = consumer_index.derive(op, op.operands[0], cp.consumer_group_threads)
        if idx is not None:
            found[op] = idx
    return found


def _set_consumer_idx(region_op: Operation, idx: int | None) -> None:
    if idx is not None:
        region_op.properties["consumer_idx"] = IntegerAttr(idx, i32)


def bind_pipelines(module: ModuleOp) -> dict[Operation, SSAValue]:
    """One create_pipeline right after every pipeline.init."""
    bound: dict[Operation, SSAValue] = {}
    for op in list(module.walk()):
        if op.name != "cutlass.pipeline.init":
            continue
        typ = op.results[0].type
        create = nv_tileas.CreatePipelineOp(op.results[0], typ.stages)
        copy_location(op, [create])
        op.parent_block().insert_op_after(create, op)
        bound[op] = create.pipeline
    return bound


def wrap_stage(ops: list[Operation], region_cls: type, pipeline: SSAValue, state: SSAValue) -> Operation:
    """Move ``ops`` (consecutive in one block) into a stage region; yield escaping values."""
    first = ops[0]
    block = first.parent_block()
    inside = set(ops)
    escaping: list[SSAValue] = []
    for op in ops:
        for res in op.results:
            if any(use.operation not in inside and not _is_nested(use.operation, inside) for use in res.uses):
                escaping.append(res)
    body = Block()
    region_op = region_cls.create(
        operands=[pipeline, state],
        result_types=[v.type for v in escaping],
        regions=[Region(body)],
    )
    block.insert_op_before(region_op, first)
    for op in ops:
        op.detach()
        body.add_op(op)
    body.add_op(nv_tileas.YieldOp(escaping))
    for value, result in zip(escaping, region_op.results, strict=True):
        value.replace_uses_with_if(result, lambda use: use.operation.parent_op() is not region_op and not _is_nested(use.operation, {region_op}))
    copy_location(first, [region_op])
    return region_op


def _is_nested(op: Operation, ancestors: set[Operation]) -> bool:
    parent = op.parent_op()
    while parent is not None:
        if parent in ancestors:
            return True
        parent = parent.parent_op()
    return False


def pair_handshakes(module: ModuleOp, bound: dict[Operation, SSAValue],
                    indices: dict[Operation, int] | None = None) -> None:
    for op in list(module.walk()):
        if op.name not in PAIRS or op.parent_block() is None:
            continue
        if isinstance(op.parent_op(), (nv_tileas.ProducerOp, nv_tileas.ConsumerOp)):
            continue  # the handshake of a region made from cutlass.pipeline.produce/consume
        closing, region_cls = PAIRS[op.name]
        run: list[Operation] = [op]
        cursor = op.next_op
        while cursor is not None:
            run.append(cursor)
            if cursor.name == op.name and cursor.operands[0] == op.operands[0]:
                break  # a second acquire/wait of the same pipeline before the closing op
            if cursor.name == closing and cursor.operands[0] == op.operands[0]:
                if cursor.operands[1] == op.operands[1]:
                    region = wrap_stage(run, region_cls, bound[find_init(op, op.operands[0])], op.operands[1])
                    if region_cls is nv_tileas.ConsumerOp:
                        _set_consumer_idx(region, (indices or {}).get(op))
                break
            cursor = cursor.next_op


def expand_stage_ops(module: ModuleOp, bound: dict[Operation, SSAValue],
                     indices: dict[Operation, int] | None = None) -> None:
    """``cutlass.pipeline.produce``/``consume`` -> TileAS stage regions holding acquire/commit."""
    for op in list(module.walk()):
        if op.name not in ("cutlass.pipeline.produce", "cutlass.pipeline.consume"):
            continue
        pipe, state = op.operands[0], op.operands[1]
        producing = op.name == "cutlass.pipeline.produce"
        if producing:
            props = {"transaction_bytes": op.properties["transaction_bytes"]} if "transaction_bytes" in op.properties else {}
            head = cp.ProducerAcquireOp.create(operands=[pipe, state])
            tail = cp.ProducerCommitOp.create(operands=[pipe, state], properties=props)
        else:
            head = cp.ConsumerWaitOp.create(operands=[pipe, state])
            tail = cp.ConsumerReleaseOp.create(operands=[pipe, state])
        copy_location(op, [head, tail])
        body = op.regions[0].block
        if body.first_op is not None:
            body.insert_op_before(head, body.first_op)
        else:
            body.add_op(head)
        body.add_op(tail)
        body.add_op(nv_tileas.YieldOp())
        region_cls = nv_tileas.ProducerOp if producing else nv_tileas.ConsumerOp
        new = region_cls.create(operands=[bound[find_init(op, pipe)], state], regions=[op.regions[0].clone()])
        if not producing:
            _set_consumer_idx(new, (indices or {}).get(op))
        copy_location(op, [new])
        op.parent_block().insert_op_before(new, op)
        op.detach()
        op.erase()


def switches_to_agents(module: ModuleOp) -> None:
    for op in list(module.walk()):
        if op.name != "cutlass.pipeline.switch_by_executor":
            continue
        outer = enclosing_exec(op)
        unit = UNIT_THREADS.get(outer.executor_kind() if outer is not None else "", 0)
        masks = op.mask_list()
        if unit not in (32, 128) or len(masks) != len(op.regions):
            continue
        warps_per_unit = unit // 32
        num_warps, warp_id = [], []
        for mask in masks:
            first = (mask & -mask).bit_length() - 1
            num_warps.append(bin(mask).count("1") * warps_per_unit)
            warp_id.append(first * warps_per_unit)
        regions = []
        for i, region in enumerate(op.regions):
            block = region.block
            for arg, value in zip(block.args, op.arm_pipelines(i), strict=True):
                arg.replace_all_uses_with(value)
            new_block = Block()
            for child in list(block.ops):
                child.detach()
                new_block.add_op(child)
            new_block.add_op(nv_tileas.YieldOp())
            regions.append(Region(new_block))
        agent = nv_tileas.AgentSwitchOp(num_warps, warp_id, [0] * len(masks), regions)
        copy_location(op, [agent])
        op.parent_block().insert_op_before(agent, op)
        op.detach()
        op.erase()


@dataclass(frozen=True)
class LowerCutlassPipelineToTileas(ModulePass):
    """Bind pipelines to TileAS pipelines, form producer/consumer stage regions, and turn
    executor switches into agent switches."""

    name = "lower-cutlass-pipeline-to-tileas"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        # one walk for the names first: each step below walks the module for ops of a few names
        # and changes nothing when it finds none, so a step none of whose names is in the module
        # is left out (five walks of a module without cutlass pipelines: a lowered chained
        # kernel).  expand_stage_ops is the only step that makes ops a later step looks for (the
        # acquire/commit and wait/release inside the stage regions it builds, and clones of the
        # ops in those regions): pair_handshakes and switches_to_agents run whenever it ran.
        present = {o.name for o in op.walk()}
        indices = consumer_indices(op) if not present.isdisjoint(_CONSUMER_NAMES) else {}
        bound = bind_pipelines(op) if _INIT in present else {}
        expanded = not present.isdisjoint(_STAGE_NAMES)
        if expanded:
            expand_stage_ops(op, bound, indices)
        if expanded or _SWITCH in present:
            switches_to_agents(op)
        if expanded or not present.isdisjoint(PAIRS):
            pair_handshakes(op, bound, indices)


_CONSUMER_NAMES = frozenset({"cutlass.pipeline.consumer_wait", "cutlass.pipeline.consume"})
"""What :func:`consumer_indices` reads."""
_INIT = "cutlass.pipeline.init"
"""What :func:`bind_pipelines` binds."""
_STAGE_NAMES = frozenset({"cutlass.pipeline.produce", "cutlass.pipeline.consume"})
"""What :func:`expand_stage_ops` expands."""
_SWITCH = "cutlass.pipeline.switch_by_executor"
"""What :func:`switches_to_agents` restructures."""
