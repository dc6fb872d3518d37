"""A sweep program's path in the sweeps' emulated and GPU tests, from one place: the program table's ``path`` field
(``tileorch.testing.user_programs*``; the compile tests and ``tests/gpu/sweep_harness.py`` check it against the
compiler's own decision).

A program's numpy reference is written once (a ``run("name", ...)`` test of the sweep's interp file, or a case of its
emulated file); :func:`emulate_on_its_path` runs it on the emulator of the path the table names (the WGMMA runner for
``gemm``, the SIMT runner for ``simt``), and :func:`untested` asks that every program has a reference, whatever its
path.  So moving a program between the GEMM tier and the SIMT path edits its table entry only (session 40's mid3d
moved two and had to add a case to each of sweep 26's and sweep 30's emulated files and their GPU twins' checks)."""

from __future__ import annotations

import contextlib
import inspect
import re

_NAMED = re.compile(r'\b(?:run|emulate)\("([A-Za-z0-9_]+)"')


def programs_run_by(source_of) -> set[str]:
    """The programs a test module, function or source text runs by name (``run("name"`` / ``emulate("name"``)."""
    return set(_NAMED.findall(source_of if isinstance(source_of, str) else inspect.getsource(source_of)))


def untested(programs: dict, *modules, cases=()) -> list[str]:
    """The programs of ``programs`` that no test of ``modules`` runs by name and no table of ``cases`` (dicts keyed by
    program name) has a case for: each must have a numpy reference, whatever its path."""
    named = set().union(*(programs_run_by(m) for m in modules), *(set(c) for c in cases))
    return sorted(set(programs) - named)


def refused_dot_tests(programs: dict, module) -> set[str]:
    """The tests of ``module`` that run a program on the SIMT path after the tier's located refusal (its table entry's
    ``error``): a dot lowered to ``mma.sync``, whose ``ldmatrix`` the PTX emulator does not model."""
    return {name for name, fn in inspect.getmembers(module, inspect.isfunction) if name.startswith("test_")
            and any(programs[n].path == "simt" and programs[n].error for n in programs_run_by(fn) if n in programs)}


@contextlib.contextmanager
def _swapped(*changes):
    """Each ``(module, attribute, value)`` set for the block, the old values put back after it."""
    old = [(m, a, getattr(m, a)) for m, a, _ in changes]
    try:
        for m, a, v in changes:
            setattr(m, a, v)
        yield
    finally:
        for m, a, v in old:
            setattr(m, a, v)


def emulate_on_its_path(programs: dict, name: str, inputs: dict, program=None) -> dict:
    """Program ``name`` (``program``: a resized entry in its place) on the PTX emulator of the path its table entry
    names: ``gemm``, test_user_sweep14_emulated's WGMMA runner (every CTA, the launcher's tensor maps); ``simt``,
    test_user_sweep10_emulated's; every argument after the run, as the interp files' ``run`` returns them."""
    import test_user_sweep4_emulated as s4
    import test_user_sweep10_emulated as s10e
    import test_user_sweep14_emulated as s14e

    from tileorch.testing import user_programs3

    p = programs[name] if program is None else program
    table = {**programs, name: p}
    if p.path == "simt":
        with _swapped((s10e, "PROGRAMS", table)):
            return s10e.emulate(name, inputs)
    if p.path == "gemm":
        with _swapped((s14e, "PROGRAMS", {**s14e.PROGRAMS, **table}), (s4, "PROGRAMS", {**s4.PROGRAMS, **table}),
                      (user_programs3, "PROGRAMS", {**user_programs3.PROGRAMS, **table})):
            return s14e.emulate(name, inputs)
    raise ValueError(f"{name}: a {p.path!r} program has a runner of its own (the sweep's chained cases)")
