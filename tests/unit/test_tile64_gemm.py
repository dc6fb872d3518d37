"""64-row tiles and 32-element K tiles on the tensor cores (issue 18: "64-, 128- and 256-row tiles",
"no dot on the SIMT path").

A program whose 64-row tile the kernel builder cannot retile (its own K range, its own tile
coordinates) runs as written on one consumer warp group (``wgmma m64nNk16``); a program that
chooses its own K range with K tiles of 32 16-bit elements keeps them (64-byte K rows: the 64-byte
swizzle in the TMA boxes and the WGMMA descriptors).  The kernels run on the CPU through
``tileorch.testing.ptx_emulator`` (every CTA of the persistent grid, TMA loads with zero fill and
the box's swizzle, WGMMA decoding the descriptors' swizzle) against numpy.  Needs cuda-tile."""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest

HAVE_CUTILE = importlib.util.find_spec("cuda") is not None and importlib.util.find_spec("cuda.tile") is not None
pytestmark = pytest.mark.skipif(not HAVE_CUTILE, reason="cuda-tile (cuTile Python) is not installed")

if HAVE_CUTILE:
    from tileorch.testing.k_range_programs import mm_split_k_at as split_k_at
    from tileorch.testing.k_range_programs import mm_split_k_linear as split_k_linear
    from tileorch.testing.program_grid_programs import pg_rotated_if, pg_rotated_return_bias_relu, rotated_reference
    from tileorch.testing.user_programs2 import batched_tile2, gemm_split_k


def _compile(kernel, spec):
    from tileorch.driver import compile_program
    from tileorch.testing.export import cutile_bytecode

    return compile_program(cutile_bytecode(kernel, spec), "tile64", arch="sm_90a", ptxas=False)


def _tmaps(cfg, a, b):
    """The emulator's view of the host's tensor maps (``gemm_host.tensor_maps``): A ``[tile_m rows,
    tile_k]`` boxes swizzled by their K row; B N-major: 64-column chunks of ``tile_k`` rows, 128-byte
    swizzle; B K-major (``b`` given as ``[N, K]``): ``[tile_n rows, tile_k]`` boxes swizzled by their
    K row."""
    assert cfg.a_major == "k" and cfg.cluster_m == 1
    tb = ({"array": b[None], "rows": cfg.tile_k, "box": 64, "swizzle": 128} if cfg.b_major == "n" else
          {"array": b[None], "rows": cfg.tile_n, "box": cfg.tile_k, "swizzle": cfg.k_row_bytes})
    return {"array": a[None], "rows": cfg.tile_m, "box": cfg.tile_k, "swizzle": cfg.k_row_bytes}, tb


def _emulate(p, a, b, scalars=(), grid_l=1, sms=2, c_init=np.nan, grid=None, bias=None):
    """C (prefilled with ``c_init``) after every CTA of the persistent grid ran ``p``'s kernel; a
    program-grid kernel walks the launch ``grid`` (its extents are the kernel's last parameters),
    ``bias``: the f32 vector the program reads before C."""
    from tileorch.launchers.gemm_host import scheduler_params
    from tileorch.schedulers.device_params import pack_device_params
    from tileorch.testing.ptx_emulator import Emu

    cfg = p.gemm_config
    m, k = a.shape
    n = b.shape[1] if cfg.b_major == "n" else b.shape[0]
    if grid is None:
        sched = scheduler_params(cfg, m, n, k, sms, 0, grid_l)
    else:
        sched = scheduler_params(cfg, grid[0] * cfg.tile_m, grid[1] * cfg.tile_n, k, sms, 0, grid[2])
    c = np.full((m, n), c_init, dtype=np.float32)
    base = {"A": 1 << 32, "B": 2 << 32, "C": 3 << 32, "bias": 4 << 32}
    params = [0, 0, 0, base["C"], m, n, k, pack_device_params(sched, 0, 0, 0)]
    vector = [] if bias is None else [base["bias"], n, 1]
    if p.epilogue_ops:
        rb, cb = b.shape  # B as the program's array: [K, N], or W [N, K]
        params += [base["A"], m, k, k, 1, base["B"], rb, cb, cb, 1, *vector, base["C"], m, n, n, 1, *scalars]
    params += list(grid or ())
    memory = [(base["C"], c.view(np.uint8).reshape(-1), "C")]
    if bias is not None:
        memory.append((base["bias"], bias.view(np.uint8).reshape(-1), "bias"))
    errors = []
    ta, tb = _tmaps(cfg, a, b)
    for x in range(sched.grid[0]):
        for y in range(sched.grid[1]):
            emu = Emu(p.ptx, params, cfg.smem_bytes, cfg.threads, (x, y, 0), {}, memory, nctaid=sched.grid)
            emu.tmaps = {emu.params[0]: ta, emu.params[1]: tb}
            emu.run()
            errors += emu.errors
    return c, errors


