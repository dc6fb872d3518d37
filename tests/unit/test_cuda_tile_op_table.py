"""Issue 21, item 1: docs/cuda-tile.md's op coverage table (``tools/cuda_tile_op_table.py``) is
current, and every op of the ``cuda_tile`` dialect (the dialect here, the bytecode opcodes of the
open repository and of cuTile 1.7's writer) either lowers or is refused with a documented reason."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

pytest.importorskip("xdsl")

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def table():
    spec = importlib.util.spec_from_file_location("cuda_tile_op_table", ROOT / "tools" / "cuda_tile_op_table.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules["cuda_tile_op_table"] = mod
    spec.loader.exec_module(mod)
    return mod


def test_every_op_lowers_or_has_a_documented_refusal(table):
    rows = table.rows()
    assert len(rows) >= 105, "the dialect's and the bytecode table's ops were read"
    assert {"load_view_tko", "mmaf", "fpowi", "multimem_store_view_tko", "testing$func"} <= {r["op"] for r in rows}
    assert table.unhandled() == []


def test_an_op_without_lowering_or_reason_is_reported(table, monkeypatch):
    """The check can fail: an op taken out of the converter's LOWERED (and not in the docs'
    refusal table) is reported, and the tool exits 1."""
    import tileorch.transforms.cudatile_to_tileaa as conv

    monkeypatch.setattr(conv, "LOWERED", frozenset(set(conv.LOWERED) - {"cat"}))
    assert table.unhandled() == ["cat"]
    assert table.main(["--check"]) == 1


def test_lowered_and_refused_ops_name_their_test(table):
    """Every lowered op has a FileCheck test of convert-cudatile-to-tileaa or a cuTile program of
    the audit reaching it; every refused op but the two without a text form a test naming it."""
    missing = [r["op"] for r in table.rows() if r["test"] == "" and r["op"] not in ("preview_call", "testing$func")]
    assert missing == []


def test_the_docs_table_is_the_generated_one(table):
    """Regenerate with ``python tools/cuda_tile_op_table.py --write`` after a change of the
    converter, the dialect, the refusal table or the tests."""
    pytest.importorskip("cuda.tile")
    assert table.docs_table() == table.render()
