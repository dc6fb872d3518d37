"""tileas-split-chains and tileas-row-statistics-chain on the FileCheck tests' input modules: an analysis that fails
(a tileorch bug) leaves the program as written with a warning, not an internal error of the tier; the plan of the
two-heads module (its groups, carried positions, varying indices)."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("xdsl")

PASSES = Path(__file__).resolve().parents[1] / "filecheck" / "tileas" / "passes"


def _module(name: str, index: int = 0):
    from xdsl.parser import Parser

    from tileorch.registry import make_context

    text = (PASSES / name).read_text().split("// -----")[index]
    return Parser(make_context(), text).parse_module()


def test_two_heads_plan():
    from tileorch.transforms.tileas import split_chains as sc

    m = _module("split_chains.mlir")
    fn = next(o for o in m.walk() if o.name == "nv_tileaa.func")
    p = sc.plan(fn)
    assert p.count == 2 and p.positions == [{0}, {1}]
    assert sorted(p.varying.values()) == [1, 1, 1, 1]  # Q, K, V loads and the store: head 2p + part
    assert sc.scaled_grid({"grid_split": [0, 2]}, (3, 4, 5)) == (6, 4, 5)
    assert sc.scaled_grid({}, (3, 4, 5)) == (3, 4, 5)


def test_failed_analysis_leaves_the_program_with_a_warning(monkeypatch):
    from tileorch.transforms.tileas import row_statistics_chain as rs
    from tileorch.transforms.tileas import split_chains as sc

    def boom(fn):
        raise RuntimeError("boom")

    monkeypatch.setattr(sc, "plan", boom)
    monkeypatch.setattr(rs, "match", boom)
    monkeypatch.setenv("TILEORCH_INTERNAL_ERRORS", "warn")  # a user's default (the suite raises them)
    for module, remarks, run in ((_module("split_chains.mlir"), sc.split_chains_remarks, sc.split_chains),
                                 (_module("row_statistics_chain.mlir"), rs.row_statistics_remarks,
                                  rs.row_statistics_chain)):
        before = str(module)
        (warning,) = remarks(module)
        assert warning.startswith("warning: internal error in tileas-") and "RuntimeError: boom" in warning
        assert run(module) == 0 and str(module) == before


def test_switches_leave_the_programs_as_written(monkeypatch):
    """``TILEORCH_ATTN_SPLIT_CHAINS=0`` / ``TILEORCH_ATTN_UNREAD_SECOND_DOT=0``: neither pass rewrites (the programs
    then take the SIMT path, as before session 33)."""
    from tileorch.transforms.tileas import row_statistics_chain as rs
    from tileorch.transforms.tileas import split_chains as sc

    monkeypatch.setenv(sc.ENV, "0")
    monkeypatch.setenv(rs.ENV, "0")
    for module, remarks, run in ((_module("split_chains.mlir"), sc.split_chains_remarks, sc.split_chains),
                                 (_module("row_statistics_chain.mlir"), rs.row_statistics_remarks,
                                  rs.row_statistics_chain)):
        before = str(module)
        assert remarks(module) == [] and run(module) == 0 and str(module) == before
    monkeypatch.setenv(sc.ENV, "1")
    monkeypatch.setenv(rs.ENV, "1")
    assert sc.split_chains(_module("split_chains.mlir")) == 1
    assert rs.row_statistics_chain(_module("row_statistics_chain.mlir")) == 1


def test_refusal_reasons_come_from_one_helper(monkeypatch):
    """``split_chains_why`` / ``stack_query_heads_why`` (``common.first_refusal``): the reason the first function
    the plan refuses is left as written; None where the plan takes every function; a plan's other exception
    propagates (a bug, not a reason)."""
    from tileorch.transforms.tileas import split_chains as sc
    from tileorch.transforms.tileas import stack_query_heads as sq

    why = sc.split_chains_why(_module("split_chains.mlir", 1))  # @same_tile: its heads read one tile
    assert isinstance(why, str) and why, why
    assert sc.split_chains_why(_module("split_chains.mlir", 0)) is None  # @two_heads splits
    text = (PASSES / "stack_query_heads.mlir").read_text()
    from xdsl.parser import Parser

    from tileorch.registry import make_context

    three = Parser(make_context(), text.replace("%78 = arith.constant 2 : i32", "%78 = arith.constant 3 : i32"))
    why = sq.stack_query_heads_why(three.parse_module())
    assert isinstance(why, str) and why, why

    def boom(fn):
        raise RuntimeError("boom")

    monkeypatch.setattr(sc, "plan", boom)
    with pytest.raises(RuntimeError, match="boom"):
        sc.split_chains_why(_module("split_chains.mlir"))