@pytest.mark.parametrize("m,n,k,splits", [(128, 128, 512, 4), (100, 72, 200, 3)])
def test_split_k_64x64x32_runs_on_one_consumer_warp_group(m, n, k, splits):
    """user_programs2.gemm_split_k: 64x64 tiles, K tiles of 32 (tile s, s + splits, ... per program
    id 2), partial products added into C by the atomic epilogue.  (100, 72, 200): ragged rows and
    columns (the adds are predicated on the bounds) and a ragged last K tile of 8 columns."""
    spec = [((m, k), "float16"), ((k, n), "float16"), ((m, n), "float32"), splits, 64, 64, 32]
    p = _compile(gemm_split_k, spec)
    assert p.kind == "gemm", p.remarks
    cfg = p.gemm_config
    assert (cfg.tile_m, cfg.tile_n, cfg.tile_k, cfg.threads) == (64, 64, 32, 256), cfg
    assert cfg.epilogue == "atomic" and cfg.grid_l and cfg.k_row_bytes == 64, cfg
    assert "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16" in p.ptx
    assert p.ptx.count("wgmma.mma_async") == 32 // 16  # one consumer warp group, two k16 steps per K tile
    assert "mma.sync" not in p.ptx
    rng = np.random.default_rng(m + k)
    a = rng.standard_normal((m, k)).astype(np.float16)
    b = rng.standard_normal((k, n)).astype(np.float16)
    c, errors = _emulate(p, a, b, grid_l=splits, c_init=0.0)
    assert not errors, errors[:5]
    np.testing.assert_allclose(c, a.astype(np.float64) @ b, atol=2e-3, rtol=2e-3)


@pytest.mark.parametrize("tk,swizzle", [(32, 64), (16, 32)])
def test_split_k_k_major_b_short_k_rows(tk, swizzle):
    """W stored ``[N, K]``: both operands K-major, both with the ``2 * tk``-byte swizzle (64 or 32
    bytes: descriptor layout types 2 and 3); 64x128 tiles, K = 200 (a ragged last K tile), 3 splits."""
    m, n, k, splits = 96, 136, 200, 3
    spec = [((m, k), "float16"), ((n, k), "float16"), ((m, n), "float32"), splits, 64, 128, tk]
    p = _compile(split_k_linear, spec)
    assert p.kind == "gemm", p.remarks
    cfg = p.gemm_config
    assert (cfg.tile_m, cfg.tile_n, cfg.tile_k, cfg.b_major, cfg.k_row_bytes) == (64, 128, tk, "k", swizzle), cfg
    assert p.ptx.count("wgmma.mma_async") == tk // 16
    rng = np.random.default_rng(tk)
    a = rng.standard_normal((m, k)).astype(np.float16)
    w = rng.standard_normal((n, k)).astype(np.float16)
    c, errors = _emulate(p, a, w, grid_l=splits, c_init=0.0)
    assert not errors, errors[:5]
    np.testing.assert_allclose(c, a.astype(np.float64) @ w.T.astype(np.float64), atol=2e-3, rtol=2e-3)


def test_split_k_64_row_kernel_pipeline_is_proved():
    """``tileorch check`` on the lowered 64-row kernel: one producer and one consumer warp group
    over the 8-stage ring of 64x32 A and 32x64 B tiles, deadlock- and race-free for every trip
    count the checker tries."""
    from tileorch.analysis.explore import check
    from tileorch.analysis.extract import extract
    from tileorch.driver import lower_program
    from tileorch.frontend.cutile import load
    from tileorch.registry import make_context
    from tileorch.testing.export import cutile_bytecode

    spec = [((128, 512), "float16"), ((512, 128), "float16"), ((128, 128), "float32"), 4, 64, 64, 32]
    ctx = make_context()
    kind, lowered = lower_program(load(cutile_bytecode(gemm_split_k, spec), "<split_k>", ctx), ctx)
    assert kind == "gemm"
    protocols = extract(lowered)
    assert protocols and len(protocols[0].agents) == 2  # producer + one consumer warp group
    assert not protocols[0].notes, protocols[0].notes  # every TMA load states its bytes
    for proto in protocols:
        result = check(proto)
        assert result.ok, (result.values, result.violation)




