"""The fifteenth user sweep on the GPU (issue 21: whole memory-bound kernels from real models as users port
them from Triton / PyTorch, programs acceptance runs that we will not see): every program of
``tileorch.testing.user_programs15`` (SIMT path) runs through ``tileorch.cutile.launch`` on its spec's
ragged shapes and grid, against the independent numpy references of
tests/unit/test_user_sweep15_interp.py: each test there runs again with its ``run`` swapped for
:func:`gpu_run` (every array inside a larger buffer of the fill: NaN / an integer sentinel / the fp8
NaN byte, whose tail must stay the fill; the outputs start as the fill; accumulators start at zero).
Then the commonest kernels against torch itself on torch tensors (NaN-prefilled outputs, larger
ragged shapes): RMSNorm forward, cross-entropy forward + backward against ``F.cross_entropy`` and
autograd, AdamW against ``torch.optim.AdamW``, the partial rotary, SwiGLU backward against autograd.
Skipped without a GPU; needs torch, cuda-tile and ml_dtypes.
Run: ``python -m pytest -q tests/gpu/test_user_sweep15_gpu.py``."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("cuda.tile")
pytest.importorskip("xdsl")
pytest.importorskip("ml_dtypes")

UNIT = str(Path(__file__).resolve().parents[1] / "unit")
if UNIT not in sys.path:  # the CPU tests' numpy references (appended: tests/gpu's modules come first)
    sys.path.append(UNIT)

import sweep_harness  # noqa: E402
import test_user_sweep15_interp as s15  # noqa: E402

import tileorch.cutile  # noqa: E402
from tileorch.testing.user_programs15 import PROGRAMS  # noqa: E402


def gpu_run(name: str, inputs: dict) -> dict:
    """tests/gpu/sweep_harness.gpu_run for this sweep's programs (all on the SIMT path)."""
    return sweep_harness.gpu_run(PROGRAMS, name, inputs)


ON_GPU = sorted(n for n in dir(s15) if n.startswith("test_"))


def test_every_program_has_a_test():
    import inspect

    source = inspect.getsource(s15)
    assert all(f'run("{name}"' in source for name in PROGRAMS), [n for n in PROGRAMS if f'run("{n}"' not in source]


@pytest.mark.parametrize("test", ON_GPU)
def test_on_the_gpu_against_numpy(test, monkeypatch):
    monkeypatch.setattr(s15, "run", gpu_run)
    fn = getattr(s15, test)
    marks = getattr(fn, "pytestmark", [])
    if marks:  # the parametrized tests: every value
        for value in marks[0].args[1]:
            fn(value)
    else:
        fn()



def _nan(*shape, dtype=torch.float32):
    return torch.full(shape, float("nan"), device="cuda", dtype=dtype)


def test_rmsnorm_forward_against_torch():
    from tileorch.testing import user_programs15 as up

    g = torch.Generator(device="cuda").manual_seed(1401)
    x = torch.randn(1000, 1531, device="cuda", generator=g).bfloat16()
    w = torch.randn(1531, device="cuda", generator=g)
    y, rstd = _nan(1000, 1531, dtype=torch.bfloat16), _nan(1000)
    tileorch.cutile.launch(torch.cuda.current_stream(), (250,), up.rmsnorm_fwd_rows_block_rstd, (x, w, y, rstd, 1e-6, 4, 2048))
    torch.cuda.synchronize()
    xf = x.float()
    want_rstd = torch.rsqrt(xf.pow(2).mean(1) + 1e-6)
    torch.testing.assert_close(rstd, want_rstd, rtol=1e-5, atol=1e-6)
    torch.testing.assert_close(y.float(), (xf * want_rstd[:, None] * w).bfloat16().float(), rtol=1.6e-2, atol=1e-2)


