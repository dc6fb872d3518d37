"""The thirty-seventh user sweep (``tileorch.testing.user_programs37``: attention-shaped and two-dot programs) run on
the CPU against the float64 numpy references of ``tileorch.testing.user_programs37_refs`` (written from the programs'
docstrings), outputs NaN-prefilled, the spec's ragged sizes: a chained program's PTX on ``tileorch.testing.
ptx_emulator`` (every CTA of the launch, the launcher's tensor maps: test_user_sweep3_emulated's runner), a GEMM-tier
program's on the WGMMA runner (sweep_paths.emulate_on_its_path), the program the tier refuses (nested N / K loops,
the SIMT path's mma.sync, whose ``ldmatrix`` the PTX emulator does not model) on the SIMT interpreter.  The
emulator's WGMMA is f16: a bf16 program runs as its f16 twin (its bf16 form compiles in
test_user_sweep37_compile.py and runs in bf16 on the GPU, tests/gpu/test_user_sweep37_gpu.py).  CI runs :data:`CI`
(the brief: the sweep's CI part ~20 CPU s); ``TILEORCH_EMULATE_ALL=1`` runs every program.  Needs cuda-tile."""

from __future__ import annotations

import dataclasses
import os

import numpy as np
import pytest

pytest.importorskip("xdsl")
pytest.importorskip("cuda.tile")

import test_user_sweep3_emulated as s3  # noqa: E402
import test_user_sweep4_emulated as s4  # noqa: E402

from tileorch.testing.user_programs37 import PROGRAMS  # noqa: E402
from tileorch.testing.user_programs37_refs import inputs, reference  # noqa: E402

ALL = bool(os.environ.get("TILEORCH_EMULATE_ALL"))
RNG = np.random.default_rng(3745)
TWINS = {f"{n}__f16": dataclasses.replace(p, spec=[(s[0], "float16", *s[2:]) if isinstance(s, tuple) and
                                                   s[1] == "bfloat16" else s for s in p.spec])
         for n, p in PROGRAMS.items() if any(isinstance(s, tuple) and s[1] == "bfloat16" for s in p.spec)}
CI = {"s37_fmha_sample_causal_pos_gqa2_d64", "s37_gemm_then_second_gemm"}
"""The programs CI emulates (the sample's form with a query offset, GQA and keys loaded by ``order``; the epilogue
dot on a 1-D grid this sweep put on the tier); every program with ``TILEORCH_EMULATE_ALL=1``."""
TOL = {"atol": 3e-3, "rtol": 1e-2}


@pytest.fixture(autouse=True)
def _sweep(monkeypatch):
    s4.add_sweep_programs(monkeypatch, {**PROGRAMS, **TWINS})


def _make(shape, dtype):
    if dtype == "float32":
        return RNG.standard_normal(shape).astype(np.float32)
    return RNG.standard_normal(shape).astype(np.float16)  # (bf16: the f16 twins)


def run_program(name: str, x: dict) -> dict:
    """Program ``name`` on the CPU runner of its path, on inputs ``x``: every argument after the run."""
    p = PROGRAMS[name]
    key = f"{name}__f16" if f"{name}__f16" in TWINS else name
    if p.path == "chained":
        grid = tuple(p.grid) + (1,) * (3 - len(p.grid))
        return s3._chained(key, x, grid)
    if p.path == "gemm":
        from sweep_paths import emulate_on_its_path

        return emulate_on_its_path({**PROGRAMS, **TWINS}, key, x)
    import test_user_sweep_interp as interp

    interp.PROGRAMS.update(PROGRAMS)
    return interp.run(name, x)


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_program_matches_numpy(name):
    if name not in CI and not ALL:
        pytest.skip("CI-sized subset: TILEORCH_EMULATE_ALL=1 runs every program")
    x = inputs(name, _make, lambda a: a)
    out = run_program(name, x)
    refs = reference(name, x)
    assert set(refs) == set(PROGRAMS[name].outputs), name
    for pos, ref in refs.items():
        got = np.asarray(out[pos], np.float64)
        assert got.shape == ref.shape, (pos, got.shape, ref.shape)
        assert not np.isnan(got).any(), f"argument {pos}: unwritten (or NaN) outputs"
        np.testing.assert_allclose(got, ref, **TOL)


def test_a_decode_tiles_second_output_is_stored_in_the_programs_rows_only():
    """The 16-row decode linear storing its pre-activation H (C, the first store) and silu(H) into Y (session 45: the
    GEMM tier, a 64-row WGMMA tile; refused before at Y's store, whose literal row index 0 was another constant than
    C's): with Y of 40 rows (X and H of 5), the program writes Y's rows 0..15 only (rows 5..15 of its tile read X's
    zero padding: silu(0) = 0); the kernel's rows 16..63 are not the program's, and Y's rows 16..39 stay NaN (the
    launcher checks C's rows, not Y's: the kernel bounds Y's rows by the program's tile).  Fails without that bound
    (the kernel stores Y's rows 16..39)."""
    from sweep_paths import emulate_on_its_path

    name = "s37_decode_linear_pre_and_post_activation"
    p = PROGRAMS[name]
    wide = dataclasses.replace(p, spec=[*p.spec[:3], ((40, 200), "float16"), *p.spec[4:]])
    x = inputs(name, _make, lambda a: a)
    out = emulate_on_its_path(PROGRAMS, name, x, program=wide)
    h = np.asarray(x[0], np.float64) @ np.asarray(x[1], np.float64)
    np.testing.assert_allclose(np.asarray(out[2], np.float64), h, **TOL)
    got = np.asarray(out[3], np.float64)
    np.testing.assert_allclose(got[:5], h / (1 + np.exp(-h)), **TOL)
    assert (got[5:16] == 0).all(), got[5:16]
    assert np.isnan(got[16:]).all(), "rows past the program's 16-row tile were written"
