"""Short fuzz budget for CI: mutants of the examples and test inputs must exit 0 or print located
diagnostics with exit 1; never a traceback, an internal error, a signal or a hang.  The long
campaign is ``tools/fuzz.py`` (run outside CI)."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

from tileorch.tools import fuzz

ROOT = Path(__file__).resolve().parents[2]
"""This checkout (the installed package may live elsewhere, e.g. in CI's non-editable install)."""


def test_mutator_mutates_numbers_types_and_attributes():
    text = ('func.func @f() {\n  %p = "x.op"() <{mask = 3 : i64, n = 2 : i32}> : () -> i32\n'
            "  // RUN: tileorch-opt %s\n}\n")
    rng = random.Random(0)
    m = fuzz.Mutator(rng)
    seen = set()
    for _ in range(200):
        new, applied = m.mutate(text, 1)
        seen.update(applied)
        assert "// RUN: tileorch-opt %s" in new  # comments are never mutated
    assert {"int_boundary", "type_swap", "dict_entry_delete"} <= seen


@pytest.mark.parametrize("mode,code,output,kind", [
    ("opt", 0, "", "ok"),
    ("opt", 1, "a.mlir:3:5: error: bad\n", "diagnostic"),
    ("opt", 1, "<unknown>: error: bad\n", "finding:unlocated"),
    ("opt", 1, "tileorch-opt: error: bad\n", "finding:unlocated"),
    ("opt", 1, "Traceback (most recent call last):\n", "finding:traceback"),
    ("compile", 1, "a.mlir:1:1: error: internal error: LLVM code generation aborted\n", "finding:internal-error"),
    ("check", 1, "k: FAILED; 3 states\n", "ok"),
    ("opt", 2, "", "finding:exit-2"),
])
def test_classify(mode, code, output, kind):
    assert fuzz.classify(mode, code, None, output, False) == kind


def test_classify_signals_and_hangs():
    import signal

    assert fuzz.classify("compile", -1, signal.SIGABRT, "", False) == "finding:signal-SIGABRT"
    assert fuzz.classify("compile", -1, None, "", True) == "finding:hang"


def test_short_fuzz_budget(tmp_path):
    """Up to 150 mutants (45 s) in tileorch-opt and tileorch check (seeded, so failures reproduce)."""
    seeds = fuzz.load_seeds([ROOT / "examples", ROOT / "tests/filecheck/cutlass"])
    assert len(seeds) > 50
    for s in seeds:
        s.modes = ("opt", "opt", "opt", "check") if "pipeline.init" in s.text else ("opt",)
    lines: list[str] = []
    report = fuzz.fuzz(seeds, inputs=150, seconds=45, jobs=2, rng_seed=10, timeout=60,
                       out_dir=tmp_path, log=lines.append)
    assert report.tried >= 5  # the budget is time-bound: few inputs on a loaded machine
    assert not report.findings, "\n".join(lines)


def test_short_compile_budget(tmp_path):
    """A few mutants of the fastest example compiled to PTX (LLVM in a forked child)."""
    seeds = [s for s in fuzz.load_seeds([ROOT / "examples" / "ws_stream_copy.mlir"])]
    for s in seeds:
        s.modes = ("compile",)
    lines: list[str] = []
    report = fuzz.fuzz(seeds, inputs=6, seconds=40, jobs=2, rng_seed=3, timeout=120,
                       out_dir=tmp_path, log=lines.append)
    assert not report.findings, "\n".join(lines)
    assert report.tried >= 2


def test_seed_loader_splits_and_strips_test_lines(tmp_path):
    f = tmp_path / "t.mlir"
    f.write_text("// RUN: x\nmodule {}\n// -----\n// CHECK: y\nmodule {}\n")
    seeds = fuzz.load_seeds([f])
    assert len(seeds) == 2 and all("RUN" not in s.text and "CHECK" not in s.text for s in seeds)
    assert re.search(r"#1$", seeds[1].name)
