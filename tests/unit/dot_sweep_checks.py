"""The checks a dot user sweep's ``_compile`` file runs on its program table (sweeps 16 and 18): the
table's shape, one compile per program through the compile memo, the path its entry names with the
tier's remark (or, for a refused program, the located warning in the program's own lines and the
SIMT path's mma.sync remark), and ptxas without spills except the listed programs."""

from __future__ import annotations

import inspect
import re

import pytest

from simt_sweep_checks import compile_sweep_program

TENSOR_CORES = {"gemm": "compiled through the TileAS tier to the warp-specialized TMA/WGMMA kernel",
                "chained": "chained dots compiled through the TileAS tier to TMA + WGMMA"}
"""The remark of each tensor-core path (a program-table entry's ``path``)."""


def assert_dot_sweep(programs: dict, at_least: int, tensor_cores_at_least: int) -> None:
    """At least ``at_least`` programs, ``tensor_cores_at_least`` of them for a tensor-core path; each
    with outputs, a docstring and a dot, a refused one (``simt``) with its expected reason."""
    assert len(programs) >= at_least
    assert sum(p.path in TENSOR_CORES for p in programs.values()) >= tensor_cores_at_least
    for name, p in programs.items():
        assert p.path in (*TENSOR_CORES, "simt") and p.outputs, name
        assert p.path != "simt" or p.error, name
        src = inspect.getsource(p.kernel._annotated_function.pyfunc)
        assert p.kernel._annotated_function.pyfunc.__doc__, name
        assert "ct.mma(" in src or "ct.matmul(" in src or " @ " in src, name


def assert_takes_its_path(p, prog, source_file: str, severity: str = "warning") -> None:
    """``prog`` (the compile of table entry ``p``, whose kernel is in ``source_file``) took ``p.path``
    with no internal error: a tensor-core path with its remark and WGMMAs in the PTX; ``simt`` with
    the ``severity`` (a warning; a remark for a documented decision such as the f32 rule) holding ``p.error``
    located at ``file:line:col`` inside the kernel and the SIMT path's remark that its dots run on mma.sync
    tensor cores (no silent fallback)."""
    remarks = list(prog.remarks)
    assert prog.kind == p.path, remarks
    assert not [r for r in remarks if "internal error" in r or "left a kernel unlowered" in r], remarks
    if p.path != "simt":
        assert any(TENSOR_CORES[p.path] in r for r in remarks), remarks
        assert re.search(r"wgmma\.mma_async", prog.ptx)
        return
    here = re.escape(source_file)
    why = [r for r in remarks if p.error in r]
    assert why and all(re.match(here + rf":\d+:\d+: {severity}: ", r) for r in why), remarks
    lines, first = inspect.getsourcelines(p.kernel._annotated_function.pyfunc)
    at = [int(re.match(here + r":(\d+):", r).group(1)) for r in why]
    assert all(first < ln < first + len(lines) for ln in at), (at, first)
    assert any("the SIMT path computes this" in r and "on tensor cores with mma.sync" in r for r in remarks), remarks


def compiled_with_protocols(programs: dict, name: str, back_end: bool = True):
    """``(program, protocols)``: :func:`compile_sweep_program`'s compile of ``programs[name]`` and the
    pipeline protocols ``tileorch check`` extracts from the kernel that compile lowered, both once
    per test run (``compile_once_deriving``: the program is lowered once for its compile tests and
    its proof).  The protocols are kept without their IR references (``without_ir``: stored in the
    run's memo), so a violation's diagnostics name no source location.  ``back_end=False``: the
    lowering alone (``lower_once_deriving``: no LLVM code generation; the program has no PTX), for a
    proof of a variant no compile test compiles."""
    from tileorch.analysis.explore import without_ir
    from tileorch.analysis.extract import extract
    from tileorch.testing.compile_memo import compile_once_deriving, lower_once_deriving
    from tileorch.testing.export import cutile_bytecode

    p = programs[name]
    if not back_end:
        return lower_once_deriving(cutile_bytecode(p.kernel, p.spec), name, lambda m: without_ir(extract(m)),
                                   "protocols", arch="sm_90a")
    return compile_once_deriving(cutile_bytecode(p.kernel, p.spec), name, lambda m: without_ir(extract(m)),
                                 "protocols", arch="sm_90a", ptxas=False)


def assert_pipelines_proved(programs: dict, name: str, back_end: bool = True) -> None:
    """``tileorch check`` on the kernel of table entry ``programs[name]`` (lowered on its path): every
    pipeline protocol it extracts free of deadlocks and races over every trip count the checker explores.
    ``back_end=False``: from the lowering alone (:func:`compiled_with_protocols`).  Each protocol searched once
    per test run (``check_once``: two programs of a table, or of two tables, may lower to one protocol)."""
    from tileorch.testing.check_memo import check_once as check

    program, protocols = compiled_with_protocols(programs, name, back_end)
    assert program.kind == programs[name].path
    assert protocols
    for result in (check(proto) for proto in protocols):
        assert result.ok, (result.values, result.violation)