@pytest.mark.parametrize("tn,tk", [(64, 64), (128, 32)])
def test_program_grid_64_row_tiles(tn, tk):
    """pg_rotated_if with 64-row tiles: A's row tile, B's column tile and C's tile are three
    different expressions of program ids and grid sizes and the GEMM runs under a condition on
    them; the kernel walks the launch grid with the program's own 64-row tiles (a 128-row tile
    would cover two programs' rows).  M = 200: a ragged last row tile; K = 96: a ragged K tile
    (K tile 32 runs as 64: the K loop covers all of K)."""
    m, n, k, rows_used = 200, 2 * tn - 16, 96, 130  # row tiles 0..2 computed, tile 3 not
    grid = (4, 2, 1)
    p = _compile(pg_rotated_if, [((m, k), "float16"), ((k, n), "float16"), ((m, n), "float32"), rows_used, 64,
                                 tn, tk])
    assert p.kind == "gemm", p.remarks
    cfg = p.gemm_config
    assert cfg.program_grid and (cfg.tile_m, cfg.tile_n, cfg.tile_k, cfg.threads) == (64, tn, 64, 256), cfg
    assert f"wgmma.mma_async.sync.aligned.m64n{tn}k16.f32.f16.f16" in p.ptx and "mma.sync" not in p.ptx
    rng = np.random.default_rng(tn)
    a = rng.standard_normal((m, k)).astype(np.float16)
    b = rng.standard_normal((k, n)).astype(np.float16)
    c, errors = _emulate(p, a, b, (rows_used,), grid=grid)
    assert not errors, errors[:5]
    ref = rotated_reference(a.astype(np.float64), b.astype(np.float64), rows_used, grid, 64, tn)
    assert np.array_equal(np.isnan(c), np.isnan(ref)), "a skipped tile was written or a kept one was not"
    assert np.isnan(c[192:]).all() and not np.isnan(c[:192]).any()
    np.testing.assert_allclose(c[:192], ref[:192], atol=1e-3, rtol=1e-3)


def test_program_grid_64_row_tiles_epilogue():
    """The program's epilogue (bias at the computed column tile, relu) on 64-row tiles."""
    m, n, k, rows_used, grid = 136, 120, 64, 100, (3, 2, 1)
    p = _compile(pg_rotated_return_bias_relu, [((m, k), "float16"), ((k, n), "float16"), ((n,), "float32"),
                                               ((m, n), "float32"), rows_used, 64, 64, 64])
    assert p.kind == "gemm" and p.epilogue_ops, p.remarks
    assert (p.gemm_config.tile_m, p.gemm_config.program_grid) == (64, True), p.gemm_config
    rng = np.random.default_rng(9)
    a = rng.standard_normal((m, k)).astype(np.float16)
    b = rng.standard_normal((k, n)).astype(np.float16)
    bias = rng.standard_normal(n).astype(np.float32)
    c, errors = _emulate(p, a, b, (rows_used,), grid=grid, bias=bias)
    assert not errors, errors[:5]
    ref = rotated_reference(a.astype(np.float64), b.astype(np.float64), rows_used, grid, 64, 64, bias)
    assert np.array_equal(np.isnan(c), np.isnan(ref))
    np.testing.assert_allclose(c[:128], ref[:128], atol=1e-3, rtol=1e-3)


