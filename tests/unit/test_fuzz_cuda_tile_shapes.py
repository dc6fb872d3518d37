"""A seeded, time-bound fuzz of the cuTile front door in CI (session 20): cuda_tile programs with a
shape extent set to a boundary (0, negative, huge), a rank changed at one use, an element type
swapped or the text cut short (:class:`tileorch.tools.fuzz.Mutator`'s cuda_tile mutations), each
compiled in process by :func:`tileorch.driver.compile_program` (no ptxas).  Every mutant compiles
or raises a tileorch error whose every ``error:`` line names the mutant's file and line; never
another exception.  The long campaigns are ``tools/fuzz.py`` (forked ``tileorch compile``) and
``tools/fuzz_cutile.py``."""

from __future__ import annotations

import random
import re
import time
from pathlib import Path

import pytest

pytest.importorskip("xdsl")

from tileorch.tools import fuzz  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
SEEDS = ("tests/filecheck/cuda_tile/lower_to_tileaa.mlir", "tests/filecheck/cuda_tile/pointers_to_tileaa.mlir",
         "tests/filecheck/cuda_tile/red_view_to_tileaa.mlir", "tests/filecheck/cuda_tile/print_to_simt.mlir")
BUDGET_S = 4.0


def _mutate(mutator: fuzz.Mutator, text: str) -> str:
    op = mutator.rng.choice([mutator.shape_dim, mutator.shape_dim, mutator.shape_rank, mutator.element_swap,
                             mutator.truncate])
    return op(text) or text


def test_the_cuda_tile_mutations_reach_shapes_and_element_types():
    """_INT_RE and _TYPE_RE never touch ``128x64xf32``: the cuda_tile mutations do."""
    text = "%t = load %p : partition_view<tile=(128x64), tensor_view<?x64xf32, strides=[64,1]>> -> tile<128x64xf32>\n"
    m = fuzz.Mutator(random.Random(0))
    dims = {m.shape_dim(text) for _ in range(200)}
    assert any("tile=(0x64)" in t or "tile=(128x0)" in t for t in dims)
    assert any(re.search(r"tile<-?\d+x64xf32>|tile<128x-?\d+xf32>", t) and "tile<128x64xf32>" not in t for t in dims)
    ranks = {m.shape_rank(text) for _ in range(60)}
    assert any("tile<64xf32>" in t or "tile<128xf32>" in t for t in ranks)
    assert any("tile<128x128x64xf32>" in t or "tile<128x64x64xf32>" in t for t in ranks)
    assert any("xf32>" not in t.split("->")[1] for t in {m.element_swap(text) for _ in range(30)})


def test_mutated_cuda_tile_programs_compile_or_give_located_errors():
    from tileorch.driver import compile_program
    from tileorch.frontend.cutile import compile_error_lines

    texts = [s.text for s in fuzz.load_seeds([ROOT / p for p in SEEDS])
             if "cuda_tile.module" in s.text and not s.name.endswith(":generic")]
    assert len(texts) >= 4
    rng = random.Random(20)
    mutator = fuzz.Mutator(rng)
    outcomes: dict[str, int] = {}
    start = time.monotonic()
    i = 0
    while time.monotonic() - start < BUDGET_S:
        text = _mutate(mutator, rng.choice(texts))
        name = f"mutant{i}.mlir"
        i += 1
        try:
            compile_program(text.encode(), name, ptxas=False)
            outcomes["ok"] = outcomes.get("ok", 0) + 1
            continue
        except Exception as exc:  # noqa: BLE001 - what `tileorch compile` prints for it (None: a traceback)
            lines = compile_error_lines(exc, name)
            assert lines is not None, f"{name}: {type(exc).__name__}: {exc}\n--- input:\n{text}"
        errors = [line for line in lines if "error:" in line]
        assert errors, f"{name}: no error line:\n{lines}\n--- input:\n{text}"
        for line in errors:
            assert re.match(rf"{re.escape(name)}:\d+:\d+: error: ", line), \
                f"{name}: unlocated error:\n{line}\n--- input:\n{text}"
            assert "internal error" not in line, f"{name}:\n{line}\n--- input:\n{text}"
        outcomes["located"] = outcomes.get("located", 0) + 1
    assert sum(outcomes.values()) >= 3, outcomes
