"""A value used but never defined is reported at its first use (``diagnostics.LocatingParser``), as upstream
MLIR does ("use of undeclared SSA value name"); xDSL alone placed the error at the end of the input.  Values
used before their definition in a later block (a CFG forward reference) still parse."""

from __future__ import annotations

import pytest

pytest.importorskip("xdsl")

from xdsl.utils.exceptions import ParseError  # noqa: E402

from tileorch.diagnostics import parse_module  # noqa: E402

UNDEFINED = """func.func @f(%a: i32) -> i32 {
  %b = arith.addi %a, %a : i32
  %c = arith.muli %b, %zz : i32
  %d = arith.addi %c, %yy : i32
  func.return %d : i32
}
"""

NESTED = """func.func @g(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    %x = arith.addi %i, %missing : index
  }
  func.return
}
"""

FORWARD = """func.func @h(%a: i32) -> i32 {
  cf.br ^bb2
^bb1:
  func.return %later : i32
^bb2:
  %later = arith.addi %a, %a : i32
  cf.br ^bb1
}
"""


def _ctx():
    from tileorch.registry import make_context

    return make_context()


def _error(text: str) -> str:
    with pytest.raises(ParseError) as info:
        parse_module(_ctx(), text, "user.mlir")
    return str(info.value)


def test_the_first_undefined_use_is_the_error_position():
    msg = _error(UNDEFINED)
    assert "user.mlir:3:23" in msg and "use of undeclared SSA value name '%zz'" in msg, msg


def test_an_undefined_use_inside_a_region():
    msg = _error(NESTED)
    assert "user.mlir:5:25" in msg and "'%missing'" in msg, msg


def test_a_forward_reference_defined_later_parses():
    module = parse_module(_ctx(), FORWARD, "user.mlir")
    assert [op.name for op in module.walk()].count("arith.addi") == 1
