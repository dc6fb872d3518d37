"""The chained MLP with GELU's tanh (``user_programs11.mlp_bias_gelu_bias_bf16``: ``y = gelu_tanh(x @ W1 + b1) @ W2 +
b2``) timed in this process, for session 31's ``TILEORCH_ATTN_TANH_BRANCH`` (the loop's full tanh computed as its
polynomial alone under a warp vote when every |x| < 0.9; in a GELU most warps fail the vote and pay the vote): run
once per value of the switch (it is read at compile).  Prints ms, TFLOP/s of the two dots and the max error against
torch fp32 (NaN-prefilled output).  M=65536, D=64, H=4096, tiles 128 x 64.

    TILEORCH_ATTN_TANH_BRANCH=1 python3 benchmarks/session31_mlp_tanh.py
"""

from __future__ import annotations

import os

import torch

import tileorch.cutile as tc
from tileorch.testing.user_programs11 import mlp_bias_gelu_bias_bf16 as kernel


def main(m: int = 65536, d: int = 64, h: int = 4096, tm: int = 128, th: int = 64, iters: int = 20) -> None:
    g = torch.Generator(device="cuda").manual_seed(31)
    bf = torch.bfloat16
    x = (torch.randn(m, d, device="cuda", generator=g) * 0.5).to(bf)
    w1 = (torch.randn(d, h, device="cuda", generator=g) * 0.1).to(bf)
    b1 = (torch.randn(h, device="cuda", generator=g) * 0.1).to(bf)
    w2 = (torch.randn(h, d, device="cuda", generator=g) * 0.02).to(bf)
    b2 = (torch.randn(d, device="cuda", generator=g) * 0.1).to(bf)
    y = torch.full((m, d), float("nan"), device="cuda", dtype=bf)
    args = (x, w1, b1, w2, b2, y, tm, th, d)
    grid = (m // tm,)
    tc.launch(torch.cuda.current_stream(), grid, kernel, args)
    torch.cuda.synchronize()
    z = x.float() @ w1.float() + b1.float()
    act = (0.5 * z * (1 + torch.tanh(0.7978845608028654 * (z + 0.044715 * z ** 3)))).to(bf).float()
    ref = act @ w2.float() + b2.float()
    err = float((y.float() - ref).abs().max())
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    for _ in range(3):
        tc.launch(torch.cuda.current_stream(), grid, kernel, args)
    start.record()
    for _ in range(iters):
        tc.launch(torch.cuda.current_stream(), grid, kernel, args)
    end.record()
    torch.cuda.synchronize()
    ms = start.elapsed_time(end) / iters
    flops = 4.0 * m * d * h
    print(f"TILEORCH_ATTN_TANH_BRANCH={os.environ.get('TILEORCH_ATTN_TANH_BRANCH', '(default)')}: {ms:.4f} ms, "
          f"{flops / ms / 1e9:.1f} TFLOP/s, max err {err:.3g} (nan: {bool(torch.isnan(y).any())})")


if __name__ == "__main__":
    main()
