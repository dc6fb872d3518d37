"""cuTile programs the tier compiles as GEMMs (and a chained attention kernel), launched through
``tileorch.cutile.launch`` with grids shorter than, equal to and longer than the output's tile space: exactly the
tiles of the programs launched are written (against torch fp32 on the same inputs), every other element keeps its
NaN prefill (cuTile's rule: a program not launched stores nothing; before session 30 a GEMM program's kernel walked
all of C's tiles whatever the grid).  Routes: a plain GEMM (the program's tiles, and retiled for a full grid), a
fused bias + relu epilogue with 2-CTA clusters (a short grid of an odd row-tile count compiled with 1-CTA clusters),
two operand pairs over one K (a concatenated K), the transposed grid (row tiles on grid axis 1), a batched GEMM with
the batch on grid axis 0 (short along the batch, M and N), an MLP block whose loop over column tiles the kernel runs
(the grid covers rows only), a persistent loop (any grid computes everything), a linear program id split into tiles
(launched short: the SIMT path, with a PerformanceWarning), and attention (the chained kernel walks the launch grid
itself). Skipped without a GPU (tests/gpu/conftest.py); needs torch and cuda-tile."""

from __future__ import annotations

import warnings

import pytest

torch = pytest.importorskip("torch")
ct = pytest.importorskip("cuda.tile")

import tileorch.cutile  # noqa: E402
from tileorch.launchers import cutile as rc  # noqa: E402


def _randn(*shape, dtype=torch.float16, seed=0, scale=0.5):
    g = torch.Generator(device="cuda").manual_seed(seed + sum(shape))
    return (torch.randn(*shape, device="cuda", generator=g) * scale).to(dtype)


def _nan(*shape, dtype=torch.float16):
    return torch.full(shape, float("nan"), device="cuda", dtype=dtype)


def _run(kernel, grid, args, path="gemm"):
    """Launch, synchronize, and check the path the program's compile took (the launch's own entry: a GEMM program
    lowered through the tier only); the warnings the launch gave."""
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        tileorch.cutile.launch(torch.cuda.current_stream(), grid, kernel, args)
        torch.cuda.synchronize()
    entry = rc.compiled(kernel, rc.describe_arguments(kernel, args), "sm_90a", "persistent", defer_gemm=True)
    assert entry.program.kind == path, entry.program.remarks
    return [str(w.message) for w in seen]


def _check(out, ref, covered, atol=3e-2, rtol=3e-2):
    """``out`` equals ``ref`` in the ``covered`` index (a tuple of slices, or a boolean mask) and is NaN elsewhere."""
    want = torch.full_like(ref, float("nan"))
    want[covered] = ref[covered]
    got = out.float()
    inside = ~torch.isnan(want)
    assert torch.isnan(got[~inside]).all(), f"{int((~torch.isnan(got[~inside])).sum())} elements written outside"
    torch.testing.assert_close(got[inside], want[inside], atol=atol, rtol=rtol)


# C 1000 x 520 from K = 384: 8 x 9 tiles of 128 x 64 (mm_tiled_view)
PLAIN = [((3, 4), (slice(0, 384), slice(0, 256))), ((8, 9), (slice(None), slice(None))),
         ((11, 12), (slice(None), slice(None))), ((1, 9), (slice(0, 128), slice(None)))]


@pytest.mark.parametrize("grid,covered", PLAIN, ids=["short", "exact", "long", "one_row"])
def test_plain_gemm(grid, covered):
    from tileorch.testing.user_programs3 import mm_tiled_view

    a, b, c = _randn(1000, 384), _randn(384, 520), _nan(1000, 520)
    _run(mm_tiled_view, grid, (a, b, c, 128, 64, 64))
    _check(c, a.float() @ b.float(), covered)


@pytest.mark.parametrize("grid,covered", [((3, 2), (slice(0, 384), slice(0, 256))), ((4, 3), (slice(None),) * 2),
                                          ((6, 5), (slice(None),) * 2)], ids=["short", "exact", "long"])
def test_bias_relu_epilogue_in_clusters(grid, covered):
    """relu(A @ B + bias), 512 x 384 in 128 x 128 tiles (4 x 3), the tier's 2-CTA clusters: three row tiles."""
    from tileorch.testing.user_programs2 import gemm_bias_relu

    a, b, bias, c = _randn(512, 256), _randn(256, 384), _randn(384), _nan(512, 384)
    _run(gemm_bias_relu, grid, (a, b, bias, c, 128, 128, 64))
    _check(c, torch.relu(a.float() @ b.float() + bias.float()[None, :]), covered)


@pytest.mark.parametrize("grid,covered", [((2, 5), (slice(0, 640), slice(0, 512))), ((3, 8), (slice(None),) * 2),
                                          ((1, 1), (slice(0, 128), slice(0, 256)))], ids=["short", "exact", "one"])
def test_transposed_grid(grid, covered):
    """mm_grid_nm (column tiles on grid axis 0, row tiles on 1): 1000 x 520 in 128 x 256 tiles (8 x 3)."""
    from tileorch.testing.user_programs3 import mm_grid_nm

    a, b, c = _randn(1000, 384), _randn(384, 520), _nan(1000, 520)
    _run(mm_grid_nm, grid, (a, b, c, 128, 256, 32))
    _check(c, a.float() @ b.float(), covered)


