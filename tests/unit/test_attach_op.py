"""``tileorch.transforms.attach_op``: xDSL's ``Block._attach_op`` with the same checks and errors,
climbing to the top only for an inserted op that has regions (issue 22)."""

from __future__ import annotations

import pytest
from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import i32
from xdsl.ir import Block, Operation, Region

import tileorch.transforms  # noqa: F401  (installs it)
from tileorch.transforms import attach_op


def _nested():
    """An ``scf.execute_region`` whose block holds a constant: (the op, its inner block)."""
    inner = Block([arith.ConstantOp.from_int_and_width(1, i32)])
    outer = scf.ExecuteRegionOp([], Region(inner))
    return outer, inner


def _outcome(attach, block: Block, op: Operation) -> str:
    try:
        attach(block, op)
    except ValueError as exc:
        return f"ValueError: {exc}"
    return "attached"


def test_installed_over_the_xdsl_it_mirrors():
    assert attach_op._mirrors_xdsl() and Block._attach_op is attach_op.attach_op and attach_op.install()


@pytest.mark.parametrize("case", ["free op", "op with regions", "op already in a block", "op into its own block"])
def test_same_checks_and_errors_as_xdsl(case):
    def make():
        outer, inner = _nested()
        target = Block()
        op = {"free op": lambda: arith.ConstantOp.from_int_and_width(2, i32),
              "op with regions": lambda: outer,
              "op already in a block": lambda: inner.first_op,
              "op into its own block": lambda: outer}[case]()
        return (inner if case == "op into its own block" else target), op

    ours = _outcome(attach_op.attach_op, *make())
    theirs = _outcome(attach_op._XDSL_ATTACH_OP, *make())
    assert ours == theirs
    assert ours == ("attached" if case in ("free op", "op with regions") else ours)
    if case == "op into its own block":
        assert "contained in the operation" in ours


def test_an_op_without_regions_climbs_nothing(monkeypatch):
    climbs: list[Operation] = []
    xdsl_is_ancestor = Operation.is_ancestor

    def counted(self, node):
        climbs.append(self)
        return xdsl_is_ancestor(self, node)

    monkeypatch.setattr(Operation, "is_ancestor", counted)
    outer, inner = _nested()
    inner.add_op(arith.ConstantOp.from_int_and_width(3, i32))  # (Block.add_op -> _attach_op)
    assert climbs == []
    Block().add_op(outer)
    assert climbs == [outer]
