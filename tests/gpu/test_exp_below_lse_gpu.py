"""``tileaa-exp-below-lse`` (``tileaa_to_simt/exp_below_lse.py``) on the GPU: sweep 10's cross entropy forward +
backward over 32000 f32 columns (the row kept in shared memory, its second loop writing an f32 gradient), rows
shifted by +-60 and one spread over [-120, 0], launched through ``tileorch.cutile.launch`` with the rewrite (the
default) and with ``TILEORCH_EXP_BELOW_LSE=0`` (the full-precision exp): the same loss bits (the forward loop is the
same code), gradients within the module's absolute bound ``(|lse| + 1) 2^-24 + 2^-22`` of each other (the device's
``ex2.approx``, about 2^-22 relative, doubled with the full form's own 2 ulp), both near torch's float64 softmax (within
``(|lse| + 1) 2^-22 + 2^-20`` times the scale: the kernel's f32 lse is itself rounded).  Skipped without a GPU; needs torch and cuda-tile."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("cuda.tile")
pytest.importorskip("xdsl")

import tileorch.cutile  # noqa: E402
from tileorch.testing.user_programs10 import cross_entropy_fwd_bwd_vocab  # noqa: E402

ROWS, V, BV, SCALE = 256, 32000, 1024, 0.25


def _run(monkeypatch, below):
    from tileorch.launchers.cutile import clear_caches

    if below is None:
        monkeypatch.delenv("TILEORCH_EXP_BELOW_LSE", raising=False)
    else:
        monkeypatch.setenv("TILEORCH_EXP_BELOW_LSE", below)
    clear_caches()
    g = torch.Generator(device="cuda").manual_seed(34)
    x = torch.randn(ROWS, V, device="cuda", generator=g) * 3
    x[1::4] += 60.0
    x[2::4] -= 60.0
    x[3::4] = -120.0 * torch.rand(ROWS // 4, V, device="cuda", generator=g)
    labels = torch.randint(0, V, (ROWS,), device="cuda", generator=g)
    labels[::8] = -100
    loss = torch.full((ROWS,), float("nan"), device="cuda")
    grad = torch.full((ROWS, V), float("nan"), device="cuda")
    tileorch.cutile.launch(torch.cuda.current_stream(), (ROWS,), cross_entropy_fwd_bwd_vocab,
                           (x, labels, loss, grad, -100, SCALE, BV))
    torch.cuda.synchronize()
    return x, labels, loss, grad


def test_gradient_within_the_bound_of_the_full_form_and_torch(monkeypatch):
    x, labels, loss1, new = _run(monkeypatch, None)
    _, _, loss0, full = _run(monkeypatch, "0")
    assert not torch.isnan(new).any() and not torch.isnan(full).any()
    assert torch.equal(loss0, loss1)
    xd = x.double()
    lse = torch.logsumexp(xd, 1)
    keep = labels != -100
    scale = torch.where(keep, SCALE, 0.0).double()[:, None]
    bound = ((lse.abs() + 1.0) * 2.0 ** -24 + 2.0 ** -21)[:, None] * scale
    diff = (new.double() - full.double()).abs()
    assert (diff <= bound).all(), (diff / bound).max().item()
    onehot = torch.zeros_like(xd)
    onehot[torch.arange(ROWS, device="cuda")[keep], labels[keep]] = 1.0
    want = (torch.exp(xd - lse[:, None]) - onehot) * scale
    near = ((lse.abs() + 1.0) * 2.0 ** -22 + 2.0 ** -20)[:, None] * scale  # (lse itself: f32, half an ulp of ~70)
    assert ((new.double() - want).abs() <= near).all()
    assert ((full.double() - want).abs() <= near).all()