@pytest.mark.parametrize("grid,covered", [
    ((2, 5, 4), (slice(0, 2), slice(None), slice(None))),  # batches 0 and 1 of 3
    ((3, 5, 2), (slice(None), slice(0, 128), slice(None))),  # rows 0..127 of each
    ((3, 3, 4), (slice(None), slice(None), slice(0, 192))),  # columns 0..191 of each
    ((3, 5, 4), (slice(None),) * 3), ((4, 7, 6), (slice(None),) * 3)],
    ids=["batch", "rows", "columns", "exact", "long"])
def test_batched_with_the_batch_on_grid_axis_0(grid, covered):
    """mm_batched_bid0: [3, 256, 192] @ [3, 192, 320] (bf16) in 64 x 64 program tiles: grid (L, N tiles, M tiles)."""
    from tileorch.testing.user_programs3 import mm_batched_bid0

    a, b = _randn(3, 256, 192, dtype=torch.bfloat16), _randn(3, 192, 320, dtype=torch.bfloat16)
    c = _nan(3, 256, 320, dtype=torch.bfloat16)
    _run(mm_batched_bid0, grid, (a, b, c, 64, 64, 64))
    _check(c, a.float() @ b.float(), covered, atol=6e-2, rtol=3e-2)


@pytest.mark.parametrize("grid,covered", [((3, 2), (slice(0, 384), slice(0, 128))), ((8, 4), (slice(None),) * 2),
                                          ((9, 6), (slice(None),) * 2)], ids=["short", "exact", "long"])
def test_two_operand_pairs_over_one_k(grid, covered):
    """concat_k_linear_bt: x1 @ W1^T + x2 @ W2^T + bias (bf16, nn.Linear's [N, K] weights), Y 1000 x 232 in 128 x 64
    tiles (8 x 4)."""
    from tileorch.testing.cover27_programs import concat_k_linear_bt

    x1, x2 = _randn(1000, 200, dtype=torch.bfloat16), _randn(1000, 200, dtype=torch.bfloat16, seed=1)
    w1 = _randn(232, 200, dtype=torch.bfloat16, scale=0.1)
    w2 = _randn(232, 200, dtype=torch.bfloat16, seed=2, scale=0.1)
    bias, y = _randn(232, dtype=torch.bfloat16), _nan(1000, 232, dtype=torch.bfloat16)
    _run(concat_k_linear_bt, grid, (x1, w1, x2, w2, bias, y, 128, 64, 64))
    ref = x1.float() @ w1.float().T + x2.float() @ w2.float().T + bias.float()[None, :]
    _check(y, ref, covered, atol=6e-2, rtol=3e-2)


@pytest.mark.parametrize("grid,rows", [((3,), 384), ((8,), 1000), ((12,), 1000)], ids=["short", "exact", "long"])
def test_mlp_column_loop(grid, rows):
    """gelu(x @ W1 + b1) @ W2 + b2 with the loop over Y's column tiles in the program: the grid covers row tiles."""
    from tileorch.testing.cover29_programs import mlp_loops_gelu_bias

    x, w1, b1 = _randn(1000, 200), _randn(200, 128, scale=0.1), _randn(128)
    w2, b2, y = _randn(128, 232, scale=0.1), _randn(232), _nan(1000, 232)
    _run(mlp_loops_gelu_bias, grid, (x, w1, b1, w2, b2, y, 128, 128, 64, 64))
    h = x.float() @ w1.float() + b1.float()[None, :]
    g = (0.5 * h * (1.0 + torch.tanh(0.7978845608028654 * (h + 0.044715 * h ** 3)))).half().float()
    _check(y, g @ w2.float() + b2.float()[None, :], (slice(0, rows), slice(None)))


@pytest.mark.parametrize("grid", [(1,), (3,), (20,)])
def test_persistent_loop_computes_every_tile_on_any_grid(grid):
    from tileorch.testing.user_programs2 import gemm_persistent

    a, b, c = _randn(512, 256), _randn(256, 384), _nan(512, 384)
    _run(gemm_persistent, grid, (a, b, c, 128, 128, 64))
    _check(c, a.float() @ b.float(), (slice(None), slice(None)))


@pytest.mark.parametrize("programs", [7, 12])
def test_linear_program_id(programs):
    """mm_divmod_grid: (i, j) = divmod(bid(0), 3) over 4 x 3 tiles of 128; 7 programs compute tiles 0..6 of the
    raster (not a block: the SIMT path, said by a PerformanceWarning), 12 all of them on the tier."""
    from tileorch.testing.user_programs3 import mm_divmod_grid

    a, b, c = _randn(512, 256), _randn(256, 384), _nan(512, 384)
    said = _run(mm_divmod_grid, (programs,), (a, b, c, 128, 128, 64))
    mask = torch.zeros(512, 384, dtype=torch.bool, device="cuda")
    for t in range(programs):
        i, j = divmod(t, 3)
        mask[i * 128:(i + 1) * 128, j * 128:(j + 1) * 128] = True
    _check(c, a.float() @ b.float(), mask)
    assert any("linear program id" in w for w in said) == (programs < 12), said


@pytest.mark.parametrize("short", [True, False])
def test_attention_walks_the_launch_grid(short):
    from tileorch.testing.attention_programs import attention_args

    kernel, args, grid, out, ref = attention_args(4, 1000, 64, seed=30)
    g = (grid[0] - 3, grid[1] - 1, 1) if short else grid
    tileorch.cutile.launch(torch.cuda.current_stream(), g, kernel, args)
    torch.cuda.synchronize()
    _check(out, ref, (slice(0, g[1]), slice(0, min(1000, g[0] * 128)), slice(None)), atol=2e-2, rtol=2e-2)
