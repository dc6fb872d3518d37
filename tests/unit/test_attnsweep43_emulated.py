"""Session 43's attention-shaped sweep (``tileorch.testing.attnsweep43_programs``): each chained kernel's PTX run on
the CPU by ``tileorch.testing.ptx_emulator`` (every CTA of the launch, the launcher's tensor maps and parameters:
test_user_sweep3_emulated's runner) against the float64 numpy reference of ``tileorch.testing.attnsweep43_refs``
(written from the programs' docstrings), outputs NaN-prefilled, the spec's ragged sizes.  The emulator's WGMMA is
f16: a bf16 program runs as its f16 twin (its bf16 form compiles in test_attnsweep43_compile.py and runs on the GPU
in tests/gpu/test_attnsweep43_gpu.py).  CI runs :data:`QUICK`; ``TILEORCH_EMULATE_ALL=1`` runs every chained
program.  Needs cuda-tile."""

from __future__ import annotations

import dataclasses
import os

import numpy as np
import pytest

pytest.importorskip("xdsl")
pytest.importorskip("cuda.tile")

import test_user_sweep3_emulated as s3  # noqa: E402
import test_user_sweep4_emulated as s4  # noqa: E402

from tileorch.testing.attnsweep43_programs import PROGRAMS  # noqa: E402
from tileorch.testing.attnsweep43_refs import inputs, reference  # noqa: E402

RNG = np.random.default_rng(43020)
TWINS = {f"{n}__f16": dataclasses.replace(p, spec=[(s[0], "float16", *s[2:]) if isinstance(s, tuple) and
                                                   s[1] == "bfloat16" else s for s in p.spec])
         for n, p in PROGRAMS.items() if any(isinstance(s, tuple) and s[1] == "bfloat16" for s in p.spec)}
QUICK = {"a43_alibi_causal_d64", "a43_sink_state_d64", "a43_varlen_padded_tiles_d64",
         "a43_lse_scatter_d64", "a43_sink_block_dot_before"}
"""The programs CI emulates (the rest with ``TILEORCH_EMULATE_ALL=1``)."""
CHAINED = sorted(n for n, p in PROGRAMS.items() if p.path == "chained")


@pytest.fixture(autouse=True)
def _sweep(monkeypatch):
    s4.add_sweep_programs(monkeypatch, {**PROGRAMS, **TWINS})


def _make(shape, dtype):
    return RNG.standard_normal(shape).astype(np.float32 if dtype == "float32" else np.float16)  # (bf16: f16 twins)


@pytest.mark.parametrize("name", CHAINED)
def test_chained_program_matches_numpy(name):
    if name not in QUICK and not os.environ.get("TILEORCH_EMULATE_ALL"):
        pytest.skip("CI-sized subset: TILEORCH_EMULATE_ALL=1 runs every program")
    x = inputs(name, _make, lambda a: a)
    key = f"{name}__f16" if f"{name}__f16" in TWINS else name
    grid = tuple(PROGRAMS[name].grid) + (1,) * (3 - len(PROGRAMS[name].grid))
    out = s3._chained(key, x, grid)
    for pos, ref in reference(name, x).items():
        got = np.asarray(out[pos], np.float64)
        assert not np.isnan(got).any(), f"argument {pos}: unwritten (or NaN) outputs"
        np.testing.assert_allclose(got, ref, atol=3e-3, rtol=1e-2)


def test_every_program_has_a_reference():
    """Each program's inputs and reference build (the SIMT ones': the GPU test runs them; the chained ones' in CI
    are built by the test above, all of them with ``TILEORCH_EMULATE_ALL=1``), every output the table names
    referenced."""
    for name, p in PROGRAMS.items():
        if p.path == "chained" and not os.environ.get("TILEORCH_EMULATE_ALL"):
            continue
        refs = reference(name, inputs(name, _make, lambda a: a))
        assert set(refs) == set(p.outputs), name
