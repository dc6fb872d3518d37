"""Host-computable operand views on the GPU (``tileas/operand_views.py``, ``launchers/operand_views.py``):
``Y = X @ W[e]`` (``e`` a runtime scalar), ``Y = X[e] @ W``, ``W[g, e]`` of a 4-D weight and ``W[1]``
run on the GEMM tier through ``tileorch.cutile.launch``, against torch in fp32, outputs NaN-prefilled
inside a larger NaN buffer whose tail must stay NaN; ``e`` at 0 and at ``E - 1``, ragged M / N / K,
relaunches with another ``e`` (the bound launch of one ``e`` must not serve another), ``e`` outside
the array (a clear error, nothing launched), a strided W (padded rows: the SIMT path) and the
programs whose index the host cannot compute (the SIMT path).  Skipped without a GPU; needs torch
and cuda-tile.  Run: ``python -m pytest -q tests/gpu/test_operand_views_gpu.py``."""

from __future__ import annotations

import warnings

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("cuda.tile")

import tileorch.cutile  # noqa: E402
from test_user_sweep_gpu import TAIL, _filled, _unwritten, randn  # noqa: E402

from tileorch.testing.operand_view_programs import (mm_expert_a_by_scalar, mm_weight_4d_two_scalars,  # noqa: E402
                                                    mm_weight_computed_index, mm_weight_constant_matrix,
                                                    mm_weight_index_from_memory)
from tileorch.testing.user_programs11 import mm_expert_weight_by_scalar  # noqa: E402

TM, TN, TK = 128, 64, 64


