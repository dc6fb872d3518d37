"""Region ops: executor regions and switches become thread-guarded ``scf.if``s; stage regions
(``cutlass.pipeline.produce/consume``, TileAS producer/consumer regions) are expanded before the
leaf patterns run so their handshake ops are lowered like any other.

``PipelineSwitchByExecutorOpLowering`` branches on the executor id: arm i runs where
``tid / unit_threads`` falls in one of its masks (units of the enclosing ``async.exec``), and the
arm's pipeline block arguments are replaced by the switch operands they stand for.
"""

from __future__ import annotations

from abc import abstractmethod

from xdsl.dialects import func
from xdsl.dialects.builtin import UnitAttr, UnrealizedConversionCastOp
from xdsl.ir import Block, Operation
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern
from xdsl.rewriter import InsertPoint

from tileorch.diagnostics import copy_location
from tileorch.dialects import nv_tileas, nvvm
from tileorch.dialects.cutlass import pipeline as cp
from tileorch.dialects.cutlass.pipeline_facts import UNIT_THREADS, int_prop, mask_prop
from tileorch.transforms.pipeline_to_nvvm.base import NamedOpRewrite
from tileorch.transforms.pipeline_to_nvvm.context import enclosing_exec, thread_range_of_mask
from tileorch.transforms.pipeline_to_nvvm.emit import Emitter
from tileorch.transforms.pipeline_to_nvvm.options import LoweringOptions
from tileorch.transforms.pipeline_to_nvvm.sync import any_of, in_thread_range

SETMAXNREG_DEALLOC_BELOW = 128  # regs(N) below this shrinks the register file (producer warps)


def exec_unit_threads(op: Operation) -> int:
    """Threads per executor unit of a cutlass or nv_tileas ``async.exec``."""
    if hasattr(op, "unit_threads"):
        return op.unit_threads()
    return UNIT_THREADS[str(op.properties["executor"])]


def _move_body(block: Block, into: Emitter) -> None:
    for child in list(block.ops):
        if child.name in ("nv_tileas.async.pipeline.yield",):
            continue
        child.detach()
        into.ops.append(child)


def emit_guarded(e: Emitter, op: Operation, ranges: list[tuple[int, int]], block: Block) -> None:
    """``if (tid in ranges) { block }`` (no guard when the ranges are the whole CTA); ``op`` is the
    region op being lowered (its kernel decides how the linear thread id is read)."""
    if not ranges:
        _move_body(block, e)
        return
    tid = e.thread_id(op)
    cond = any_of(e, [in_thread_range(e, tid, first, end - first) for first, end in ranges])
    e.if_(cond, lambda inner: _move_body(block, inner))


