"""``convert-arith-to-llvm``: ``arith`` ops -> ``llvm`` ops, one small pattern per op family.

``index`` is ``i64`` (see :mod:`index_to_llvm`).  Predicates of ``arith.cmpi``/``cmpf``
use the same integer encoding as ``llvm.icmp``/``fcmp`` and are copied.  min/max become
``icmp`` + ``select``; ``ceildivui`` becomes ``(a + b - 1) / b``.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects import arith, llvm
from xdsl.dialects.builtin import FloatAttr, IntegerAttr, IntegerType, i64
from xdsl.ir import Operation
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern

from tileorch.diagnostics import LocatedError, copy_location
from tileorch.dialects import llvm_ext
from tileorch.transforms.index_to_llvm import ToLLVMPass, llvm_type

BINARY: dict[type[Operation], type[Operation]] = {
    arith.AddiOp: llvm.AddOp,
    arith.SubiOp: llvm.SubOp,
    arith.MuliOp: llvm.MulOp,
    arith.DivUIOp: llvm.UDivOp,
    arith.DivSIOp: llvm.SDivOp,
    arith.RemUIOp: llvm.URemOp,
    arith.RemSIOp: llvm.SRemOp,
    arith.AndIOp: llvm.AndOp,
    arith.OrIOp: llvm.OrOp,
    arith.XOrIOp: llvm.XOrOp,
    arith.ShLIOp: llvm.ShlOp,
    arith.ShRUIOp: llvm.LShrOp,
    arith.ShRSIOp: llvm.AShrOp,
    arith.AddfOp: llvm.FAddOp,
    arith.SubfOp: llvm.FSubOp,
    arith.MulfOp: llvm.FMulOp,
    arith.DivfOp: llvm.FDivOp,
}

CASTS: dict[type[Operation], type[Operation]] = {
    arith.ExtUIOp: llvm.ZExtOp,
    arith.ExtSIOp: llvm.SExtOp,
    arith.TruncIOp: llvm.TruncOp,
    arith.SIToFPOp: llvm.SIToFPOp,
    arith.UIToFPOp: llvm_ext.UIToFPOp,
    arith.FPToSIOp: llvm_ext.FPToSIOp,
    arith.FPToUIOp: llvm_ext.FPToUIOp,
    arith.ExtFOp: llvm.FPExtOp,
    arith.TruncFOp: llvm.FPTruncOp,
    arith.BitcastOp: llvm.BitcastOp,
}

# (icmp predicate choosing lhs) for min/max: slt=2, sgt=4, ult=6, ugt=8
MINMAX: dict[type[Operation], int] = {
    arith.MinSIOp: 2,
    arith.MaxSIOp: 4,
    arith.MinUIOp: 6,
    arith.MaxUIOp: 8,
}


def _bits(t) -> int:
    return t.width.data if isinstance(t, IntegerType) else 64


def _index_cast(op: Operation, signed: bool) -> list[Operation]:
    src, dst = llvm_type(op.input.type), llvm_type(op.result.type)
    if _bits(src) == _bits(dst):
        return []
    if _bits(src) > _bits(dst):
        return [llvm.TruncOp(op.input, dst)]
    return [llvm.SExtOp(op.input, dst) if signed else llvm.ZExtOp(op.input, dst)]


class LowerArith(RewritePattern):
    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /):
        new = self.lower(op)
        if new is None:
            return
        copy_location(op, new)
        if new:
            rewriter.replace(op, new)
        else:  # a no-op cast (e.g. index_cast i64 <-> index)
            rewriter.replace(op, [], [op.operands[0]])

    @staticmethod
    def lower(op: Operation) -> list[Operation] | None:
        if not op.name.startswith("arith."):  # most ops of a lowered module: no type tests on them
            return None
        t = type(op)
        if t in BINARY:
            return [BINARY[t](op.lhs, op.rhs)]
        if t in CASTS:
            return [CASTS[t](op.input, llvm_type(op.result.type))]
        if isinstance(op, arith.ConstantOp):
            if not isinstance(op.value, IntegerAttr | FloatAttr):
                raise LocatedError(op, f"arith.constant of {op.value} has no llvm lowering")
            return [llvm.ConstantOp(op.value, llvm_type(op.result.type))]
        if isinstance(op, arith.CmpiOp):
            return [llvm.ICmpOp(op.lhs, op.rhs, IntegerAttr(op.predicate.value.data, i64))]
        if isinstance(op, arith.CmpfOp):
            return [llvm.FCmpOp(op.lhs, op.rhs, IntegerAttr(op.predicate.value.data, i64))]
        if isinstance(op, arith.SelectOp):
            return [llvm.SelectOp(op.cond, op.lhs, op.rhs)]
        if isinstance(op, arith.NegfOp):
            return [llvm.FNegOp(op.operand)]
        if t in MINMAX:
            cmp = llvm.ICmpOp(op.lhs, op.rhs, IntegerAttr(MINMAX[t], i64))
            return [cmp, llvm.SelectOp(cmp, op.lhs, op.rhs)]
        if isinstance(op, arith.CeilDivUIOp):
            one = llvm.ConstantOp(IntegerAttr(1, op.lhs.type), op.lhs.type)
            bm1 = llvm.SubOp(op.rhs, one.result)
            num = llvm.AddOp(op.lhs, bm1.res)
            return [one, bm1, num, llvm.UDivOp(num.res, op.rhs)]
        if isinstance(op, arith.IndexCastOp):
            return _index_cast(op, signed=True)
        if op.name == "arith.index_castui":
            return _index_cast(op, signed=False)
        if op.name.startswith("arith."):
            raise LocatedError(op, f"{op.name} has no llvm lowering in tileorch")
        return None


@dataclass(frozen=True)
class ConvertArithToLLVM(ToLLVMPass):
    """Lower every ``arith`` op to the ``llvm`` dialect (``index`` -> ``i64``)."""

    name = "convert-arith-to-llvm"
    PATTERNS = (LowerArith,)
