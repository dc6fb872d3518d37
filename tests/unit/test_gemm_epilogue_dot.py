"""The GEMM builder's second dot on the accumulator (``GemmConfig.epi_n``: ``C = (A B) E``, GEMM then
GEMM) run on the CPU by ``tileorch.testing.ptx_emulator`` against numpy: the first dot's accumulator
packed to the operand type as the register A of the second dot's WGMMAs, E's tile TMA-loaded into one more
ring stage per work tile; ragged M, N and K, C NaN-prefilled.  Needs no GPU, no ptxas."""

from __future__ import annotations

import re
from dataclasses import replace
from types import SimpleNamespace

import numpy as np
import pytest

pytest.importorskip("xdsl")
pytest.importorskip("ml_dtypes")

from tileorch.kernels.gemm.config import GemmConfig, GemmConfigError  # noqa: E402

BASE = GemmConfig(tile_m=128, tile_n=64, tile_k=64, stages=3, cluster_m=1, dtype="f16", out_dtype="f32", b_major="n",
                  epilogue="direct", epi_n=128)


def _emulate(cfg: GemmConfig, m: int, n2: int, k: int, r: int, seed: int = 0, epi_c: int = 1):
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
                      memory=[(base, c.view(np.uint8).reshape(-1), "C")], epi=stored, epi_c=epi_c)
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


@pytest.mark.parametrize("m,n2,k,tile_m,epi_n,epi_c,change", [
    (70, 300, 64, 64, 64, 2, {}),  # 5 N tiles (the last 44 wide) in work tiles of 2, 2, 1
    (200, 640, 136, 128, 128, 3, {}),  # 5 N tiles in work tiles of 3, 2
    (130, 600, 200, 128, 128, 5, {}),  # a whole row of 5 N tiles per work tile
    (130, 450, 72, 128, 128, 4, dict(epi_major="k")),  # K-major E, 4 N tiles in one work tile
    (70, 520, 64, 64, 256, 2, {}),  # 3 N tiles of 256 (the last 8 wide)
])
def test_a_loop_over_n_tiles_matches_numpy(m, n2, k, tile_m, epi_n, epi_c, change):
    """``epi_loop``: the first dot once per work tile, then the second dot and C's store for ``epi_c`` N tiles,
    E's tiles through the two-stage pipeline; counts that do not divide the row's N tiles, ragged M, N and K, C
    NaN-prefilled."""
    cfg = replace(BASE, tile_m=tile_m, epi_n=epi_n, epi_loop=True, **change)
    c, want = _emulate(cfg, m, n2, k, 64, seed=11, epi_c=epi_c)
    assert not np.isnan(c).any()
    np.testing.assert_allclose(c, want, rtol=2e-2, atol=2e-2)


def test_the_loops_pipelines_check_clean(tmp_path):
    """The model checker on a kernel looping over N tiles: E's two-stage pipeline acquired and committed per N
    tile by the producer and waited on and released per N tile by each consumer (the same runtime trip count
    on both sides), free of deadlocks and races."""
    _assert_pipelines_check_clean(tmp_path, replace(BASE, epi_loop=True))


@pytest.mark.parametrize("m,n,sms,choice,c", [
    (8192, 4096, 132, "auto", 16),  # 64 M tiles: two groups of 16 N tiles (128 work tiles on 132 SMs)
    (16384, 2048, 132, "auto", 16),  # 128 M tiles fill the SMs alone: each row whole
    (4096, 1024, 132, "auto", 2),  # 32 M tiles: 4 groups of 2 of the 8 N tiles (128 work tiles)
    (100, 300, 132, "auto", 1),  # one M tile, 3 N tiles: one N tile per work tile
    (8192, 4096, 132, "off", 1),
    (8192, 4096, 132, "5", 5),
    (8192, 4096, 132, "100", 32),  # at most the row's N tiles
])
def test_the_launchers_n_tiles_per_work_tile(m, n, sms, choice, c):
    from tileorch.launchers.gemm_host import epi_tiles_per_cta

    assert epi_tiles_per_cta(replace(BASE, epi_loop=True), m, n, sms, choice) == c
    assert epi_tiles_per_cta(BASE, m, n, sms, choice) == 1  # (a kernel without the loop)


def test_the_launchers_work_tiles_cover_every_n_tile_once():
    """Property: for any M, N and SM count the work tiles of a row, ``[g c, min(g c + c, T))`` for
    ``g < ceil(T / c)``, are non-empty and cover the row's T N tiles once each."""
    from tileorch.launchers.gemm_host import ceil_div, epi_tiles_per_cta

    rng = np.random.default_rng(3)
    cfg = replace(BASE, epi_loop=True)
    for m, n, sms, choice in zip(rng.integers(1, 20000, 300), rng.integers(1, 20000, 300), rng.integers(1, 200, 300),
                                 rng.choice(["auto", "off", "1", "3", "7", "40"], 300)):
        c, tiles = epi_tiles_per_cta(cfg, int(m), int(n), int(sms), str(choice)), ceil_div(int(n), cfg.epi_n)
        groups = [range(g * c, min(g * c + c, tiles)) for g in range(ceil_div(tiles, c))]
        assert all(len(r) for r in groups) and [t for r in groups for t in r] == list(range(tiles)), (m, n, c)


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
    (dict(epi_n=0, epi_loop=True), "a loop over N tiles .epi_loop. is a second dot's"),
    (dict(tile_n=128, b_operands=2, lora_rank=64, epi_loop=True), "without a low-rank branch"),
])
def test_configurations_the_second_dot_refuses(change, words):
    with pytest.raises(GemmConfigError, match=words):
        replace(BASE, **change).check()


