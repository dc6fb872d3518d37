"""``cute_nvgpu``: the Blackwell cluster copy / handshake atoms that seed 003's emitters rewrite.

In NVIDIA's compiler these emitters live at the ``ConvertTileASToLLVM`` boundary and rewrite
``cute_nvgpu`` atoms (seed 003: BG06, S01, S02).  tileorch keeps the atoms as small ops and lowers
them with ``convert-blackwell-cluster-emitters`` (:mod:`tileorch.transforms.blackwell_cluster_emitters`):

* ``cute_nvgpu.atom.s2t_copy %tmem, %desc (, %mbar)? {cta_group = 1|2|4, cols = N, shape = ...}``:
  an SMEM -> TMEM copy atom (``tcgen05.cp``) for a 1-, 2- or 4-CTA MMA.  ``cols`` is the TMEM
  column extent of the destination tile (sliced into quarters by rank for 4 CTAs).  With an mbarrier,
  the copy's completion is committed to it (``tcgen05.commit``, multicast to the CTA pair).  Executed
  by one whole, converged warp of each CTA (the rank predicate is made warp-uniform with a
  full-mask shuffle); one elected lane issues the copy.
* ``cute_nvgpu.arch.make_warp_uniform %v : i1`` (or ``i32``): lane 0's value for the whole warp.
* ``cute_nvgpu.arch.mbarrier_init %mbar {cta_group = 1|2, count = N}``: the (2-CTA) mbarrier-init
  helper of S02.
* ``cute_nvgpu.cluster_handshake %mbar, %flag, %peer, %tx {relaxed}``: the consumer-side DSMEM
  handshake of S01 (single-CTA bypass when the kernel's cluster has one CTA).
"""

from __future__ import annotations

from typing import ClassVar

from xdsl.dialects.builtin import I32, IntegerAttr, IntegerType, UnitAttr, i1, i32
from xdsl.dialects.llvm import LLVMPointerType
from xdsl.ir import Dialect
from xdsl.irdl import (IRDLOperation, ParsePropInAttrDict, VarConstraint, base, irdl_op_definition, operand_def,
                       opt_operand_def, opt_prop_def, prop_def, result_def, traits_def)
from xdsl.traits import MemoryReadEffect, MemoryWriteEffect
from xdsl.utils.exceptions import VerifyException

from tileorch.dialects.nvvm_common import address_space
from tileorch.dialects.nvvm_tcgen05 import CP_MULTICAST, Tcgen05CpMulticastAttr, Tcgen05CpShapeAttr

SIDE_EFFECTS = (MemoryReadEffect(), MemoryWriteEffect())
I64 = IntegerType(64)
MBARRIER_MAX_COUNT = (1 << 20) - 1


@irdl_op_definition
class S2tCopyOp(IRDLOperation):
    """SMEM -> TMEM copy atom; ``cta_group`` = the number of CTAs of the MMA it feeds (1, 2 or 4)."""

    name = "cute_nvgpu.atom.s2t_copy"
    tmem = operand_def(LLVMPointerType)
    smem_desc = operand_def(I64)
    mbar = opt_operand_def(LLVMPointerType)
    cta_group = prop_def(IntegerAttr[I32])
    cols = prop_def(IntegerAttr[I32])
    shape = prop_def(Tcgen05CpShapeAttr)
    multicast = opt_prop_def(Tcgen05CpMulticastAttr)
    traits = traits_def(*SIDE_EFFECTS)
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$tmem `,` $smem_desc (`,` $mbar^)? attr-dict `:` type($tmem) (`,` type($mbar)^)?"

    def group(self) -> int:
        return self.cta_group.value.data

    def verify_(self) -> None:
        n, cols = self.group(), self.cols.value.data
        if n not in (1, 2, 4):
            raise VerifyException(f"cta_group must be 1, 2 or 4 (CTAs of the MMA the copy feeds), got {n}")
        if address_space(self.tmem) != 6:
            raise VerifyException(f"the destination must be a TMEM address !llvm.ptr<6>, got {self.tmem.type}")
        if cols <= 0 or cols % n:
            raise VerifyException(f"cols must be a positive multiple of cta_group ({n}) to slice the TMEM tile, got {cols}")
        mc = self.multicast.data.value if self.multicast is not None else "none"
        if mc not in CP_MULTICAST[self.shape.data.value]:
            raise VerifyException(f"copy shape {self.shape.data.value} allows multicast "
                                  f"{' or '.join(CP_MULTICAST[self.shape.data.value])}, got {mc}")
        # an mbarrier in another address space is reported by the emitter ("Failed to init mbarrier")


