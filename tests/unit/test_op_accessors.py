"""``tileorch.transforms.op_accessors``: a named single operand or result (``op.lhs``,
``op.result``) reads the value xDSL's accessor reads, for ops of every registered dialect, and
the read is replaced only over the xDSL it mirrors."""

from __future__ import annotations

import importlib

import xdsl.irdl.operations as irdl_ops
from xdsl.dialects import arith, cf, llvm, scf
from xdsl.dialects.builtin import IntegerAttr, i1, i32, i64
from xdsl.ir import Block, Operation

import tileorch.transforms  # noqa: F401  (installs it)
from tileorch.registry import DIALECTS
from tileorch.transforms import op_accessors


def _named(op: Operation) -> dict[str, object]:
    """Each single-accessor name of ``op``'s class -> its value, read through the class's descriptors."""
    out = {}
    for cls in type(op).__mro__:
        for name, d in vars(cls).items():
            if isinstance(d, irdl_ops.BeforeVariadicSingleAccessor) and name not in out:
                out[name] = d.__get__(op, type(op))
    return out


def _xdsl(op: Operation) -> dict[str, object]:
    out = {}
    for cls in type(op).__mro__:
        for name, d in vars(cls).items():
            if isinstance(d, irdl_ops.BeforeVariadicSingleAccessor) and name not in out:
                out[name] = op_accessors._XDSL_GET(d, op, type(op))
    return out


def test_installed_over_the_xdsl_it_mirrors():
    assert op_accessors._mirrors_xdsl()
    assert irdl_ops.BeforeVariadicSingleAccessor.__get__ is op_accessors.fast_get
    assert op_accessors.install()  # a second install keeps it


def test_same_values_as_xdsls_accessor():
    a, b, c = Block(arg_types=[i32, i32, i1]).args
    dest = Block(arg_types=[i32])
    ops = [arith.AddiOp(a, b), arith.SelectOp(c, a, b), arith.CmpiOp(a, b, "slt"), llvm.AddOp(a, b),
           llvm.ICmpOp(a, b, IntegerAttr(2, i64)), llvm.ZExtOp(a, i64), cf.ConditionalBranchOp(c, dest, [a], dest, [b]),
           scf.IfOp(c, [i32], [scf.YieldOp(a)], [scf.YieldOp(b)]),
           llvm.InlineAsmOp("mov.b32 $0, $1;", "=r,r", [a], [i32])]
    seen = 0
    for op in ops:
        fast, xdsl = _named(op), _xdsl(op)
        assert fast.keys() == xdsl.keys() and all(fast[k] is xdsl[k] for k in fast), op.name
        seen += len(fast)
    assert seen >= 15
    # a replaced operand is read as replaced
    op = arith.AddiOp(a, b)
    op.operands[0] = c
    assert op.lhs is c


def test_class_level_read_is_xdsls():
    """``AddiOp.lhs`` (no op): whatever xDSL's accessor does there, the replacement does too."""
    d = vars(arith.AddiOp).get("lhs") or next(vars(c)["lhs"] for c in arith.AddiOp.__mro__ if "lhs" in vars(c))
    results = []
    for get in (op_accessors.fast_get, op_accessors._XDSL_GET):
        try:
            results.append(("value", get(d, None, arith.AddiOp)))
        except Exception as exc:  # noqa: BLE001 - compared by type
            results.append(("error", type(exc)))
    assert results[0] == results[1]


def test_no_op_class_redefines_operands_or_results():
    """fast_get reads ``_operands`` / ``results`` for ``operands`` / ``results``: true for every op
    class of every dialect the registry lists (none redefines them)."""
    from xdsl.dialects import func

    checked = 0
    dialects = [getattr(importlib.import_module(ref.partition(":")[0]), ref.partition(":")[2]) for ref in DIALECTS.values()]
    for dialect in dialects + [arith.Arith, llvm.LLVM, scf.Scf, cf.Cf, func.Func]:
        for op in dialect.operations:
            for cls in op.__mro__:
                if cls is Operation:
                    break
                assert "operands" not in vars(cls) and "results" not in vars(cls), op.name
            checked += 1
    assert checked > 300


def _all_accessors(op: Operation) -> dict[str, object]:
    """Each accessor of ``op``'s class other than the before-variadic single one -> the descriptor."""
    out = {}
    for cls in type(op).__mro__:
        for name, d in vars(cls).items():
            if (isinstance(d, (irdl_ops.BaseAccessor, irdl_ops.BaseAttrAccessor))
                    and not isinstance(d, irdl_ops.BeforeVariadicSingleAccessor) and name not in out):
                out[name] = d
    return out


def _read(d, op: Operation, xdsl: bool) -> object:
    if xdsl:
        get = op_accessors._XDSL_ATTR_GET if isinstance(d, irdl_ops.BaseAttrAccessor) else op_accessors._XDSL_BASE_GET
        value = get(d, op, type(op))
    else:
        value = d.__get__(op, type(op))
    if isinstance(value, tuple):
        return ("seq", type(value), tuple(id(v) for v in value))
    return ("one", id(value))


