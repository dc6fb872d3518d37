"""``convert-arith-to-llvm`` turns the arith ops that lower to one llvm op in place
(``tileorch.transforms.arith_to_llvm._morph``): the module it produces prints exactly as the one
built by replacing every op with what ``LowerArith.lower`` builds (the path before), for every
op kind the in-place rules cover, name hints and locations included; an op whose result type is
not the one the llvm builder gives is still replaced; with rules that disagree with ``lower``
nothing is done in place."""

from __future__ import annotations

import pytest
from xdsl.dialects import arith

from tileorch.backend.compile import parse_text, print_module
from tileorch.registry import make_context
from tileorch.transforms import arith_to_llvm
from tileorch.transforms.arith_to_llvm import ConvertArithToLLVM, LowerArith
from tileorch.transforms.index_to_llvm import convert_index_types
from tileorch.transforms.rewrite_once import rewrite_once

# (shifts and divisions by the constant %k: those by a variable lower to several ops, defined_integer_llvm)
ALL = """func.func @f(%a: i32, %b: i32, %x: f32, %y: f32, %c: i1, %i: index, %v: vector<4xi32>) -> i32 {
  %k = arith.constant 7 : i32
  %kf = arith.constant 0.5 : f32
  %ki = arith.constant 3 : index
  %s0 = arith.addi %a, %b : i32
  %s1 = arith.subi %s0, %k : i32
  %s2 = arith.muli %s1, %b : i32
  %s3 = arith.divui %s2, %k : i32
  %s4 = arith.divsi %s3, %k : i32
  %s5 = arith.remui %s4, %k : i32
  %s6 = arith.remsi %s5, %k : i32
  %s7 = arith.andi %s6, %b : i32
  %s8 = arith.ori %s7, %b : i32
  %s9 = arith.xori %s8, %b : i32
  %sa = arith.shli %s9, %k : i32
  %sb = arith.shrui %sa, %k : i32
  %sc = arith.shrsi %sb, %k : i32
  %f0 = arith.addf %x, %y : f32
  %f1 = arith.subf %f0, %kf : f32
  %f2 = arith.mulf %f1, %y : f32
  %f3 = arith.divf %f2, %y : f32
  %f4 = arith.negf %f3 : f32
  %w = arith.extui %a : i32 to i64
  %w2 = arith.extsi %b : i32 to i64
  %n = arith.trunci %w : i64 to i16
  %fi = arith.sitofp %a : i32 to f32
  %fu = arith.uitofp %a : i32 to f32
  %is = arith.fptosi %x : f32 to i32
  %iu = arith.fptoui %x : f32 to i32
  %h = arith.truncf %x : f32 to f16
  %e = arith.extf %h : f16 to f32
  %bc = arith.bitcast %x : f32 to i32
  %ii = arith.addi %i, %ki : index
  %ic = arith.index_cast %ii : index to i32
  %cmp = arith.cmpi ult, %sc, %ic : i32
  %cmpf = arith.cmpf olt, %f4, %e : f32
  %vc = arith.cmpi eq, %v, %v : vector<4xi32>
  %both = arith.andi %cmp, %cmpf : i1
  %sel = arith.select %both, %s2, %is : i32
  %mx = arith.maxsi %sel, %iu : i32
  %r = arith.addi %mx, %bc : i32
  func.return %r : i32
}
"""


def _replace_all(module) -> None:
    """The lowering as it was: every arith op replaced by what ``LowerArith.lower`` builds."""

    class Replace(LowerArith):
        def match_and_rewrite(self, op, rewriter, /):
            self.replace_by_lowering(op, rewriter)

    convert_index_types(module)
    rewrite_once(Replace(), module.body)


def test_in_place_matches_replacing():
    ctx = make_context()
    ours, theirs = (parse_text(ctx, ALL, "arith.mlir") for _ in range(2))
    ConvertArithToLLVM().apply(ctx, ours)
    _replace_all(theirs)
    text = print_module(ours)
    assert text == print_module(theirs)
    assert "arith." not in text
    assert print_module(ours).count("llvm.icmp") == 3  # the vector compare too
    generic = (print_module(ours, generic=True), print_module(theirs, generic=True))
    assert generic[0] == generic[1]


def test_in_place_ops_are_the_llvm_classes_and_keep_their_location():
    ctx = make_context()
    m = parse_text(ctx, ALL, "arith.mlir")
    fn = next(iter(m.body.block.ops))
    add = next(o for o in fn.body.block.ops if isinstance(o, arith.AddiOp))
    loc = add.location
    ConvertArithToLLVM().apply(ctx, m)
    from xdsl.dialects import llvm

    assert isinstance(add, llvm.AddOp) and add.parent is not None  # the same object, now llvm.add
    assert add.location == loc
    from tileorch.diagnostics import verify_located

    assert verify_located(m) == []


def test_a_result_type_the_builder_would_not_give_is_replaced():
    """``arith.addi`` whose result type differs from its lhs type (a malformed op): the llvm
    builder gives the lhs type, so the op is replaced as before, not turned in place."""
    from xdsl.dialects.builtin import i64
    from xdsl.rewriter import Rewriter

    ctx = make_context()
    ours, theirs = (parse_text(ctx, ALL, "arith.mlir") for _ in range(2))
    for m in (ours, theirs):
        fn = next(iter(m.body.block.ops))
        add = next(o for o in fn.body.block.ops if isinstance(o, arith.AddiOp))
        Rewriter.replace_value_with_new_type(add.results[0], i64)
        assert not arith_to_llvm._morph(add) if m is theirs else True
    ConvertArithToLLVM().apply(ctx, ours)
    _replace_all(theirs)
    assert print_module(ours) == print_module(theirs)


def test_rules_that_disagree_with_lower_turn_nothing_in_place(monkeypatch):
    monkeypatch.setattr(arith_to_llvm, "_AGREE", [])
    real = arith_to_llvm._rule

    def wrong(op):
        rule = real(op)
        if rule is not None and isinstance(op, arith.AddiOp):
            return (arith_to_llvm.llvm.SubOp, *rule[1:])
        return rule

    monkeypatch.setattr(arith_to_llvm, "_rule", wrong)
    assert arith_to_llvm._rules_agree() is False
    ctx = make_context()
    m = parse_text(ctx, ALL, "arith.mlir")
    fn = next(iter(m.body.block.ops))
    add = next(o for o in fn.body.block.ops if isinstance(o, arith.AddiOp))
    assert arith_to_llvm._morph(add) is False
    assert isinstance(add, arith.AddiOp)


@pytest.mark.parametrize("n", [1, 2])
def test_the_pass_is_repeatable(n):
    ctx = make_context()
    m = parse_text(ctx, ALL, "arith.mlir")
    for _ in range(n):
        ConvertArithToLLVM().apply(ctx, m)
    assert "arith." not in print_module(m)
