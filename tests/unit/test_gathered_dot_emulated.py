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


def test_earlier_sweeps_gathered_a_programs(monkeypatch):
    """Programs of earlier sweeps that the gathered-A path now takes (refused until session 25), on the tier's
    PTX: sweep 7's 3 x 3 convolution as an implicit GEMM (im2col rows gathered, the halo masked to zero;
    test_user_sweep7_interp's reference) and sweep 14's one-expert MoE (``X[Idx[r]] @ W[e]``, W's matrix a host
    view; 200 ids of 300 rows, repeated)."""
    import numpy as np
    import test_user_sweep7_interp as s7

    from tileorch.testing.user_programs7 import PROGRAMS as SEVENTH
    from tileorch.testing.user_programs14 import PROGRAMS as FOURTEENTH

    earlier = {"conv2d_implicit_gemm_nhwc": SEVENTH["conv2d_implicit_gemm_nhwc"],
               "moe_gather_token_rows": FOURTEENTH["moe_gather_token_rows"]}
    s4.add_sweep_programs(monkeypatch, earlier)
    monkeypatch.setattr(s14e, "PROGRAMS", {**s14e.PROGRAMS, **earlier})
    monkeypatch.setattr(s7, "run", s14e.emulate)
    s7.test_conv2d_as_implicit_gemm_nhwc()
    rng = np.random.default_rng(1414)
    x, w = rng.standard_normal((300, 128)).astype(np.float16), (rng.standard_normal((3, 128, 128)) / 4).astype(np.float16)
    idx = rng.integers(0, 300, 200).astype(np.int32)
    idx[::9] = idx[0]
    y = s14e.emulate("moe_gather_token_rows", {0: x, 1: idx, 2: w})[3]
    refs._check(y, refs._mm(x[idx], w[1]), 2e-2)