@pytest.mark.parametrize("stages,tile_m,epi_major", [(2, 128, "n"), (3, 64, "n"), (2, 128, "k")])
def test_the_second_dots_pipeline_checks_clean(tmp_path, stages, tile_m, epi_major):
    """The model checker on the kernel's pipelines: the ring and E's one-stage pipeline (the producer's acquire /
    commit per work tile after its K tiles against each consumer's wait / release after its K loop), every
    trip count's interleavings free of deadlocks and races, every load's bytes stated (E's boxes included)."""
    _assert_pipelines_check_clean(tmp_path, replace(BASE, stages=stages, tile_m=tile_m, epi_major=epi_major))


def _assert_pipelines_check_clean(tmp_path, cfg: GemmConfig) -> None:
    """``tileorch check``'s model checker on the kernel of ``cfg``: its two pipelines (the ring, E's) free of
    deadlocks and races over every trip count, every load's bytes stated."""
    from tileorch.analysis.explore import check
    from tileorch.analysis.extract import load
    from tileorch.kernels.gemm.ir import gemm_kernel_ir

    cfg.check()
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
                replace(BASE, dtype="bf16", out_dtype="bf16", tile_n=128, epi_n=192, stages=2, epi_major="k"),
                replace(BASE, epi_loop=True), replace(BASE, out_dtype="bf16", dtype="bf16", epi_loop=True,
                                                      epi_major="k", epi_n=256)):
        result = compile_module(build_gemm_kernel(cfg.check()))
        info = "\n".join(result.ptxas.info)
        assert "0 bytes spill stores" in info and " spill stores" in info, info
        assert not [line for line in result.ptxas.info if "spill" in line and not line.startswith("0 bytes stack")]
        body = result.ptx
        mma = f"wgmma.mma_async.sync.aligned.m64n{cfg.epi_n}k16.f32.{cfg.dtype}.{cfg.dtype}"
        assert body.count(mma) == cfg.tile_n // 16 * cfg.consumer_groups
        assert body.count(f"cvt.rn.{cfg.dtype}x2.f32") >= 16 * cfg.consumer_groups  # (the packs; + a 16-bit store's)


LORA = replace(BASE, tile_n=128, epi_n=128, b_operands=2, lora_rank=64)
"""A low-rank branch (LoRA): B 0 the main ``[K, N]`` weight, B 1 the ``[K, R]`` low-rank A (64 wide in a stage),
E the ``[R, N]`` low-rank B; the second dot accumulates onto the main accumulator."""


def _emulate_lora(cfg: GemmConfig, m: int, n: int, k: int, r: int, seed: int = 0):
    from tileorch.driver import compile_module
    from tileorch.kernels.gemm.build import build_gemm_kernel
    from tileorch.testing.gemm_emulation import run_gemm

    rng = np.random.default_rng(seed)
    x = rng.standard_normal((m, k)).astype(np.float16)
    w, la = ((rng.standard_normal(s) / 8).astype(np.float16) for s in ((k, n), (k, r)))
    lb = rng.standard_normal((r, n)).astype(np.float16)
    c = np.full((m, n), np.nan, np.float32)
    ptx = compile_module(build_gemm_kernel(cfg.check()), ptxas=False).ptx
    base = 1 << 40

    def stored(v, major):  # a K-major operand is given transposed
        return np.ascontiguousarray(v.T) if major == "k" else v

    errors = run_gemm(SimpleNamespace(gemm_config=cfg, ptx=ptx), x, stored(w, cfg.b_major), base, (m, n, k),
                      memory=[(base, c.view(np.uint8).reshape(-1), "C")], more_b=[stored(la, cfg.b_major)],
                      epi=stored(lb, cfg.epi_major))
    assert not errors, errors[:5]
    t = (x.astype(np.float32) @ la.astype(np.float32)).astype(np.float16)  # the low-rank accumulator rounded
    return c, x.astype(np.float64) @ w.astype(np.float64) + t.astype(np.float64) @ lb.astype(np.float64)


@pytest.mark.parametrize("change,m,n,k,r", [({}, 200, 192, 200, 64),
                                            (dict(b_major="k", epi_major="k"), 130, 300, 136, 40),
                                            (dict(tile_n=64, epi_n=64, lora_rank=128, stages=2), 70, 130, 64, 128)])
