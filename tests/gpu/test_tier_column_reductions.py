"""Column reductions of a GEMM's result (``ct.sum/max/min(f(acc), axis=0)`` stored beside C as
``[1, tile_n]`` tiles) on the tensor-core path, under every tile scheduler, against torch fp32
references: ragged M (a last row tile with 1 row: the second consumer warp group holds no row of
the array) and ragged N, NaN-prefilled outputs, rows past M left out unless A's padding is zero.
The exchange runs across both consumer warp groups (``bar.sync 1, 256``) once per work tile, in the
TMA epilogue's staging buffer while the previous tile's TMA stores may still read it, so a
persistent or Stream-K walk over many tiles per CTA exercises that reuse.  Skipped
without a GPU (tests/gpu/conftest.py); needs torch and cuda-tile."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("cuda.tile")

import tileorch.cutile  # noqa: E402
from tileorch.launchers import cutile as rc  # noqa: E402
from tileorch.testing.dot_programs import PROGRAMS, build, refill, unwritten  # noqa: E402

COLUMN_PROGRAMS = ["gemm_colsum_f16", "gemm_colsum_f16_tile128x256", "gemm_colsum_f32_out", "gemm_colmax_f16",
                   "gemm_colmax_zero_pad_f16", "gemm_bias_relu_colsum_f16", "gemm_colmin_half_f16"]
"""The exchange in the TMA epilogue's staging buffer (f16 C), or in a scratch of its own (f32 C,
stored directly)."""
SHAPES = [(129, 264, 72), (1000, 520, 384), (2047, 1999, 256), (64, 8, 16)]
"""(129, ...): the last row tile has one row; (64, 8, 16): one partial tile in each dimension."""
SCHEDULES = ["persistent", "streamk", "dp"]
TOL = {torch.float16: dict(atol=5e-2, rtol=2e-2), torch.float32: dict(atol=2e-3, rtol=2e-3)}


def _compare(outs, refs):
    for out, ref in zip(outs, refs):
        assert not unwritten(out).any(), "unwritten (NaN pre-filled) outputs"
        torch.testing.assert_close(out.float(), ref, **TOL[out.dtype])


@pytest.mark.parametrize("schedule", SCHEDULES)
@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("name", COLUMN_PROGRAMS)
def test_column_reduction_on_tensor_cores(name, shape, schedule):
    m, n, k = shape
    kernel, args, grid, out, ref, _lib = build(name, m, n, k, seed=m + 3 * n + k)
    tileorch.cutile.launch(torch.cuda.current_stream(), grid, kernel, args, schedule=schedule, tiles="program")
    torch.cuda.synchronize()
    _compare(out, ref)
    entry = rc.compiled(kernel, rc.describe_arguments(kernel, args), "sm_90a", schedule)
    assert entry.program.kind == "gemm", f"{name} left the tensor-core path: {entry.program.remarks}"
    assert any("column reduction" in r for r in entry.program.remarks), entry.program.remarks


@pytest.mark.parametrize("name", ["gemm_colsum_f16", "gemm_colmax_f16"])
def test_column_reduction_runs_again_the_same(name):
    """The partials are folded in warp order: two launches give bit-identical column results."""
    kernel, args, grid, out, ref, _lib = build(name, 1000, 520, 384, seed=5)
    tileorch.cutile.launch(torch.cuda.current_stream(), grid, kernel, args)
    torch.cuda.synchronize()
    first = out[1].clone()
    refill(out)
    tileorch.cutile.launch(torch.cuda.current_stream(), grid, kernel, args)
    torch.cuda.synchronize()
    assert torch.equal(first, out[1])


def test_column_max_of_negative_columns_leaves_padded_rows_out():
    """Every value negative: a column max over a partial row tile that folded in the padding's
    zero rows would read 0; the undetermined padding leaves them out (the zero-padding program
    folds them in: its maximum is 0 there)."""
    m, n, k = 129, 136, 64
    for name, want_zero in (("gemm_colmax_f16", False), ("gemm_colmax_zero_pad_f16", True)):
        kernel, args, grid, out, ref, _lib = build(name, m, n, k, seed=11)
        a, b = args[0], args[1]
        a.copy_(a.abs())
        b.copy_(-b.abs())  # A >= 0, B <= 0: every product, every sum <= 0
        refill(out)
        tileorch.cutile.launch(torch.cuda.current_stream(), grid, kernel, args)
        torch.cuda.synchronize()
        full = a.float() @ b.float()
        last = out[1][1]  # the row tile holding row 128 only
        expect = torch.zeros_like(last) if want_zero else full[128]
        torch.testing.assert_close(last, expect, atol=2e-3, rtol=2e-3)
        assert PROGRAMS[name].dtype == "f16"


@pytest.mark.parametrize("schedule", SCHEDULES)
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_row_softmax_of_the_tile_on_tensor_cores(shape, schedule):
    """Row reductions the stored value reads (max, then the sum of exp(acc - max)): tight tolerance
    (the values are ~1/128, the zoo's f16 atol would pass zeros) and each tile row sums to 1 over
    the columns inside the array."""
    m, n, k = shape
    kernel, args, grid, out, ref, _lib = build("gemm_row_softmax_f16", m, n, k, seed=m + n)
    tileorch.cutile.launch(torch.cuda.current_stream(), grid, kernel, args, schedule=schedule, tiles="program")
    torch.cuda.synchronize()
    assert not unwritten(out).any(), "unwritten (NaN pre-filled) outputs"
    torch.testing.assert_close(out.float(), ref, atol=1e-3, rtol=1e-2)
    tiles_n = -(-n // 128)
    pad = torch.zeros((m, tiles_n * 128), device="cuda")
    pad[:, :n] = out.float()
    sums = pad.view(m, tiles_n, 128).sum(dim=2)
    torch.testing.assert_close(sums, torch.ones_like(sums), atol=2e-2, rtol=0)
    entry = rc.compiled(kernel, rc.describe_arguments(kernel, args), "sm_90a", schedule)
    assert entry.program.kind == "gemm", entry.program.remarks
