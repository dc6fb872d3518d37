"""The checks every SIMT-path user sweep's ``_compile`` file runs on its program table (sweeps 12, 13
and 15): the table's shape, one compile per program through the compile memo, the SIMT path with no
refusal and the idioms its PTX must hold, and ptxas without spills."""

from __future__ import annotations

import inspect
import re

import pytest


def assert_simt_sweep(programs: dict, at_least: int) -> None:
    """At least ``at_least`` programs, each for the SIMT path with outputs, a docstring and no dot."""
    assert len(programs) >= at_least
    for name, p in programs.items():
        assert p.path == "simt" and p.outputs, name
        assert p.kernel._annotated_function.pyfunc.__doc__, name
        src = inspect.getsource(p.kernel._annotated_function.pyfunc)
        assert "ct.mma(" not in src and " @ " not in src, name


def compile_sweep_program(programs: dict, name: str):
    """``programs[name]`` compiled for sm_90a without ptxas, once per test run (compile_memo)."""
    from tileorch.testing.compile_memo import compile_once
    from tileorch.testing.export import cutile_bytecode

    p = programs[name]
    return compile_once(cutile_bytecode(p.kernel, p.spec), name, arch="sm_90a", ptxas=False)


def assert_on_the_simt_path(prog, name: str, ptx_needs: dict) -> None:
    """The SIMT path, no refusal, internal error or "not supported" remark, and every pattern of
    ``ptx_needs[name]`` in the PTX."""
    remarks = list(prog.remarks)
    assert prog.kind == "simt", remarks
    assert not [r for r in remarks if "refused" in r or "internal error" in r or "not supported" in r], remarks
    for pattern in ptx_needs.get(name, []):
        assert re.search(pattern, prog.ptx), (name, pattern)


def assert_assembles_without_spills(programs: dict, compile_fn, cubin: bool = False,
                                    spills_allowed: dict | None = None) -> None:
    """ptxas (sm_90a) on every program's PTX: no spill warning (and a cubin when ``cubin``); a program of
    ``spills_allowed`` may spill at most its bytes of stores (the file names why)."""
    from tileorch.backend.ptxas import ptxas_available, run_ptxas

    if not ptxas_available():
        pytest.skip("ptxas not installed")
    for name in sorted(programs):
        result = run_ptxas(compile_fn(name).ptx, "sm_90a")
        if cubin:
            assert result.cubin_bytes > 0, name
        if name in (spills_allowed or {}):
            stored = [int(b) for b in re.findall(r"(\d+) B spill stores", result.summary())]
            assert all(b <= spills_allowed[name] for b in stored), (name, result.summary())
            continue
        assert not result.spill_warnings(), (name, result.summary())


def simt_sweep_compile_tests(programs: dict, at_least: int, ptx_needs: dict, cubin: bool = True,
                             spills_allowed: dict | None = None):
    """The three tests of a SIMT sweep's ``_compile`` file, for ``programs``: the table's shape
    (:func:`assert_simt_sweep` with ``at_least``), each program on the SIMT path with the idioms of
    ``ptx_needs`` (parametrized by name) and ptxas without spills.  A file binds them to its
    ``test_`` names (``test_the_sweep_has_its_programs, test_program_compiles_on_the_simt_path,
    test_every_program_assembles_without_spills = simt_sweep_compile_tests(...)``)."""

    def compiled(name):
        return compile_sweep_program(programs, name)

    def test_the_sweep_has_its_programs():
        assert_simt_sweep(programs, at_least)

    @pytest.mark.parametrize("name", sorted(programs))
    def test_program_compiles_on_the_simt_path(name):
        assert_on_the_simt_path(compiled(name), name, ptx_needs)

    def test_every_program_assembles_without_spills():
        assert_assembles_without_spills(programs, compiled, cubin=cubin, spills_allowed=spills_allowed)

    return test_the_sweep_has_its_programs, test_program_compiles_on_the_simt_path, \
        test_every_program_assembles_without_spills
