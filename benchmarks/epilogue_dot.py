"""GEMM then GEMM from one cuTile program (``tileorch.testing.epilogue_dot_programs``: a low-rank chain
``alpha ((x A) rounded to f16) B + bias``, a fused MLP ``silu(x W1) W2`` whose hidden width is one tile,
``mlp_nn_linear``: the MLP with nn.Linear's weights ``W1 [H, K]``, ``W2 [N, H]`` and a bias (both dots' B
K-major, session 25), ``lora``: ``x W^T + bias + ((0.5 x A^T) rounded) B^T`` in PEFT's layouts, three dots):
tileorch's GEMM kernel with the second dot on the accumulator (``GemmConfig.epi_n``) against the same
program on tileorch's SIMT path (``schedule="simt"``: mma.sync, where these programs ran before session 24),
tileiras (``cuda.tile.launch``) and torch (two cuBLAS GEMMs, fp16), one timing method
(:func:`tileorch.testing.timing.bench_ms`).

    python benchmarks/epilogue_dot.py [--shapes 8192x4096x64x4096,...] [--iters 30] [--tn 128] [--no-simt]
        [--no-tileiras] [--out build/epilogue_dot.json]

A shape is ``M x K x R x N`` (R the rank / hidden width: one tile, 64 or 128).  Outputs are NaN-prefilled
and checked against fp32 torch first (relative Frobenius error); TFLOP/s = ``2 M R (K + N)`` (LoRA: ``+ 2 M N K``,
the main dot's).  ``tileorch_epi_c``: the N tiles per work tile tileorch's launch took (session 26: the second dot
over several N tiles, ``TILEORCH_EPILOGUE_DOT_COARSEN``; 1 without the loop).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from tileorch.testing.timing import bench_ms, rates, time_variant

SHAPES = "8192x4096x64x4096,16384x2048x128x2048,4096x8192x64x1024"
TM, TN, TK = 128, 128, 64


def run_one(program: str, m: int, k: int, r: int, n: int, iters: int, tn: int = TN, simt: bool = True,
            tileiras: bool = True) -> dict:
    """One row: ``program`` at ``M x K x R x N`` with the program's tiles ``TM x tn x TK`` (the launcher keeps an
    epilogue-dot program's tiles); ``simt=False`` leaves out the SIMT-path variant, ``tileiras=False`` tileiras'."""
    import torch
    import torch.nn.functional as F

    import tileorch.cutile
    from tileorch.testing import epilogue_dot_programs as P

    g = torch.Generator(device="cuda").manual_seed(7)
    x = torch.randn((m, k), device="cuda", generator=g).half()
    w1 = (torch.randn((k, r), device="cuda", generator=g) / k ** 0.5).half()
    w2 = (torch.randn((r, n), device="cuda", generator=g) / r ** 0.5).half()
    bias = torch.randn((n,), device="cuda", generator=g)
    b1 = torch.randn((r,), device="cuda", generator=g)
    b1_16, bias16 = b1.half(), bias.half()  # (torch's biases in the operands' type, made once)
    if program == "mlp_nn_linear":  # W1 [H, K] and W2 [N, H] (nn.Linear's weights): w1.T, w2.T stored
        kernel = P.mlp_nn_linear_weights
        w1t, w2t = w1.t().contiguous(), w2.t().contiguous()
        ref = F.silu(x.float() @ w1t.float().T + b1).half().float() @ w2t.float().T

        def args(y):
            return (x, w1t, b1, w2t, y, r, TM, tn, TK)

        def torch_fn():
            return F.linear(F.silu(F.linear(x, w1t, b1_16)), w2t)
    elif program == "lora":  # PEFT: W [N, K], lora_A [R, K], lora_B [N, R]
        kernel = P.lora_nn_linear
        w = (torch.randn((n, k), device="cuda", generator=g) / k ** 0.5).half()
        at, bt = w1.t().contiguous(), w2.t().contiguous()
        ref = x.float() @ w.float().T + bias + (0.5 * (x.float() @ at.float().T)).half().float() @ bt.float().T

        def args(y):
            return (x, w, at, bt, bias, y, 0.5, r, TM, tn, TK)

        def torch_fn():
            return F.linear(x, w, bias16) + F.linear(F.linear(x, at) * 0.5, bt)
    elif program == "lowrank":
        kernel = P.lowrank_scaled_bias
        ref = 0.5 * ((x.float() @ w1.float()).half().float() @ w2.float()) + bias

        def args(y):
            return (x, w1, w2, bias, y, 0.5, r, TM, tn, TK)

        def torch_fn():
            return 0.5 * ((x @ w1) @ w2) + bias
    else:
        kernel = P.mlp_silu_one_hidden_tile
        ref = F.silu(x.float() @ w1.float()).half().float() @ w2.float()

        def args(y):
            return (x, w1, w2, y, r, TM, tn, TK)

        def torch_fn():
            return F.silu(x @ w1) @ w2
    grid = ((m + TM - 1) // TM, (n + tn - 1) // tn, 1)
    row: dict = {"program": program, "m": m, "k": k, "r": r, "n": n, "tiles": f"{TM}x{tn}x{TK}"}

    def variant(name, launch, **kw):
        y = torch.full((m, n), float("nan"), device="cuda", dtype=torch.float16)
        time_variant(row, name, launch, kernel, grid, args(y), y, ref, iters, **kw)

    from tileorch.launchers import cutile as rc

    before = {id(p) for p in rc._prepared.values()}
    variant("tileorch", tileorch.cutile.launch)
    row["tileorch_epi_c"] = sorted({getattr(p, "epi_c", 1) for p in rc._prepared.values() if id(p) not in before})
    if simt:
        variant("tileorch_simt", tileorch.cutile.launch, schedule="simt")
    try:
        import cuda.tile as ct

        if tileiras:
            variant("tileiras", ct.launch)
    except ImportError as exc:
        row["tileiras_error"] = f"cuda.tile not importable: {exc}"
    row["torch_ms"] = bench_ms(torch_fn, iters)
    flops = 2.0 * m * r * (k + n) + (2.0 * m * n * k if program == "lora" else 0.0)
    rates(row, flops, ("tileorch", "tileorch_simt", "tileiras", "torch"))
    return row


SUMMARY = ("tileorch_kind", "tileorch_epi_c", "tileorch_ms", "tileorch_simt_ms", "tileiras_ms", "torch_ms",
           "vs_tileorch_simt", "vs_torch", "tileorch_rel_err")


def summary(row: dict) -> str:
    """One line of a row: program, shape, :data:`SUMMARY`'s fields, any variant's ptxas spills (named by variant:
    the GEMM kernel's and the SIMT comparison's are told apart) and any variant's error."""
    return " ".join([row["program"], "%dx%dx%dx%d" % (row["m"], row["k"], row["r"], row["n"]),
                     *[f"{k}={row.get(k)}" for k in SUMMARY],
                     *[f"{k}={'; '.join(row[k])}" for k in row if k.endswith("_spills")],
                     *[row[k] for k in row if k.endswith("_error")]])


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--shapes", default=SHAPES)
    ap.add_argument("--programs", default="lowrank,mlp")
    ap.add_argument("--iters", type=int, default=30)
    ap.add_argument("--out", default="build/epilogue_dot.json")
    ap.add_argument("--tn", type=int, default=TN, help="the programs' tn (the second dot's N tile): 128 or 256")
    ap.add_argument("--no-simt", action="store_true", help="leave out the SIMT-path variant")
    ap.add_argument("--no-tileiras", action="store_true", help="leave out the tileiras variant")
    ap.add_argument("--summary", action="store_true", help="print one line per row (summary()) instead of its JSON")
    opts = ap.parse_args(argv)
    rows = []
    for program in opts.programs.split(","):
        for shape in opts.shapes.split(","):
            m, k, r, n = (int(v) for v in shape.split("x"))
            row = run_one(program, m, k, r, n, opts.iters, opts.tn, not opts.no_simt, not opts.no_tileiras)
            rows.append(row)
            print(summary(row) if opts.summary else json.dumps(row), flush=True)
    Path(opts.out).parent.mkdir(parents=True, exist_ok=True)
    Path(opts.out).write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
