"""Session 29's cover set on the GPU (``tileorch.testing.cover29_programs``: an MLP block written as two loops, the
second over the output's column tiles; its K loop over a scalar count of K tiles; the per-row scale after the loop):
each program timed on the tensor-core path (``tileorch``) against the same program on tileorch's SIMT path
(``schedule="simt"``: where it ran before) and the torch equivalent (cuBLAS), one timing method
(:func:`tileorch.testing.timing.bench_ms`); outputs NaN-prefilled and checked against torch fp32 first (relative
Frobenius error).

    python benchmarks/cover29.py [--programs mlp_gelu,mlp_silu_bt,mlp_scalar_k,scale_after] [--iters 10]
        [--no-simt] [--out build/cover29.json]

Sizes: the MLP blocks M = 8192 rows, K = 4096, hidden 128, N = 4096 (``mlp_scalar_k``: hidden 64, the first half of
K's tiles); ``scale_after``: M = N = K = 4096 per operand pair.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import cover26  # noqa: E402  (the runner: each variant timed and checked, one JSON row per program)

M, K, H, N = 8192, 4096, 128, 4096
PROGRAMS = "mlp_gelu,mlp_silu_bt,mlp_scalar_k,scale_after"


def _case(program: str, g):
    """(kernel, grid, args(y), y factory, fp32 reference, torch call, flops) of one program."""
    import torch
    import torch.nn.functional as F

    from tileorch.testing import cover29_programs as P

    def rnd(*shape, dtype=torch.float16, scale=1.0):
        return (torch.randn(shape, device="cuda", generator=g) * scale).to(dtype)

    def nan(*shape, dtype=torch.float16):
        return lambda: torch.full(shape, float("nan"), device="cuda", dtype=dtype)

    if program == "mlp_gelu":
        x, w1, b1 = rnd(M, K), rnd(K, H, scale=K ** -0.5), rnd(H)
        w2, b2 = rnd(H, N, scale=H ** -0.5), rnd(N)
        a = F.gelu(x.float() @ w1.float() + b1.float(), approximate="tanh").half().float()
        return (P.mlp_loops_gelu_bias, (M // 128,), lambda y: (x, w1, b1, w2, b2, y, 128, H, 64, 64), nan(M, N),
                a @ w2.float() + b2.float(), lambda: F.gelu(torch.addmm(b1, x, w1), approximate="tanh") @ w2 + b2,
                2.0 * M * H * (K + N))
    if program == "mlp_silu_bt":
        bf = torch.bfloat16
        x, w1, w2 = rnd(M, K, dtype=bf), rnd(H, K, dtype=bf, scale=K ** -0.5), rnd(N, H, dtype=bf, scale=H ** -0.5)
        a = F.silu(x.float() @ w1.float().T).to(bf).float()
        return (P.mlp_loops_silu_linear_bt, (M // 128,), lambda y: (x, w1, w2, y, 128, H, 64, 64), nan(M, N, dtype=bf),
                a @ w2.float().T, lambda: F.linear(F.silu(F.linear(x, w1)), w2), 2.0 * M * H * (K + N))
    if program == "mlp_scalar_k":
        h, nk = 64, K // 128
        x, w1, b1, w2 = rnd(M, K), rnd(K, h, scale=(nk * 64) ** -0.5), rnd(h), rnd(h, N, scale=h ** -0.5)
        xs, w1s = x[:, :nk * 64], w1[:nk * 64]
        a = torch.relu(xs.float() @ w1s.float() + b1.float()).half().float()
        return (P.mlp_loops_scalar_k, (M // 128,), lambda y: (x, w1, b1, w2, y, nk, 128, 64), nan(M, N),
                a @ w2.float(), lambda: torch.relu(torch.addmm(b1, xs, w1s)) @ w2, 2.0 * M * h * (nk * 64 + N))
    m = n = k = 4096
    x, z, s = rnd(m, k), rnd(m, k), rnd(m, dtype=torch.float32)
    w1, w2 = rnd(k, n, scale=k ** -0.5), rnd(k, n, scale=k ** -0.5)
    return (P.own_a_scale_after_the_loop, (m // 128, n // 64, 1), lambda y: (x, w1, z, s, w2, y, 128, 64, 64),
            nan(m, n), x.float() @ w1.float() + s[:, None] * (z.float() @ w2.float()),
            lambda: x @ w1 + s[:, None].half() * (z @ w2), 4.0 * m * n * k)


def run_one(program: str, iters: int, simt: bool = True) -> dict:
    import torch

    g = torch.Generator(device="cuda").manual_seed(29)
    return cover26.run_case(program, _case(program, g), iters, simt)


if __name__ == "__main__":
    raise SystemExit(cover26.main(None, __doc__, PROGRAMS, "build/cover29.json", run_one))
