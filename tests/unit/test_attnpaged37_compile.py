"""Session 37's paged-KV / decode set (``tileorch.testing.attnpaged37_programs``, issue 20): every program exported
through the launcher's argument description and cuTile's exporter (no GPU) and lowered for sm_90a
(``compile_memo.lower_once``) takes the path its table entry names: the chained ones say they took the tensor cores
(TMA + WGMMA); the refused ones (a key tile of pages joined by ``ct.cat``, K / V gathered slot by slot) say why at
their line of the program's file, never a silent SIMT fallback, an internal error or a tier op name.  The page
walk written as two loops is proved by ``tileorch check`` and assembles without spills.  Needs cuda-tile."""

from __future__ import annotations

import inspect
from pathlib import Path

import pytest

pytest.importorskip("xdsl")
pytest.importorskip("cuda.tile")

from tileorch.testing import attnpaged37_programs  # noqa: E402
from tileorch.testing.attnpaged37_programs import PROGRAMS  # noqa: E402

SOURCE = str(Path(attnpaged37_programs.__file__))
TENSOR_CORES = "chained dots compiled through the TileAS tier to TMA + WGMMA"


def _lowered(name):
    from tileorch.testing.compile_memo import lower_once
    from tileorch.testing.export import cutile_bytecode

    p = PROGRAMS[name]
    return lower_once(cutile_bytecode(p.kernel, p.spec), name, arch="sm_90a")


def _line_of(kernel, text):
    src, first = inspect.getsourcelines(kernel._annotated_function.pyfunc)
    return first + next(i for i, ln in enumerate(src) if text in ln)


def test_the_set_has_its_programs():
    assert len(PROGRAMS) >= 15
    assert sum(p.path == "chained" for p in PROGRAMS.values()) >= 10


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_program_takes_its_path(name):
    p = PROGRAMS[name]
    prog = _lowered(name)
    remarks = list(prog.remarks)
    assert prog.kind == p.path, remarks
    assert not [r for r in remarks if "internal error" in r or "left a kernel unlowered" in r], remarks
    assert not [r for r in remarks if "refused" in r and ("producer agent" in r or "'nv_tile" in r)], remarks
    refusals = [r for r in remarks if "refused" in r or "warning:" in r]
    if p.error:
        assert any(r.startswith(SOURCE + ":") and p.error in r for r in refusals), remarks
    else:
        assert not [r for r in refusals if "refused" in r], remarks
    if p.path == "chained":
        assert any(TENSOR_CORES in r for r in remarks), remarks


def test_joined_pages_refused_at_the_cat():
    """The key tile of two pages joined by ``ct.cat`` is refused at the ``ct.cat`` line, naming the reason (each
    part its own TMA coordinate) and what runs instead; before session 37 the refusal said the tile "depends on
    the element's position"."""
    prog = _lowered("p37_decode_pages_cat_bs32")
    line = _line_of(attnpaged37_programs.p37_decode_pages_cat, "k = ct.cat(")
    assert any(r.startswith(f"{SOURCE}:{line}:") and "each part here has its own" in r and "Table[b, j // R]" in r
               for r in prog.remarks), list(prog.remarks)


def test_nested_page_loop_flattened_with_a_remark():
    """The page walk written as pages outside, the page's key tiles inside: flattened (the page number's read
    repeated at every step), with the flattening's remark at the outer loop."""
    prog = _lowered("p37_decode_page_inner_loop_r2")
    line = _line_of(attnpaged37_programs.p37_decode_page_inner_loop, "for i in range(")
    assert any(r.startswith(f"{SOURCE}:{line}:") and "nested K loops" in r for r in prog.remarks), list(prog.remarks)


@pytest.mark.parametrize("name", ["p37_decode_page_inner_loop_r2", "p37_decode_page_gather_bs16"])
def test_paged_kernels_are_proved(name):
    """``tileorch check`` proves the flattened page walk's and the 16-slot pages' kernels (their pipelines'
    barriers and phases as for any chained program)."""
    from tileorch.analysis.explore import check
    from tileorch.analysis.extract import extract
    from tileorch.testing.compile_memo import lower_once_deriving
    from tileorch.testing.export import cutile_bytecode

    def prove(module):
        return [(r.ok, str(r.violation)) for r in (check(proto) for proto in extract(module))]

    p = PROGRAMS[name]
    prog, results = lower_once_deriving(cutile_bytecode(p.kernel, p.spec), name, prove, "check", arch="sm_90a")
    assert prog.kind == "chained" and results and all(ok for ok, _ in results), results


@pytest.mark.parametrize("name", ["p37_decode_page_gather_g64_bn128", "p37_decode_page_inner_loop_r2"])
def test_chained_kernel_assembles_without_spills(name):
    """64 GQA rows against 128-key pages at head dim 128, and the flattened page walk, assemble without spills."""
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