@irdl_op_definition
class MakeWarpUniformOp(IRDLOperation):
    """``%u = cute_nvgpu.arch.make_warp_uniform %v : i1``: the value of lane 0 in every lane
    (``shfl.sync.idx`` with the full mask), so a branch on it is warp-uniform."""

    name = "cute_nvgpu.arch.make_warp_uniform"
    T: ClassVar = VarConstraint("T", base(IntegerType))
    value = operand_def(T)
    result = result_def(T)
    traits = traits_def(*SIDE_EFFECTS)  # a warp-collective shuffle: not CSE'd across control flow
    assembly_format = "$value attr-dict `:` type($value)"

    def __init__(self, value):
        from xdsl.ir import SSAValue

        super().__init__(operands=[value], result_types=[SSAValue.get(value).type])

    def verify_(self) -> None:
        if self.value.type not in (i1, i32):
            raise VerifyException(f"make_warp_uniform takes i1 or i32, got {self.value.type}")
        # the result's type is the operand's: the constraint variable T, checked before this


@irdl_op_definition
class MbarrierInitOp(IRDLOperation):
    """The mbarrier-init helper: thread 0 initialises ``mbar`` with ``count`` arrivals; for a
    2-CTA group the init is fenced to the cluster (the peer CTA arrives on it) and the cluster
    synchronises, otherwise the CTA does."""

    name = "cute_nvgpu.arch.mbarrier_init"
    mbar = operand_def(LLVMPointerType)
    cta_group = prop_def(IntegerAttr[I32])
    count = prop_def(IntegerAttr[I32])
    traits = traits_def(*SIDE_EFFECTS)
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$mbar attr-dict `:` type($mbar)"

    def verify_(self) -> None:
        if self.cta_group.value.data not in (1, 2):
            raise VerifyException(f"mbarrier_init cta_group must be 1 or 2, got {self.cta_group.value.data}")


@irdl_op_definition
class ClusterHandshakeOp(IRDLOperation):
    """Consumer-side DSMEM handshake (seed 003 S01) on the local mbarrier ``mbar``: expect ``tx``
    bytes, toggle the phase word ``flag`` in CTA ``peer``'s shared memory, then a cluster
    arrive (``relaxed``: after an explicit ``fence.release.cluster``) and wait.  ``num_ctas``
    overrides the cluster size read from the kernel (``nvvm.cluster_dim`` / ``cutlass.cluster_shape``)."""

    name = "cute_nvgpu.cluster_handshake"
    mbar = operand_def(LLVMPointerType)
    flag = operand_def(LLVMPointerType)
    peer = operand_def(I32)
    tx = operand_def(I32)
    relaxed = opt_prop_def(UnitAttr)
    num_ctas = opt_prop_def(IntegerAttr[I32])
    traits = traits_def(*SIDE_EFFECTS)
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$mbar `,` $flag `,` $peer `,` $tx attr-dict `:` type($mbar) `,` type($flag)"

    def verify_(self) -> None:
        for what, v in (("mbarrier", self.mbar), ("flag", self.flag)):
            if address_space(v) != 3:
                raise VerifyException(f"the {what} must be a shared::cta address !llvm.ptr<3>, got {v.type}")
        if self.num_ctas is not None and not 1 <= self.num_ctas.value.data <= 16:
            raise VerifyException(f"num_ctas must be in [1, 16], got {self.num_ctas.value.data}")


CuteNvgpu = Dialect("cute_nvgpu", [S2tCopyOp, MakeWarpUniformOp, MbarrierInitOp, ClusterHandshakeOp], [])