def test_cross_entropy_forward_backward_against_torch():
    import torch.nn.functional as F

    from tileorch.testing import user_programs15 as up

    g = torch.Generator(device="cuda").manual_seed(1402)
    rows, vocab = 37, 32003
    logits = (torch.randn(rows, vocab, device="cuda", generator=g) * 3).bfloat16()
    labels = torch.randint(0, vocab, (rows,), device="cuda", generator=g)
    labels[[3, 17]] = -100
    stream = torch.cuda.current_stream()
    lse, total = _nan(rows), torch.zeros(1, device="cuda")
    count = torch.zeros(1, device="cuda", dtype=torch.int32)
    tileorch.cutile.launch(stream, (rows,), up.cross_entropy_fwd_mean_atomic, (logits, labels, lse, total, count, -100, 1024))
    dloss = torch.full((1,), 0.5, device="cuda")
    dlogits = _nan(rows, vocab, dtype=torch.float16)
    tileorch.cutile.launch(stream, (rows, -(-vocab // 1024)), up.cross_entropy_bwd_2d_grid,
                           (logits, labels, lse, dloss, count, dlogits, -100, 1024))
    torch.cuda.synchronize()
    ref = logits.float().requires_grad_()
    loss = F.cross_entropy(ref, labels, ignore_index=-100)
    (loss * 0.5).backward()
    assert int(count.item()) == rows - 2
    torch.testing.assert_close(lse, torch.logsumexp(logits.float(), 1), rtol=1e-5, atol=1e-5)
    torch.testing.assert_close(total[0] / count[0], loss.detach(), rtol=1e-5, atol=1e-5)
    torch.testing.assert_close(dlogits.float(), ref.grad, rtol=2e-3, atol=1e-6)


def test_adamw_against_torch():
    from tileorch.testing import user_programs15 as up

    g = torch.Generator(device="cuda").manual_seed(1403)
    n = 1_000_003
    p0 = torch.randn(n, device="cuda", generator=g)
    grads = [torch.randn(n, device="cuda", generator=g).bfloat16() for _ in range(3)]
    p, m, v = p0.clone(), torch.zeros(n, device="cuda"), torch.zeros(n, device="cuda")
    ref = p0.clone().requires_grad_()
    opt = torch.optim.AdamW([ref], lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.01)
    for step, grad in enumerate(grads, 1):
        tileorch.cutile.launch(torch.cuda.current_stream(), (-(-n // 1024),), up.adamw_step_inplace,
                               (p, grad, m, v, 1e-3, 0.9, 0.999, 1e-8, 0.01, step, 1024))
        ref.grad = grad.float()
        opt.step()
    torch.cuda.synchronize()
    state = opt.state[ref]
    torch.testing.assert_close(m, state["exp_avg"], rtol=1e-5, atol=1e-7)
    torch.testing.assert_close(v, state["exp_avg_sq"], rtol=1e-4, atol=1e-9)
    torch.testing.assert_close(p, ref.detach(), rtol=1e-5, atol=1e-6)


def test_partial_rotary_against_torch():
    from tileorch.testing import user_programs15 as up

    g = torch.Generator(device="cuda").manual_seed(1404)
    T, H, D, ROT = 300, 12, 64, 32
    x = torch.randn(T, H, D, device="cuda", generator=g).bfloat16()
    pos = torch.randint(0, 2048, (T,), device="cuda", generator=g)
    inv = 1.0 / 10000 ** (torch.arange(0, ROT, 2, device="cuda").float() / ROT)
    ang = torch.arange(2048, device="cuda").float()[:, None] * inv[None, :]
    cos, sin = ang.cos().contiguous(), ang.sin().contiguous()
    y = _nan(T, H, D, dtype=torch.bfloat16)
    tileorch.cutile.launch(torch.cuda.current_stream(), (T,), up.rope_partial_rotary_positions, (x, pos, cos, sin, y, ROT, 16, D))
    torch.cuda.synchronize()
    xf = x.float()
    c, s = torch.cat([cos[pos]] * 2, -1)[:, None, :], torch.cat([sin[pos]] * 2, -1)[:, None, :]
    xr = xf[..., :ROT]
    rot = torch.cat([-xr[..., ROT // 2:], xr[..., :ROT // 2]], -1)
    want = torch.cat([xr * c + rot * s, xf[..., ROT:]], -1)
    torch.testing.assert_close(y.float(), want, rtol=1.6e-2, atol=1e-2)


def test_swiglu_backward_against_autograd():
    import torch.nn.functional as F

    from tileorch.testing import user_programs15 as up

    g = torch.Generator(device="cuda").manual_seed(1405)
    M, N = 333, 2752
    a, b, dy = (torch.randn(M, N, device="cuda", generator=g).bfloat16() for _ in range(3))
    af, bf = a.float().requires_grad_(), b.float().requires_grad_()
    (F.silu(af) * bf).backward(dy.float())
    ga, gb = a.clone(), b.clone()
    tileorch.cutile.launch(torch.cuda.current_stream(), (M,), up.swiglu_bwd_inplace, (dy, ga, gb, 4096))
    torch.cuda.synchronize()
    torch.testing.assert_close(ga.float(), af.grad, rtol=1.6e-2, atol=1e-2)
    torch.testing.assert_close(gb.float(), bf.grad, rtol=1.6e-2, atol=1e-2)
