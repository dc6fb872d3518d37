"""K loops that are not ``range(num K tiles)`` on the H200 (issue 18, ``tileas/k_range.py``,
``tileas/rebase_k_loop.py``): each program runs through ``tileorch.cutile.launch`` on the path it
should take (the WGMMA GEMM or the chained-dots kernel, checked on the compiled program) against a
torch fp32 reference of the program's own K range, outputs NaN-prefilled (split-K adds into C:
zeros), ragged M, N and K (row strides kept 16-byte multiples: no staging copy), zero-trip
ranges (the zero accumulator's epilogue).  Skipped without a GPU (tests/gpu/conftest.py); needs
torch and cuda-tile."""

from __future__ import annotations

import math

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("cuda.tile")

import tileorch.cutile  # noqa: E402
from tileorch.launchers import cutile as rc  # noqa: E402
from tileorch.testing.k_range_programs import (mm_first_tiles, mm_odd_tiles, mm_range, mm_split_k,  # noqa: E402
                                               mm_split_k_at, mm_split_k_linear, mm_window_from_bid)
from tileorch.testing.user_programs import mm_small_f32  # noqa: E402
from tileorch.testing.user_programs2 import LOG2E, fmha_sliding_window, gemm_range_step, gemm_split_k  # noqa: E402

TM, TN, TK = 128, 128, 64


def _gen(seed):
    return torch.Generator(device="cuda").manual_seed(seed)


def _randn(shape, dtype=torch.float16, seed=0):
    return torch.randn(shape, device="cuda", generator=_gen(seed)).to(dtype)


def _nan(shape, dtype=torch.float32):
    return torch.full(shape, float("nan"), device="cuda", dtype=dtype)


def _launch(kernel, grid, args):
    tileorch.cutile.launch(torch.cuda.current_stream(), grid, kernel, args)
    torch.cuda.synchronize()
    return rc.compiled(kernel, rc.describe_arguments(kernel, args), "sm_90a", "persistent").program


