"""Lowering of the ``nvvm`` payload ops (TMA, WGMMA, stmatrix, PDL) to LLVM 22 intrinsics.

One small function per op, collected by :func:`lowerings` (merged into
:data:`tileorch.transforms.nvvm_to_llvm.LOWERINGS`).  ``nvvm.wgmma.mma_async`` has no intrinsic and becomes side-effecting inline
asm whose ``=f`` outputs are tied to the accumulator inputs (``0``..``N-1``), so the fragment
stays in the same registers across k-steps.  ``nvvm.mma.sync`` is an ``llvm.nvvm.mma.*`` intrinsic,
inline asm for e4m3/e5m2 inputs (LLVM 22 has no intrinsic for them); ``nvvm.ldmatrix`` the
``llvm.nvvm.ldmatrix.sync.aligned.m8n8.x{1,2,4}.b16`` intrinsic.  A CTA-only TMA load (``g2s.cta``) needs PTX 8.6.
"""

from __future__ import annotations

from xdsl.dialects import llvm
from xdsl.dialects.builtin import IntAttr, IntegerType, i1, i32, i64

from tileorch.analysis.kernel_params import is_byval_kernel_param
from tileorch.diagnostics import LocatedError
from tileorch.dialects import nvvm_payload as P
from tileorch.dialects.llvm_ext import AddrSpaceCastOp
from tileorch.transforms.attr_cache import position
from tileorch.transforms.op_table import op_table

I16 = IntegerType(16)

PARAM_SPACE = 101
"""NVPTX's kernel-parameter address space (``ptr addrspace(101)``: ``ld.param``, ``prefetch.param.tensormap``)."""


def lowerings() -> dict:
    """The lowering of each payload (TMA, WGMMA, stmatrix, PDL) op, by op class (merged into
    :data:`tileorch.transforms.nvvm_to_llvm.LOWERINGS`)."""
    table, lowering = op_table()

    @lowering(P.CpAsyncBulkTensorGlobalToSharedClusterOp)
    def _g2s(op, e):
        if op.predicate is not None:
            raise LocatedError(op, "a predicated TMA load is not supported by the LLVM lowering; branch around it")
        n = len(op.coordinates)
        hint = op.l2CacheHint if op.l2CacheHint is not None else e.const(0, i64)
        if op.isCTAOnly is not None:
            e.call(f"llvm.nvvm.cp.async.bulk.tensor.g2s.cta.tile.{n}d",
                   [op.dstMem, op.mbar, op.tmaDescriptor, *op.coordinates, hint,
                    e.const(int(op.l2CacheHint is not None), i1)])
            return None
        mask = op.multicastMask if op.multicastMask is not None else e.const(0, I16)
        e.call(f"llvm.nvvm.cp.async.bulk.tensor.g2s.tile.{n}d",
               [op.dstMem, op.mbar, op.tmaDescriptor, *op.coordinates, mask, hint,
                e.const(int(op.multicastMask is not None), i1), e.const(int(op.l2CacheHint is not None), i1),
                e.const(0, i32)])
        return None

    def _hint(op, e):
        hint = op.l2CacheHint if op.l2CacheHint is not None else e.const(0, i64)
        return [hint, e.const(int(op.l2CacheHint is not None), i1)]

    def _tensor_call(op, e, kind: str, *lead):
        """``llvm.nvvm.cp.async.bulk.tensor.<kind>.tile.<n>d`` on ``lead``, the descriptor, the n
        coordinates and the optional L2 cache hint."""
        e.call(f"llvm.nvvm.cp.async.bulk.tensor.{kind}.tile.{len(op.coordinates)}d",
               [*lead, op.tmaDescriptor, *op.coordinates, *_hint(op, e)])

    @lowering(P.CpAsyncBulkTensorSharedCTAToGlobalOp)
    def _s2g(op, e):
        _tensor_call(op, e, "s2g", op.srcMem)

    @lowering(P.CpAsyncBulkTensorReduceOp)
    def _reduce(op, e):
        _tensor_call(op, e, f"reduce.{op.redKind.data.value}", op.srcMem)

    @lowering(P.CpAsyncBulkTensorPrefetchOp)
    def _prefetch_tensor(op, e):
        _tensor_call(op, e, "prefetch")

    @lowering(P.PrefetchOp)
    def _prefetch(op, e):
        if is_byval_kernel_param(op.addr):  # a tensor map passed by value: its parameter-space address
            param = e.add(AddrSpaceCastOp(op.addr, llvm.LLVMPointerType(IntAttr(PARAM_SPACE)))).results[0]
            e.call(f"llvm.nvvm.prefetch.tensormap.p{PARAM_SPACE}", [param])
            return None
        e.call("llvm.nvvm.prefetch.tensormap.p0", [op.addr])
        return None

    @lowering(P.StMatrixOp)
    def _stmatrix(op, e):
        trans = ".trans" if op.layout.data == P.MMALayout.COL else ""
        e.call(f"llvm.nvvm.stmatrix.sync.aligned.m8n8.x{len(op.sources)}{trans}.b16.p3", [op.ptr, *op.sources])
        return None

    @lowering(P.GriddepcontrolOp)
    def _griddep(op, e):
        name = "wait" if op.kind.data == P.GridDepAction.WAIT else "launch.dependents"
        e.call(f"llvm.nvvm.griddepcontrol.{name}", [])
        return None

    @lowering(P.WgmmaMmaAsyncOp)
    def _wgmma(op, e):
        return e.add(wgmma_inline_asm(op, e)).results[0]

    @lowering(P.WgmmaMmaAsyncRegisterAOp)
    def _wgmma_reg_a(op, e):
        return e.add(wgmma_register_a_inline_asm(op, e)).results[0]

    @lowering(P.LdMatrixOp)
    def _ldmatrix(op, e):
        return e.call(f"llvm.nvvm.ldmatrix.sync.aligned.m8n8.x{op.num.value.data}.b16", [op.ptr], op.res.type)

    @lowering(P.MmaSyncOp)
    def _mma_sync(op, e):
        args = [*op.operandA, *op.operandB, *op.operandC]
        name = mma_sync_intrinsic(op)
        if name is not None:
            return e.call(name, args, op.res.type)
        return e.add(llvm.InlineAsmOp(mma_sync_asm_text(op), ",".join(["=f"] * 4 + ["r"] * 6 + ["f"] * 4), args,
                                      [op.res.type], has_side_effects=True)).results[0]  # kept in place: warp-wide

    return table