def test_two_batches_per_program_with_the_batch_on_program_id_0():
    """user_programs2.batched_tile2: ``[2, 64, tk] x [2, tk, 64]`` tiles per program, the batch
    tile at program id 0, M and N one tile each (indices 0).  The tier splits the batch tile (one
    matrix per work tile), moves the batch to axis 2 and gives M and N tile 0 program ids
    (launcher-checked single tiles): a batched WGMMA GEMM over L = 4, checked matrix by matrix on
    the emulator (f32 C: the direct epilogue, matrix l at l * M * N)."""
    from tileorch.launchers.gemm_host import scheduler_params
    from tileorch.schedulers.device_params import pack_device_params
    from tileorch.testing.ptx_emulator import Emu

    L, m, n, k = 4, 64, 64, 160  # K: 2 full tiles of 64 and 32 columns of a third
    p = _compile(batched_tile2, [((L, m, k), "float16"), ((L, k, n), "float16"), ((L, m, n), "float32"),
                                 2, 64, 64, 32])
    assert p.kind == "gemm", p.remarks
    cfg = p.gemm_config
    assert cfg.batched and not cfg.program_grid and cfg.epilogue == "direct", cfg
    assert p.single_tile == {"m": 64, "n": 64}, p.single_tile
    assert any("batch tile of 2 matrices" in r for r in p.remarks), p.remarks
    assert "wgmma.mma_async" in p.ptx and "mma.sync" not in p.ptx
    rng = np.random.default_rng(11)
    a = rng.standard_normal((L, m, k)).astype(np.float16)
    b = rng.standard_normal((L, k, n)).astype(np.float16)
    c = np.full((L, m, n), np.nan, dtype=np.float32)
    sched = scheduler_params(cfg, m, n, k, 2, 0, L)
    params = [0, 0, 0, 3 << 32, m, n, k, pack_device_params(sched, 0, 0, 0)]
    errors = []
    for x in range(sched.grid[0]):
        for y in range(sched.grid[1]):
            emu = Emu(p.ptx, params, cfg.smem_bytes, cfg.threads, (x, y, 0), {},
                      [(3 << 32, c.view(np.uint8).reshape(-1), "C")], nctaid=sched.grid)
            emu.tmaps = {emu.params[0]: {"array": a, "rows": cfg.tile_m, "box": 64},
                         emu.params[1]: {"array": b, "rows": 64, "box": 64}}
            emu.run()
            errors += emu.errors
    assert not errors, errors[:5]
    np.testing.assert_allclose(c, np.matmul(a.astype(np.float64), b.astype(np.float64)), atol=2e-3, rtol=2e-3)


def test_split_k_128_row_tiles_with_32_deep_k_tiles():
    """K tiles of 32 on the 128-row tile (two consumer warp groups: warp group 1's A rows start
    64 rows of 64 bytes into the stage), ragged M, N and K."""
    m, n, k, splits = 200, 120, 232, 2
    p = _compile(gemm_split_k, [((m, k), "float16"), ((k, n), "float16"), ((m, n), "float32"), splits, 128, 64, 32])
    assert p.kind == "gemm", p.remarks
    cfg = p.gemm_config
    assert (cfg.tile_m, cfg.tile_n, cfg.tile_k, cfg.consumer_groups) == (128, 64, 32, 2), cfg
    rng = np.random.default_rng(5)
    a = rng.standard_normal((m, k)).astype(np.float16)
    b = rng.standard_normal((k, n)).astype(np.float16)
    c, errors = _emulate(p, a, b, grid_l=splits, c_init=0.0)
    assert not errors, errors[:5]
    np.testing.assert_allclose(c, a.astype(np.float64) @ b, atol=2e-3, rtol=2e-3)


