"""Program-grid GEMMs on the H200 (issue 18): cuTile dot programs whose tile coordinates are
expressions of program ids, grid sizes and scalar arguments, or whose GEMM runs under a condition
on them (an ``if``, an early ``return``, a guarded store), compiled onto the TMA/WGMMA kernel whose
scheduler walks the launch grid (``GemmConfig.program_grid``), run through
``tileorch.cutile.launch`` against torch fp32 references: outputs NaN-prefilled (tiles the guard
skips must stay NaN), ragged M, N and K, grids of more programs than SMs (the persistent walk),
A's row tile, B's column tile and C's tile three different expressions, an epilogue whose bias is
read at the computed column tile.  Each program must take the tensor-core path (``kind ==
"gemm"``).  Skipped without a GPU (tests/gpu/conftest.py); needs torch and cuda-tile."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")
ct = pytest.importorskip("cuda.tile")

import tileorch.cutile  # noqa: E402
from tileorch.launchers import cutile as rc  # noqa: E402
from tileorch.testing.program_grid_programs import pg_rotated_if, pg_rotated_return_bias_relu  # noqa: E402

ZERO = ct.PaddingMode.ZERO


@ct.kernel
def pg_diagonal_guarded_store(A, B, C, rows_used: int, tm: ct.Constant[int], tn: ct.Constant[int],
                              tk: ct.Constant[int]):
    """Column tile ``(bid(1) + bid(0)) % num_blocks(1)`` for A, B and C, the store under a guard."""
    i = ct.bid(0)
    j = (ct.bid(1) + ct.bid(0)) % ct.num_blocks(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        acc = ct.mma(ct.load(A, index=(i, k), shape=(tm, tk), padding_mode=ZERO),
                     ct.load(B, index=(k, j), shape=(tk, tn), padding_mode=ZERO), acc)
    if i * tm < rows_used:
        ct.store(C, index=(i, j), tile=acc.astype(C.dtype))


SHAPES = [(1000, 520, 384), (129, 264, 72), (4097, 1016, 1000), (8192, 4096, 1024)]
"""(M, N, K): ragged everywhere, a tile count of 33 x 8 and 64 x 32 (more programs than SMs)."""


def _gen(seed):
    return torch.Generator(device="cuda").manual_seed(seed)


def _inputs(m, n, k, seed):
    g = _gen(seed)
    a = (torch.randn(m, k, device="cuda", generator=g) * 0.5).half()
    b = (torch.randn(k, n, device="cuda", generator=g) * 0.5).half()
    return a, b


def _rotated_reference(a, b, grid, tm, tn, rows_used, m, n):
    """Tile (i, j) = A row tile (i + 1) % gx @ B column tile gy - 1 - j where i * tm < rows_used;
    NaN elsewhere (fp32, from zero-padded operands)."""
    gx, gy = grid[0], grid[1]
    rows, cols = max(m, gx * tm), max(n, gy * tn)
    ap = torch.zeros(rows, a.shape[1], device="cuda")
    ap[:m] = a.float()
    bp = torch.zeros(b.shape[0], cols, device="cuda")
    bp[:, :n] = b.float()
    full = torch.full((rows, cols), float("nan"), device="cuda")
    for i in range(gx):
        if i * tm >= rows_used:
            continue
        ra = (i + 1) % gx
        prod = ap[ra * tm:(ra + 1) * tm] @ bp
        for j in range(gy):
            cb = gy - 1 - j
            full[i * tm:(i + 1) * tm, j * tn:(j + 1) * tn] = prod[:, cb * tn:(cb + 1) * tn]
    return full[:m, :n]


def _launch(kernel, grid, args, tiles="auto"):
    tileorch.cutile.launch(torch.cuda.current_stream(), grid, kernel, args, tiles=tiles)
    torch.cuda.synchronize()
    entry = rc.compiled(kernel, rc.describe_arguments(kernel, args), "sm_90a", "persistent")
    assert entry.program.kind == "gemm", entry.program.remarks
    assert entry.program.gemm_config.program_grid, entry.program.gemm_config
    return entry


def _close(out, ref):
    keep = ~torch.isnan(ref)
    assert torch.equal(torch.isnan(out), ~keep), "a skipped tile was written or a kept one was not"
    torch.testing.assert_close(out[keep].float(), ref[keep], atol=5e-2, rtol=2e-2)


@pytest.mark.parametrize("out_dtype", [torch.float16, torch.float32])
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_rotated_coordinates_under_an_if(shape, out_dtype):
    m, n, k = shape
    tm, tn, tk = 128, 128, 64
    grid = (-(-m // tm), -(-n // tn), 1)
    rows_used = m // 2
    a, b = _inputs(m, n, k, sum(shape))
    c = torch.full((m, n), float("nan"), device="cuda", dtype=out_dtype)
    _launch(pg_rotated_if, grid, (a, b, c, rows_used, tm, tn, tk))
    _close(c, _rotated_reference(a, b, grid, tm, tn, rows_used, m, n))


@pytest.mark.parametrize("tn,tk", [(64, 64), (128, 32), (256, 64)])
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_rotated_coordinates_on_64_row_tiles(shape, tn, tk):
    """:func:`test_rotated_coordinates_under_an_if` with the program's 64-row tiles run as written
    (one consumer warp group, ``wgmma m64nNk16``): a 128-row kernel tile would span two programs."""
    m, n, k = shape
    grid = (-(-m // 64), -(-n // tn), 1)
    rows_used = m // 2
    a, b = _inputs(m, n, k, sum(shape) + tn)
    c = torch.full((m, n), float("nan"), device="cuda", dtype=torch.float16)
    entry = _launch(pg_rotated_if, grid, (a, b, c, rows_used, 64, tn, tk))
    assert entry.program.gemm_config.tile_m == 64 and "m64n" in entry.program.ptx, entry.program.gemm_config
    _close(c, _rotated_reference(a, b, grid, 64, tn, rows_used, m, n))


@pytest.mark.parametrize("tiles", ["auto", "program"])
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_early_return_with_a_bias_at_the_computed_column_tile(shape, tiles):
    m, n, k = shape
    tm, tn, tk = 128, 64, 64
    grid = (-(-m // tm), -(-n // tn), 1)
    rows_used = (2 * m) // 3
    a, b = _inputs(m, n, k, sum(shape) + 1)
    bias = torch.randn(n, device="cuda", generator=_gen(5)).half()
    c = torch.full((m, n), float("nan"), device="cuda", dtype=torch.float16)
    _launch(pg_rotated_return_bias_relu, grid, (a, b, bias, c, rows_used, tm, tn, tk), tiles)
    # the bias of column tile cb lands in C's column tile j = gy - 1 - cb, as the product does
    bp = torch.zeros(grid[1] * tn, device="cuda")
    bp[:n] = bias.float()
    ref = _rotated_reference(a, b, grid, tm, tn, rows_used, m, n)
    cols = torch.arange(n, device="cuda")
    moved = bp[(grid[1] - 1 - cols // tn) * tn + cols % tn]
    _close(c, torch.relu(ref + moved[None, :]))


@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_diagonal_swizzle_with_a_guarded_store(shape):
    m, n, k = shape
    tm, tn, tk = 128, 256, 64
    grid = (-(-m // tm), -(-n // tn), 1)
    rows_used = m - 1  # the last row tile starts before m - 1 unless it holds one row
    a, b = _inputs(m, n, k, sum(shape) + 2)
    c = torch.full((m, n), float("nan"), device="cuda", dtype=torch.float16)
    _launch(pg_diagonal_guarded_store, grid, (a, b, c, rows_used, tm, tn, tk))
    ref = torch.full((m, n), float("nan"), device="cuda")
    kept = min(m, -(-rows_used // tm) * tm)
    ref[:kept] = a[:kept].float() @ b.float()
    _close(c, ref)


def test_launch_grid_smaller_than_the_tile_grid_computes_only_its_programs():
    """The program ids are exactly the launch grid's: a grid of half the row tiles leaves the
    other rows unwritten."""
    m, n, k = 1024, 512, 256
    tm, tn, tk = 128, 128, 64
    grid = (m // tm // 2, n // tn, 1)
    a, b = _inputs(m, n, k, 9)
    c = torch.full((m, n), float("nan"), device="cuda", dtype=torch.float16)
    _launch(pg_rotated_if, grid, (a, b, c, m, tm, tn, tk))
    _close(c, _rotated_reference(a, b, grid, tm, tn, m, m, n))