class _RegionLowering(RewritePattern):
    OP = ""

    def __init__(self, options: LoweringOptions | None = None):
        super().__init__()
        self.options = options

    @abstractmethod
    def build(self, op: Operation, e: Emitter) -> None:
        """Emit the replacement of region op ``op`` into ``e``."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if op.name != self.OP:
            return
        e = Emitter()
        self.build(op, e)
        copy_location(op, e.ops)
        rewriter.replace(op, e.ops, [])


class AsyncExecLowering(_RegionLowering):
    """``async.exec``: guard the body by the executor mask; ``regs(N)`` becomes ``setmaxnreg``
    (dec below 128 registers, inc otherwise) when the region covers whole warpgroups."""

    OP = "cutlass.async.exec"

    def build(self, op: Operation, e: Emitter) -> None:
        unit = exec_unit_threads(op)
        kind = str(op.properties["executor"])
        ranges = [] if "cta" in kind else thread_range_of_mask(mask_prop(op, "mask", 0), unit)
        regs = int_prop(op, "max_regs")
        block = op.regions[0].block
        if regs is not None and ranges and all(f % 128 == 0 and (end - f) % 128 == 0 for f, end in ranges):
            action = nvvm.SetMaxRegisterAction.DECREASE if regs < SETMAXNREG_DEALLOC_BELOW else nvvm.SetMaxRegisterAction.INCREASE
            first = block.first_op
            reg_op = nvvm.SetMaxRegisterOp(action, regs)
            if first is None:
                block.add_op(reg_op)
            else:
                block.insert_op_before(reg_op, first)
        emit_guarded(e, op, ranges, block)


class TileasAsyncExecLowering(AsyncExecLowering):
    OP = "nv_tileas.async.exec"


class PipelineSwitchByExecutorOpLowering(_RegionLowering):
    OP = "cutlass.pipeline.switch_by_executor"

    def build(self, op: Operation, e: Emitter) -> None:
        outer = enclosing_exec(op)
        unit = exec_unit_threads(outer) if outer is not None else 32
        arms = len(op.regions)
        masks = op.mask_list()
        per_mask = len(masks) // arms
        per_pipe = len(op.operands) // arms
        for i, region in enumerate(op.regions):
            block = region.block
            for arg, value in zip(block.args, op.operands[i * per_pipe : (i + 1) * per_pipe], strict=True):
                arg.replace_all_uses_with(value)
            ranges = [r for m in masks[i * per_mask : (i + 1) * per_mask] for r in thread_range_of_mask(m, unit)]
            emit_guarded(e, op, ranges, block)


class AgentSwitchLowering(_RegionLowering):
    """TileAS ``agent_switch``: agent i runs on its warps (``warp_id``, ``num_warps``,
    ``agent_strides``)."""

    OP = "nv_tileas.async.pipeline.agent_switch"

    def build(self, op: Operation, e: Emitter) -> None:
        lists = op.agent_warp_lists()
        regs = list(op.max_regs.get_values()) if op.max_regs is not None else None
        for i in (agent_setmaxnreg(lists, regs) if regs else []):
            region = op.regions[i]
            if not region.blocks:  # a hole that completes a warpgroup only adjusts registers
                region.add_block(Block([nv_tileas.YieldOp()]))
            action = (nvvm.SetMaxRegisterAction.DECREASE if regs[i] < SETMAXNREG_DEALLOC_BELOW
                      else nvvm.SetMaxRegisterAction.INCREASE)
            block = region.block
            block.insert_op_before(nvvm.SetMaxRegisterOp(action, regs[i]), block.first_op)
        for region, warps in zip(op.regions, lists, strict=True):
            if region.blocks:  # a region without a block is a hole: its warps run nothing
                emit_guarded(e, op, [(32 * w, 32 * w + 32) for w in warps], region.block)


def agent_setmaxnreg(lists: list[list[int]], regs: list[int]) -> list[int]:
    """Agents whose ``max_regs`` becomes ``setmaxnreg`` (``.sync.aligned`` over a warpgroup):
    those in warpgroups that the agents touching them cover completely with one register count."""
    chosen = []
    for i, warps in enumerate(lists):
        ok = True
        for g in {w // 4 for w in warps}:
            members = [j for j, ws in enumerate(lists) if any(w // 4 == g for w in ws)]
            covered = {w for j in members for w in lists[j] if w // 4 == g}
            if covered != set(range(4 * g, 4 * g + 4)) or len({regs[j] for j in members}) != 1:
                ok = False
        if ok:
            chosen.append(i)
    return chosen


class KernelLowering(NamedOpRewrite):
    """``nv_tileas.kernel`` -> ``func.func`` marked ``nvvm.kernel`` (+ ``nvvm.maxntid``)."""

    OPS = ("nv_tileas.kernel",)

    def rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        body = op.regions[0].clone()
        for block in body.blocks:
            last = block.last_op
            if last is not None and last.name == "nv_tileas.async.pipeline.yield":
                last.detach()
                last.erase()
                block.add_op(func.ReturnOp())
        fn = func.FuncOp(op.properties["sym_name"].data, op.properties["function_type"], body)
        fn.attributes[nvvm.KERNEL_ATTR] = UnitAttr()
        if "max_threads" in op.properties:
            fn.attributes[nvvm.MAXNTID_ATTR] = op.properties["max_threads"]
        rewriter.replace(op, [fn], [])


# ---------------------------------------------------------------- expanded before the leaf patterns


class StageRegionExpansion(NamedOpRewrite):
    """``cutlass.pipeline.produce`` = acquire; body; commit.  ``consume`` = wait; body; release.
    TileAS producer/consumer regions already hold their handshake ops: their body is inlined."""

    OPS = ("cutlass.pipeline.produce", "cutlass.pipeline.consume",
           "nv_tileas.async.pipeline.producer", "nv_tileas.async.pipeline.consumer")

    def rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        block = op.regions[0].block
        results: list = []
        if op.name.startswith("nv_tileas"):
            term = block.last_op
            results = list(term.operands)
            rewriter.erase(term)
        pipe, state = op.operands[0], op.operands[1]
        head = tail = None
        if op.name == "cutlass.pipeline.produce":
            props = {"transaction_bytes": op.properties["transaction_bytes"]} if "transaction_bytes" in op.properties else {}
            head = cp.ProducerAcquireOp.create(operands=[pipe, state])
            tail = cp.ProducerCommitOp.create(operands=[pipe, state], properties=props)
        elif op.name == "cutlass.pipeline.consume":
            head = cp.ConsumerWaitOp.create(operands=[pipe, state])
            tail = cp.ConsumerReleaseOp.create(operands=[pipe, state])
        if op.name == "cutlass.pipeline.produce":
            elect_copies(op, block)
        if head is not None:
            copy_location(op, [head, tail])
            rewriter.insert(head, InsertPoint.before(op))
        rewriter.inline_block(block, InsertPoint.before(op))
        if tail is not None:
            rewriter.insert(tail, InsertPoint.before(op))
        rewriter.replace(op, [], results)


ISSUE_OPS = ("atom.bulk_copy_g2s", "nvvm.cp.async.bulk.shared.cluster.global",
             "nvvm.cp.async.bulk.tensor.shared.cluster.global")
"""Copies whose bytes complete on a stage's full barrier: each execution is one transfer."""


