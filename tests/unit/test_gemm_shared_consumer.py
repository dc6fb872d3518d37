"""``TILEORCH_GEMM_SHARED_CONSUMER=1`` (the default since session 30): the GEMM builder's consumer warp groups run
one body (the warp group read from ``%tid`` at run time) instead of one body each (``=0``).  The kernels run on
the CPU through ``tileorch.testing.ptx_emulator`` (every CTA of the persistent grid) against numpy: ragged M, N and
K, C NaN-prefilled, TMA and direct epilogues, K- and N-major B, persistent and data-parallel schedules; the shared
kernel holds one copy of the K loop's WGMMAs, the per-group kernel two; the switch leaves the configurations it
does not take (stream-K, one consumer warp group) as they are.  Needs no GPU, no ptxas."""

from __future__ import annotations

from dataclasses import replace
from types import SimpleNamespace

import numpy as np
import pytest

pytest.importorskip("xdsl")
pytest.importorskip("ml_dtypes")

from tileorch.kernels.gemm.config import GemmConfig  # noqa: E402

ENV = "TILEORCH_GEMM_SHARED_CONSUMER"
BASE = GemmConfig(tile_m=128, tile_n=64, tile_k=64, stages=3, cluster_m=1, dtype="f16", out_dtype="f16", b_major="n")
"""A TMA epilogue (16-bit C); ``out_dtype="f32", epilogue="direct"`` for the direct one."""


def _ptx(cfg: GemmConfig) -> str:
    from tileorch.driver import compile_module
    from tileorch.kernels.gemm.build import build_gemm_kernel

    return compile_module(build_gemm_kernel(cfg), ptxas=False).ptx


def _emulate(cfg: GemmConfig, m: int, n: int, k: int, seed: int = 0) -> np.ndarray:
    from tileorch.testing.gemm_emulation import run_gemm

    rng = np.random.default_rng(seed)
    a = rng.standard_normal((m, k)).astype(np.float16)
    b = rng.standard_normal((k, n)).astype(np.float16)
    c = np.full((m, n), np.nan, np.float16 if cfg.out_dtype == "f16" else np.float32)
    base = 1 << 40
    stored_b = np.ascontiguousarray(b.T) if cfg.b_major == "k" else b  # a K-major B is given [N, K]
    errors = run_gemm(SimpleNamespace(gemm_config=cfg, ptx=_ptx(cfg)), a, stored_b, base, (m, n, k),
                      memory=[(base, c.view(np.uint8).reshape(-1), "C")])
    assert not errors, errors[:5]
    assert not np.isnan(c).any()
    want = a.astype(np.float64) @ b.astype(np.float64)
    tol = 1e-3 if c.dtype == np.float32 else 1e-2  # (f16 C: rounded once)
    np.testing.assert_allclose(c.astype(np.float64), want, rtol=tol, atol=tol)
    return c


@pytest.mark.parametrize("m,n,k,change", [
    (200, 96, 136, {}),  # ragged row, column and K tiles, more tiles than the 2 SMs' CTAs
    (130, 200, 64, dict(epilogue="direct", out_dtype="f32")),
    (260, 64, 200, dict(b_major="k", stages=2)),
    (200, 130, 72, dict(tile_n=128, stages=4)),
    (140, 70, 128, dict(schedule="dp", tile_n=128)),
])
def test_shared_consumer_matches_numpy_and_the_per_group_kernel(monkeypatch, m, n, k, change):
    """The shared body's C is numpy's, and bit for bit the per-group kernel's (=0: the same WGMMAs and stores)."""
    cfg = replace(BASE, **change).check()
    monkeypatch.setenv(ENV, "1")
    shared = _emulate(cfg, m, n, k, seed=3)
    monkeypatch.setenv(ENV, "0")
    per_group = _emulate(cfg, m, n, k, seed=3)
    np.testing.assert_array_equal(shared, per_group)


def test_one_copy_of_the_consumer(monkeypatch):
    """Two consumer warp groups: the per-group kernel (=0) has the K loop's WGMMAs twice and a named barrier of 128
    threads per group, the shared one once and one barrier of 256; one consumer group (a 64-row tile) and
    stream-K are left as they are."""
    cfg = replace(BASE, tile_n=128).check()
    per_k_tile = cfg.tile_k // 16
    monkeypatch.setenv(ENV, "0")
    per_group = _ptx(cfg)
    monkeypatch.setenv(ENV, "1")
    shared = _ptx(cfg)
    assert per_group.count("wgmma.mma_async") == 2 * per_k_tile and "bar.sync \t14, 128;" in per_group
    assert shared.count("wgmma.mma_async") == per_k_tile and "bar.sync \t14, 256;" in shared
    assert "bar.sync \t15" in per_group and "bar.sync \t15" not in shared
    from tileorch.kernels.gemm.build import shared_consumer_remark

    for other in (replace(cfg, tile_m=64).check(), replace(cfg, schedule="streamk").check()):
        monkeypatch.setenv(ENV, "0")
        left = _ptx(other)
        monkeypatch.setenv(ENV, "1")
        assert _ptx(other) == left
    assert shared_consumer_remark(replace(cfg, tile_m=64).check()) == ""  # one group: nothing to share
    assert "not taken: stream-K" in shared_consumer_remark(replace(cfg, schedule="streamk").check())


def test_the_emulator_still_sees_a_missing_wait_in_the_shared_body(monkeypatch):
    """The emulator checks a shared store's bytes per warp group (the groups of a shared body store into their
    own buffers at one instruction): without the TMA epilogue's ``cp.async.bulk.wait_group.read 1`` a round
    rewrites the slot its warp group's previous store still reads, and that is reported."""
    from tileorch.testing.gemm_emulation import run_gemm

    cfg = replace(BASE, tile_n=128, stages=4).check()
    monkeypatch.setenv(ENV, "1")
    ptx = _ptx(cfg)
    wait = "cp.async.bulk.wait_group.read \t1;"
    assert ptx.count(wait) == 2
    m, n, k = 200, 130, 72
    rng = np.random.default_rng(3)
    a, b = rng.standard_normal((m, k)).astype(np.float16), rng.standard_normal((k, n)).astype(np.float16)
    c = np.full((m, n), np.nan, np.float16)
    errors = run_gemm(SimpleNamespace(gemm_config=cfg, ptx=ptx.replace(wait, "")), a, b, 1 << 40, (m, n, k),
                      memory=[(1 << 40, c.view(np.uint8).reshape(-1), "C")])
    assert any("no cp.async.bulk.wait_group.read retired it" in e for e in errors), errors[:3]


@pytest.mark.parametrize("switch", ["0", "1"])
def test_the_cutile_route_says_which_body(monkeypatch, switch):
    """A cuTile GEMM's remarks say that the consumer warp groups share one body when the switch takes it, and
    nothing about it when the switch is off."""
    pytest.importorskip("cuda.tile")
    from tileorch.testing.gemm_emulation import compile_cutile
    from tileorch.testing.k_range_programs import mm_first_tiles

    monkeypatch.setenv(ENV, switch)
    m, n, k = 200, 96, 100
    p = compile_cutile(mm_first_tiles, [((m, k), "float16"), ((k, n), "float16"), ((m, n), "float32"), 128, 64, 64],
                       "shared_consumer")
    said = [r for r in p.remarks if ENV in r]
    assert p.kind == "gemm" and p.gemm_config.consumer_groups == 2, p.remarks
    if switch == "1":
        assert len(said) == 1 and "run one body" in said[0], p.remarks
        assert p.ptx.count("wgmma.mma_async") == 4
    else:
        assert not said and p.ptx.count("wgmma.mma_async") == 8
