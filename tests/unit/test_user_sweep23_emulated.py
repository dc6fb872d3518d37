"""The twenty-third user sweep's programs as PTX (after LLVM, not the MLIR the SIMT interpreter runs) run CTA
by CTA on the CPU by ``tileorch.testing.ptx_emulator``, against the same independent numpy references as
test_user_sweep23_interp.py: each test there named in :data:`EMULATED` runs again with its ``run`` swapped for
test_user_sweep10_emulated.emulate (outputs NaN / sentinel prefilled, ragged sizes, the launcher's parameter
order; a reduction loop split over a cluster runs in the launcher's clusters).  The Gram matrix (the WGMMA
tier's kernel) runs through test_user_sweep14_emulated's GEMM runner.  Needs cuda-tile and ml_dtypes, no
GPU, no ptxas."""

from __future__ import annotations

import os

import numpy as np
import pytest

pytest.importorskip("xdsl")
pytest.importorskip("cuda.tile")
pytest.importorskip("ml_dtypes")

import test_user_sweep4_emulated as s4  # noqa: E402
import test_user_sweep10_emulated as s10e  # noqa: E402
import test_user_sweep14_emulated as s14e  # noqa: E402
import test_user_sweep23_interp as s23  # noqa: E402

from tileorch.testing.user_programs23 import PROGRAMS  # noqa: E402

EMULATED = ["test_segment_sum_csr_runtime_trip", "test_histc_float_bins_atomic", "test_f64_two_pass_variance_exp",
            "test_int_floordiv_mod_negatives_shifts", "test_casts_nan_inf_overflow_f16_bf16",
            "test_fp8_e4m3_per_row_scale_clamp", "test_scale_heads_of_a_transposed_view",
            "test_first_above_threshold_while_break"]
"""The tests of test_user_sweep23_interp.py run here on the PTX (a CI-sized subset: the tests of all 36 programs
without a dot passed on the emulator in session 32, ``TILEORCH_EMULATE_ALL=1`` runs them; the two dots on mma.sync
need ``ldmatrix``, which the emulator does not model): a runtime-trip reduction loop split
over a cluster, ``atom.add``, f64 ``exp`` / ``log`` / division, ``div.s32`` / ``rem`` with the floor correction,
``cvt`` of NaN / inf / overflow to f16 and bf16, the saturating e4m3 conversion, a strided 4-D view, a ``while
True`` loop with ``break``."""
if os.environ.get("TILEORCH_EMULATE_ALL"):
    EMULATED = sorted(n for n in dir(s23) if n.startswith("test_") and "scores" not in n and "onehot" not in n)


@pytest.mark.parametrize("test", EMULATED)
def test_the_ptx_against_numpy(test, monkeypatch):
    monkeypatch.setattr(s10e, "PROGRAMS", PROGRAMS)
    monkeypatch.setattr(s23, "run", s10e.emulate)
    s23.every_case(getattr(s23, test))


def _case_gram_matrix_xtx_transposed_tile():
    """``X^T X`` of 300 f16 samples of 128 features (the K loop over ragged samples)."""
    x = (np.random.default_rng(2324).standard_normal((300, 128)) * 0.5).astype(np.float16)
    g = emulate("gram_matrix_xtx_transposed_tile", {0: x})[1]
    xd = x.astype(np.float64)
    np.testing.assert_allclose(g, xd.T @ xd, atol=1e-2, rtol=1e-3)


def emulate(name: str, inputs: dict) -> dict:
    """A GEMM-tier program on its spec's shapes (test_user_sweep14_emulated's runner; the GPU file swaps it)."""
    return s14e.emulate(name, inputs)


CASES = {n.removeprefix("_case_"): f for n, f in globals().items() if n.startswith("_case_")}


def test_the_gram_matrix_on_the_wgmma_emulator(monkeypatch):
    s4.add_sweep_programs(monkeypatch, PROGRAMS)
    monkeypatch.setattr(s14e, "PROGRAMS", {**s14e.PROGRAMS, **PROGRAMS})
    CASES["gram_matrix_xtx_transposed_tile"]()
