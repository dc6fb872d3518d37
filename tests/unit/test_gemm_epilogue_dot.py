"""The GEMM builder's second dot on the accumulator (``GemmConfig.epi_n``: ``C = (A B) E``, GEMM then
GEMM) run on the CPU by ``tileorch.testing.ptx_emulator`` against numpy: the first dot's accumulator
packed to the operand type as the register A of the second dot's WGMMAs, E's tile TMA-loaded into one more
ring stage per work tile; ragged M, N and K, C NaN-prefilled.  Needs no GPU, no ptxas."""

from __future__ import annotations

from dataclasses import replace
from types import SimpleNamespace

import numpy as np
import pytest

pytest.importorskip("xdsl")
pytest.importorskip("ml_dtypes")

from tileorch.kernels.gemm.config import GemmConfig, GemmConfigError  # noqa: E402

BASE = GemmConfig(tile_m=128, tile_n=64, tile_k=64, stages=3, cluster_m=1, dtype="f16", out_dtype="f32", b_major="n",
                  epilogue="direct", epi_n=128)


def _emulate(cfg: GemmConfig, m: int, n2: int, k: int, r: int, seed: int = 0):
    from tileorch.driver import compile_module
    from tileorch.kernels.gemm.build import build_gemm_kernel
    from tileorch.testing.gemm_emulation import run_gemm

    rng = np.random.default_rng(seed)
    a = rng.standard_normal((m, k)).astype(np.float16)
    b = (rng.standard_normal((k, r)) / 8).astype(np.float16)
    e = rng.standard_normal((r, n2)).astype(np.float16)
    c = np.full((m, n2), np.nan, np.float32)
    ptx = compile_module(build_gemm_kernel(cfg), ptxas=False).ptx
    base = 1 << 40
    stored = np.ascontiguousarray(e.T) if cfg.epi_major == "k" else e  # a K-major E is given [N2, R]
    errors = run_gemm(SimpleNamespace(gemm_config=cfg, ptx=ptx), a, b, base, (m, n2, k),
                      memory=[(base, c.view(np.uint8).reshape(-1), "C")], epi=stored)
    assert not errors, errors[:5]
    t = (a.astype(np.float32) @ b.astype(np.float32)).astype(np.float16)  # the accumulator rounded to f16
    return c, t.astype(np.float64) @ e.astype(np.float64)


@pytest.mark.parametrize("m,n2,k,tile_m,epi_n", [(200, 192, 200, 128, 128), (70, 130, 64, 64, 128),
                                                 (130, 300, 136, 128, 256)])
def test_second_dot_on_the_accumulator_matches_numpy(m, n2, k, tile_m, epi_n):
    """(epi_n 256: E's 64 x 256 tile is larger than a K step's tiles, and sizes the ring's stages.)"""
    c, want = _emulate(replace(BASE, tile_m=tile_m, epi_n=epi_n), m, n2, k, 64)
    assert not np.isnan(c).any()
    np.testing.assert_allclose(c, want, rtol=2e-2, atol=2e-2)


@pytest.mark.parametrize("m,n2,k,r,tile_n,epi_n,stages", [(200, 192, 200, 64, 64, 128, 3),
                                                           (130, 300, 136, 100, 128, 256, 2),
                                                           (70, 130, 64, 192, 192, 64, 2)])
def test_k_major_e_matches_numpy(m, n2, k, r, tile_n, epi_n, stages):
    """E stored ``[N2, R]`` (``epi_major="k"``): ``tile_n / 64`` boxes of ``epi_n`` rows x 64 K columns, each
    WGMMA K step 32 bytes along the K row of box ``j // 4`` (R = 100: 28 zero-filled K columns in the second
    box; R = 192: three boxes); ragged M, N and K."""
    cfg = replace(BASE, tile_n=tile_n, epi_n=epi_n, stages=stages, epi_major="k")
    c, want = _emulate(cfg, m, n2, k, r, seed=5)
    assert not np.isnan(c).any()
    np.testing.assert_allclose(c, want, rtol=2e-2, atol=2e-2)


def test_rank_short_of_the_tile_reads_zeros_past_it():
    """R = 40 < tile_n = 64: B's columns and E's rows past R are TMA zero fill."""
    c, want = _emulate(BASE, 130, 128, 128, 40, seed=3)
    np.testing.assert_allclose(c, want, rtol=2e-2, atol=2e-2)


@pytest.mark.parametrize("change,words", [
    (dict(epi_n=96), "64, 128, 192 or 256 columns"),
    (dict(cluster_m=2, tile_n=128), "1-CTA clusters"),
    (dict(epilogue="tma", out_dtype="f16"), "direct epilogue"),
    (dict(tile_n=256, epi_n=256, stages=3), "shared memory"),
    (dict(epi_major="m"), "epi_major must be 'n' or 'k'"),
])
def test_configurations_the_second_dot_refuses(change, words):
    with pytest.raises(GemmConfigError, match=words):
        replace(BASE, **change).check()


@pytest.mark.parametrize("stages,tile_m,epi_major", [(2, 128, "n"), (3, 64, "n"), (2, 128, "k")])
def test_the_second_dots_pipeline_checks_clean(tmp_path, stages, tile_m, epi_major):
    """The model checker on the kernel's pipelines: the ring and E's one-stage pipeline (the producer's acquire /
    commit per work tile after its K tiles against each consumer's wait / release after its K loop), every
    trip count's interleavings free of deadlocks and races, every load's bytes stated (E's boxes included)."""
    from tileorch.analysis.explore import check
    from tileorch.analysis.extract import load
    from tileorch.kernels.gemm.ir import gemm_kernel_ir

    cfg = replace(BASE, stages=stages, tile_m=tile_m, epi_major=epi_major).check()
    path = tmp_path / f"{cfg.name}.mlir"
    path.write_text(gemm_kernel_ir(cfg))
    protocols, errors = load(str(path))
    assert not errors, errors
    assert len(protocols[0].pipelines) == 2, protocols[0].pipelines
    for result in (check(p) for p in protocols):
        assert result.ok, (result.values, result.violation)
    assert not protocols[0].notes, protocols[0].notes


def test_ptxas_keeps_both_accumulators_in_registers():
    ptxas = pytest.importorskip("tileorch.backend.ptxas")
    if not ptxas.ptxas_available():
        pytest.skip("no ptxas")
    from tileorch.driver import compile_module
    from tileorch.kernels.gemm.build import build_gemm_kernel

    for cfg in (BASE, replace(BASE, epi_n=192, out_dtype="f16"), replace(BASE, tile_m=64, epi_n=128),
                replace(BASE, dtype="bf16", out_dtype="bf16", epi_n=256), replace(BASE, epi_major="k"),
                replace(BASE, dtype="bf16", out_dtype="bf16", tile_n=128, epi_n=192, stages=2, epi_major="k")):
        result = compile_module(build_gemm_kernel(cfg.check()))
        info = "\n".join(result.ptxas.info)
        assert "0 bytes spill stores" in info and " spill stores" in info, info
        assert not [line for line in result.ptxas.info if "spill" in line and not line.startswith("0 bytes stack")]
        body = result.ptx
        mma = f"wgmma.mma_async.sync.aligned.m64n{cfg.epi_n}k16.f32.{cfg.dtype}.{cfg.dtype}"
        assert body.count(mma) == cfg.tile_n // 16 * cfg.consumer_groups
        assert body.count(f"cvt.rn.{cfg.dtype}x2.f32") >= 16 * cfg.consumer_groups  # (the packs; + a 16-bit store's)