def mma_sync_intrinsic(op: P.MmaSyncOp) -> str | None:
    """The LLVM 22 intrinsic of an ``nvvm.mma.sync`` (``llvm.nvvm.mma.m16n8kK.row.col.<signature>``:
    f16 names its D and C types, bf16/tf32 their input type, s8/u8 both inputs when they differ),
    or None for e4m3/e5m2 inputs, which LLVM 22 has no intrinsic for."""
    ta, tb = op.multiplicandAPtxType.data, op.multiplicandBPtxType.data
    shape = f"m{op.shape.m.data}n{op.shape.n.data}k{op.shape.k.data}"
    if ta in P.MMA_SYNC_FP8:
        return None
    if ta == P.MMATypes.F16:
        signature = "f32.f32"
    elif ta in P.MMA_SYNC_INT:
        signature = ta.value if ta == tb else f"{ta.value}.{tb.value}"
    else:
        signature = ta.value
    return f"llvm.nvvm.mma.{shape}.row.col.{signature}"


def mma_sync_asm_text(op: P.MmaSyncOp) -> str:
    """The PTX of an ``nvvm.mma.sync`` of e4m3/e5m2 inputs (sm_89+, PTX ISA 8.4; no LLVM intrinsic):
    ``$0..$3`` D (f32), ``$4..$7`` A, ``$8..$9`` B, ``$10..$13`` C."""
    ta, tb = op.multiplicandAPtxType.data.value, op.multiplicandBPtxType.data.value
    return (f"mma.sync.aligned.m16n8k32.row.col.f32.{ta}.{tb}.f32 {{$0, $1, $2, $3}}, {{$4, $5, $6, $7}}, "
            "{$8, $9}, {$10, $11, $12, $13};")


