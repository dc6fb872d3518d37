"""``TILEORCH_ROW_RUNS`` (issue 22, off by default) on the GPU: row softmax, layernorm, RMSNorm and
argmax compiled with 1 or 2 vector runs per thread (instead of 4: more threads per row, a third
to a half of the compile) against torch, ragged rows, misaligned arrays, NaN-prefilled outputs
(an unwritten element stays NaN; the buffer's tail must stay NaN).  The CPU checks the same
programs in the PTX emulator (tests/unit/test_row_runs_emulated.py); the speed is measured by
``python benchmarks/memory_bound.py --only softmax_f16_rows_x1024 layernorm_f16 rmsnorm_f16 argmax_f32
--env default --env TILEORCH_ROW_RUNS=2 --env TILEORCH_ROW_RUNS=1``.  Skipped without a GPU
(tests/gpu/conftest.py); needs torch and cuda-tile."""

from __future__ import annotations

import math

import pytest

torch = pytest.importorskip("torch")
ct = pytest.importorskip("cuda.tile")

import tileorch.cutile  # noqa: E402
from tileorch.launchers.cutile import clear_caches  # noqa: E402
from tileorch.testing.memory_programs import argmax, layernorm, rmsnorm, softmax  # noqa: E402

NAN = float("nan")


@pytest.fixture(params=[1, 2], ids=lambda r: f"row_runs{r}")
def row_runs(request, monkeypatch):
    monkeypatch.setenv("TILEORCH_ROW_RUNS", str(request.param))
    clear_caches()  # no program compiled under another setting is reused (the disk cache keys the switch)
    yield request.param
    clear_caches()


def _gen(seed: int):
    return torch.Generator(device="cuda").manual_seed(seed)


def _nan_view(shape, dtype, offset: int = 0):
    n = math.prod(shape)
    buf = torch.full((n + offset + 4096,), NAN, device="cuda", dtype=dtype)
    return buf, buf[offset:offset + n].view(shape)


def _launch(grid, kernel, args):
    tileorch.cutile.launch(torch.cuda.current_stream(), grid, kernel, args)
    torch.cuda.synchronize()


def _check_tail(buf, view, offset=0):
    n = view.numel()
    assert torch.isnan(buf[:offset]).all() and torch.isnan(buf[offset + n:]).all(), "a write outside the output"


@pytest.mark.parametrize("m,n,offset", [(4096, 1024, 0), (333, 1000, 3), (65, 1001, 0), (64, 7, 0)])
@pytest.mark.parametrize("dtype", [torch.float16, torch.float32])
def test_row_softmax(row_runs, m, n, offset, dtype):
    g = _gen(m + n + offset)
    src = (3 * torch.randn(m * n + offset, device="cuda", generator=g)).to(dtype)
    x = src[offset:].view(m, n)
    buf, out = _nan_view((m, n), dtype, offset)
    _launch((m,), softmax, (x, out, 1024))
    assert torch.isfinite(out).all(), "unwritten (NaN) outputs"
    torch.testing.assert_close(out.float(), torch.softmax(x.float(), dim=1), atol=1e-3, rtol=1e-2)
    _check_tail(buf, out, offset)


@pytest.mark.parametrize("m,n,offset", [(4096, 1024, 0), (333, 1000, 3)])
def test_layernorm_fp16(row_runs, m, n, offset):
    g = _gen(m + n + offset)
    src = torch.randn(m * n + offset, device="cuda", generator=g).half()
    x = src[offset:].view(m, n)
    w = torch.randn(n, device="cuda", generator=g).half()
    b = torch.randn(n, device="cuda", generator=g).half()
    buf, y = _nan_view((m, n), torch.float16, offset)
    _launch((m,), layernorm, (x, w, b, y, 1024))
    xp = torch.zeros(m, 1024, device="cuda")
    xp[:, :n] = x.float()
    mean = xp.sum(1, keepdim=True) / 1024  # the tile's 1024 columns, padding included (the program's choice)
    d = xp - mean
    var = (d * d).sum(1, keepdim=True) / 1024
    ref = (d * torch.rsqrt(var + 1e-5))[:, :n] * w.float() + b.float()
    assert torch.isfinite(y).all(), "unwritten (NaN) outputs"
    torch.testing.assert_close(y.float(), ref, atol=3e-2, rtol=1e-2)
    _check_tail(buf, y, offset)


def test_rmsnorm_fp16(row_runs):
    m, n = 2048, 1024
    g = _gen(77)
    x = torch.randn(m, n, device="cuda", generator=g).half()
    w = torch.randn(n, device="cuda", generator=g).half()
    buf, y = _nan_view((m, n), torch.float16)
    _launch((m,), rmsnorm, (x, w, y, n))
    xf = x.float()
    ref = xf * torch.rsqrt((xf * xf).mean(1, keepdim=True) + 1e-6) * w.float()
    assert torch.isfinite(y).all(), "unwritten (NaN) outputs"
    torch.testing.assert_close(y.float(), ref, atol=3e-2, rtol=1e-2)
    _check_tail(buf, y)


def test_argmax_f32(row_runs):
    m, n = 4096, 256
    x = torch.randn(m, n, device="cuda", generator=_gen(5))
    x[7, :] = 0.5  # all equal: the first index
    out = torch.full((m,), -7, device="cuda", dtype=torch.int32)
    _launch((m,), argmax, (x, out, n))
    assert torch.equal(out.long(), x.argmax(1))
