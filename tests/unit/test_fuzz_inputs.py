"""The front-door fuzzer (``tools/fuzz_inputs.py``) on a small seeded budget, as a guard for the CLI and
the Python API: no mutant of the examples, the tile-IR test inputs or the cuTile bytecode, and no bad
argument of ``tileorch gemm`` / ``tileorch.compile`` / ``tileorch.gemm`` / ``tileorch.cutile.launch``
may give a traceback, an unlocated error, a signal or a hang; no bad argument may be accepted."""

from __future__ import annotations

import random
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tileorch.tools import fuzz_inputs as fi

ROOT = Path(__file__).resolve().parents[2]


def _run_tool(*argv: str) -> tuple[int, str, dict[tuple[str, str], int]]:
    """``tools/fuzz_inputs.py ARGV`` in a fresh interpreter (a compile child forked from the test
    process, which owns the code generation server, stalls until its alarm): (exit status,
    output, the outcome table as ``{(door, class): count}``)."""
    done = subprocess.run([sys.executable, str(ROOT / "tools" / "fuzz_inputs.py"), *argv], capture_output=True,
                          text=True, timeout=600)
    out = done.stdout + done.stderr
    table = {}
    for line in out.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == len(fi.CLASSES) + 1 and cells[1].isdigit() and cells[0] != "all":
            table.update({(cells[0], c): int(n) for c, n in zip(fi.CLASSES, cells[1:]) if int(n)})
    return done.returncode, out, table


def test_a_seeded_budget_over_the_text_and_bytecode_doors_finds_nothing():
    code, out, table = _run_tool("--seed", "1", "--cases", "24", "--doors", "compile,opt,bc-front,bc-opt")
    assert code == 0, out
    assert sum(table.values()) == 24, out
    assert {d for d, _ in table} >= {"compile", "opt", "bc-front"}, out
    assert sum(n for (_, c), n in table.items() if c == "located") >= 12, out  # the mutants are mostly wrong


def test_every_bad_argument_of_gemm_and_the_api_is_refused_with_a_message():
    cases = len(fi.GEMM_BAD) + len(fi.API_BAD)
    code, out, table = _run_tool("--seed", "1", "--cases", str(cases), "--doors", "gemm,api")
    assert code == 0, out
    assert table == {("gemm", "located"): len(fi.GEMM_BAD), ("api", "located"): len(fi.API_BAD)}, out


@pytest.mark.parametrize("mode, code, sig, output, cls", [
    ("opt:dce", 1, None, "a.mlir:3:5: error: bad\n", "located"),
    ("opt:dce", 1, None, "<unknown>: error: bad\n", "unlocated"),
    ("opt:dce", 1, None, "", "unlocated"),
    ("compile", 1, None, "Traceback (most recent call last):\n  File ...\nKeyError: 3\n", "traceback"),
    ("compile", 1, None, "a.mlir:1:1: error: internal error: boom\n", "traceback"),
    ("compile", 0, None, "", "accepted"),
    ("compile", -1, signal.SIGABRT, "", "crash"),
    ("compile", 3, None, "a.mlir:1:1: error: x\n", "crash"),
    ("bc-front", 1, None, "k.tileirbc: error: invalid CUDA Tile IR bytecode at offset 12: bad\n", "located"),
    ("gemm", 2, None, "usage: tileorch gemm ...\ntileorch gemm: error: argument --stages: 0 is not in 2..16\n",
     "located"),
    ("gemm", 1, None, "error: --tile-n 100 is not a multiple of 64\n", "located"),
    ("api", 1, None, "api: refused: ValueError: arch 'x' is not a target\n", "located"),
    ("api", 99, None, "Traceback (most recent call last):\nIndexError: list index out of range\n", "traceback"),
])
def test_outcome_classes(mode, code, sig, output, cls):
    assert fi.classify(mode, code, sig, output, False) == cls


def test_a_timeout_is_a_finding_of_its_own():
    assert fi.classify("compile", -1, None, "", True) == "timeout"
    assert set(fi.FINDINGS) == set(fi.CLASSES) - {"located", "accepted"}


def test_semantic_mutations_change_code_not_comments():
    text = ("// stages = 4, producers = 1 in a comment\n"
            "%pipe = cutlass.pipeline.create : !cutlass.pipeline<stages = 4, producers = 1, consumers = 2>\n"
            "%t = nv_tileaa.dot %a, %b, %c : tile<128x64xf16>, tile<64x128xf16>, tile<128x128xf32>\n"
            "func.return\n")
    m = fi.SemanticMutator(random.Random(3))
    changed = 0
    for _ in range(40):
        new = m.pipeline_param(text)
        assert new.splitlines()[0] == text.splitlines()[0]
        changed += new != text
        dot = m.dot_k(text)
        assert dot.splitlines()[2] != text.splitlines()[2] and dot.splitlines()[1] == text.splitlines()[1]
    assert changed >= 30
    assert "func.return" not in m.terminator_drop(text)
    assert "nv_tileaa.dot %b, %a, %c" in m.operand_swap(text)
    assert m.pipeline_param("// stages = 4\n") is None


def test_the_same_seed_gives_the_same_mutants():
    seeds = fi.load_text_seeds()
    assert any(s.name.startswith("examples/") for s in seeds) and any("cuda_tile" in s.name for s in seeds)
    runs = []
    for _ in range(2):
        m = fi.SemanticMutator(random.Random(11))
        runs.append([m.mutate(s.text) for s in seeds[:20]])
    assert runs[0] == runs[1]