def wgmma_asm_text(op: P.WgmmaMmaAsyncOp) -> tuple[str, str]:
    """(PTX template, constraints) of one ``wgmma.mma_async`` with ``N/2`` tied f32 registers
    (s8/u8 inputs: ``N/2`` tied s32 registers, ``.s32.{s8|u8}.{s8|u8}``, no operand scales)."""
    n = op.shape.n.data
    regs = P.accumulator_size(n, op.typeD.data)
    t, tb_name, td = op.typeA.data.value, op.typeB.data.value, op.typeD.data.value
    scale_d = 1 if op.scaleD.data == P.WGMMAScaleOut.ONE else 0
    sa = 1 if op.scaleA.data == P.WGMMAScaleIn.ONE else -1
    sb = 1 if op.scaleB.data == P.WGMMAScaleIn.ONE else -1
    ta = int(op.layoutA.data == P.MMALayout.COL)
    tb = int(op.layoutB.data == P.MMALayout.ROW)
    outs = ", ".join(f"${i}" for i in range(regs))
    integer = op.typeA.data in P.WGMMA_INT
    # imm-trans-a/b exist only for 16-bit inputs (fp8/tf32/int8 operands are K-major); imm-scale-a/b
    # (operand negation) only for float inputs
    trans = f", {ta}, {tb}" if t in ("f16", "bf16") else ""
    scales = "" if integer else f", {sa}, {sb}"
    sat = ".satfinite" if op.satfinite is not None else ""
    text = (
        "{\n.reg .pred p;\n"
        f"setp.ne.b32 p, {scale_d}, 0;\n"
        f"wgmma.mma_async.sync.aligned.m64n{n}k{op.shape.k.data}.{td}.{t}.{tb_name}{sat} "
        f"{{{outs}}}, ${regs}, ${regs + 1}, p{scales}{trans};\n}}"
    )
    tied = [str(i) for i in range(regs)] if op.inouts is not None else []
    constraints = ",".join(["=r" if integer else "=f"] * regs + ["l", "l"] + tied)
    return text, constraints


def wgmma_inline_asm(op: P.WgmmaMmaAsyncOp, e) -> llvm.InlineAsmOp:
    text, constraints = wgmma_asm_text(op)
    regs = P.accumulator_size(op.shape.n.data, op.typeD.data)
    fields = []
    if op.inouts is not None:
        ftype = op.inouts.type.types.data[0]
        for i in range(regs):
            fields.append(e.add(llvm.ExtractValueOp(position(i), op.inouts, ftype)).results[0])
    return llvm.InlineAsmOp(text, constraints, [op.descriptorA, op.descriptorB, *fields],
                            [op.results_.type], has_side_effects=True)


def wgmma_register_a_asm_text(op: P.WgmmaMmaAsyncRegisterAOp) -> tuple[str, str]:
    """(PTX template, constraints) of one ``wgmma.mma_async`` with A from registers: ``$0..$(N/2-1)`` the
    f32 accumulator (tied to the inputs after the descriptor), then the four A registers and B's
    descriptor; scale-d 1, no operand negation, ``imm-trans-b`` from ``layoutB`` (register A has no
    transpose)."""
    n = op.n.value.data
    regs = P.accumulator_size(n, P.WGMMAType.F32)
    t = op.typeAB.data.value
    tb = int(op.layoutB.data == P.MMALayout.ROW)
    outs = ", ".join(f"${i}" for i in range(regs))
    a = ", ".join(f"${regs + i}" for i in range(4))
    text = ("{\n.reg .pred p;\nsetp.ne.b32 p, 1, 0;\n"
            f"wgmma.mma_async.sync.aligned.m64n{n}k16.f32.{t}.{t} {{{outs}}}, {{{a}}}, ${regs + 4}, p, 1, 1, {tb};\n}}")
    constraints = ",".join(["=f"] * regs + ["r"] * 4 + ["l"] + [str(i) for i in range(regs)])
    return text, constraints


def wgmma_register_a_inline_asm(op: P.WgmmaMmaAsyncRegisterAOp, e) -> llvm.InlineAsmOp:
    text, constraints = wgmma_register_a_asm_text(op)
    ftype = op.inouts.type.types.data[0]
    fields = [e.add(llvm.ExtractValueOp(position(i), op.inouts, ftype)).results[0]
              for i in range(P.accumulator_size(op.n.value.data, P.WGMMAType.F32))]
    return llvm.InlineAsmOp(text, constraints, [*op.a_fragment, op.descriptorB, *fields], [op.results_.type],
                            has_side_effects=True)
