"""Session 30's attention zoo (``tileorch.testing.attnzoo30_programs``, issue 20): each program exported
through the launcher's argument description and cuTile's exporter (no GPU) and lowered for sm_90a
(``compile_memo.lower_once``: the driver's decision and remarks) takes the path its table entry names;
a program the tensor-core tier refuses says why at the user's line (a located warning holding the
table's text), never a silent SIMT fallback; the chained kernels assemble with ptxas without spilling;
``tileorch check`` proves the K/V and Q rings of the kernel this set lifted (query tiles taken
last-first: ``num_blocks`` read in a chained kernel).  Needs cuda-tile."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("xdsl")
pytest.importorskip("cuda.tile")

from tileorch.testing import attnzoo30_programs  # noqa: E402
from tileorch.testing.attnzoo30_programs import PROGRAMS  # noqa: E402

SOURCE = str(Path(attnzoo30_programs.__file__))
TENSOR_CORES = "chained dots compiled through the TileAS tier to TMA + WGMMA"


def _lowered(name):
    """The lowering's record (``lower_once``); of a program test_chained_kernel_assembles_without_spills compiles
    (``SPILL_CHECKED``), read off that compile (``lower_once_compiled``: lowered once for both)."""
    from tileorch.testing.compile_memo import lower_once, lower_once_compiled
    from tileorch.testing.export import cutile_bytecode

    p = PROGRAMS[name]
    lower = lower_once_compiled if name in SPILL_CHECKED else lower_once
    return lower(cutile_bytecode(p.kernel, p.spec), name, arch="sm_90a")


def test_the_zoo_has_its_programs():
    assert len(PROGRAMS) >= 24
    assert sum(p.path == "chained" for p in PROGRAMS.values()) >= 20


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_program_takes_its_path(name):
    """The table's path; a chained kernel says it took the tensor cores; a refused one names the
    refusal at a line of this set's file; no internal error."""
    p = PROGRAMS[name]
    prog = _lowered(name)
    remarks = list(prog.remarks)
    assert prog.kind == p.path, remarks
    assert not [r for r in remarks if "internal error" in r or "left a kernel unlowered" in r], remarks
    refusals = [r for r in remarks if "refused" in r]
    if p.error:
        assert any(r.startswith(SOURCE + ":") and p.error in r for r in refusals), remarks
    else:
        assert not refusals, remarks
    if p.path == "chained":
        assert any(TENSOR_CORES in r for r in remarks), remarks


def test_num_blocks_refusal_is_gone_at_its_line():
    """The program reading ``ct.num_blocks(0)`` (refused before this session at that line) takes the
    tensor cores; no remark names the grid size."""
    import inspect

    src, first = inspect.getsourcelines(attnzoo30_programs.zoo_reversed_q_tiles_causal._annotated_function.pyfunc)
    line = first + next(i for i, ln in enumerate(src) if "ct.num_blocks(0)" in ln)
    remarks = list(_lowered("zoo_reversed_q_tiles_causal").remarks)
    assert not [r for r in remarks if r.startswith(f"{SOURCE}:{line}:")], remarks
    assert not [r for r in remarks if "num_blocks" in r], remarks


SPILL_CHECKED = ["zoo_softcap_lens_lse_bf16_d128", "zoo_log2_lse_d256_causal"]
"""The register-heaviest chained kernels of the set (head dim 128 with the soft cap, the key lengths and the LSE;
head dim 256).  Session 30 also assembled the two-accumulator GQA, 1000 x 777 GQA (d96), T5 bucket, hash dropout,
reversed-tile and d128 window kernels without spills (6 ptxas runs, about 10 CPU s: not repeated in CI)."""


@pytest.mark.parametrize("name", SPILL_CHECKED)
def test_chained_kernel_assembles_without_spills(name):
    from tileorch.backend.ptxas import ptxas_available, run_ptxas
    from tileorch.testing.compile_memo import compile_once
    from tileorch.testing.export import cutile_bytecode

    if not ptxas_available():
        pytest.skip("ptxas not installed")
    p = PROGRAMS[name]
    prog = compile_once(cutile_bytecode(p.kernel, p.spec), name, arch="sm_90a", ptxas=False)
    assert "wgmma.mma_async" in prog.ptx
    result = run_ptxas(prog.ptx, "sm_90a")
    assert not result.spill_warnings(), (name, result.summary())


@pytest.mark.parametrize("persistent", ["1"])
def test_reversed_query_tiles_kernel_is_proved(persistent, monkeypatch):
    """``tileorch check`` proves the rings of the kernel whose query tile reads ``num_blocks(0)`` (the persistent
    kernel, the default; session 30 proved the one-CTA-per-program kernel too, ``persistent`` "0")."""
    from tileorch.analysis.explore import check
    from tileorch.analysis.extract import extract
    from tileorch.driver import lower_program
    from tileorch.frontend.cutile import load
    from tileorch.registry import make_context
    from tileorch.testing.export import cutile_bytecode

    monkeypatch.setenv("TILEORCH_ATTN_PERSISTENT", persistent)
    p = PROGRAMS["zoo_reversed_q_tiles_causal"]
    ctx = make_context()
    kind, lowered = lower_program(load(cutile_bytecode(p.kernel, p.spec), "zoo_reversed_q_tiles_causal", ctx), ctx)
    assert kind == "chained"
    (proto,) = extract(lowered)
    result = check(proto)
    assert result.ok, result.violation
