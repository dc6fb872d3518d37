"""Issue 21 item 1 on the GPU (session 39): ``tileorch.cutile.launch`` refuses outputs that cannot be written
correctly (an output overlapping its input shifted, an ``expand``-ed output) before launching anything, and
launches what it takes (in place, at fresh addresses each call: re-pointed; column halves of one buffer;
atomics into an expanded accumulator) with results checked against torch in float64 on the same inputs,
outputs NaN-prefilled.  Skipped (tests/gpu/conftest.py) without a GPU; needs torch and cuda-tile."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")
ct = pytest.importorskip("cuda.tile")

NAN = float("nan")


@ct.kernel
def axpy(x, y, out, tile: ct.Constant[int]):
    i = ct.bid(0)
    ct.store(out, index=(i,), tile=ct.load(x, index=(i,), shape=(tile,)) * 2.0 + ct.load(y, index=(i,), shape=(tile,)))


@ct.kernel
def copy2d(x, out, tn: ct.Constant[int]):
    ct.store(out, index=(ct.bid(0), 0), tile=ct.load(x, index=(ct.bid(0), 0), shape=(1, tn)) + 1.0)


@ct.kernel
def col_sum(x, acc, tile: ct.Constant[int]):
    t = ct.load(x, index=(ct.bid(0), 0), shape=(1, tile))
    ct.atomic_add(acc, (ct.arange(tile, dtype=ct.int32),), ct.reshape(t, (tile,)))


def _launch(grid, kernel, args):
    import tileorch.cutile

    tileorch.cutile.launch(torch.cuda.current_stream(), grid, kernel, args)


def test_refused_outputs_launch_nothing():
    x = torch.randn(4096 + 256, device="cuda")
    before = x.clone()
    y = torch.randn(4096, device="cuda")
    with pytest.raises(ValueError, match=r"argument 2 \('out'\) shares memory with argument 0 \('x'\)"):
        _launch((16,), axpy, (x[:4096], y, x[256:], 256))
    with pytest.raises(ValueError, match=r"argument 2 \('out'\) has elements that share memory \(stride 0"):
        _launch((16,), axpy, (x[:4096], y, torch.zeros(1, device="cuda").expand(4096), 256))
    torch.cuda.synchronize()
    assert torch.equal(x, before)


def test_in_place_at_fresh_addresses_each_call():
    """Out is x: 300 calls, each on new tensors (the launch re-pointed onto each in-place pair), then the
    same tensor again; every result against x * 2 + y in float64."""
    y = torch.randn(4096, device="cuda")
    kept = []
    for i in range(300):
        x = torch.randn(4096, device="cuda")
        want = x.double() * 2 + y.double()
        _launch((16,), axpy, (x, y, x, 256))
        kept.append((x, want))
    torch.cuda.synchronize()
    for i, (x, want) in enumerate(kept):
        torch.testing.assert_close(x.double(), want, rtol=1e-6, atol=1e-6, msg=f"call {i}")


def test_column_halves_of_one_buffer():
    buf = torch.full((64, 256), NAN, device="cuda")
    buf[:, 128:] = torch.randn(64, 128, device="cuda")
    src = buf[:, 128:].clone()
    _launch((64,), copy2d, (buf[:, 128:], buf[:, :128], 128))
    torch.cuda.synchronize()
    torch.testing.assert_close(buf[:, :128], src + 1, rtol=0, atol=0)  # (one f32 add, as torch rounds it)
    torch.testing.assert_close(buf[:, 128:], src, rtol=0, atol=0)


def test_atomics_into_an_expanded_accumulator():
    x = torch.randn(32, 64, device="cuda")
    base = torch.zeros(1, device="cuda")
    _launch((32,), col_sum, (x, base.expand(64), 64))
    torch.cuda.synchronize()
    torch.testing.assert_close(base.double(), x.double().sum().reshape(1), rtol=1e-4, atol=1e-2)  # 2048 f32 adds
