"""The epilogue dot's loop over N tiles with C stored by TMA (``TILEORCH_EPILOGUE_DOT_TMA_STORE=1``,
``epilogue_dot.n_loop_epilogue``): each N tile's 64-column rounds staged in shared memory and stored by
``cp.async.bulk.tensor``, the next N tile's WGMMAs issued while the stores drain.  The PTX emulator (which holds a
bulk store's shared bytes as read until ``cp.async.bulk.wait_group.read`` retires it) against numpy, outputs
NaN-prefilled, ragged M, N and K; the remarks where it is not applied; ptxas without spills.  Needs cuda-tile and
ml_dtypes, no GPU."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("xdsl")
pytest.importorskip("cuda.tile")
pytest.importorskip("ml_dtypes")

import test_epilogue_dot_programs as edp  # noqa: E402

from tileorch.testing import epilogue_dot_programs as P  # noqa: E402

ENV = "TILEORCH_EPILOGUE_DOT_TMA_STORE"
TMA = "cluster_m=1"
"""The emulator's overrides without ``epilogue=direct``: the kernel's own (TMA) epilogue."""
APPLIED = f"remark: {ENV}=1: each N tile of C staged in shared memory"
RNG = np.random.default_rng(2727)


@pytest.fixture(autouse=True)
def _tma_store(monkeypatch):
    monkeypatch.setenv(ENV, "1")


def _relu_mlp(m, k, h, n):
    spec = [edp._a((m, k)), edp._a((k, h)), edp._a((h,), "float32"), edp._a((h, n)), edp._a((n,), "float32"),
            edp._a((m, n)), h, 128, 128, 64]
    x, w1, w2 = edp._h(m, k), edp._h(k, h, scale=0.125), edp._h(h, n, scale=0.25)
    b1, b2 = (RNG.standard_normal(s).astype(np.float32) for s in (h, n))
    a = edp._f16(np.maximum(x.astype(np.float64) @ w1.astype(np.float64) + b1[None, :], 0))
    return spec, {0: x, 1: w1, 2: b1, 3: w2, 4: b2}, edp._f16(a @ w2.astype(np.float64) + b2[None, :])


@pytest.mark.parametrize("epi_c", [1, 2, 3])
def test_relu_mlp_n_tiles_stored_by_tma(epi_c):
    """``relu(x W1 + b1) W2 + b2`` on 5 N tiles of 128 (the last 88 wide: TMA clips the box), 200 rows (the last
    row tile 72 high), K 136; 2 and 3 N tiles per work tile leave a shorter last work tile per row."""
    spec, inputs, want = _relu_mlp(200, 136, 64, 600)
    prog = edp._compile(P.mlp_biases_relu, spec, TMA)
    cfg = prog.gemm_config
    assert cfg.epi_loop and cfg.epilogue == "tma", cfg
    assert any(r.startswith(APPLIED) for r in prog.remarks), prog.remarks
    assert prog.ptx.count("cp.async.bulk.tensor.2d.global.shared::cta") == 2 * cfg.consumer_groups, "two rounds"
    y = edp._emulate(P.mlp_biases_relu, spec, inputs, 5, 3, epi_c=epi_c, config=TMA)
    np.testing.assert_allclose(y, want, atol=2e-2, rtol=1e-2)


def test_nn_linear_mlp_bf16_k_major_e_stored_by_tma():
    """nn.Linear's weights (E ``[N, H]`` K-major), bf16, 3 N tiles per work tile of 4 (the last 44 wide)."""
    m, k, h, n = 130, 200, 64, 300
    spec = [edp._a((m, k), "bfloat16"), edp._a((h, k), "bfloat16"), edp._a((h,), "float32"),
            edp._a((n, h), "bfloat16"), edp._a((m, n), "bfloat16"), 64, 128, 64, 64]
    x, w1, w2 = edp._bf(m, k), edp._bf(h, k, scale=0.125), edp._bf(n, h, scale=0.25)
    b1 = RNG.standard_normal(h).astype(np.float32)
    y = edp._emulate(P.mlp_nn_linear_weights, spec,
                     {0: x, 1: w1, 2: b1, 3: w2, 4: np.full((m, n), np.nan, x.dtype)}, 4, 3, epi_c=3, config=TMA)
    z = x.astype(np.float64) @ w1.astype(np.float64).T + b1[None, :]
    a = edp._round(z / (1 + np.exp(-z)), x)
    np.testing.assert_allclose(y, edp._round(a @ w2.astype(np.float64).T, x), atol=3e-2, rtol=2e-2)


