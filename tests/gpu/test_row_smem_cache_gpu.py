"""``TILEORCH_ROW_SMEM_CACHE=1`` on the GPU (issue 21: two-pass rows): log-softmax and cross entropy forward /
backward over vocabulary rows (32000, 32001, 4095, 1000 columns), the three-loop softmax, a layernorm with a column
loop, the in-place log-softmax, and a row longer than a CTA's shared memory (120000 bf16 columns: 118 slots of 2 KiB
do not fit 227 KiB, the tail reloads from global memory), against torch in fp32, outputs in NaN buffers.  The
kernels are checked to carry the cache (``program.row_cache``; with ``TILEORCH_ROW_BULK_FILL=1`` in the environment
also its bulk copies), so a silent fallback fails.  Skipped without a GPU;
needs torch and cuda-tile."""

from __future__ import annotations

import os

import pytest

torch = pytest.importorskip("torch")
ct = pytest.importorskip("cuda.tile")

import tileorch.cutile  # noqa: E402


@pytest.fixture(autouse=True)
def _cache_on(monkeypatch):
    monkeypatch.setenv("TILEORCH_ROW_SMEM_CACHE", "1")


def _launch(grid, kernel, args):
    tileorch.cutile.launch(torch.cuda.current_stream(), grid, kernel, args)
    torch.cuda.synchronize()


def _carries_cache(kernel, args):
    from tileorch.launchers import cutile as rc

    entry = rc.compiled(kernel, rc.describe_arguments(kernel, args), "sm_90a", "persistent")
    assert entry.program.row_cache is not None, entry.program.remarks
    if os.environ.get("TILEORCH_ROW_BULK_FILL") == "1":  # (row_bulk_fill.py: the whole tiles bulk-copied)
        assert "cp.async.bulk.shared::cluster.global" in entry.program.ptx, entry.program.remarks


def _randn(rows, cols, seed, dtype=torch.bfloat16, scale=3.0):
    g = torch.Generator(device="cuda").manual_seed(seed)
    return (scale * torch.randn(rows, cols, device="cuda", generator=g)).to(dtype)


def _row_to_row(kernel, x, ref, atol):
    """``kernel(x, y, 1024)`` over ``x``'s rows into a NaN ``y``, against ``ref`` (fp32), the cache carried."""
    y = torch.full_like(x, float("nan"))
    _launch((x.shape[0],), kernel, (x, y, 1024))
    _carries_cache(kernel, (x, y, 1024))
    torch.testing.assert_close(y.float(), ref, atol=atol, rtol=2e-2)


@pytest.mark.parametrize("v", [32000, 32001, 4095, 1000, 120000])
def test_log_softmax(v):
    from tileorch.testing.user_programs10 import log_softmax_vocab_loop as kernel

    x = _randn(64, v, v)
    _row_to_row(kernel, x, torch.log_softmax(x.float(), 1), 7e-2)


@pytest.mark.parametrize("v", [32000, 4095])
def test_cross_entropy_forward_backward(v):
    from tileorch.testing.user_programs10 import cross_entropy_fwd_bwd_vocab as kernel

    rows = 48
    x = _randn(rows, v, 3 + v)
    labels = torch.randint(0, v, (rows,), device="cuda")
    labels[::7] = -100
    loss = torch.full((rows,), float("nan"), device="cuda")
    dx = torch.full_like(x, float("nan"))
    count = int((labels != -100).sum())
    args = (x, labels, loss, dx, -100, 1.0 / count, 1024)
    _launch((rows,), kernel, args)
    _carries_cache(kernel, args)
    xf = x.float().requires_grad_(True)
    ref = torch.nn.functional.cross_entropy(xf, labels, ignore_index=-100, reduction="none")
    torch.testing.assert_close(loss, ref.detach(), atol=1e-3, rtol=1e-4)
    ref.sum().div(count).backward()
    torch.testing.assert_close(dx.float(), xf.grad, atol=1e-5, rtol=2e-2)


@pytest.mark.parametrize("v", [32000, 1000])
def test_softmax_three_loops(v):
    from tileorch.testing.row_cache_programs import softmax_three_loops as kernel

    x = _randn(64, v, 11)
    _row_to_row(kernel, x, torch.softmax(x.float(), 1), 1e-4)


@pytest.mark.parametrize("v", [32000, 4095])
def test_layernorm_column_loop(v):
    from tileorch.testing.row_cache_programs import layernorm_column_loop as kernel

    x = _randn(64, v, 12, scale=1.0) + 1.0
    g = torch.Generator(device="cuda").manual_seed(13)
    w, b = torch.randn(v, device="cuda", generator=g), torch.randn(v, device="cuda", generator=g)
    y = torch.full((64, v), float("nan"), device="cuda", dtype=torch.bfloat16)
    _launch((64,), kernel, (x, w, b, y, 1e-5, 1024))
    _carries_cache(kernel, (x, w, b, y, 1e-5, 1024))
    ref = torch.nn.functional.layer_norm(x.float(), (v,), w, b, 1e-5)
    torch.testing.assert_close(y.float(), ref, atol=5e-2, rtol=2e-2)


def test_log_softmax_in_place():
    from tileorch.testing.row_cache_programs import log_softmax_in_place as kernel

    x = _randn(64, 32000, 14)
    ref = torch.log_softmax(x.float(), 1)
    _launch((64,), kernel, (x, 1024))
    _carries_cache(kernel, (x, 1024))
    torch.testing.assert_close(x.float(), ref, atol=7e-2, rtol=2e-2)
