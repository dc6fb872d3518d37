"""``tileorch.transforms.op_init.fast_irdl_op_init`` builds the op xDSL's ``irdl_op_init``
builds (operands, result types, properties, attributes, defaults filled in, generic print),
also for variadic/optional operands, results and successors and segment-size options, and leaves every other case
(regions, other options, an ``Operation`` as an operand, wrong counts) to ``irdl_op_init``, with its
errors."""

from __future__ import annotations

import pytest
import xdsl.irdl.operations as irdl_ops
from xdsl.dialects import arith, cf, llvm, scf, test
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
        # segment-size options (operandSegmentSizes as a property or an attribute, resultSegmentSizes)
        lambda: cf.ConditionalBranchOp(c, dest, [a], other, []),
        lambda: cf.ConditionalBranchOp(c, other, [], dest, [b]),
        lambda: llvm.CallIntrinsicOp("llvm.nvvm.barrier0", [], []),
        lambda: llvm.CallIntrinsicOp("llvm.smax.i32", [a, b], [i32]),
        lambda: test.TestAllocatableOp([a, b], [], [i32], [i32, i64]),
        lambda: test.TestAllocatableOp([], [c], [], []),
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
    assert slow_calls == []  # every one built directly
    a_op = llvm.CallIntrinsicOp("llvm.smax.i32", [a, b], [i32])
    assert a_op.properties["operandSegmentSizes"] is llvm.CallIntrinsicOp("llvm.smin.i32", [b, a], [i32]).properties[
        "operandSegmentSizes"]  # one shared array per list of sizes


def test_other_options_go_through_xdsl(monkeypatch):
    from xdsl.irdl import SameVariadicOperandSize, irdl_op_definition, var_operand_def

    @irdl_op_definition
    class SameSizes(irdl_ops.IRDLOperation):
        name = "test.same_sizes"
        xs = var_operand_def()
        ys = var_operand_def()
        irdl_options = (SameVariadicOperandSize(),)

    a, b = Block(arg_types=[i32, i32]).args
    slow_calls = []
    real = op_init._XDSL_OP_INIT
    monkeypatch.setattr(op_init, "_XDSL_OP_INIT",
                        lambda *args, **kw: slow_calls.append(args[1].name) or real(*args, **kw))
    irdl_ops.IRDLOperation.__init__(SameSizes.__new__(SameSizes), operands=[[a], [b]])
    with pytest.raises(ValueError, match="different sizes"):
        irdl_ops.IRDLOperation.__init__(SameSizes.__new__(SameSizes), operands=[[a, b], [b]])
    assert slow_calls == ["test.same_sizes"] * 2


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


def _fields(op):
    """Every field ``Operation.__init__`` sets, with the use lists it registers."""
    return (type(op), sorted(vars(op)), [id(o) for o in op.operands],
            [(id(u.operation), u.index) for o in op.operands for u in o.uses if u.operation is op],
            [(id(r.op), r.index, r.type) for r in op.results], list(op.properties.items()),
            list(op.attributes.items()), op.location, op.regions, [id(b) for b in op.successors],
            [(id(u.operation), u.index) for b in op.successors for u in b.uses if u.operation is op],
            op.parent, op.next_op, op.prev_op)


def _lean_and_xdsl(monkeypatch, build):
    """The op ``build()`` makes initialised by :func:`op_init.init_operation` and by ``Operation.__init__``."""
    assert op_init.LEAN_INIT  # the xDSL installed is the one it mirrors
    lean = build()
    with monkeypatch.context() as m:
        m.setattr(op_init, "LEAN_INIT", False)
        xdsl = build()
    return lean, xdsl


def _same_shape(a, b):
    """``_fields`` of two ops compared up to which op / values / blocks they are (positions instead)."""
    fa, fb = _fields(a), _fields(b)
    assert fa[0] is fb[0] and fa[1] == fb[1] and fa[5:9] == fb[5:9] and fa[11:] == fb[11:]
    assert len(fa[2]) == len(fb[2]) and len(fa[9]) == len(fb[9])
    assert [i for _, i in fa[3]] == [i for _, i in fb[3]] and [i for _, i in fa[10]] == [i for _, i in fb[10]]
    assert all(o == id(a) for o, _ in fa[3] + fa[10]) and all(o == id(b) for o, _ in fb[3] + fb[10])
    assert [(i, t) for o, i, t in fa[4]] == [(i, t) for o, i, t in fb[4]] and all(o == id(a) for o, _, _ in fa[4])