def test_the_emulator_reports_a_staging_slot_rewritten_before_its_store_read_it():
    """The same kernel without its ``cp.async.bulk.wait_group.read``: the next N tile's staging writes reach a slot
    whose bulk store was never waited for, and the PTX emulator reports it (what the waits guard)."""
    import dataclasses
    import re

    spec, inputs, want = _relu_mlp(130, 128, 64, 600)
    prog = edp._compile(P.mlp_biases_relu, spec, TMA)
    unguarded = dataclasses.replace(prog, ptx=re.sub(r"cp\.async\.bulk\.wait_group\.read\s+\d+;", "", prog.ptx))
    assert unguarded.ptx != prog.ptx
    errors, _ = edp._emulate_program(unguarded, P.mlp_biases_relu, spec, inputs, 5, 3, epi_c=3)
    assert any("a bulk (TMA) store of thread" in e for e in errors), errors[:4]
    errors, y = edp._emulate_program(prog, P.mlp_biases_relu, spec, inputs, 5, 3, epi_c=3)
    assert not errors, errors[:4]
    np.testing.assert_allclose(y, want, atol=2e-2, rtol=1e-2)


@pytest.mark.parametrize("tn", [64, 128, 256])
def test_one_to_four_rounds_per_n_tile_stored_by_tma(tn):
    """N tiles of 64, 128 and 256 columns (one, two and four 64-column rounds: one round makes round 0 of the next tile
    wait for every store, its slot the last round's), 3 of 600 columns' N tiles per work tile."""
    spec, inputs, want = _relu_mlp(130, 72, 64, 600)
    spec[-2] = tn
    prog = edp._compile(P.mlp_biases_relu, spec, TMA)
    assert prog.gemm_config.epilogue == "tma" and prog.gemm_config.epi_n == tn, prog.gemm_config
    y = edp._emulate(P.mlp_biases_relu, spec, inputs, 5, 3, epi_c=3, config=TMA)
    np.testing.assert_allclose(y, want, atol=2e-2, rtol=1e-2)


@pytest.mark.parametrize("case", ["f32_output", "one_n_tile"])
def test_not_applied_remarks(case, monkeypatch):
    """An f32 C (the TMA epilogue stages 16-bit rows) and a kernel without the loop over N tiles
    (``TILEORCH_EPILOGUE_DOT_COARSEN=off``) keep the direct stores, each with a remark naming why."""
    if case == "f32_output":
        spec = [edp._a((130, 128)), edp._a((128, 128)), edp._a((128, 256)), edp._a((130, 256), "float32"), 0.5, 128,
                128, 128, 64]
        kernel, why = P.mlp_relu_scaled, "C is not a 16-bit, untransposed tile stored whole"
    else:
        monkeypatch.setenv("TILEORCH_EPILOGUE_DOT_COARSEN", "off")
        spec = [edp._a((200, 256)), edp._a((256, 64)), edp._a((64, 192)), edp._a((200, 192)), 64, 128, 128, 64]
        kernel, why = P.mlp_silu_one_hidden_tile, "the second dot covers one N tile per work tile"
    prog = edp._compile(kernel, spec, "")
    assert prog.gemm_config.epilogue == "direct", prog.gemm_config
    assert any(r.startswith(f"remark: {ENV}=1 not applied: {why}") for r in prog.remarks), prog.remarks


