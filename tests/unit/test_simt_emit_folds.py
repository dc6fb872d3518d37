"""The SIMT emitter's constant fold (``Emitter.fold_constants``: the sign extension of a constant)
and its shared-attribute op builders (``cmpi``, ``gep``, ``constant_op``), issue 22: the fold gives the value
the op would compute, and neither it nor the builders change the PTX of a kernel (compared here with both undone: the LLVM IR before LLVM's
optimizations differs by the folded instructions)."""

from __future__ import annotations

import pytest

pytest.importorskip("xdsl")

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from xdsl.dialects import arith, llvm, test  # noqa: E402
from xdsl.dialects.builtin import IntegerAttr, f16, f32, i1, i8, i32, i64  # noqa: E402
from xdsl.ir import Block  # noqa: E402

import tileorch.transforms  # noqa: E402,F401  (the lowering passes' op construction)
from tileorch.transforms.tileaa_to_simt import emit  # noqa: E402
from tileorch.transforms.tileaa_to_simt.emit import Emitter, cmpi, constant_op, gep, int_constant  # noqa: E402
from test_simt_shared_constants import compile_first_kernel  # noqa: E402  (tests/unit is on the path)

WIDTHS = {8: i8, 32: i32, 64: i64}


def _signed(k: int, width: int) -> int:
    k &= (1 << width) - 1
    return k - (1 << width) if k >> (width - 1) else k


def _folding() -> tuple[Block, Emitter]:
    block = Block()
    return block, Emitter(block, 128, share_constants=True, fold_constants=True)


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(sorted(WIDTHS)), st.integers(-2**63, 2**64 - 1))
def test_the_extension_of_a_constant_is_the_constant(width, a):
    typ = WIDTHS[width]
    a = _signed(a, width)
    block, e = _folding()
    ca = e.const(a, typ)
    assert int_constant(ca) == a
    if width < 64:
        wide = e.sext(ca, i64)
        assert int_constant(wide) == a and wide.type == i64  # what extsi computes: the signed value
    assert isinstance(e.mul_i(ca, ca).owner, arith.MuliOp) and isinstance(e.add_i(ca, ca).owner, arith.AddiOp)


def test_values_an_op_computes_are_not_folded():
    block, e = _folding()
    x = test.TestOp(result_types=[i32]).results[0]
    assert isinstance(e.sext(x, i64).owner, arith.ExtSIOp)
    flag = e.const(1, i1)
    assert int_constant(flag) is None  # an i1's 1 is -1 signed: booleans are not folded
    assert isinstance(e.sext(flag, i32).owner, arith.ExtSIOp)
    plain = Emitter(Block(), 128)  # the tier's builders: no folds
    assert isinstance(plain.sext(plain.const(3), i64).owner, arith.ExtSIOp)
    assert e.nested(Block()).fold_constants and not plain.nested(Block()).fold_constants


def test_cmpi_and_gep_build_the_constructors_ops():
    src = test.TestOp(result_types=[i32, i32, emit.GLOBAL_PTR])
    a, b, ptr = src.results
    for pred in ("eq", "slt", "uge", 6):
        ours, theirs = cmpi(a, b, pred), arith.CmpiOp(a, b, pred)
        assert list(ours.properties.items()) == list(theirs.properties.items())
        assert str(ours) == str(theirs) and ours.result_types == theirs.result_types
        ours.verify()
    assert cmpi(a, b, "ne").properties["predicate"] is cmpi(b, a, "ne").properties["predicate"]
    with pytest.raises(Exception):
        cmpi(a, test.TestOp(result_types=[i64]).results[0], "eq")  # operand types differ, as CmpiOp refuses
    ours = gep(ptr, a, f16, emit.GLOBAL_PTR)
    theirs = llvm.GEPOp(ptr, [llvm.GEP_USE_SSA_VAL], f16, ssa_indices=[a], result_type=emit.GLOBAL_PTR)
    assert list(ours.properties.items()) == list(theirs.properties.items())
    assert str(ours) == str(theirs) and ours.properties["noWrapFlags"] == IntegerAttr(0, 32)
    ours.verify()


@pytest.mark.parametrize("attr", [emit.integer_attr(0, i32), emit.integer_attr(-7, i64), emit.integer_attr(1, i1),
                                  emit.float_attr(-0.0, f32), emit.float_attr(float("nan"), f32),
                                  emit.float_attr(1.5, f16)], ids=str)
def test_constant_op_builds_the_constructors_op(attr):
    ours, theirs = constant_op(attr), arith.ConstantOp(attr)
    assert type(ours) is type(theirs) and list(ours.properties.items()) == list(theirs.properties.items())
    assert ours.properties["value"] is attr and ours.result_types == theirs.result_types
    assert str(ours) == str(theirs) and ours.attributes == theirs.attributes == {}
    ours.verify()


def _ptx() -> tuple[str, int]:
    """(PTX, ops of the lowered module) of the first kernel of test_simt_shared_constants's program."""
    return compile_first_kernel("ptx", lambda op: True)


def test_folds_and_shared_attributes_leave_the_ptx_unchanged(monkeypatch):
    folded, folded_ops = _ptx()
    # the emitter before session 24: every extension an op; xDSL's constructors
    monkeypatch.setattr(Emitter, "sext", lambda self, v, typ: self.v(arith.ExtSIOp(v, typ)))
    monkeypatch.setattr(emit, "gep", lambda base, index, elem, ptr_type: llvm.GEPOp(
        base, [llvm.GEP_USE_SSA_VAL], elem, ssa_indices=[index], result_type=ptr_type))
    monkeypatch.setattr(emit, "constant_op", arith.ConstantOp)
    plain, plain_ops = _ptx()
    assert folded_ops < plain_ops
    assert folded == plain
