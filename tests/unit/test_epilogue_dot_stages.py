"""The epilogue-dot kernels' ring deepened to what the GEMM kernel's own shared memory holds
(``TILEORCH_EPILOGUE_DOT_STAGES=fit``, ``epilogue_dot.fitted_stages``; default ``plan``: the schedule's count,
which reserved E's and the staged C tile's bytes beside the loop): LoRA on 128 x 256 tiles goes from 2 stages to
3, the benchmark MLP from 6 to 8; the PTX emulator against numpy (NaN-prefilled outputs, ragged shapes, rings
deeper than the K loop and wrapping across work tiles), the remark, ptxas without spills.  Needs cuda-tile and
ml_dtypes, no GPU."""

from __future__ import annotations

import pytest

pytest.importorskip("xdsl")
pytest.importorskip("cuda.tile")
pytest.importorskip("ml_dtypes")

import test_epilogue_dot_programs as edp  # noqa: E402
import test_epilogue_dot_tma_store as tma  # noqa: E402

from tileorch.testing import epilogue_dot_programs as P  # noqa: E402

ENV = "TILEORCH_EPILOGUE_DOT_STAGES"
LORA_TN256 = [edp._a((4096, 4096)), edp._a((4096, 4096)), edp._a((4096, 64)), edp._a((64, 4096)), edp._a((4096, 4096)),
              0.5, 128, 256, 64, 64]
"""benchmarks/cover26.py's LoRA (sweep 20's program at rank 64 on 128 x 256 tiles, 4096^3)."""


def _lora():
    from tileorch.testing.cover26_programs import PROGRAMS

    return PROGRAMS["lora_tn256"].kernel


@pytest.mark.parametrize("fit", [False, True])
def test_lora_tn256_ring_of_three_stages_with_fit(fit, monkeypatch):
    """With ``plan`` the schedule's 2 stages of 56 KiB; with ``fit`` (the default since session 27) 3 (+ E's
    32 KiB: 200 KiB), said by a remark; ptxas sm_90a without spills either way."""
    from tileorch.backend.ptxas import ptxas_available, run_ptxas

    monkeypatch.setenv(ENV, "fit" if fit else "plan")
    prog = edp._compile(_lora(), LORA_TN256, "")
    assert prog.gemm_config.stages == (3 if fit else 2), prog.gemm_config
    said = [r for r in prog.remarks if r.startswith(f"remark: {ENV}=fit:")]
    assert said == ([f"remark: {ENV}=fit: the K loop's ring has 3 stages of 57344 bytes (the schedule planned 2; the "
                     "kernel's shared memory beside it: E's 1 x 32768 bytes and 0 bytes of C's staging)"] if fit
                    else []), prog.remarks
    if not ptxas_available():
        pytest.skip("no ptxas")
    assert not run_ptxas(prog.ptx, "sm_90a").spill_warnings()


@pytest.mark.parametrize("tma_store", ["0", "1"])
def test_mlp_ring_fills_what_the_epilogue_leaves(tma_store, monkeypatch):
    """The benchmark MLP: 8 stages of 24 KiB beside E's two 16 KiB buffers with the direct stores; the TMA store's
    32 KiB of staging leave room for the schedule's 6."""
    monkeypatch.setenv(ENV, "fit")
    monkeypatch.setenv("TILEORCH_EPILOGUE_DOT_TMA_STORE", tma_store)
    cfg = edp._compile(P.mlp_nn_linear_weights, tma.MLP_SPEC, "").gemm_config
    assert (cfg.stages, cfg.epilogue) == ((8, "direct") if tma_store == "0" else (6, "tma")), cfg


def test_lora_tn256_emulated_with_three_stages(monkeypatch):
    """test_cover26_emulated's LoRA case (ragged M, N and K; the low-rank accumulator beside the 256-column main one)
    on the 3-stage ring."""
    import test_cover26_emulated as c26
    import test_user_sweep4_emulated as s4
    import test_user_sweep14_emulated as s14e

    from tileorch.testing.cover26_programs import PROGRAMS

    monkeypatch.setenv(ENV, "fit")
    s4.add_sweep_programs(monkeypatch, PROGRAMS)
    monkeypatch.setattr(s14e, "PROGRAMS", {**s14e.PROGRAMS, **PROGRAMS})
    c26._case_lora_tn256()


@pytest.mark.parametrize("dtype,r,rank_tile,tn", [("float16", 40, 64, 64), ("bfloat16", 128, 128, 128)])
def test_lora_peft_layouts_emulated_with_fit(dtype, r, rank_tile, tn, monkeypatch):
    """test_epilogue_dot_programs' PEFT-layout LoRA (f16 rank 40 of 64, bf16 rank 128; ragged) on the fitted ring."""
    monkeypatch.setenv(ENV, "fit")
    edp.test_lora_with_peft_weight_layouts_and_a_bias(dtype, r, rank_tile, tn)


@pytest.mark.parametrize("epi_c", [2, 3])
def test_mlp_over_n_tiles_emulated_with_fit(epi_c, monkeypatch):
    """test_epilogue_dot_programs' relu MLP over several N tiles per work tile (5 ragged N tiles) on the fitted ring
    (8 stages, deeper than its 3 K tiles: the ring wraps across work tiles)."""
    monkeypatch.setenv(ENV, "fit")
    edp.test_fused_mlp_loops_over_the_n_tiles_of_a_work_tile(epi_c)


@pytest.mark.parametrize("source,tiles,stages", [("tier_epilogue_dot.mlir", (64, 128, 0, "n"), 8),
                                                 ("tier_epilogue_dot_lora.mlir", (128, 128, 64, "n"), 5)])
def test_the_fitted_rings_check_clean(tmp_path, source, tiles, stages, monkeypatch):
    """``tileorch check`` on the tier's lowerings with the fitted ring (the low-rank chain's loop over N tiles, LoRA's
    three dots): free of deadlocks and races over every trip count at the deeper stage count (the direct-store
    epilogue: the TMA store's staging would leave room for fewer stages)."""
    monkeypatch.setenv(ENV, "fit")
    monkeypatch.setenv("TILEORCH_EPILOGUE_DOT_TMA_STORE", "0")
    cfg = edp._tiers_kernel_checks_clean(tmp_path, source, tiles)
    assert cfg.stages == stages, cfg
