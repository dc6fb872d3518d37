"""``tileorch.transforms.op_init.fast_irdl_op_init`` builds the op xDSL's ``irdl_op_init``
builds (operands, result types, properties, attributes, defaults filled in, generic print),
also for variadic/optional operands, results and successors, and leaves every other case
(regions, options, an ``Operation`` as an operand, wrong counts) to ``irdl_op_init``, with its
errors."""

from __future__ import annotations

import pytest
import xdsl.irdl.operations as irdl_ops
from xdsl.dialects import arith, cf, llvm, scf
from xdsl.dialects.builtin import FloatAttr, IntegerAttr, StringAttr, f32, i1, i32, i64
from xdsl.ir import Block

from tileorch.transforms import op_init


def _state(op):
    return (type(op), [id(o) for o in op.operands], [r.type for r in op.results], list(op.properties.items()),
            list(op.attributes.items()), len(op.regions), list(op.successors))


def _both(build):
    """The op ``build()`` makes with the fast builder and with xDSL's."""
    assert irdl_ops.irdl_op_init is op_init.fast_irdl_op_init  # the package installs it
    fast = build()
    irdl_ops.irdl_op_init = op_init._XDSL_OP_INIT
    try:
        slow = build()
    finally:
        irdl_ops.irdl_op_init = op_init.fast_irdl_op_init
    return fast, slow


def test_plain_ops_are_built_as_xdsl_builds_them():
    a, b, c = Block(arg_types=[i32, i32, i1]).args
    x, y = Block(arg_types=[f32, f32]).args
    builders = [
        lambda: llvm.AddOp(a, b), lambda: llvm.FAddOp(x, y), lambda: llvm.ZExtOp(a, i64),
        lambda: llvm.ConstantOp(IntegerAttr(3, i32), i32), lambda: llvm.ICmpOp(a, b, IntegerAttr(2, i64)),
        lambda: llvm.SelectOp(c, a, b), lambda: arith.AddiOp(a, b), lambda: arith.ConstantOp(FloatAttr(1.5, f32)),
        lambda: arith.CmpiOp(a, b, "slt"), lambda: llvm.AddOp(a, b, attributes={"tag": StringAttr("t")}),
    ]
    for build in builders:
        fast, slow = _both(build)
        assert _state(fast) == _state(slow), build


def test_other_shapes_go_through_xdsl():
    a, b, c = Block(arg_types=[i32, i32, i1]).args
    dest = Block(arg_types=[i32])
    region_builders = [
        lambda: scf.IfOp(c, [], [scf.YieldOp()]),  # regions
        lambda: arith.SelectOp(arith.CmpiOp(a, b, "slt"), a, b),  # an Operation for an operand
    ]
    for build in region_builders:
        fast, slow = _both(build)
        assert _state(fast)[0] is _state(slow)[0]
        assert [r.type for r in fast.results] == [r.type for r in slow.results]
        assert len(fast.operands) == len(slow.operands) and len(fast.successors) == len(slow.successors)


def test_wrong_arguments_raise_xdsls_errors():
    a, b = Block(arg_types=[i32, i32]).args
    messages = []
    for init in (op_init.fast_irdl_op_init, op_init._XDSL_OP_INIT):
        irdl_ops.irdl_op_init = init
        try:
            with pytest.raises(ValueError) as info:
                irdl_ops.IRDLOperation.__init__(llvm.AddOp.__new__(llvm.AddOp), operands=[a], result_types=[i32])
            messages.append(str(info.value))
            with pytest.raises(ValueError) as info:
                irdl_ops.IRDLOperation.__init__(arith.AddiOp.__new__(arith.AddiOp), operands=[a, None],
                                                result_types=[i32])
            messages.append(str(info.value))
        finally:
            irdl_ops.irdl_op_init = op_init.fast_irdl_op_init
    assert messages[:2] == messages[2:]
    assert "Expected 2 operand" in messages[0]


def test_variadic_operands_results_and_successors_are_built_as_xdsl_builds_them(monkeypatch):
    from xdsl.dialects import func

    a, b, c = Block(arg_types=[i32, i32, i1]).args
    p = Block(arg_types=[llvm.LLVMPointerType()]).args[0]
    dest, other = Block(arg_types=[i32]), Block()
    builders = [
        lambda: cf.BranchOp(dest, a), lambda: cf.BranchOp(other), lambda: llvm.BrOp(dest, a),
        lambda: scf.YieldOp(a, b), lambda: scf.YieldOp(), lambda: func.ReturnOp(a),
        lambda: llvm.InlineAsmOp("mov.b32 $0, $1;", "=r,r", [a], [i32]),
        lambda: llvm.InlineAsmOp("bar.sync 0;", "", [], []),  # no result: the optional result absent
        lambda: llvm.GEPOp(p, [1, 2], pointee_type=llvm.LLVMArrayType(4, i32)),
        lambda: llvm.GEPOp(p, [llvm.GEP_USE_SSA_VAL], ssa_indices=[a], pointee_type=i32),
        lambda: cf.ConditionalBranchOp(c, dest, [a], other, []),  # options (segment sizes): xDSL's
    ]
    for build in builders:
        fast, slow = _both(build)
        assert _state(fast) == _state(slow), build
        assert str(fast) == str(slow)
    slow_calls = []
    real = op_init._XDSL_OP_INIT
    monkeypatch.setattr(op_init, "_XDSL_OP_INIT",
                        lambda *args, **kw: slow_calls.append(args[1].name) or real(*args, **kw))
    for build in builders:
        build()
    assert slow_calls == ["cf.cond_br"]  # the only one not built directly


def test_variadic_ops_with_wrong_arguments_raise_xdsls_errors():
    a = Block(arg_types=[i32]).args[0]
    dest = Block(arg_types=[i32])
    messages = []
    for init in (op_init.fast_irdl_op_init, op_init._XDSL_OP_INIT):
        irdl_ops.irdl_op_init = init
        try:
            for kwargs in ({"operands": [[a]], "successors": []},  # the successor missing
                           {"operands": [[a]], "successors": [[dest, dest]]},  # two for one
                           {"operands": [[a]], "successors": [None]},  # None for a required successor
                           {"operands": [None, [a]], "successors": [dest]}):  # an operand too many
                with pytest.raises(ValueError) as info:
                    irdl_ops.IRDLOperation.__init__(cf.BranchOp.__new__(cf.BranchOp), **kwargs)
                messages.append(str(info.value))
        finally:
            irdl_ops.irdl_op_init = op_init.fast_irdl_op_init
    assert messages[:4] == messages[4:] and all(messages)