def _variadic_ops() -> list[Operation]:
    from xdsl.dialects import memref
    from xdsl.dialects.builtin import IndexType, f32

    a, b, c = Block(arg_types=[i32, i32, i1]).args
    x = Block(arg_types=[f32]).args[0]
    dest, other = Block(arg_types=[i32]), Block(arg_types=[i32, i32])
    ptr = Block(arg_types=[llvm.LLVMPointerType()]).args[0]
    tag, idx = Block(arg_types=[memref.MemRefType(i32, [4, 4]), IndexType()]).args
    return [llvm.CondBrOp(c, dest, [a], other, [a, b]), llvm.CondBrOp(c, dest, [b], dest, [a]),
            cf.ConditionalBranchOp(c, dest, [a], other, [b, a]), llvm.BrOp(other, a, b), cf.BranchOp(dest, b),
            llvm.CallIntrinsicOp("llvm.nvvm.read.ptx.sreg.tid.x", [], [i32]),
            llvm.CallIntrinsicOp("llvm.fma.f32", [x, x, x], [f32]),
            llvm.InlineAsmOp("mov.b32 $0, $1;", "=r,r", [a], [i32]), scf.YieldOp(a, b),
            llvm.GEPOp.from_mixed_indices(ptr, [0, a, 3, b], i32), llvm.GEPOp(ptr, [1], i32),
            scf.ForOp(a, b, b, [a, c], Block(arg_types=[i32, i32, i1])), llvm.ReturnOp(a), llvm.ReturnOp(),
            memref.DmaWaitOp.create(operands=[tag, idx, idx, idx])]  # (num_elements: a single operand after a variadic one)


def test_other_accessors_read_what_xdsls_read():
    """Variadic, optional, after-variadic, successor and segment-size accessors (``fast_base_get``,
    ``fast_attr_get``): the same values (by identity) in the same kind of sequence as xDSL's ``__get__``."""
    assert irdl_ops.BaseAccessor.__get__ is op_accessors.fast_base_get
    assert irdl_ops.BaseAttrAccessor.__get__ is op_accessors.fast_attr_get
    seen = set()
    for op in _variadic_ops():
        for name, d in _all_accessors(op).items():
            assert _read(d, op, xdsl=False) == _read(d, op, xdsl=True), (op.name, name)
            assert _read(d, op, xdsl=False) == _read(d, op, xdsl=False)  # (the memo's second read)
            seen.add(type(d))
    assert {irdl_ops.UniqueVariadicAccessor, irdl_ops.VariadicAttrAccessor, irdl_ops.SingleAttrAccessor,
            irdl_ops.SameOptionalAccessor, irdl_ops.AfterVariadicSingleAccessor} <= seen
    # an operand replaced through the view is read as replaced
    a, b, c = Block(arg_types=[i32, i32, i1]).args
    dest = Block(arg_types=[i32])
    op = llvm.CondBrOp(c, dest, [a], dest, [b])
    op.operands[2] = a
    assert tuple(op.else_arguments) == (a,)


def test_other_accessors_make_no_view(monkeypatch):
    """Reading ``op.then_arguments`` / ``op.then_block`` / a GEP's ``ssa_indices`` makes no
    ``OpOperands`` / ``OpSuccessors`` view (xDSL made one per read)."""
    ops = _variadic_ops()

    def no_view(self):
        raise AssertionError("a view was made")

    monkeypatch.setattr(Operation, "operands", property(no_view))
    monkeypatch.setattr(Operation, "successors", property(no_view))
    for op in ops:
        for name, d in _all_accessors(op).items():
            if d.construct is not irdl_ops.VarIRConstruct.REGION:
                d.__get__(op, type(op))
    # the single successors too (``fast_get``)
    assert ops[0].then_block is not None and ops[3].successor is not None and ops[2].else_block is not None


def test_other_accessors_class_level_read_is_xdsls():
    d = _all_accessors(_variadic_ops()[0])["then_arguments"]
    results = []
    for get in (op_accessors.fast_attr_get, op_accessors._XDSL_ATTR_GET):
        try:
            results.append(("value", get(d, None, llvm.CondBrOp)))
        except Exception as exc:  # noqa: BLE001 - compared by type
            results.append(("error", type(exc)))
    assert results[0] == results[1]


def test_segment_memo_is_bounded(monkeypatch):
    monkeypatch.setattr(op_accessors, "_SEGMENT_VALUES_MAX", 2)
    op_accessors._SEGMENT_VALUES.clear()
    a, b, c = Block(arg_types=[i32, i32, i1]).args
    dest = Block(arg_types=[i32, i32, i32, i32])
    for n in range(1, 5):
        op = llvm.CondBrOp(c, dest, [a] * n, dest, [b] * (4 - n))
        assert tuple(op.then_arguments) == (a,) * n and tuple(op.else_arguments) == (b,) * (4 - n)
        assert len(op_accessors._SEGMENT_VALUES) <= 2