def _tiles_ref(a, b, tiles_of, tm=TM, tn=TN, tk=TK):
    """C of a program summing, for output tile (i, j), A's row tile i times B's column tile j over
    the K tiles ``tiles_of(i, j)`` (zero-padded), in fp32."""
    m, k = a.shape
    n = b.shape[1]
    kt = -(-k // tk)
    c = torch.zeros((m, n), device="cuda")
    af, bf = a.float(), b.float()
    for i in range(-(-m // tm)):
        for j in range(-(-n // tn)):
            for t in tiles_of(i, j):
                if 0 <= t < kt:
                    c[i * tm:(i + 1) * tm, j * tn:(j + 1) * tn] += \
                        af[i * tm:(i + 1) * tm, t * tk:(t + 1) * tk] @ bf[t * tk:(t + 1) * tk, j * tn:(j + 1) * tn]
    return c


def _close(got, ref, tol=2e-3):
    assert not torch.isnan(got).any(), "unwritten (NaN) outputs"
    torch.testing.assert_close(got.float(), ref, atol=tol * max(ref.abs().max().item(), 1.0), rtol=tol)


def _grid(m, n, tm=TM, tn=TN):
    return (-(-m // tm), -(-n // tn), 1)


@pytest.mark.parametrize("m,n,k,k_arg", [(1000, 1000, 1000, 1000), (4096, 4096, 2048, 2048), (520, 296, 776, 300),
                                         (256, 256, 256, 0)])
def test_gemm_range_step(m, n, k, k_arg):
    """``for k0 in range(0, K, tk)``, tile ``k0 // tk``; K = 0: no iteration, C = 0."""
    a, b, c = _randn((m, k), seed=1), _randn((k, n), seed=2), _nan((m, n))
    program = _launch(gemm_range_step, _grid(m, n), (a, b, c, k_arg, TM, TN, TK))
    assert program.kind == "gemm", program.remarks
    _close(c, _tiles_ref(a, b, lambda i, j: range(-(-k_arg // TK))))


@pytest.mark.parametrize("start,stop,step", [(0, 13, 1), (1, 13, 2), (3, 13, 5), (4, 4, 1), (9, 2, 1), (2, 40, 3)])
def test_runtime_range(start, stop, step):
    m, n, k = 1000, 520, 776  # K: 12 full tiles and 8 columns of a 13th
    a, b, c = _randn((m, k), seed=3), _randn((k, n), seed=4), _nan((m, n))
    program = _launch(mm_range, _grid(m, n), (a, b, c, start, stop, step, TM, TN, TK))
    assert program.kind == "gemm", program.remarks
    _close(c, _tiles_ref(a, b, lambda i, j: range(start, stop, step)))


@pytest.mark.parametrize("n_tiles", [0, 3, 7])
def test_affine_tile_index(n_tiles):
    m, n, k = 600, 384, 904
    a, b, c = _randn((m, k), seed=5), _randn((k, n), seed=6), _nan((m, n))
    program = _launch(mm_odd_tiles, _grid(m, n), (a, b, c, n_tiles, TM, TN, TK))
    assert program.kind == "gemm", program.remarks
    _close(c, _tiles_ref(a, b, lambda i, j: [2 * t + 1 for t in range(n_tiles)]))


@pytest.mark.parametrize("width", [3, 0])
def test_window_from_a_program_id(width):
    m, n, k = 700, 256, 512
    a, b, c = _randn((m, k), seed=7), _randn((k, n), seed=8), _nan((m, n))
    program = _launch(mm_window_from_bid, _grid(m, n), (a, b, c, width, TM, TN, TK))
    assert program.kind == "gemm", program.remarks
    _close(c, _tiles_ref(a, b, lambda i, j: [t - i + 1 for t in range(i, i + width)]))


@pytest.mark.parametrize("k", [104, 128, 296])
def test_constant_range_from_tile_zero(k):
    """``range(2)``: the plain GEMM for K <= 128; K = 296 runs on the SIMT path (the launcher's
    fallback) and still reads only the first 128 columns."""
    m, n = 1000, 1000
    a, b, c = _randn((m, k), seed=9), _randn((k, n), seed=10), _nan((m, n))
    program = _launch(mm_first_tiles, _grid(m, n), (a, b, c, TM, TN, TK))
    assert program.kind == "gemm" and program.gemm_config.k_used == 128, program.remarks
    _close(c, _tiles_ref(a, b, lambda i, j: range(2)))


@pytest.mark.parametrize("m,n,k,splits", [(512, 512, 4096, 4), (1000, 696, 3000, 3), (256, 256, 128, 4)])
def test_split_k_atomic(m, n, k, splits):
    """Split-K on the WGMMA kernel's tiles (128x64x64): program id 2 starts the K walk, the partial
    products are added into C (zero-initialized) by the atomic epilogue; K = 128 leaves two splits
    without a tile (they add zeros)."""
    a, b = _randn((m, k), seed=11), _randn((k, n), seed=12)
    c = torch.zeros((m, n), device="cuda")
    program = _launch(mm_split_k, (-(-m // 128), -(-n // 64), splits), (a, b, c, splits, 128, 64, 64))
    assert program.kind == "gemm" and program.gemm_config.epilogue == "atomic", program.remarks
    _close(c, a.float() @ b.float())


@pytest.mark.parametrize("m,n,k,splits,tn", [(128, 128, 512, 4, 64), (1000, 696, 3000, 3, 64),
                                              (4096, 4096, 4096, 4, 128), (200, 136, 72, 4, 64)])
def test_split_k_64_row_tiles_32_k(m, n, k, splits, tn):
    """user_programs2.gemm_split_k as written: 64 x tn tiles (one consumer warp group, m64nNk16),
    K tiles of 32 (64-byte K rows: the 64-byte swizzle in the TMA boxes and WGMMA descriptors), the
    partial products added into C (zero-initialized) by the atomic epilogue; K = 72: two full
    K tiles and 8 columns of a third, a fourth split without a tile (it adds zeros)."""
    a, b = _randn((m, k), seed=21), _randn((k, n), seed=22)
    c = torch.zeros((m, n), device="cuda")
    program = _launch(gemm_split_k, (-(-m // 64), -(-n // tn), splits), (a, b, c, splits, 64, tn, 32))
    assert program.kind == "gemm" and "wgmma.mma_async" in program.ptx, program.remarks
    cfg = program.gemm_config
    assert (cfg.tile_m, cfg.tile_n, cfg.tile_k, cfg.epilogue) == (64, tn, 32, "atomic"), cfg
    _close(c, a.float() @ b.float())


@pytest.mark.parametrize("tm,tn,tk", [(64, 128, 32), (64, 64, 16), (128, 128, 32)])
@pytest.mark.parametrize("m,n,k,splits", [(1000, 696, 3000, 3), (4096, 4096, 4096, 4)])
def test_split_k_linear_short_k_rows(m, n, k, splits, tm, tn, tk):
    """W stored ``[N, K]`` (both operands K-major) with K tiles of 32 / 16: the 64- / 32-byte swizzle
    in both TMA boxes and WGMMA descriptors, on 64- and 128-row tiles."""
    a, w = _randn((m, k), seed=23), _randn((n, k), seed=24)
    c = torch.zeros((m, n), device="cuda")
    program = _launch(mm_split_k_linear, (-(-m // tm), -(-n // tn), splits), (a, w, c, splits, tm, tn, tk))
    cfg = program.gemm_config
    assert program.kind == "gemm" and (cfg.tile_m, cfg.tile_k, cfg.b_major) == (tm, tk, "k"), program.remarks
    _close(c, a.float() @ w.float().t())


@pytest.mark.parametrize("tm", [64, 128])
def test_split_k_m_major_a_32_deep(tm):
    """A stored ``[K, M]`` (M-major chunks of 32 K rows, 4 KiB apart), K tiles of 32."""
    m, n, k, splits = 1000, 520, 1000, 3
    at, b = _randn((k, m), seed=25), _randn((k, n), seed=26)
    c = torch.zeros((m, n), device="cuda")
    program = _launch(mm_split_k_at, (-(-m // tm), -(-n // 64), splits), (at, b, c, splits, tm, 64, 32))
    cfg = program.gemm_config
    assert program.kind == "gemm" and (cfg.tile_m, cfg.tile_k, cfg.a_major) == (tm, 32, "m"), program.remarks
    _close(c, at.float().t() @ b.float())


@pytest.mark.parametrize("m,n", [(64, 48), (1000, 500)])
def test_mm_small_f32_tf32(m, n, monkeypatch):
    """16x16 f32 tiles, one K tile, with ``TILEORCH_F32_DOT=tf32``: a tf32 WGMMA GEMM (retiled to
    128-row tiles) for K = 16."""
    monkeypatch.setenv("TILEORCH_F32_DOT", "tf32")
    a, b, c = _randn((m, 16), torch.float32, 13), _randn((16, n), torch.float32, 14), _nan((m, n))
    program = _launch(mm_small_f32, (-(-m // 16), -(-n // 16), 1), (a, b, c, 16))
    assert program.kind == "gemm" and program.gemm_config.dtype == "tf32", program.remarks
    _close(c, (a.double() @ b.double()).float(), tol=2e-3)  # tf32 products (10-bit mantissas), K = 16


@pytest.mark.parametrize("m,n", [(64, 48), (1000, 500)])
def test_mm_small_f32_to_f32_accuracy(m, n):
    """The same program by default: cuTile's f32 dot to f32 accuracy (3xTF32 on the SIMT path)."""
    a, b, c = _randn((m, 16), torch.float32, 13), _randn((16, n), torch.float32, 14), _nan((m, n))
    program = _launch(mm_small_f32, (-(-m // 16), -(-n // 16), 1), (a, b, c, 16))
    assert program.kind == "simt", program.remarks
    bound = 2.0 ** -18 * (a.double().abs() @ b.double().abs()) + 1e-30
    assert ((c.double() - a.double() @ b.double()).abs() <= bound).all()


@pytest.mark.parametrize("seq,window", [(1000, 100), (1024, 1), (777, 5000), (4096, 512)])
def test_fmha_sliding_window_chained(seq, window):
    bh, d, bm, bn = 2, 64, 64, 32
    q, k, v = (_randn((bh, seq, d), torch.bfloat16, s) for s in (15, 16, 17))
    o = _nan((bh, seq, d), torch.bfloat16)
    scale = 1 / math.sqrt(d)
    program = _launch(fmha_sliding_window, (-(-seq // bm), bh, 1), (q, k, v, o, scale * LOG2E, window, bm, bn, d))
    assert program.kind == "chained", program.remarks
    pos = torch.arange(seq, device="cuda")
    diff = pos[:, None] - pos[None, :]
    s = (q.float() @ k.float().transpose(-1, -2)) * scale
    s = s.masked_fill(~((diff >= 0) & (diff < window)), float("-inf"))
    ref = torch.softmax(s, -1) @ v.float()
    assert not torch.isnan(o).any(), "unwritten (NaN) outputs"
    torch.testing.assert_close(o.float(), ref, atol=2e-2, rtol=2e-2)