def spilled_programs(programs: dict, compile_fn) -> set[str]:
    """The programs whose PTX ptxas (sm_90a) assembles with a spill warning (skips without ptxas)."""
    from tileorch.backend.ptxas import ptxas_available, run_ptxas

    if not ptxas_available():
        pytest.skip("ptxas not installed")
    return {name for name in sorted(programs) if run_ptxas(compile_fn(name).ptx, "sm_90a").spill_warnings()}


def assert_spills_as_listed(name: str, compile_fn, listed=frozenset()) -> None:
    """Program ``name``'s PTX (``compile_fn(name).ptx``) assembles with ptxas (sm_90a) with a spill warning exactly
    when ``listed`` names it (skips without ptxas): :func:`spilled_programs` one program at a time, so that a
    program's check is a test of its own (CI-sized subsets, tests/ci_case_selection.json: a program none of whose
    other tests CI runs is not compiled in CI for its spill check alone; ``TILEORCH_EMULATE_ALL=1`` checks it)."""
    from tileorch.backend.ptxas import ptxas_available, run_ptxas

    if not ptxas_available():
        pytest.skip("ptxas not installed")
    result = run_ptxas(compile_fn(name).ptx, "sm_90a")
    assert bool(result.spill_warnings()) == (name in listed), (name, name in listed, result.summary())


def assert_assembles_without_spills(name: str, compile_fn, allowed=frozenset()) -> None:
    """Program ``name``'s PTX (``compile_fn(name).ptx``) assembles with ptxas (sm_90a) without a spill warning, unless
    ``allowed`` names it (then it may spill or not); skips without ptxas.  :func:`spilled_programs` ``<= allowed`` one
    program at a time (a test of its own: CI-sized subsets, as :func:`assert_spills_as_listed`)."""
    from tileorch.backend.ptxas import ptxas_available, run_ptxas

    if not ptxas_available():
        pytest.skip("ptxas not installed")
    result = run_ptxas(compile_fn(name).ptx, "sm_90a")
    assert name in allowed or not result.spill_warnings(), (name, result.summary())


def dot_sweep_compile_tests(programs: dict, source_file: str, tier_at_least: int, ptx_needs: dict,
                            spills_allowed=frozenset(), decisions=frozenset(), at_least: int = 40):
    """The compile tests every mixed user sweep (dots and SIMT programs, sweeps 25 on) runs on its table, bound by
    the file to its ``test_`` names::

        (compiled, test_the_sweep_has_its_programs, test_a_dot_takes_its_path_and_says_so,
         test_program_without_a_dot_compiles_on_the_simt_path, test_every_program_assembles_without_spills) = \
            dot_sweep_compile_tests(PROGRAMS, SOURCE, 15, PTX_NEEDS)

    ``compiled(name)``: the program's compile for sm_90a (once per run, :func:`compile_sweep_program`).  The table:
    at least ``at_least`` programs, ``tier_at_least`` of them on the tier, each with a docstring and outputs, a dot
    (``ct.mma`` / ``@`` / ``ct.matmul``) exactly in the programs of DOTS (the tier's and the refused ones: an
    ``error``).  A dot takes its path (:func:`assert_takes_its_path`; the programs of ``decisions`` with a located
    remark, not a warning) and its PTX matches ``ptx_needs[name]``; the others the SIMT path with no refusal
    (:func:`~simt_sweep_checks.assert_on_the_simt_path`); ptxas spills in ``spills_allowed`` only."""
    from simt_sweep_checks import assert_on_the_simt_path

    dots = {n for n, p in programs.items() if p.path != "simt" or p.error}

    def compiled(name):
        """The program's compile for sm_90a, shared by the tests of a run (``compile_once``)."""
        return compile_sweep_program(programs, name)

    def test_the_sweep_has_its_programs():
        assert len(programs) >= at_least and sum(p.path == "gemm" for p in programs.values()) >= tier_at_least
        for name, p in programs.items():
            assert p.kernel._annotated_function.pyfunc.__doc__ and p.outputs, name
            src = inspect.getsource(p.kernel._annotated_function.pyfunc)
            assert ("ct.mma(" in src or " @ " in src or "ct.matmul(" in src) == (name in dots), name

    @pytest.mark.parametrize("name", sorted(dots))
    def test_a_dot_takes_its_path_and_says_so(name):
        prog = compiled(name)
        assert_takes_its_path(programs[name], prog, source_file, "remark" if name in decisions else "warning")
        for pattern in ptx_needs.get(name, []):
            assert re.search(pattern, prog.ptx), pattern

    @pytest.mark.parametrize("name", sorted(set(programs) - dots))
    def test_program_without_a_dot_compiles_on_the_simt_path(name):
        assert_on_the_simt_path(compiled(name), name, ptx_needs)

    def test_every_program_assembles_without_spills():
        assert spilled_programs(programs, compiled) <= set(spills_allowed)

    return (compiled, test_the_sweep_has_its_programs, test_a_dot_takes_its_path_and_says_so,
            test_program_without_a_dot_compiles_on_the_simt_path, test_every_program_assembles_without_spills)


__all__ = ["TENSOR_CORES", "assert_assembles_without_spills", "assert_dot_sweep", "assert_pipelines_proved",
           "assert_takes_its_path", "compile_sweep_program", "compiled_with_protocols", "dot_sweep_compile_tests",
           "spilled_programs"]
