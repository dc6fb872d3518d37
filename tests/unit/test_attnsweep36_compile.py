"""Session 36's attention-shaped sweep (``tileorch.testing.attnsweep36_programs``, issue 20): every program exported
through the launcher's argument description and cuTile's exporter (no GPU) and lowered for sm_90a
(``compile_memo.lower_once``) takes the path its table entry names: the chained ones say they took the tensor cores
(TMA + WGMMA); the one the tier refuses (the two-pass softmax) says why at a line of the program's file, never a
silent SIMT fallback, an internal error or a tier op name.  The window / document-mask / dropout / transposed-O
kernels' pipelines are proved by ``tileorch check``; the heaviest assemble without spills.  Needs cuda-tile."""

from __future__ import annotations

import inspect
from pathlib import Path

import pytest

pytest.importorskip("xdsl")
pytest.importorskip("cuda.tile")

from tileorch.testing import attnsweep36_programs  # noqa: E402
from tileorch.testing.attnsweep36_programs import PROGRAMS  # noqa: E402

SOURCE = str(Path(attnsweep36_programs.__file__))
TENSOR_CORES = "chained dots compiled through the TileAS tier to TMA + WGMMA"


PROVED = ["s36_window_two_bounds", "s36_document_mask", "s36_dropout_hashed", "s36_o_transposed_bm128"]
SPILL_CHECKED = ["s36_d80_causal_bm128", "s36_d160_cross_bn32", "s36_bn256_plain", "s36_dropout_hashed"]
COMPILED = {*PROVED, *SPILL_CHECKED, "s36_d80_bshd_cross_strided", "s36_lse_natural_f32out_d80",
            "s36_sample_gqa_bshd_order", "s36_scale_in_exp"}
"""The programs a CI run also compiles (``compile_once(..., arch="sm_90a", ptxas=False)``: the tests below and
test_attnsweep36_emulated.py's CI subset, its f16 programs under their own names): their lowering is read off that
compile (``lower_once_compiled``; the proved ones' with their proofs, ``compile_once_deriving``), so each is lowered
once, not once alone for its path and again for its compile."""


def _prove(module):
    from tileorch.analysis.explore import check
    from tileorch.analysis.extract import extract

    return [(r.ok, str(r.violation)) for r in (check(proto) for proto in extract(module))]


def _proved(name):
    """The program's compile and its pipelines' proofs (``tileorch check`` of every protocol of the lowered kernel),
    the program lowered once for both, once per run (``compile_once_deriving``)."""
    from tileorch.testing.compile_memo import compile_once_deriving
    from tileorch.testing.export import cutile_bytecode

    p = PROGRAMS[name]
    return compile_once_deriving(cutile_bytecode(p.kernel, p.spec), name, _prove, "check", arch="sm_90a",
                                 ptxas=False)


def _lowered(name):
    import contextlib

    from tileorch.testing.compile_memo import lower_once, lower_once_compiled
    from tileorch.testing.export import cutile_bytecode

    p = PROGRAMS[name]
    data = cutile_bytecode(p.kernel, p.spec)
    if name in PROVED:
        with contextlib.suppress(Exception):  # (a compile that raises: lower_once below raises the lowering's error)
            _proved(name)
    if name in COMPILED:
        return lower_once_compiled(data, name, arch="sm_90a")
    return lower_once(data, name, arch="sm_90a")


def _line_of(kernel, text):
    src, first = inspect.getsourcelines(kernel._annotated_function.pyfunc)
    return first + next(i for i, ln in enumerate(src) if text in ln)


def test_the_sweep_has_its_programs():
    assert len(PROGRAMS) >= 25
    assert sum(p.path == "chained" for p in PROGRAMS.values()) >= 24


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_program_takes_its_path(name):
    p = PROGRAMS[name]
    prog = _lowered(name)
    remarks = list(prog.remarks)
    assert prog.kind == p.path, remarks
    assert not [r for r in remarks if "internal error" in r or "left a kernel unlowered" in r], remarks
    assert not [r for r in remarks if "refused" in r and ("producer agent" in r or "'nv_tile" in r)], remarks
    refusals = [r for r in remarks if "refused" in r or "2 loops with dots" in r]
    if p.error:
        assert any(r.startswith(SOURCE + ":") and p.error in r for r in refusals), remarks
    else:
        assert not refusals, remarks
    if p.path == "chained":
        assert any(TENSOR_CORES in r for r in remarks), remarks


@pytest.mark.parametrize("name", PROVED)
def test_sweep_kernels_are_proved(name):
    """``tileorch check`` proves the chained kernels of the rebased window loop, the segment array read in the
    loop, the int32 dropout hash and the transposed O store: their pipelines' barriers and phases as for any
    chained program."""
    prog, results = _proved(name)
    assert prog.kind == "chained" and results and all(ok for ok, _ in results), results


@pytest.mark.parametrize("name", SPILL_CHECKED)
def test_chained_kernel_assembles_without_spills(name):
    """The register-heaviest shapes of the sweep (d80 in a 128-wide tile with 128 query rows, d160 in 256, 256-wide
    key tiles, the dropout hash's integer math) assemble with ptxas without spilling."""
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


def test_transposed_o_store_takes_the_chained_kernel():
    """O stored through ``ct.transpose`` (``[BH, D, S]``): refused before session 36 ("the epilogue reads a register
    tile at coordinates other than its own", the SIMT path); now the chained kernel, each accumulator element stored
    at the stored tile's (col, row), element by element (no packed column pairs: ``st.global.b32`` absent)."""
    from tileorch.testing.compile_memo import compile_once
    from tileorch.testing.export import cutile_bytecode

    p = PROGRAMS["s36_o_transposed_bm128"]
    prog = compile_once(cutile_bytecode(p.kernel, p.spec), "s36_o_transposed_bm128", arch="sm_90a", ptxas=False)
    assert prog.kind == "chained", list(prog.remarks)
    assert "wgmma.mma_async" in prog.ptx and "st.global.b16" in prog.ptx and "st.global.b32" not in prog.ptx
    line = _line_of(attnsweep36_programs.s36_o_transposed, "ct.store(OT")
    assert any(r.startswith(f"{SOURCE}:{line}:") and "remark:" in r and "accumulator tile transposed" in r
               for r in prog.remarks), list(prog.remarks)


@pytest.mark.parametrize("name", ["s36_kt_array_cross_d96", "s36_v_transposed_cross"])
def test_transposed_kv_spec_is_addressed_by_tensor_maps(name, monkeypatch):
    """The K- / V-stored-transposed cross attentions' launches on their spec's arrays take the tier: every tensor map
    the launcher builds (``chained_tensor_maps``, the encoding stubbed: no driver here) addresses its array.  With 170
    f16 keys (the specs before session 41) the transposed array's rows were 340 bytes, no 16-byte multiple: every
    launch ran the SIMT path (a PerformanceWarning), as a fake-driver launch showed in session 41."""
    from tileorch.launchers import cutile as rc
    from tileorch.launchers import gemm_host
    from tileorch.testing.export import described_arguments

    p = PROGRAMS[name]
    prog = _lowered(name)
    assert prog.kind == "chained", list(prog.remarks)
    encoded = []
    monkeypatch.setattr(gemm_host, "encode_tensor_map", lambda *a, **kw: encoded.append(a) or b"")
    rc.chained_tensor_maps(prog.chained, rc.stored_arguments(described_arguments(p.kernel, p.spec)))
    assert len(encoded) == len(prog.chained["tmaps"]) >= 3