MLP_SPEC = [edp._a((8192, 4096)), edp._a((64, 4096)), edp._a((64,), "float32"), edp._a((4096, 64)),
            edp._a((8192, 4096)), 64, 128, 128, 64]
"""benchmarks/epilogue_dot.py's nn.Linear MLP (8192 x 4096, hidden 64, N 4096; 128 x 64 first dot, N tiles of 128)."""


def test_the_benchmark_shape_assembles_without_spills():
    """The nn.Linear MLP at the benchmark's tiles compiled by default with the setting: the TMA epilogue, ptxas
    sm_90a without spills."""
    from tileorch.backend.ptxas import ptxas_available, run_ptxas

    prog = edp._compile(P.mlp_nn_linear_weights, MLP_SPEC, "")
    assert prog.gemm_config.epilogue == "tma" and prog.gemm_config.epi_loop, prog.gemm_config
    if not ptxas_available():
        pytest.skip("no ptxas")
    assert not run_ptxas(prog.ptx, "sm_90a").spill_warnings()


@pytest.mark.parametrize("overlap", [False, True])
@pytest.mark.parametrize("source,tiles", [("tier_epilogue_dot.mlir", (64, 128, 0, "n")),
                                          ("tier_epilogue_dot_kmajor.mlir", (64, 128, 0, "k"))])
def test_the_tiers_kernel_with_tma_stores_checks_clean(tmp_path, source, tiles, overlap, monkeypatch):
    """``tileorch check`` on the tier's lowering with the setting (N-major and K-major E), alone and with
    ``TILEORCH_EPILOGUE_DOT_OVERLAP=1`` (E's stage waited for one tile ahead of its release, the last tile peeled):
    the ring and E's two-stage pipeline free of deadlocks and races over every trip count, every load's bytes
    stated."""
    monkeypatch.setenv("TILEORCH_EPILOGUE_DOT_OVERLAP", "1" if overlap else "0")
    cfg = edp._tiers_kernel_checks_clean(tmp_path, source, tiles)
    assert (cfg.epi_loop, cfg.epilogue, cfg.epi_overlap) == (True, "tma", overlap), cfg


@pytest.mark.parametrize("name", sorted(edp.PROGRAMS))
def test_default_compiles_with_the_setting_take_the_tier_without_spills(name):
    """test_epilogue_dot_programs' default compiles (hidden widths 64 and 128, N tiles of 128 and 256, f16 / bf16,
    N- and K-major E) with the setting on: the same tier, WGMMAs and remarks, ptxas sm_90a without spills."""
    edp.test_default_compile_takes_the_gemm_tier_and_assembles_without_spills(name)


def test_a_plain_gemm_of_64_column_tiles_waits_for_its_last_store_before_restaging():
    """The builder's TMA epilogue outside the epilogue dot: a GEMM of 64-column tiles (one round per tile) persistent
    over 2 CTAs, 5 work tiles each: round 0 of a work tile writes the slot the previous tile's only round stored
    from, so it waits until no bulk store reads (the emulator reports the rewrite otherwise); ragged M and N."""
    from tileorch.testing import dot_programs as D

    m, k, n = 200, 128, 300
    spec = [edp._a((m, k)), edp._a((k, n)), edp._a((m, n)), 128, 64, 64]
    prog = edp._compile(D.gemm, spec, TMA)
    assert prog.gemm_config.epilogue == "tma" and prog.gemm_config.out_tile_n == 64, prog.gemm_config
    a, b = edp._h(m, k), edp._h(k, n, scale=0.125)
    errors, y = edp._emulate_program(prog, D.gemm, spec, {0: a, 1: b, 2: np.full((m, n), np.nan, np.float16)}, 2, None)
    assert not errors, errors[:4]
    np.testing.assert_allclose(y, edp._f16(a.astype(np.float64) @ b.astype(np.float64)), atol=2e-2, rtol=1e-2)