def _grid(m, n):
    return (-(-m // TM), -(-n // TN), 1)


def _path(kernel, args):
    from tileorch.launchers import cutile as rc

    return rc.compiled(kernel, rc.describe_arguments(kernel, tuple(args)), "sm_90a", "persistent").program


def _launch(kernel, grid, args, slow_ok=False):
    """Launch and wait; no slow-path warning unless ``slow_ok``."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        tileorch.cutile.launch(torch.cuda.current_stream(), grid, kernel, tuple(args))
        torch.cuda.synchronize()
    slow = [str(w.message) for w in caught if "SIMT" in str(w.message) or "slow" in str(w.message).lower()]
    if not slow_ok:
        assert not slow, slow
    return slow


def _rel(got, ref, tol=1e-2):
    assert not _unwritten(got).any(), "unwritten elements"
    err = float((got.float() - ref).norm() / ref.norm())
    assert err < tol, f"relative error {err:.3e}"


def _out(m, n):
    y, buf = _filled((m, n), "float32")
    return y, buf


@pytest.mark.parametrize("m, n, k, experts", [(256, 128, 256, 3), (200, 72, 136, 4), (129, 200, 100, 2)])
def test_expert_weight_each_e(m, n, k, experts):
    """e at 0 and at E - 1 (and between), one process: each launch reads its own W[e]."""
    x = randn((m, k), "float16", 1, 0.5)
    w = randn((experts, k, n), "float16", 2, 0.5)
    for e in sorted({0, experts - 1, experts // 2, 0}) + [0]:  # back to 0: no stale bound launch
        y, buf = _out(m, n)
        args = (x, w, y, e, TM, TN, TK)
        assert _path(mm_expert_weight_by_scalar, args).kind == "gemm"
        tileorch.cutile.launch(torch.cuda.current_stream(), _grid(m, n), mm_expert_weight_by_scalar, args)
        torch.cuda.synchronize()
        _rel(y, x.float() @ w[e].float())
        assert _unwritten(buf[-TAIL:]).all(), "Y written past its end"


def test_expert_weight_bound_relaunches():
    """The same arrays relaunched with e alternating (the hot path's key holds the scalar's value)."""
    m, n, k = 256, 128, 192
    x, w = randn((m, k), "float16", 3, 0.5), randn((3, k, n), "float16", 4, 0.5)
    y, _ = _out(m, n)
    for e in (0, 2, 0, 1, 2):
        y.fill_(float("nan"))
        tileorch.cutile.launch(torch.cuda.current_stream(), _grid(m, n), mm_expert_weight_by_scalar,
                               (x, w, y, e, TM, TN, TK))
        torch.cuda.synchronize()
        _rel(y, x.float() @ w[e].float())


@pytest.mark.parametrize("e", [3, -1])
def test_expert_outside_w_is_an_error(e):
    x, w = randn((256, 128), "float16", 5), randn((3, 128, 128), "float16", 6)
    y, _ = _out(256, 128)
    with pytest.raises(IndexError, match=rf"the program reads B as its matrix at index {e} of dimension 0"):
        tileorch.cutile.launch(torch.cuda.current_stream(), (2, 2, 1), mm_expert_weight_by_scalar,
                               (x, w, y, e, TM, TN, TK), sync=True)
    torch.cuda.synchronize()
    assert _unwritten(y).all(), "a refused launch wrote Y"


def test_expert_a_ragged():
    x, w = randn((3, 200, 136), "float16", 7, 0.5), randn((136, 72), "float16", 8, 0.5)
    for e in (0, 2):
        y, buf = _out(200, 72)
        args = (x, w, y, e, TM, TN, TK)
        assert _path(mm_expert_a_by_scalar, args).kind == "gemm"
        _launch(mm_expert_a_by_scalar, _grid(200, 72), args)
        _rel(y, x[e].float() @ w.float())
        assert _unwritten(buf[-TAIL:]).all()


def test_weight_4d_two_scalars():
    x, w = randn((200, 136), "float16", 9, 0.5), randn((2, 3, 136, 72), "float16", 10, 0.5)
    for g, e in ((0, 0), (1, 2), (0, 2)):
        y, _ = _out(200, 72)
        _launch(mm_weight_4d_two_scalars, _grid(200, 72), (x, w, y, g, e, TM, TN, TK))
        _rel(y, x.float() @ w[g, e].float())


def test_weight_constant_matrix():
    x, w = randn((256, 128), "float16", 11, 0.5), randn((2, 128, 128), "float16", 12, 0.5)
    y, _ = _out(256, 128)
    args = (x, w, y, TM, TN, TK)
    assert _path(mm_weight_constant_matrix, args).kind == "gemm"
    _launch(mm_weight_constant_matrix, (2, 2, 1), args)
    _rel(y, x.float() @ w[1].float())


def test_strided_weight_runs_correctly():
    """W a slice of a wider buffer (row pitch 136 for N = 128): W[e] is not row-major contiguous, so
    the launch says why and runs the SIMT path, with the right result."""
    x = randn((256, 128), "float16", 13, 0.5)
    w = randn((3, 128, 136), "float16", 14, 0.5)[:, :, :128]
    y, _ = _out(256, 128)
    _launch(mm_expert_weight_by_scalar, (2, 2, 1), (x, w, y, 2, TM, TN, TK), slow_ok=True)
    _rel(y, x.float() @ w[2].float())


@pytest.mark.parametrize("kernel", [mm_weight_computed_index, mm_weight_index_from_memory])
def test_indices_the_host_cannot_compute_run_as_batch_indices_per_work_tile(kernel):
    """Refused to the SIMT path until session 23; now B's batch index evaluated per work tile."""
    x, w = randn((256, 128), "float16", 15, 0.5), randn((3, 128, 128), "float16", 16, 0.5)
    y, _ = _out(256, 128)
    if kernel is mm_weight_computed_index:
        args, want = (x, w, y, 2, TM, TN, TK), w[0]  # (2 + 1) % 3
    else:
        args, want = (x, w, torch.tensor([1], device="cuda", dtype=torch.int32), y, TM, TN, TK), w[1]
    assert _path(kernel, args).kind == "gemm"
    _launch(kernel, (2, 2, 1), args)
    _rel(y, x.float() @ want.float())
