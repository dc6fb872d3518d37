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
