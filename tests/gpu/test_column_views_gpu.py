"""C stored into a column slice of a wider output, and dots sharing A whose operands are views
(``testing/column_view_programs.py``), on the GEMM tier through ``tileorch.cutile.launch`` against torch
in fp32.  Every output is NaN-prefilled, inside a larger NaN buffer whose tail must stay NaN, and the
columns beside the slice (which the program must not write) must stay NaN: ``Out.slice(axis=1, ...)``
at aligned and unaligned first columns (the unaligned one staged), f32 (direct epilogue) and f16 (TMA
epilogue) outputs, a caller's ``Y[:, off:off + N]`` passed as C to a plain GEMM, an MoE expert's gate/up
pair ``silu(X @ W1[e]) * (X @ W3[e])`` (both Bs views at e, e at 0 and E - 1), ``X[e]`` shared by two
dots, both at once into a column slice, a store at column tile ``bn + j`` of a wider output (its
zero-padded columns past N as the program stores them); a slice past the output is a clear error,
nothing launched.
Skipped without a GPU; needs torch and cuda-tile.  Run: ``python -m pytest -q tests/gpu/test_column_views_gpu.py``."""

from __future__ import annotations

import warnings

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("cuda.tile")

import tileorch.cutile  # noqa: E402
from test_user_sweep_gpu import TAIL, _filled, _unwritten, randn  # noqa: E402

from tileorch.testing.column_view_programs import (gate_up_viewed_a, mm_into_column_slice,  # noqa: E402
                                                   mm_into_column_tiles, mm_plain, moe_gate_up_expert,
                                                   moe_gate_up_into_column_slice)

TM, TN, TK = 128, 64, 64
F = torch.nn.functional


