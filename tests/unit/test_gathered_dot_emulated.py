"""Dots whose A is gathered, on the GEMM tier (``tileorch.testing.gathered_dot_programs``' ``gemm`` entries: the
consumers load WGMMA's register A from global memory, ``tileas/gathered_operand.py``): the tier's PTX run CTA by
CTA on ``tileorch.testing.ptx_emulator`` against the numpy references of test_gathered_dot_interp.py (each test
there run again with its ``run`` swapped for test_user_sweep14_emulated's GEMM runner: the launcher's own
problem derivation and tensor maps, outputs NaN-prefilled, ragged shapes, repeated / out-of-order / masked
rows).  The refused programs' SIMT PTX uses ``ldmatrix`` (not emulated): the interpreter runs them.  Needs
cuda-tile and ml_dtypes; no GPU."""

from __future__ import annotations

import pytest

pytest.importorskip("xdsl")
pytest.importorskip("cuda.tile")
pytest.importorskip("ml_dtypes")

import test_gathered_dot_interp as refs  # noqa: E402
import test_user_sweep4_emulated as s4  # noqa: E402
import test_user_sweep14_emulated as s14e  # noqa: E402

from tileorch.testing.gathered_dot_programs import PROGRAMS  # noqa: E402

EMULATED = sorted(f"test_{name}" for name, p in PROGRAMS.items() if p.path == "gemm")
"""The reference tests of the programs the GEMM tier takes."""


@pytest.fixture(autouse=True)
def _gathered_programs(monkeypatch):
    s4.add_sweep_programs(monkeypatch, PROGRAMS)
    monkeypatch.setattr(s14e, "PROGRAMS", {**s14e.PROGRAMS, **PROGRAMS})


def test_every_tier_program_has_a_reference():
    assert EMULATED and all(hasattr(refs, t) for t in EMULATED), [t for t in EMULATED if not hasattr(refs, t)]


@pytest.mark.parametrize("test", EMULATED)
def test_the_tiers_ptx_against_numpy(test, monkeypatch):
    monkeypatch.setattr(refs, "run", s14e.emulate)
    getattr(refs, test)()