def elect_copies(op: Operation, block: Block) -> None:
    """The body of ``produce`` runs on every thread of the producer (the acquire's wait stays
    executor-wide), but each stage's copies must be issued once: a copy of the body that no
    ``scf.if`` of the body already guards runs on the first thread of its producer group only,
    the thread whose ``producer_commit`` arrives with the expected transaction bytes (CUTLASS
    issues the TMA loads and the ``arrive.expect_tx`` from one elected thread)."""
    from tileorch.dialects.cutlass.pipeline_facts import pipeline_info
    from tileorch.transforms.pipeline_to_nvvm.groups import group_range

    copies = [o for o in block.walk() if o.name in ISSUE_OPS and not _guarded(o, op)]
    if not copies:
        return
    info = pipeline_info(op, op.operands[0])
    for copy in copies:
        e = Emitter()
        tid = e.thread_id(op)
        leader = any_of(e, [in_thread_range(e, tid, group_range(op, info, m)[0], 1)
                            for m in info.producer_masks])
        parent = copy.parent_block()
        anchor = copy.next_op
        copy.detach()
        e.if_(leader, lambda inner, c=copy: inner.ops.append(c))
        copy_location(copy, e.ops)
        for new in e.ops:
            if anchor is None:
                parent.add_op(new)
            else:
                parent.insert_op_before(new, anchor)


def _guarded(copy: Operation, region_op: Operation) -> bool:
    parent = copy.parent_op()
    while parent is not None and parent is not region_op:
        if parent.name == "scf.if":
            return True
        parent = parent.parent_op()
    return False


class CreatePipelineBinding(NamedOpRewrite):
    """``create_pipeline`` names the cutlass pipeline it binds: it becomes that value."""

    OPS = ("nv_tileas.async.pipeline.create_pipeline",)

    def rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        cast = UnrealizedConversionCastOp.get([op.operands[0]], [op.results[0].type])
        rewriter.replace(op, [cast])


def expansion_patterns() -> list[RewritePattern]:
    return [StageRegionExpansion(), CreatePipelineBinding()]


def patterns(options: LoweringOptions) -> list[RewritePattern]:
    return [
        AsyncExecLowering(options),
        TileasAsyncExecLowering(options),
        PipelineSwitchByExecutorOpLowering(options),
        AgentSwitchLowering(options),
        KernelLowering(),
    ]

