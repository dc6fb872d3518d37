"""Invalid inputs through the user-facing commands, in process, under hypothesis
(:mod:`tileorch.tools.fuzz_inprocess`): token-level mutants of cutlass and CUDA Tile IR text
(dropped, doubled, swapped or copied tokens, undefined values and blocks, broken regions, other
shapes, types and numbers) through ``tileorch-opt``, ``tileorch compile --emit=mlir`` and
``tileorch check``, and corrupted cuTile bytecode (truncated, flipped, another version, bad
section ids, lengths and order) through the front end and ``tileorch-opt``.  Every outcome is
success or located ``error:`` lines with exit status 1.

A small budget (CI is over its time; each example is one in-process call, tens of
milliseconds); the long campaign is ``python tools/fuzz_inprocess.py`` (docs/fuzzing.md)."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tileorch.tools import fuzz_inprocess as fip

ROOT = Path(__file__).resolve().parents[2]
FINDINGS = Path(__file__).resolve().parent / "fuzz_findings" / "inprocess"

TEXT_SEEDS = fip.text_seeds(ROOT, max_chars=2500)
BYTECODE_SEEDS = fip.bytecode_seeds(ROOT)
SETTINGS = settings(max_examples=40, deadline=None, derandomize=True, database=None,
                    suppress_health_check=list(HealthCheck))


def _ops(names) -> st.SearchStrategy:
    return st.lists(st.tuples(st.sampled_from(sorted(names)), st.integers(0, 2**32), st.integers(0, 2**32)),
                    min_size=1, max_size=3)


def _assert_property(mode: str, data, label: str) -> None:
    outcome = fip.run_in_process(mode, data, timeout=60)
    assert not outcome.kind.startswith("finding"), f"{label} [{mode}] {outcome.kind}:\n{outcome.output[-3000:]}"


@SETTINGS
@given(seed=st.sampled_from(TEXT_SEEDS), ops=_ops(fip.TEXT_OPS), pick=st.integers(0, 7))
def test_text_mutants_give_located_errors(seed, ops, pick):
    mode = seed.modes[pick % len(seed.modes)]
    _assert_property(mode, fip.mutate_text(seed.text, ops), f"{seed.name} {ops}")


@SETTINGS
@given(seed=st.sampled_from(BYTECODE_SEEDS), ops=_ops(fip.BYTECODE_OPS), mode=st.sampled_from(["front", "bc-opt"]))
def test_bytecode_mutants_give_located_errors(seed, ops, mode):
    name, data = seed
    _assert_property(mode, fip.mutate_bytecode(data, ops), f"{name} {ops}")


# --------------------------------------------------------------------------- the operators


def test_tokens_skip_comments_and_know_their_kinds():
    text = '%0 = "x.op"(%a) {n = 4 : i32} : (tile<4x8xf32>) -> !llvm.ptr  // %gone ^bb9\n^bb1:\n'
    kinds = {t.text: t.kind for t in fip.tokens(text)}
    assert kinds["%0"] == "ssa" and kinds['"x.op"'] == "string" and kinds["4x8x"] == "shape"
    assert kinds["i32"] == "type" and kinds["!llvm.ptr"] == "alias" and kinds["^bb1"] == "block"
    assert "%gone" not in kinds and "^bb9" not in kinds


@pytest.mark.parametrize("name", sorted(fip.TEXT_OPS))
def test_each_text_operator_changes_a_seed(name):
    text = next(s.text for s in TEXT_SEEDS if s.name.startswith("tests/filecheck/cuda_tile/lower_to_tileaa.mlir"))
    changed = {fip.TEXT_OPS[name](text, a, b) for a in range(5) for b in range(5)} - {None, text}
    assert changed, name


@pytest.mark.parametrize("name", sorted(fip.BYTECODE_OPS))
def test_each_bytecode_operator_changes_a_seed(name):
    data = dict(BYTECODE_SEEDS)["tests/unit/cutile_bytecode/add.tileirbc"]
    assert len(fip.bytecode_sections(data)) >= 4
    changed = {fip.BYTECODE_OPS[name](data, a, b) for a in range(6) for b in range(6)} - {None, data}
    assert changed, name


def test_region_break_empties_a_region():
    assert fip.region_break("a { b { c } d }", 0, 3) == "a {\n}"
    assert fip.region_break("a { b { c } d }", 1, 3) == "a { b {\n} d }"


def test_a_traceback_and_a_hang_are_findings(monkeypatch):
    """The runner itself: an uncaught exception is a traceback, a run past the limit a hang."""
    def boom(mode, path):
        raise KeyError("x")

    monkeypatch.setattr(fip, "_call", boom)
    assert fip.run_in_process("opt", "x").kind == "finding:traceback"

    def spin(mode, path):
        while True:
            pass

    monkeypatch.setattr(fip, "_call", spin)
    assert fip.run_in_process("opt", "x", timeout=1).kind == "finding:hang"


@pytest.mark.parametrize("path", sorted(FINDINGS.glob("*.*")) if FINDINGS.exists() else [], ids=lambda p: p.name)
def test_finding_gives_located_diagnostics(path):
    """Each input once crashed a command (docs/fuzzing.md, session 22): the mode is in its name."""
    mode = path.name.split(".")[1]
    data = path.read_bytes() if path.suffix == ".tileirbc" else path.read_text()
    _assert_property(mode, data, path.name)