def test_low_rank_branch_matches_numpy(change, m, n, k, r):
    """``C = A W + (A B1 rounded) E``: the main and the low-rank B tiles in one stage (the low-rank one at column 0,
    ``lora_rank`` wide), the second dot accumulating onto the main accumulator; N-major and K-major operands, a rank
    short of its tile (40 of 64), a rank wider than the main tile (128 beside 64); ragged M, N and K."""
    c, want = _emulate_lora(replace(LORA, **change), m, n, k, r, seed=7)
    assert not np.isnan(c).any()
    np.testing.assert_allclose(c, want, rtol=2e-2, atol=2e-2)


@pytest.mark.parametrize("change,words", [
    (dict(epi_n=64), "adds its second dot onto the main accumulator"),
    (dict(lora_rank=32), "64, 128, 192 or 256 columns"),
    (dict(b_operands=1), "two with a low-rank branch"),
    # (rank 64 at tile_n 256 fits since session 26: the low-rank accumulator counted at its rank, 32 registers
    # allowed for a rank <= 64 branch onto the main accumulator; rank 128 there does not)
    (dict(tile_n=256, epi_n=256, lora_rank=128), "registers per thread"),
    (dict(tile_n=256, epi_n=256, lora_own_acc=True), "registers per thread"),
    (dict(lora_rank=0, b_operands=1, lora_own_acc=True), "lora_own_acc is a low-rank branch's"),
])
def test_configurations_the_low_rank_branch_refuses(change, words):
    with pytest.raises(GemmConfigError, match=words):
        replace(LORA, **change).check()


def test_the_low_rank_branchs_pipelines_check_clean(tmp_path):
    """The model checker on a low-rank branch's kernel: a stage's three TMA loads (A, W, the low-rank A) and E's
    one-stage pipeline, every load's bytes stated."""
    _assert_pipelines_check_clean(tmp_path, replace(LORA, stages=2, b_major="k", epi_major="k"))


def test_ptxas_keeps_the_low_rank_branch_in_registers():
    ptxas = pytest.importorskip("tileorch.backend.ptxas")
    if not ptxas.ptxas_available():
        pytest.skip("no ptxas")
    from tileorch.driver import compile_module
    from tileorch.kernels.gemm.build import build_gemm_kernel

    for cfg in (LORA, replace(LORA, dtype="bf16", out_dtype="bf16", b_major="k", epi_major="k")):
        result = compile_module(build_gemm_kernel(cfg.check()))
        assert not [line for line in result.ptxas.info if "spill" in line and not line.startswith("0 bytes stack")
                    and not line.startswith("0 bytes spill")], result.ptxas.info
        assert "0 bytes spill stores" in "\n".join(result.ptxas.info)
        mma = re.findall(rf"wgmma\.mma_async\.sync\.aligned\.m64n128k16\.f32\.{cfg.dtype}\.{cfg.dtype}\s+\{{[^}}]*\}},"
                         r"\s*\{", result.ptx)
        assert len(mma) == cfg.lora_rank // 16 * cfg.consumer_groups  # the second dot's register-A WGMMAs


def test_the_host_sizes_the_scheduler_by_work_tiles_of_epi_c_n_tiles(monkeypatch):
    """``PreparedGemm`` of a kernel looping over N tiles: the scheduler walks ``ceil(N tiles / epi_c)`` column tiles
    (M = 1000: 8 M tiles; N = 600: 5 N tiles of 128 in 3 work tiles of 2, 2, 1 -> 24 work tiles, one CTA each on
    132 SMs) and ``epi_c`` is the parameter after E's tensor map; a count for a kernel without the loop is refused.
    No GPU: tests/unit/test_gemm_bound.py's stand-in driver, tensor maps not encoded."""
    import struct

    from test_gemm_bound import Driver

    from tileorch.launchers import gemm_host
    from tileorch.runtime import device as rt_device
    from tileorch.runtime.driver import use_api

    monkeypatch.setattr(gemm_host, "encode_tensor_map", lambda *args, **kw: bytes(128))
    rt_device.forget_devices()
    try:
        with use_api(Driver()):
            ptrs = (0x10000, 0x20000, 0x30000)
            looping = gemm_host.GemmKernel(replace(BASE, epi_loop=True).check(), b"\x7fELF stand-in cubin")
            p = looping.prepare(*ptrs, 1000, 600, 256, 132, epi=(0x40000, 64), epi_c=2)
            assert p.grid[0] * p.grid[1] * p.grid[2] == 8 * 3, p.grid
            assert struct.unpack("<i", p._storage[9].raw)[0] == 2  # (A, B, C maps, C, M, N, K, record, E's map)
            whole = looping.prepare(*ptrs, 1000, 600, 256, 132, epi=(0x40000, 64), epi_c=5)
            assert whole.grid[0] * whole.grid[1] * whole.grid[2] == 8, whole.grid
            plain = gemm_host.GemmKernel(BASE.check(), b"\x7fELF stand-in cubin")
            assert len(plain.prepare(*ptrs, 1000, 600, 256, 132, epi=(0x40000, 64))._storage) == 9
            with pytest.raises(GemmConfigError, match="epi_c = 2 N tiles per work tile needs a kernel looping"):
                plain.prepare(*ptrs, 1000, 600, 256, 132, epi=(0x40000, 64), epi_c=2)
    finally:
        rt_device.forget_devices()
