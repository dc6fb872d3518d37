"""``verify_located`` checks an op's definition constraints once per signature
(``tileorch.diagnostics._signature``: class, operand/result types, successor count, properties,
attributes) and its traits and own ``verify_`` on every op.  An op that differs from a verified
one in any part of the signature is checked in full; one that matches it but sits where its
traits forbid, or fails its class's own verifier, is still reported, with xDSL's own message."""

from __future__ import annotations

import pytest
from xdsl.ir import Operation
from xdsl.utils.exceptions import VerifyException

from tileorch import diagnostics
from tileorch.backend.compile import parse_text
from tileorch.diagnostics import verify_located, verify_op_located
from tileorch.registry import make_context


def module(text: str):
    return parse_text(make_context(), text, "memo.mlir")


def xdsl_message(op: Operation) -> str:
    """What xDSL's own Operation.verify (without nested ops) raises on ``op``."""
    with pytest.raises((VerifyException, ValueError)) as info:
        Operation.verify(op, verify_nested_ops=False)
    return str(info.value).splitlines()[0]


GOOD = """func.func @f(%a: i32, %b: i32) -> i32 {
  %s = arith.addi %a, %b : i32
  %t = arith.addi %s, %b : i32
  func.return %t : i32
}
"""


def _fresh_memos(monkeypatch) -> None:
    monkeypatch.setattr(diagnostics, "_IRDL_VERIFIED", set())
    monkeypatch.setattr(diagnostics, "_CANON", {})
    monkeypatch.setattr(diagnostics, "_CANON_IDS", {})


def test_repeated_ops_are_constraint_checked_once_and_still_verify(monkeypatch):
    _fresh_memos(monkeypatch)
    m = module(GOOD)
    assert verify_located(m) == []
    first = len(diagnostics._IRDL_VERIFIED)
    assert first >= 1
    assert verify_located(module(GOOD)) == []  # same signatures: nothing new remembered
    assert len(diagnostics._IRDL_VERIFIED) == first


def test_a_changed_type_is_checked_in_full():
    m = module(GOOD)
    assert verify_located(m) == []
    fn = next(iter(m.body.block.ops))
    add = next(iter(fn.body.block.ops))
    from xdsl.dialects.builtin import f32
    from xdsl.rewriter import Rewriter

    Rewriter.replace_value_with_new_type(add.results[0], f32)  # arith.addi's result must be an integer
    errors = verify_located(m)
    assert errors and errors[0].startswith("memo.mlir:2:")
    assert "result 'result' at position 0 does not verify" in errors[0]  # xDSL's constraint message


def test_a_verified_signature_in_the_wrong_place_fails_its_trait():
    """``func.return`` with no operands passes its constraints inside a ``func.func``; the same
    op directly in the module fails its ``HasParent`` trait: the trait still runs."""
    ok = module("func.func @g() {\n  func.return\n}\n")
    assert verify_located(ok) == []
    bad = module("func.func @g() {\n  func.return\n}\n")
    fn = next(iter(bad.body.block.ops))
    ret = fn.body.block.last_op
    ret.detach()
    bad.body.block.add_op(ret)
    error = verify_op_located(ret)
    assert error is not None
    assert xdsl_message(ret) in error
    assert ": error: " in error


def test_an_op_sharing_a_verified_ops_objects_is_found_by_identity(monkeypatch):
    """The second ``arith.addi`` of a function has the first one's type objects: numbered by
    identity, those are not hashed again; an equal type in another object gets the same number
    (hashed once); a changed type gets a new number and is checked in full."""
    _fresh_memos(monkeypatch)
    m = module(GOOD)
    hashed = []

    class Counting(dict):
        def setdefault(self, key, default=None):
            hashed.append(key)
            return super().setdefault(key, default)

    monkeypatch.setattr(diagnostics, "_CANON", Counting())
    assert verify_located(m) == []
    first = len(hashed)
    assert first >= 1
    assert verify_located(m) == []
    assert len(hashed) == first  # every attribute object numbered by identity the second time
    from xdsl.dialects.builtin import IntegerType, f32

    fresh = IntegerType(32)
    assert diagnostics._canonical(fresh) == diagnostics._canonical(IntegerType(32))
    assert diagnostics._canonical(fresh) != diagnostics._canonical(f32)
    fn = next(iter(m.body.block.ops))
    add = next(iter(fn.body.block.ops))
    from xdsl.rewriter import Rewriter

    Rewriter.replace_value_with_new_type(add.results[0], f32)
    errors = verify_located(m)
    assert errors and "does not verify" in errors[0]


def test_the_memos_are_bounded(monkeypatch):
    """At :data:`diagnostics._IRDL_VERIFIED_MAX` entries the memos are emptied and numbering
    starts again: the module still verifies, and a bad op is still reported."""
    _fresh_memos(monkeypatch)
    monkeypatch.setattr(diagnostics, "_IRDL_VERIFIED_MAX", 2)
    varied = module("""func.func @f(%a: i32, %b: i32) -> i32 {
  %s = arith.addi %a, %b : i32
  %t = arith.muli %s, %b : i32
  %u = arith.subi %t, %a : i32
  %v = arith.xori %u, %a : i32
  func.return %v : i32
}
""")  # five signatures
    assert verify_located(varied) == []
    assert 1 <= len(diagnostics._IRDL_VERIFIED) <= 2
    m = module(GOOD)
    fn = next(iter(m.body.block.ops))
    add = next(iter(fn.body.block.ops))
    from xdsl.dialects.builtin import f32
    from xdsl.rewriter import Rewriter

    Rewriter.replace_value_with_new_type(add.results[0], f32)
    errors = verify_located(m)
    assert errors and "does not verify" in errors[0]


