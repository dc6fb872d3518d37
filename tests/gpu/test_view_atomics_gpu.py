"""Tile reductions into views (``TiledView.atomic_store_<mode>``) on the GPU through
``tileorch.cutile.launch``, against torch on the same inputs (float sums in fp64; the atomics'
order makes float sums differ by rounding only), ragged edges included."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")
ct = pytest.importorskip("cuda.tile")

import tileorch.cutile  # noqa: E402
from tileorch.testing import view_atomic_programs as P  # noqa: E402


def _launch(grid, kernel, args):
    tileorch.cutile.launch(torch.cuda.current_stream(), grid, kernel, args)
    torch.cuda.synchronize()


@pytest.mark.parametrize("rows,cols", [(1000, 300), (4096, 256), (33, 7)])
def test_column_block_sums(rows, cols):
    tm, tn = 32, 64
    x = torch.randn(rows, cols, device="cuda")
    out0 = torch.randn(tm, cols, device="cuda")
    out = out0.clone()
    _launch((-(-rows // tm), -(-cols // tn), 1), P.column_block_sums, (x, out, tm, tn))
    padded = torch.zeros(-(-rows // tm) * tm, cols, device="cuda", dtype=torch.float64)
    padded[:rows] = x.double()
    ref = out0.double() + padded.reshape(-1, tm, cols).sum(0)
    torch.testing.assert_close(out.double(), ref, atol=1e-3, rtol=1e-5)


def test_blockwise_max():
    tn, n = 256, 100_000
    x = torch.randint(-10**6, -1, (n,), device="cuda", dtype=torch.int32)
    out = torch.full((tn + 8,), -(10**7), device="cuda", dtype=torch.int32)
    _launch((-(-n // tn), 1, 1), P.blockwise_max, (x, out, tn))
    padded = torch.zeros(-(-n // tn) * tn, device="cuda", dtype=torch.int64)
    padded[:n] = x
    ref = torch.full((tn + 8,), -(10**7), device="cuda", dtype=torch.int64)
    ref[:tn] = torch.maximum(ref[:tn], padded.reshape(-1, tn).max(0).values)
    assert torch.equal(out.long(), ref)


@pytest.mark.parametrize("n,step", [(10_000, 3), (4099, 64), (777, 200)])
def test_sliding_window_counts(n, step):
    tn = 128
    windows = -(-(n - tn) // step) + 1
    out = torch.zeros(n, device="cuda", dtype=torch.int32)
    _launch((windows + 1, 1, 1), P.sliding_window_counts, (out, tn, step))
    ref = torch.zeros(n, dtype=torch.int64)
    for i in range(windows + 1):
        ref[i * step:min(i * step + tn, n)] += 1
    assert torch.equal(out.cpu().long(), ref)


def test_broadcast_row_update_with_or():
    tm, tn, rows, cols = 64, 128, 300, 1000
    flags = torch.randint(0, 1 << 30, (cols,), device="cuda", dtype=torch.int32)
    out0 = torch.randint(0, 1 << 30, (rows, cols), device="cuda", dtype=torch.int32)
    out = out0.clone()
    _launch((-(-rows // tm), -(-cols // tn), 1), P.row_vector_or, (flags, out, tm, tn))
    assert torch.equal(out, out0 | flags[None, :])


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16, torch.int64])
def test_pack_to_bytes_matches_torch_view(dtype):
    n, blocks = 256, 37
    x = (torch.randn(blocks * n, device="cuda") * 100).to(dtype)
    k = x.element_size()
    out = torch.full((blocks * n * k,), 0xAB, device="cuda", dtype=torch.uint8)
    _launch((blocks, 1, 1), P.pack_rows, (x, out, n))
    assert torch.equal(out, x.view(torch.uint8))


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16, torch.int32])
def test_unpack_from_bytes_matches_torch_view(dtype):
    n, blocks = 128, 19
    x = (torch.randn(blocks * n, device="cuda") * 100).to(dtype)
    k = x.element_size()
    out = torch.full_like(x, 7)
    _launch((blocks, 1, 1), P.unpack_rows, (x.view(torch.uint8).clone(), out, n, k))
    assert torch.equal(out, x + x)


@pytest.mark.parametrize("m,n,k,splits", [(1000, 520, 4096, 4), (256, 256, 8192, 8)])
def test_split_k_gemm_through_a_view_atomic_add(m, n, k, splits):
    """The tier's atomic epilogue (a WGMMA kernel) for a split-K program written with
    ``C.tiled_view(..).atomic_store_add``."""
    tm, tn, tk = 128, 128, 64
    a = torch.randn(m, k, device="cuda", dtype=torch.float16)
    b = torch.randn(k, n, device="cuda", dtype=torch.float16)
    c = torch.zeros(m, n, device="cuda")
    _launch((-(-m // tm), -(-n // tn), splits), P.gemm_split_k_view, (a, b, c, splits, tm, tn, tk))
    ref = a.double() @ b.double()
    torch.testing.assert_close(c.double(), ref, atol=0.05, rtol=1e-3)
