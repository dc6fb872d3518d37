"""``tileas-insert-OCG-knobs`` (seed 003, D17): "emits OCG knobs as specific optimization hints
for the backend OCG compiler" (the scheduler inside ptxas).

Per function:

* ``.pragma "global knob SchedResBusyXU64=1";`` at function entry when the target is sm_100..103
  or sm_110 (``nv_tileaa.target_spec``, else the compute capability) and the function holds an
  MMA-family op (a TileAS dot on an MMA atom, ``nvvm.wgmma.mma_async``, ``tcgen05.mma``, or an
  inline-asm wgmma/tcgen05.mma);
* ``.pragma "next knob FenceCode";`` right before every async-pipeline fence/arrive and every
  mbarrier / cluster-barrier op, so ptxas keeps them in place.

Both are ``llvm.inline_asm`` with ``has_side_effects`` and no operands or constraints, so no
DCE/CSE removes them and they reach the PTX text.  The pass is idempotent.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects import llvm
from xdsl.ir import Operation
from xdsl.rewriter import InsertPoint, Rewriter

from tileorch.diagnostics import copy_location
from tileorch.dialects import nv_tileas_tile as ts
from tileorch.transforms.pass_kinds import FunctionTransform
from tileorch.transforms.tileas.common import entry_block, target_sm

BUSY_XU64 = '.pragma "global knob SchedResBusyXU64=1";\n'
FENCE_CODE = '.pragma "next knob FenceCode";\n'

# async-pipeline fence / arrive anchors
FENCE_ARRIVE = (
    "nvvm.fence.proxy", "nvvm.fence.mbarrier.init", "nvvm.wgmma.fence.aligned",
    "nv_tileas.async.pipeline.producer_commit", "nv_tileas.async.pipeline.consumer_release",
    "cutlass.pipeline.producer_commit", "cutlass.pipeline.consumer_release",
)
# mbarrier / cluster-barrier anchors (prefixes)
BARRIER_PREFIXES = ("nvvm.mbarrier.", "nvvm.cluster.arrive", "nvvm.cluster.wait", "nvvm.barrier.cluster")
MMA_NAMES = ("nvvm.wgmma.mma_async", "atom.wgmma_mma_async_reg_a", "nvvm.tcgen05.mma", "nv_tileas.async.dot")


def is_mma(op: Operation) -> bool:
    if isinstance(op, ts.DotOp):
        return isinstance(op.atom, ts.MMA_ATOMS)
    if op.name in MMA_NAMES or op.name.startswith("nvvm.tcgen05.mma"):
        return True
    if isinstance(op, llvm.InlineAsmOp):
        text = op.asm_string.data
        return "wgmma.mma_async" in text or "tcgen05.mma" in text
    return False


def is_fence_anchor(op: Operation) -> bool:
    return op.name in FENCE_ARRIVE or op.name.startswith(BARRIER_PREFIXES)


def busy_xu64_target(sm: int) -> bool:
    return 0 <= sm - 100 <= 3 or sm == 110


def knob(text: str) -> llvm.InlineAsmOp:
    return llvm.InlineAsmOp(text, "", [], has_side_effects=True)


def _is_knob(op: Operation | None, text: str) -> bool:
    return isinstance(op, llvm.InlineAsmOp) and op.asm_string.data == text


def insert_knobs(func: Operation) -> None:
    if busy_xu64_target(target_sm(func, default=0)) and any(is_mma(o) for o in func.walk()):
        block = entry_block(func)
        if not _is_knob(block.first_op, BUSY_XU64):
            k = knob(BUSY_XU64)
            copy_location(func, [k])
            Rewriter.insert_op(k, InsertPoint.at_start(block))
    for op in list(func.walk()):
        if is_fence_anchor(op) and not _is_knob(op.prev_op, FENCE_CODE):
            k = knob(FENCE_CODE)
            copy_location(op, [k])
            Rewriter.insert_op(k, InsertPoint.before(op))


@dataclass(frozen=True)
class InsertOCGKnobs(FunctionTransform):
    """ptxas scheduler knobs as side-effecting inline-asm pragmas."""

    name = "tileas-insert-OCG-knobs"
    transform = staticmethod(insert_knobs)