def _grid(m, n):
    return (-(-m // TM), -(-n // TN), 1)


def _path(kernel, args):
    from tileorch.launchers import cutile as rc

    return rc.compiled(kernel, rc.describe_arguments(kernel, tuple(args)), "sm_90a", "persistent").program


def _launch(kernel, grid, args):
    """Launch and wait; no slow-path (SIMT) warning."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        tileorch.cutile.launch(torch.cuda.current_stream(), grid, kernel, tuple(args))
        torch.cuda.synchronize()
    slow = [str(w.message) for w in caught if "SIMT" in str(w.message)]
    assert not slow, slow


def _rel(got, ref, tol=1e-2):
    assert not _unwritten(got).any(), "unwritten elements"
    err = float((got.float() - ref).norm() / ref.norm())
    assert err < tol, f"relative error {err:.3e}"


def _beside(out, col0, n):
    """The columns beside the slice and the buffer's tail are NaN."""
    assert _unwritten(out[:, :col0]).all(), "columns before the slice written"
    assert _unwritten(out[:, col0 + n:]).all(), "columns after the slice written"


@pytest.mark.parametrize("m, n, k, width, col0, dtype", [
    (256, 128, 256, 384, 128, "float32"), (200, 72, 136, 264, 96, "float32"), (200, 72, 136, 264, 3, "float32"),
    (256, 128, 192, 512, 256, "float16"), (129, 200, 100, 456, 8, "float16"), (129, 200, 100, 457, 5, "float16")])
def test_out_slice(m, n, k, width, col0, dtype):
    x, w = randn((m, k), "float16", 1, 0.5), randn((k, n), "float16", 2, 0.5)
    out, buf = _filled((m, width), dtype)
    args = (x, w, out, col0, TM, TN, TK)
    assert _path(mm_into_column_slice, args).kind == "gemm"
    _launch(mm_into_column_slice, _grid(m, n), args)
    _rel(out[:, col0:col0 + n], x.float() @ w.float())
    _beside(out, col0, n)
    assert _unwritten(buf[-TAIL:]).all(), "written past the output's end"


def test_out_slice_relaunched_at_other_columns():
    """One output, three slices written by three launches (a fused QKV's parts): each its own columns."""
    m, n, k = 256, 128, 192
    x = randn((m, k), "float16", 3, 0.5)
    ws = [randn((k, n), "float16", 4 + i, 0.5) for i in range(3)]
    out, _ = _filled((m, 3 * n), "float32")
    for i, w in enumerate(ws):
        _launch(mm_into_column_slice, _grid(m, n), (x, w, out, i * n, TM, TN, TK))
    _rel(out, torch.cat([x.float() @ w.float() for w in ws], dim=1))


def test_out_slice_past_the_output_is_an_error():
    x, w = randn((256, 128), "float16", 7), randn((128, 128), "float16", 8)
    out, _ = _filled((256, 200), "float32")
    with pytest.raises(IndexError, match="outside the array's 200 columns"):
        tileorch.cutile.launch(torch.cuda.current_stream(), (2, 2, 1), mm_into_column_slice,
                               (x, w, out, 100, TM, TN, TK), sync=True)
    torch.cuda.synchronize()
    assert _unwritten(out).all(), "a refused launch wrote the output"


@pytest.mark.parametrize("m, n, k, width, off, dtype", [(256, 128, 256, 384, 128, "float32"),
                                                        (200, 72, 136, 264, 96, "float32"),
                                                        (200, 72, 136, 265, 7, "float16"),
                                                        (256, 256, 128, 768, 256, "float16")])
def test_callers_column_slice_as_c(m, n, k, width, off, dtype):
    """``mm_plain`` launched with C = ``Y[:, off:off + N]`` (row stride ``width``): the GEMM tier, only
    those columns written."""
    x, w = randn((m, k), "float16", 9, 0.5), randn((k, n), "float16", 10, 0.5)
    y, buf = _filled((m, width), dtype)
    _launch(mm_plain, _grid(m, n), (x, w, y[:, off:off + n], TM, TN, TK))
    _rel(y[:, off:off + n], x.float() @ w.float())
    _beside(y, off, n)
    assert _unwritten(buf[-TAIL:]).all()


@pytest.mark.parametrize("m, n, k, experts", [(256, 128, 256, 3), (200, 72, 136, 4)])
def test_moe_gate_up_expert(m, n, k, experts):
    x = randn((m, k), "float16", 11, 0.5)
    w1, w3 = randn((experts, k, n), "float16", 12, 0.2), randn((experts, k, n), "float16", 13, 0.2)
    for e in (0, experts - 1, 0):  # back to 0: no stale bound launch
        h, buf = _filled((m, n), "float32")
        args = (x, w1, w3, h, e, TM, TN, TK)
        assert _path(moe_gate_up_expert, args).kind == "gemm"
        _launch(moe_gate_up_expert, _grid(m, n), args)
        _rel(h, F.silu(x.float() @ w1[e].float()) * (x.float() @ w3[e].float()))
        assert _unwritten(buf[-TAIL:]).all()


def test_gate_up_viewed_a():
    m, n, k = 200, 72, 136
    x = randn((3, m, k), "float16", 14, 0.5)
    wg, wu = randn((k, n), "float16", 15, 0.2), randn((k, n), "float16", 16, 0.2)
    for e in (0, 2):
        h, _ = _filled((m, n), "float32")
        _launch(gate_up_viewed_a, _grid(m, n), (x, wg, wu, h, e, TM, TN, TK))
        _rel(h, F.silu(x[e].float() @ wg.float()) * (x[e].float() @ wu.float()))


def test_moe_gate_up_into_column_slice():
    m, n, k, width = 200, 72, 136, 264
    x = randn((m, k), "float16", 17, 0.5)
    w1, w3 = randn((3, k, n), "float16", 18, 0.2), randn((3, k, n), "float16", 19, 0.2)
    out, buf = _filled((m, width), "float32")
    _launch(moe_gate_up_into_column_slice, _grid(m, n), (x, w1, w3, out, 2, 96, TM, TN, TK))
    _rel(out[:, 96:96 + n], F.silu(x.float() @ w1[2].float()) * (x.float() @ w3[2].float()))
    _beside(out, 96, n)
    assert _unwritten(buf[-TAIL:]).all()


@pytest.mark.parametrize("m, n, k, width, j", [(256, 128, 256, 384, 2), (200, 72, 136, 320, 2), (129, 192, 64, 448, 3)])
def test_column_tiles_offset_by_a_scalar(m, n, k, width, j):
    """``ct.store(Out, index=(bm, bn + j))``: the program's tiles at columns ``j * TN ..``; a ragged N's
    last tile stores the zero-padded B's zeros up to its tile's end (inside Out), as the program does."""
    x, w = randn((m, k), "float16", 20, 0.5), randn((k, n), "float16", 21, 0.5)
    out, buf = _filled((m, width), "float32")
    args = (x, w, out, j, TM, TN, TK)
    assert _path(mm_into_column_tiles, args).kind == "gemm"
    _launch(mm_into_column_tiles, _grid(m, n), args)
    first, tiles_end = j * TN, min(width, (j + -(-n // TN)) * TN)
    _rel(out[:, first:first + n], x.float() @ w.float())
    assert (out[:, first + n:tiles_end] == 0).all()
    _beside(out, first, tiles_end - first)
    assert _unwritten(buf[-TAIL:]).all()


def test_callers_column_slice_empty_k():
    """K = 0: the slice is zeroed (on the GEMM path a 2-D memset of its own columns; whichever path the
    empty operands' strides lead to), the neighbours stay NaN."""
    m, n, width, off = 200, 72, 264, 96
    x, w = torch.empty((m, 0), device="cuda", dtype=torch.float16), torch.empty((0, n), device="cuda",
                                                                                dtype=torch.float16)
    y, _ = _filled((m, width), "float32")
    tileorch.cutile.launch(torch.cuda.current_stream(), _grid(m, n), mm_plain, (x, w, y[:, off:off + n], TM, TN, TK),
                           sync=True)
    assert (y[:, off:off + n] == 0).all()
    _beside(y, off, n)