@pytest.mark.parametrize("tm", [64, 128])
def test_split_k_m_major_a_32_deep(tm):
    """A stored ``[K, M]``: M-major A chunks of 64 columns x 32 K rows (128-byte swizzle, 4 KiB
    apart: the descriptors' LBO), N-major B likewise; one or two consumer warp groups."""
    from tileorch.launchers.gemm_host import scheduler_params
    from tileorch.schedulers.device_params import pack_device_params
    from tileorch.testing.ptx_emulator import Emu

    m, n, k, splits = 136, 64, 160, 2
    p = _compile(split_k_at, [((k, m), "float16"), ((k, n), "float16"), ((m, n), "float32"), splits, tm, 64, 32])
    assert p.kind == "gemm", p.remarks
    cfg = p.gemm_config
    assert (cfg.tile_m, cfg.tile_k, cfg.a_major, cfg.b_major, cfg.mn_chunk_bytes) == (tm, 32, "m", "n", 4096), cfg
    rng = np.random.default_rng(tm)
    at = rng.standard_normal((k, m)).astype(np.float16)
    b = rng.standard_normal((k, n)).astype(np.float16)
    c = np.zeros((m, n), dtype=np.float32)
    sched = scheduler_params(cfg, m, n, k, 2, 0, splits)
    params = [0, 0, 0, 3 << 32, m, n, k, pack_device_params(sched, 0, 0, 0),
              1 << 32, k, m, m, 1, 2 << 32, k, n, n, 1, 3 << 32, m, n, n, 1]
    errors = []
    for x in range(sched.grid[0]):
        for y in range(sched.grid[1]):
            emu = Emu(p.ptx, params, cfg.smem_bytes, cfg.threads, (x, y, 0), {},
                      [(3 << 32, c.view(np.uint8).reshape(-1), "C")], nctaid=sched.grid)
            emu.tmaps = {emu.params[0]: {"array": at[None], "rows": 32, "box": 64},
                         emu.params[1]: {"array": b[None], "rows": 32, "box": 64}}
            emu.run()
            errors += emu.errors
    assert not errors, errors[:5]
    np.testing.assert_allclose(c, at.T.astype(np.float64) @ b, atol=2e-3, rtol=2e-3)


def test_side_reductions_on_64_row_tiles():
    """gemm_colsum and gemm_rowmax on 64x128 tiles: the partial column sums per 64-row tile (the
    reduction's extent is the program's tile, so it is not retiled) exchanged among one consumer
    warp group's 4 warps; the row maxima over each 128-column tile.  Ragged M (rows past M are not
    summed) and N (columns past N are not in a maximum)."""
    from tileorch.launchers.gemm_host import scheduler_params
    from tileorch.schedulers.device_params import pack_device_params
    from tileorch.testing.dot_programs import gemm_colsum, gemm_rowmax
    from tileorch.testing.ptx_emulator import Emu

    m, n, k = 136, 200, 96
    tiles_m, tiles_n = -(-m // 64), -(-n // 128)
    rng = np.random.default_rng(17)
    a = rng.standard_normal((m, k)).astype(np.float16)
    b = rng.standard_normal((k, n)).astype(np.float16)
    full = a.astype(np.float64) @ b.astype(np.float64)
    for kernel, side in ((gemm_colsum, (tiles_m, n)), (gemm_rowmax, (m, tiles_n))):
        p = _compile(kernel, [((m, k), "float16"), ((k, n), "float16"), ((m, n), "float32"), (side, "float32"),
                              64, 128, 64])
        assert p.kind == "gemm", p.remarks
        cfg = p.gemm_config
        assert (cfg.tile_m, cfg.tile_n, cfg.consumer_groups) == (64, 128, 1), cfg
        c = np.full((m, n), np.nan, np.float32)
        s_out = np.full(side, np.nan, np.float32)
        sched = scheduler_params(cfg, m, n, k, 2, 0, 1)
        params = [0, 0, 0, 3 << 32, m, n, k, pack_device_params(sched, 0, 0, 0),
                  1 << 32, m, k, k, 1, 2 << 32, k, n, n, 1, 3 << 32, m, n, n, 1, 4 << 32, *side, side[1], 1]
        errors = []
        for x in range(sched.grid[0]):
            for y in range(sched.grid[1]):
                emu = Emu(p.ptx, params, cfg.smem_bytes, cfg.threads, (x, y, 0), {},
                          [(3 << 32, c.view(np.uint8).reshape(-1), "C"),
                           (4 << 32, s_out.view(np.uint8).reshape(-1), "P")], nctaid=sched.grid)
                emu.tmaps = {emu.params[0]: {"array": a[None], "rows": 64, "box": 64},
                             emu.params[1]: {"array": b[None], "rows": 64, "box": 64}}
                emu.run()
                errors += emu.errors
        assert not errors, errors[:5]
        np.testing.assert_allclose(c, full, atol=2e-3, rtol=2e-3)
        if kernel is gemm_colsum:
            ref = np.stack([full[i * 64:(i + 1) * 64].sum(0) for i in range(tiles_m)])
        else:
            ref = np.stack([full[:, j * 128:(j + 1) * 128].max(1) for j in range(tiles_n)], axis=1)
        np.testing.assert_allclose(s_out, ref, atol=5e-3, rtol=2e-3)
