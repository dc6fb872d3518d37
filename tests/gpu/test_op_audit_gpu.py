"""The ops of bytecode 13.4 that tileorch lowers since issue 21's audit, on the GPU against
torch fp32: ``x ** n`` (``fpowi``: products for constant exponents, ``pow`` for a tile of
exponents), ``ct.insert`` (static, dynamic and 0-d sub-tiles) and grid dependency control.
Ragged sizes (a partial last tile); outputs NaN-prefilled views whose tails must stay NaN.
Skipped without a GPU (tests/gpu/conftest.py); needs torch and cuda-tile."""

from __future__ import annotations

import math

import pytest

torch = pytest.importorskip("torch")
ct = pytest.importorskip("cuda.tile")

import tileorch.cutile  # noqa: E402
from tileorch.testing.op_programs import grid_dependency, inserting, powers  # noqa: E402

NAN = float("nan")


def _nan(n: int, spare: int = 1024):
    buf = torch.full((n + spare,), NAN, device="cuda")
    return buf, buf[:n]


def _launch(grid, kernel, args):
    tileorch.cutile.launch(torch.cuda.current_stream(), grid, kernel, args)
    torch.cuda.synchronize()


@pytest.mark.parametrize("n", [1000, 4096, 77])
def test_integer_powers(n):
    g = torch.Generator(device="cuda").manual_seed(n)
    x = torch.rand(n, device="cuda", generator=g) * 6 - 3
    x[:3] = torch.tensor([0.0, -1.0, -0.5])
    e = torch.randint(-3, 4, (n,), device="cuda", generator=g, dtype=torch.int32)
    outs = [_nan(n) for _ in range(5)]
    _launch((math.ceil(n / 128),), powers, (x, e, *[o for _, o in outs], 128))
    y2, y3, ym2, y0, yn = (o for _, o in outs)
    torch.testing.assert_close(y2, x * x, atol=0, rtol=0)
    torch.testing.assert_close(y3, x * x * x, atol=0, rtol=0)
    torch.testing.assert_close(ym2, 1.0 / (x * x), atol=0, rtol=1e-6)
    torch.testing.assert_close(y0, torch.ones_like(x), atol=0, rtol=0)
    torch.testing.assert_close(yn, torch.pow(x.double(), e.double()).float(), atol=1e-6, rtol=2e-5)
    for buf, _ in outs:
        assert torch.isnan(buf[n:]).all(), "a write past the output"


@pytest.mark.parametrize("programs", [5, 9])
def test_insert(programs):
    x = torch.arange(programs * 128, device="cuda", dtype=torch.float32)
    ybuf, y = _nan(programs * 128)
    zbuf = torch.full((programs * 8 + 4, 16), NAN, device="cuda")
    z = zbuf[:programs * 8]
    _launch((programs,), inserting, (x, y, z, 128))
    ref_y = x.view(programs, 128).clone()
    ref_y[:, 16:32] = 0.0
    ref_y[:, 40] = 5.0
    torch.testing.assert_close(y, ref_y.view(-1), atol=0, rtol=0)
    ref_z = x.view(programs, 8, 16).clone()
    for b in range(programs):
        k = b % 4
        ref_z[b, 2 * k:2 * k + 2, 8:16] = -1.0
    torch.testing.assert_close(z, ref_z.view(-1, 16), atol=0, rtol=0)
    assert torch.isnan(ybuf[programs * 128:]).all() and torch.isnan(zbuf[programs * 8:]).all()


@pytest.mark.parametrize("n", [1000, 128])
def test_grid_dependency_control(n):
    x = torch.randn(n, device="cuda")
    buf, y = _nan(n)
    _launch((math.ceil(n / 128),), grid_dependency, (x, y, 128))
    torch.testing.assert_close(y, x + 1.0, atol=0, rtol=0)
    assert torch.isnan(buf[n:]).all()
