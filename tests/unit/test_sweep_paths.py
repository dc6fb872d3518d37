"""tests/unit/sweep_paths.py: a sweep program's path read from one place (the program table), so moving a program
between the GEMM tier and the SIMT path needs no test edit (session 40's mid3d had to add a case to sweeps 26's and
30's emulated files and their GPU twins' checks when two programs moved to the tier).  No compile, no emulation."""

from __future__ import annotations

import dataclasses

import pytest

pytest.importorskip("xdsl")
pytest.importorskip("cuda.tile")

import sweep_paths  # noqa: E402


def _sweeps():
    import test_user_sweep26_emulated as s26e
    import test_user_sweep26_interp as s26
    import test_user_sweep30_emulated as s30e
    import test_user_sweep30_interp as s30

    return [(s26e.PROGRAMS, (s26, s26e), (s26e.CASES,)),
            (s30e.PROGRAMS, (s30, s30e), (s30e.CASES, s30e.ATTENTION_CASES))]


def test_moving_a_program_between_the_tier_and_simt_leaves_every_program_tested():
    """Each GEMM-tier program of sweeps 26 and 30 moved to the SIMT path, and each SIMT one moved to the tier (its table
    entry only): every program still has a numpy test.  Session 40's check (``set(CASES) == {the gemm-path
    programs}``) failed for the move; it is shown failing here on the moved table."""
    for programs, modules, cases in _sweeps():
        flip = {"gemm": "simt", "simt": "gemm"}
        moved = {n: dataclasses.replace(p, path=flip.get(p.path, p.path), error="") for n, p in programs.items()}
        assert not sweep_paths.untested(moved, *modules, cases=cases)
        gemm_cases = cases[0]
        assert set(gemm_cases) != {n for n, p in moved.items() if p.path == "gemm"}  # (session 40's check)


def test_the_emulator_follows_the_table(monkeypatch):
    """The runner is the one of the path the table (or the resized entry given) names; a chained program is refused
    (its cases have a runner of their own)."""
    import test_user_sweep10_emulated as s10e
    import test_user_sweep14_emulated as s14e

    from tileorch.testing.user_programs26 import PROGRAMS

    ran = []
    monkeypatch.setattr(s10e, "emulate", lambda name, inputs: ran.append(("simt", s10e.PROGRAMS[name].path)) or {})
    monkeypatch.setattr(s14e, "emulate", lambda name, inputs: ran.append(("gemm", s14e.PROGRAMS[name].path)) or {})
    name = "gemm_heads_on_grid_axis2"
    sweep_paths.emulate_on_its_path(PROGRAMS, name, {})
    sweep_paths.emulate_on_its_path(PROGRAMS, name, {}, dataclasses.replace(PROGRAMS[name], path="simt"))
    assert ran == [("gemm", "gemm"), ("simt", "simt")]
    with pytest.raises(ValueError, match="runner of its own"):
        sweep_paths.emulate_on_its_path(PROGRAMS, name, {}, dataclasses.replace(PROGRAMS[name], path="chained"))


def test_a_refused_dot_is_told_by_its_table_entry():
    """The tests the emulator cannot run (a refused dot's mma.sync) are those of SIMT-path programs with a located
    refusal: sweep 26's w4a16 dot among them, none of sweep 30's since its 3-D operand moved to the tier."""
    import test_user_sweep26_interp as s26
    import test_user_sweep30_interp as s30

    from tileorch.testing.user_programs26 import PROGRAMS as P26
    from tileorch.testing.user_programs30 import PROGRAMS as P30

    assert sweep_paths.refused_dot_tests(P30, s30) == set()
    refused = sweep_paths.refused_dot_tests(P26, s26)
    assert "test_w4a16_gemm_nibbles_dequant_in_loop" in refused and "test_gemm_heads_on_grid_axis2" not in refused
    assert all(P26[n].path == "simt" and P26[n].error
               for t in refused for n in sweep_paths.programs_run_by(getattr(s26, t)))
