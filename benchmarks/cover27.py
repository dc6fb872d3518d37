"""Session 27's cover set on the GPU (``tileorch.testing.cover27_programs``: dots with different A operands in one K
loop, two K loops one after the other): each program the tensor-core tier now takes, timed on that path
(``tileorch``) against the same program on tileorch's SIMT path (``schedule="simt"``: mma.sync, where it ran before)
and the torch equivalent (cuBLAS, fp16 / bf16), one timing method (:func:`tileorch.testing.timing.bench_ms`); outputs
NaN-prefilled and checked against torch fp32 first (relative Frobenius error).

    python benchmarks/cover27.py [--programs concat_k,summed,gated_batched,three_pairs,two_loops,two_loops_bt,two_k]
        [--iters 10] [--no-simt] [--tiles auto|program] [--out build/cover27.json]

Sizes: M = N = K = 4096 per operand pair (the batched gated layer: 4 batches of 2048 x 2048 x 2048; ``two_k``: the
K segments of K1 = 2048 and K2 = 4096, bf16, [N, K] weights).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import cover26  # noqa: E402  (the runner: each variant timed and checked, one JSON row per program)

M = N = K = 4096
PROGRAMS = "concat_k,summed,gated_batched,three_pairs,two_loops,two_loops_bt,two_k"


def _case(program: str, g):
    """(kernel, grid, args(y), y factory, fp32 reference, torch call, flops) of one program."""
    import torch

    from tileorch.testing import cover27_programs as P

    def rnd(*shape, dtype=torch.float16, scale=1.0):
        return (torch.randn(shape, device="cuda", generator=g) * scale).to(dtype)

    def nan(*shape, dtype=torch.float16):
        return lambda: torch.full(shape, float("nan"), device="cuda", dtype=dtype)

    s = K ** -0.5
    if program == "gated_batched":
        b, n = 4, 2048
        x, z, wg, wu = rnd(b, n, n), rnd(b, n, n), rnd(b, n, n, scale=n ** -0.5), rnd(b, n, n, scale=n ** -0.5)
        gg, uu = x.float() @ wg.float(), z.float() @ wu.float()
        return (P.dual_input_gated_batched, (n // 128, n // 64, b), lambda y: (x, wg, z, wu, y, 128, 64, 64),
                nan(b, n, n), torch.nn.functional.silu(gg) * uu,
                lambda: torch.nn.functional.silu(torch.bmm(x, wg)) * torch.bmm(z, wu), 4.0 * b * n ** 3)
    if program == "two_k":
        bf, k1 = torch.bfloat16, K // 2
        x1, w1 = rnd(M, k1, dtype=bf), rnd(N, k1, dtype=bf, scale=k1 ** -0.5)
        x2, w2 = rnd(M, K, dtype=bf), rnd(N, K, dtype=bf, scale=s)
        return (P.two_k_lengths_difference_bt, (M // 128, N // 64, 1), lambda y: (x1, w1, x2, w2, y, 128, 64, 64),
                nan(M, N, dtype=bf), x1.float() @ w1.float().T - x2.float() @ w2.float().T,
                lambda: x1 @ w1.T - x2 @ w2.T, 2.0 * M * N * (k1 + K))
    if program in ("concat_k", "two_loops_bt"):
        bf = torch.bfloat16
        x1, x2, w1, w2 = rnd(M, K, dtype=bf), rnd(M, K, dtype=bf), rnd(N, K, dtype=bf, scale=s), rnd(N, K, dtype=bf, scale=s)
        ref = x1.float() @ w1.float().T + x2.float() @ w2.float().T
        if program == "concat_k":
            bias = rnd(N, dtype=bf)
            return (P.concat_k_linear_bt, (M // 128, N // 64, 1), lambda y: (x1, w1, x2, w2, bias, y, 128, 64, 64),
                    nan(M, N, dtype=bf), ref + bias.float()[None, :],
                    lambda: torch.nn.functional.linear(x1, w1, bias) + x2 @ w2.T, 4.0 * M * N * K)
        return (P.two_k_loops_continued_bt, (M // 128, N // 64, 1), lambda y: (x1, w1, x2, w2, y, 128, 64, 64),
                nan(M, N, dtype=bf), ref, lambda: x1 @ w1.T + x2 @ w2.T, 4.0 * M * N * K)
    x, z, w1, w2 = rnd(M, K), rnd(M, K), rnd(K, N, scale=s), rnd(K, N, scale=s)
    if program == "summed":
        return (P.summed_products_relu, (M // 128, N // 64, 1), lambda y: (x, w1, z, w2, y, 128, 64, 64), nan(M, N),
                torch.relu(x.float() @ w1.float() + z.float() @ w2.float()), lambda: torch.relu(x @ w1 + z @ w2),
                4.0 * M * N * K)
    if program == "two_loops":
        return (P.two_k_loops_two_accumulators, (M // 128, N // 64, 1), lambda y: (x, w1, z, w2, y, 0.5, 128, 64, 64),
                nan(M, N), 0.5 * (x.float() @ w1.float()) + z.float() @ w2.float(), lambda: 0.5 * (x @ w1) + z @ w2,
                4.0 * M * N * K)
    x3, w3 = rnd(M, K), rnd(K, N, scale=s)
    return (P.three_operand_pairs, (M // 128, N // 64, 1), lambda y: (x, w1, z, w2, x3, w3, y, 128, 64, 64),
            nan(M, N, dtype=torch.float32), x.float() @ w1.float() + z.float() @ w2.float() + x3.float() @ w3.float(),
            lambda: torch.cat([x, z, x3], 1) @ torch.cat([w1, w2, w3], 0), 6.0 * M * N * K)


def run_one(program: str, iters: int, simt: bool = True) -> dict:
    import torch

    g = torch.Generator(device="cuda").manual_seed(27)
    return cover26.run_case(program, _case(program, g), iters, simt)


if __name__ == "__main__":
    raise SystemExit(cover26.main(None, __doc__, PROGRAMS, "build/cover27.json", run_one))