ISOLATED = """func.func @outer(%a: i32) -> i32 {
  %c = arith.constant 1 : i32
  %s = arith.addi %a, %c : i32
  func.return %s : i32
}
func.func @other(%b: i32) -> i32 {
  func.return %b : i32
}
"""


def test_isolated_from_above_matches_xdsl():
    """``IsolatedFromAbove`` (tileorch.diagnostics._verify_isolated): a function using its own
    values passes; one using another function's argument fails with xDSL's own message."""
    from xdsl.traits import IsolatedFromAbove

    m = module(ISOLATED)
    outer, other = list(m.body.block.ops)
    trait = outer.get_trait(IsolatedFromAbove)
    assert IsolatedFromAbove.verify is diagnostics._verify_isolated
    trait.verify(outer)
    diagnostics._XDSL_ISOLATED_VERIFY(trait, outer)
    ret = other.body.block.last_op
    ret.operands = [outer.body.block.args[0]]  # @other returns @outer's argument
    messages = []
    for verify in (diagnostics._verify_isolated, diagnostics._XDSL_ISOLATED_VERIFY):
        with pytest.raises(VerifyException) as info:
            verify(trait, other)
        messages.append(str(info.value))
    assert messages[0] == messages[1] and "IsolatedFromAbove" in messages[0]
    errors = verify_located(m)
    assert errors and "IsolatedFromAbove" in " ".join(errors)


def test_signature_traits_run_with_the_signature_only(monkeypatch):
    """``SameOperandsAndResultType`` (``llvm.fadd``'s) reads only the types: it runs with the
    constraint checks of a new signature and not on a memo hit; an op whose types break it has
    a new signature and is reported (xDSL's constraint message comes first).  Traits that read neighbours stay on
    every op."""
    from xdsl.dialects import func, llvm
    from xdsl.dialects.builtin import f64
    from xdsl.rewriter import Rewriter
    from xdsl.traits import IsTerminator, SameOperandsAndResultType

    _fresh_memos(monkeypatch)
    fadd = llvm.FAddOp.get_irdl_definition()
    assert any(type(t) is SameOperandsAndResultType for t in fadd.traits)
    assert not any(type(t) is SameOperandsAndResultType for t in diagnostics._memo_traits(fadd))
    assert any(type(t) is IsTerminator for t in diagnostics._memo_traits(func.ReturnOp.get_irdl_definition()))
    calls = []
    real = SameOperandsAndResultType.verify
    monkeypatch.setattr(SameOperandsAndResultType, "verify", lambda self, op: calls.append(op.name) or real(self, op))
    m = module("""func.func @f(%a: f32, %b: f32) -> f32 {
  %s = llvm.fadd %a, %b : f32
  %t = llvm.fadd %s, %b : f32
  func.return %t : f32
}
""")
    assert verify_located(m) == [] and calls == ["llvm.fadd"]  # the second fadd: a memo hit
    fn = next(iter(m.body.block.ops))
    add = next(iter(fn.body.block.ops))
    Rewriter.replace_value_with_new_type(add.results[0], f64)
    errors = verify_located(m)
    assert errors and errors[0].startswith("memo.mlir:2:") and "does not verify" in errors[0], errors


BRANCHY = """func.func @g(%a: i32, %c: i1) -> i32 {
  cf.cond_br %c, ^b1(%a : i32), ^b2
^b1(%x: i32):
  %y = arith.addi %x, %x {tileorch.note = "n"} : i32
  func.return %y : i32
^b2:
  %k = arith.constant 7 : i32
  func.return %k : i32
}
"""


def _view_signature(op: Operation) -> tuple | None:
    """The memo key built through xDSL's public views (``op.operands``, ``value.type``,
    ``op.successors``): what :func:`diagnostics._signature` must equal."""
    canon = diagnostics._canonical
    return (type(op), tuple(canon(o.type) for o in op.operands), tuple(canon(r.type) for r in op.results),
            len(op.successors), tuple((k, canon(v)) for k, v in op.properties.items()),
            tuple((k, canon(v)) for k, v in op.attributes.items()))


@pytest.mark.parametrize("text, names", [(GOOD, {"arith.addi", "func.return"}),
                                         (BRANCHY, {"arith.addi", "cf.cond_br", "arith.constant", "func.return"})])
def test_the_signature_read_from_fields_is_the_public_views_key(text, names):
    """The key reads the op's operand/successor tuples and the values' ``_type`` directly (this
    xDSL keeps them there: the fast path is taken) and equals the key built through the public
    accessors for every op without regions (operands, block arguments, successors, properties,
    a discardable attribute)."""
    assert diagnostics._DIRECT_FIELDS
    m = module(text)
    ops = [op for op in m.walk() if not op.regions]
    assert {op.name for op in ops} == names
    for op in ops:
        assert diagnostics._signature(op) == _view_signature(op), op.name
    assert verify_located(m) == []
