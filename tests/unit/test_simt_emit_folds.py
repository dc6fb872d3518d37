"""The SIMT emitter's constant folds (``Emitter.fold_constants``: the sign extension of a constant,
a product with a zero, a sum of two constants) and its shared-attribute op builders (``cmpi``,
``gep``), issue 22: the folds give the values the ops would compute, and neither they nor the
builders change the PTX of a kernel (compared here with both undone: the LLVM IR before LLVM's
optimizations differs by the folded instructions)."""

from __future__ import annotations

import pytest

pytest.importorskip("xdsl")

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from xdsl.dialects import arith, llvm, test  # noqa: E402
from xdsl.dialects.builtin import IntegerAttr, f16, i1, i8, i32, i64  # noqa: E402
from xdsl.ir import Block  # noqa: E402

import tileorch.transforms  # noqa: E402,F401  (the lowering passes' op construction)
from tileorch.transforms.tileaa_to_simt import emit  # noqa: E402
from tileorch.transforms.tileaa_to_simt.emit import Emitter, cmpi, gep, int_constant  # noqa: E402
from test_simt_shared_constants import compile_first_kernel  # noqa: E402  (tests/unit is on the path)

WIDTHS = {8: i8, 32: i32, 64: i64}


def _signed(k: int, width: int) -> int:
    k &= (1 << width) - 1
    return k - (1 << width) if k >> (width - 1) else k


def _folding() -> tuple[Block, Emitter]:
    block = Block()
    return block, Emitter(block, 128, share_constants=True, fold_constants=True)


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(sorted(WIDTHS)), st.integers(-2**63, 2**64 - 1), st.integers(-2**63, 2**64 - 1))
def test_folds_give_what_the_ops_compute(width, a, b):
    typ = WIDTHS[width]
    a, b = _signed(a, width), _signed(b, width)
    block, e = _folding()
    ca, cb = e.const(a, typ), e.const(b, typ)
    assert int_constant(ca) == a and int_constant(cb) == b
    total = e.add_i(ca, cb)
    if int_constant(total) is None:  # left to the op where the sum wraps
        assert isinstance(total.owner, arith.AddiOp) and _signed(a + b, width) != a + b
    else:
        assert int_constant(total) == a + b
    product = e.mul_i(ca, cb)
    if 0 in (a, b):
        assert int_constant(product) == 0
    else:
        assert isinstance(product.owner, arith.MuliOp)  # x * 1 and other products are LLVM's to fold
    if width < 64:
        wide = e.sext(ca, i64)
        assert int_constant(wide) == a and wide.type == i64


def test_values_an_op_computes_are_not_folded():
    block, e = _folding()
    x = test.TestOp(result_types=[i32]).results[0]
    assert isinstance(e.sext(x, i64).owner, arith.ExtSIOp)
    one, zero = e.const(1), e.const(0)
    assert isinstance(e.mul_i(x, one).owner, arith.MuliOp) and isinstance(e.add_i(x, zero).owner, arith.AddiOp)
    assert e.mul_i(x, zero) is zero and e.mul_i(zero, x) is zero
    flag = e.const(1, i1)
    assert int_constant(flag) is None  # an i1's 1 is -1 signed: booleans are not folded
    plain = Emitter(Block(), 128)  # the tier's builders: no folds
    assert isinstance(plain.sext(plain.const(3), i64).owner, arith.ExtSIOp)
    assert isinstance(plain.mul_i(plain.const(0), x).owner, arith.MuliOp)
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


def _ptx() -> tuple[str, int]:
    """(PTX, ops of the lowered module) of the first kernel of test_simt_shared_constants's program."""
    return compile_first_kernel("ptx", lambda op: True)


def test_folds_and_shared_attributes_leave_the_ptx_unchanged(monkeypatch):
    folded, folded_ops = _ptx()
    # the emitter before session 24: every extension, product and sum an op; xDSL's constructors
    monkeypatch.setattr(Emitter, "sext", lambda self, v, typ: self.v(arith.ExtSIOp(v, typ)))
    monkeypatch.setattr(Emitter, "mul_i", lambda self, a, b: self.v(arith.MuliOp(a, b)))
    monkeypatch.setattr(Emitter, "add_i", lambda self, a, b: self.v(arith.AddiOp(a, b)))
    monkeypatch.setattr(emit, "gep", lambda base, index, elem, ptr_type: llvm.GEPOp(
        base, [llvm.GEP_USE_SSA_VAL], elem, ssa_indices=[index], result_type=ptr_type))
    plain, plain_ops = _ptx()
    assert folded_ops < plain_ops
    assert folded == plain
