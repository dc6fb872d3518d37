"""``convert-atoms-to-nvvm``: the ``atom`` dialect becomes upstream ``llvm``/``nvvm`` ops.

* ``atom.dynamic_smem`` -> ``llvm.mlir.addressof @__tileorch_dynamic_smem``, an external
  ``addrspace(3)`` zero-length byte array (PTX ``.extern .shared .align 1024 .b8 ...[]``) added
  to the module once;
* ``atom.bulk_copy_g2s`` -> ``llvm.addrspacecast`` of the destination to shared::cluster (an
  address of the own CTA is a valid cluster address) + ``nvvm.cp.async.bulk.shared.cluster.global``
  (with its ``multicast_mask``).

Before lowering, the pass refuses pipelines whose mbarrier words overlap and a stage copy whose destination
statically lands on a pipeline's mbarriers or on the bytes another copy of its stage writes
(:mod:`tileorch.analysis.static_copies`).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import llvm
from xdsl.dialects.builtin import IntAttr, ModuleOp, i8
from xdsl.ir import Operation
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (PatternRewriter, PatternRewriteWalker, RewritePattern,
                                   op_type_rewrite_pattern)

from tileorch.diagnostics import copy_location
from tileorch.dialects import nvvm
from tileorch.dialects.atoms import (DYNAMIC_SMEM_ALIGN, PTR_SHARED, BulkCopyG2SOp, DynamicSmemOp, StageFragmentOp,
                                     StoreFragmentOp)
from tileorch.dialects.llvm_ext import AddrSpaceCastOp
from tileorch.transforms.dead_ops import GreedyApplier
from tileorch.transforms.fixpoint import rewrite_to_fixpoint

DYNAMIC_SMEM_SYMBOL = "__tileorch_dynamic_smem"


def _ensure_dynamic_smem_global(module: ModuleOp) -> None:
    for op in module.body.block.ops:
        if isinstance(op, llvm.GlobalOp) and op.sym_name.data == DYNAMIC_SMEM_SYMBOL:
            return
    glob = llvm.GlobalOp(
        llvm.LLVMArrayType(IntAttr(0), i8), DYNAMIC_SMEM_SYMBOL, "external",
        addr_space=3, alignment=DYNAMIC_SMEM_ALIGN,
    )
    block = module.body.block
    if block.first_op is None:
        block.add_op(glob)
    else:
        block.insert_op_before(glob, block.first_op)


class LowerDynamicSmem(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: DynamicSmemOp, rewriter: PatternRewriter) -> None:
        addr = llvm.AddressOfOp(DYNAMIC_SMEM_SYMBOL, PTR_SHARED)
        copy_location(op, [addr])
        rewriter.replace(op, [addr])


class LowerBulkCopyG2S(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: BulkCopyG2SOp, rewriter: PatternRewriter) -> None:
        dst = AddrSpaceCastOp(op.dst, nvvm.PTR_SHARED_CLUSTER)
        copy = nvvm.CpAsyncBulkGlobalToSharedClusterOp(dst.result, op.src, op.mbar, op.bytes, op.multicast)
        copy_location(op, [dst, copy])
        rewriter.replace(op, [dst, copy], [])


class LowerFragment(RewritePattern):
    """``atom.store_fragment`` / ``atom.stage_fragment`` -> their per-thread expansion
    (:mod:`tileorch.transforms.store_fragment`)."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if type(op) not in _FRAGMENT_OPS:  # (most ops: no import, no table)
            return
        from tileorch.transforms.store_fragment import lower_stage_fragment, lower_store_fragment

        lower = {StoreFragmentOp: lower_store_fragment, StageFragmentOp: lower_stage_fragment}[type(op)]
        ops = lower(op)
        copy_location(op, ops)
        rewriter.replace(op, ops, [])


@dataclass(frozen=True)
class ConvertAtomsToNVVM(ModulePass):
    name = "convert-atoms-to-nvvm"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        dynamic_smem, copies, creates = False, [], []
        for o in op.walk():
            dynamic_smem = dynamic_smem or isinstance(o, DynamicSmemOp)
            if o.name in _STAGE_COPIES:
                copies.append(o)
            elif o.name == "cutlass.pipeline.create":
                creates.append(o)
        if creates:
            # before the atoms become nvvm copies (their destinations still the IR's geps): pipelines whose
            # mbarriers overlap, a stage copy that lands on mbarriers or on another copy of its stage are refused
            # here, not only by tileorch check
            from tileorch.analysis.static_copies import check_stage_copies

            check_stage_copies(copies, creates)
        if dynamic_smem:
            _ensure_dynamic_smem_global(op)
        walker = PatternRewriteWalker(
            GreedyApplier([LowerDynamicSmem(), LowerBulkCopyG2S(), LowerFragment()]))
        rewrite_to_fixpoint(walker, op.body, frozenset(c.name for c in _LOWERED))  # (by name: no subclasses)


_STAGE_COPIES = frozenset(("atom.bulk_copy_g2s", "nvvm.cp.async.bulk.shared.cluster.global",
                           "nvvm.cp.async.bulk.tensor.shared.cluster.global"))
"""The copies that may complete on a pipeline stage's full barrier (``analysis.transfers.COPIES``)."""
_FRAGMENT_OPS = (StoreFragmentOp, StageFragmentOp)
_LOWERED = (DynamicSmemOp, BulkCopyG2SOp, *_FRAGMENT_OPS)
"""The ops :class:`ConvertAtomsToNVVM`'s patterns act on."""