def test_lean_init_sets_what_operation_init_sets(monkeypatch):
    from xdsl.dialects import func

    a, b, c = Block(arg_types=[i32, i32, i1]).args
    x, y = Block(arg_types=[f32, f32]).args
    dest, other = Block(arg_types=[i32]), Block()
    builders = [
        lambda: llvm.AddOp(a, b), lambda: arith.AddiOp(a, a), lambda: arith.ConstantOp(FloatAttr(1.5, f32)),
        lambda: arith.CmpiOp(a, b, "slt"), lambda: llvm.AddOp(a, b, attributes={"tag": StringAttr("t")}),
        lambda: cf.BranchOp(dest, a), lambda: cf.BranchOp(other), lambda: llvm.BrOp(dest, b),
        lambda: scf.YieldOp(a, b), lambda: func.ReturnOp(a),
        lambda: llvm.InlineAsmOp("mov.b32 $0, $1;", "=r,r", [a], [i32]),
        # definitions' default properties filled in (fastmath, overflowFlags), or kept as given
        lambda: arith.AddfOp(x, y), lambda: arith.MulfOp(x, y, arith.FastMathFlagsAttr("fast")),
        lambda: llvm.FAddOp(x, y), lambda: arith.MuliOp(a, b),
    ]
    for build in builders:
        lean, xdsl = _lean_and_xdsl(monkeypatch, build)
        _same_shape(lean, xdsl)
        assert str(lean) == str(xdsl)
    assert list(arith.AddfOp(x, y).properties) == ["fastmath"]
    assert arith.MulfOp(x, y, arith.FastMathFlagsAttr("fast")).fastmath == arith.FastMathFlagsAttr("fast")
    # the uses are registered on the values as Operation.__init__ registers them: newest first
    first, second = llvm.AddOp(a, b), llvm.AddOp(a, a)
    assert [(u.operation, u.index) for u in a.uses][:3] == [(second, 1), (second, 0), (first, 0)]
    assert second in {u.operation for u in a.uses} and first in {u.operation for u in b.uses}


def test_create_op_builds_what_create_builds(monkeypatch):
    from tileorch.transforms.tileaa_to_simt import emit

    a, b = Block(arg_types=[i32, i32]).args
    p = Block(arg_types=[llvm.LLVMPointerType()]).args[0]
    builders = [lambda: emit.cmpi(a, b, "slt"), lambda: emit.gep(p, a, i32, llvm.LLVMPointerType()),
                lambda: emit.inline_asm("add.s32 $0, $1, $2;", "=r,r,r", [a, b], [i32]),
                lambda: emit.inline_asm("bar.sync 0;", "", [], [], has_side_effects=True)]
    for build in builders:
        lean, xdsl = _lean_and_xdsl(monkeypatch, build)
        _same_shape(lean, xdsl)
        assert str(lean) == str(xdsl)
        lean.verify()


def test_lean_init_only_over_the_operation_init_it_mirrors(monkeypatch):
    from xdsl.ir import Operation

    assert op_init._lean_init_applies()
    original = Operation.__init__

    def changed(self, **kwargs):  # another __init__ (a future xDSL's, a wrapper): the lean one does not apply
        original(self, **kwargs)

    monkeypatch.setattr(Operation, "__init__", changed)
    assert not op_init._lean_init_applies()


def test_ops_built_inside_an_implicit_builder_are_inserted(monkeypatch):
    """xDSL's ImplicitBuilder inserts each op built in its scope from ``Operation.__post_init__``
    (which it replaces for the scope): the lean initialisation calls it too."""
    from xdsl.builder import ImplicitBuilder

    from tileorch.transforms.tileaa_to_simt import emit

    for lean in (True, False):
        with monkeypatch.context() as m:
            m.setattr(op_init, "LEAN_INIT", lean)
            block = Block(arg_types=[i32, i32])
            a, b = block.args
            x, y = Block(arg_types=[f32, f32]).args
            with ImplicitBuilder(block):
                add = arith.AddiOp(a, b)  # overflowFlags default filled
                addf = arith.AddfOp(x, y)  # fastmath default
                cmp = emit.cmpi(a, b, "slt")
                br = cf.BranchOp(Block(arg_types=[i32]), a)
            assert list(block.ops) == [add, addf, cmp, br], lean
            assert list(add.properties) == ["overflowFlags"] and list(addf.properties) == ["fastmath"]
