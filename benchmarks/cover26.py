"""Session 26's cover set on the GPU (``tileorch.testing.cover26_programs``: dot programs session 25 left on the
SIMT path): each program that now takes a tensor-core tier, timed on that path (``tileorch``) against the same
program on tileorch's SIMT path (``schedule="simt"``: mma.sync, where it ran before) and the torch call (cuBLAS /
SDPA, fp16), one timing method (:func:`tileorch.testing.timing.bench_ms`); outputs NaN-prefilled (int8: a
sentinel) and checked against torch fp32 first (relative Frobenius error).

    python benchmarks/cover26.py [--programs int8_out,fp8_out,lora_tn256,shared_computed_a,gqa_heads_loop,one_key_tile]
        [--iters 10] [--no-simt] [--tiles auto|program] [--out build/cover26.json]

``--tiles program``: the tensor-core path runs the program's own tiles (``tileorch.cutile.launch(...,
tiles="program")``) instead of the launcher's choice for the shape (the tier's own stage count: a switch of the
tier's ring, A/B'd).

Sizes: the GEMMs 4096 x 4096 x 4096 (LoRA rank 64), GQA batch 4, 8 KV heads of 4 query heads, 2048 tokens,
head dim 64; one key tile: 64 (batch x head) of 4096 queries over 128 keys.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from tileorch.testing.timing import bench_ms, rates, time_variant

M = N = K = 4096
LAUNCH: dict = {}
"""Launch options of the ``tileorch`` variant (``--tiles program``: ``{"tiles": "program"}``)."""
PROGRAMS = "int8_out,fp8_out,lora_tn256,shared_computed_a,gqa_heads_loop,one_key_tile"


def _gemm_case(program: str, g):
    """(kernel, grid, args(y), y factory, fp32 reference, torch call, flops) of a GEMM-shaped program."""
    import torch

    from tileorch.testing import cover26_programs as P

    x = torch.randn((M, K), device="cuda", generator=g).half()
    w = (torch.randn((K, N), device="cuda", generator=g) / K ** 0.5).half()
    xw = x.float() @ w.float()
    if program == "int8_out":
        ref = torch.clamp(torch.trunc(xw * 32.0), -128, 127)
        return (P.gemm_f16_quantised_int8_out, (M // 128, N // 128, 1), lambda y: (x, w, y, 32.0, 128, 128, 64),
                lambda: torch.full((M, N), 99, device="cuda", dtype=torch.int8), ref,
                lambda: torch.clamp(torch.trunc((x @ w).float() * 32.0), -128, 127).to(torch.int8), 2.0 * M * N * K)
    if program == "fp8_out":
        ref = (xw * 4.0).to(torch.float8_e4m3fn).float()
        return (P.gemm_f16_fp8_e4m3_out, (M // 128, N // 128, 1), lambda y: (x, w, y, 4.0, 128, 128, 64),
                lambda: torch.full((M, N), float("nan"), device="cuda").to(torch.float8_e4m3fn), ref,
                lambda: ((x @ w) * 4.0).to(torch.float8_e4m3fn), 2.0 * M * N * K)
    if program == "lora_tn256":
        la = (torch.randn((K, 64), device="cuda", generator=g) / K ** 0.5).half()
        lb = (torch.randn((64, N), device="cuda", generator=g) / 8.0).half()
        ref = xw + (0.5 * (x.float() @ la.float())).half().float() @ lb.float()
        return (P.PROGRAMS["lora_tn256"].kernel, (M // 128, N // 256, 1), lambda y: (x, w, la, lb, y, 0.5, 128, 256, 64, 64),
                lambda: torch.full((M, N), float("nan"), device="cuda", dtype=torch.float16), ref,
                lambda: x @ w + ((x @ la) * 0.5) @ lb, 2.0 * M * N * K + 2.0 * M * 64 * (K + N))
    wu = (torch.randn((K, N), device="cuda", generator=g) / K ** 0.5).half()
    a = (x.float() * 0.5).half()
    ref = (a.float() @ w.float()) * (a.float() @ wu.float())
    return (P.two_dots_share_computed_a, (M // 128, N // 128, 1), lambda y: (x, w, wu, y, 0.5, 128, 128, 64),
            lambda: torch.full((M, N), float("nan"), device="cuda", dtype=torch.float16), ref,
            lambda: ((x * 0.5) @ w) * ((x * 0.5) @ wu), 4.0 * M * N * K)


def _gqa_case(g):
    """The GQA program: batch 4, 8 KV heads of 4 query heads, 2048 tokens, head dim 64 (64 x 64 tiles)."""
    import math

    import torch
    import torch.nn.functional as F

    from tileorch.testing import cover26_programs as P

    b, kvh, grp, s, d = 4, 8, 4, 2048, 64
    q = torch.randn((b, kvh * grp, s, d), device="cuda", generator=g).half()
    k = torch.randn((b, kvh, s, d), device="cuda", generator=g).half()
    v = torch.randn((b, kvh, s, d), device="cuda", generator=g).half()
    kr, vr = k.repeat_interleave(grp, dim=1), v.repeat_interleave(grp, dim=1)
    ref = F.scaled_dot_product_attention(q.float(), kr.float(), vr.float())
    scale = 1.0 / math.sqrt(d) * 1.4426950408889634
    return (P.attn_gqa_heads_loop, (s // 64, b * kvh, 1), lambda y: (q, k, v, y, scale, grp, 64, 64, 64),
            lambda: torch.full(q.shape, float("nan"), device="cuda", dtype=torch.float16), ref,
            lambda: F.scaled_dot_product_attention(q, kr, vr), 4.0 * b * kvh * grp * s * s * d)


def _one_key_tile_case(g):
    """Attention over one 128-key tile without a loop: batch x heads 64, 4096 queries, 128 keys, head dim 64."""
    import math

    import torch
    import torch.nn.functional as F

    from tileorch.testing import cover26_programs as P

    bh, sq, sk, d = 64, 4096, 128, 64
    q = torch.randn((bh, sq, d), device="cuda", generator=g).half()
    k = torch.randn((bh, sk, d), device="cuda", generator=g).half()
    v = torch.randn((bh, sk, d), device="cuda", generator=g).half()
    ref = F.scaled_dot_product_attention(q.float(), k.float(), v.float())
    scale = 1.0 / math.sqrt(d) * 1.4426950408889634
    return (P.attn_one_key_tile_no_loop, (sq // 64, bh, 1), lambda y: (q, k, v, y, scale, 64, 128, 64),
            lambda: torch.full(q.shape, float("nan"), device="cuda", dtype=torch.float16), ref,
            lambda: F.scaled_dot_product_attention(q, k, v), 4.0 * bh * sq * sk * d)


def run_one(program: str, iters: int, simt: bool = True) -> dict:
    import torch

    g = torch.Generator(device="cuda").manual_seed(26)
    case = {"gqa_heads_loop": _gqa_case, "one_key_tile": _one_key_tile_case}.get(program)
    return run_case(program, case(g) if case else _gemm_case(program, g), iters, simt)


def run_case(program: str, case: tuple, iters: int, simt: bool = True) -> dict:
    """The row of one program's ``case`` ``(kernel, grid, args(y), y factory, fp32 reference, torch call, flops)``:
    tileorch's path, its SIMT path (``simt``) and torch, each timed, the first two checked against the reference."""
    import tileorch.cutile

    kernel, grid, args, fresh, ref, torch_fn, flops = case
    row: dict = {"program": program}

    def variant(name, **kw):
        y = fresh()
        time_variant(row, name, tileorch.cutile.launch, kernel, grid, args(y), y, ref, iters, **kw)

    variant("tileorch", **LAUNCH)
    if LAUNCH:
        row["tileorch_launch"] = dict(LAUNCH)
    if simt:
        variant("tileorch_simt", schedule="simt")
    row["torch_ms"] = bench_ms(torch_fn, iters)
    rates(row, flops, ("tileorch", "tileorch_simt", "torch"))
    return row


SUMMARY = ("tileorch_kind", "tileorch_ms", "tileorch_simt_kind", "tileorch_simt_ms", "torch_ms", "vs_tileorch_simt",
           "vs_torch", "tileorch_tflops", "tileorch_rel_err", "tileorch_simt_rel_err")


def main(argv=None, doc: str = __doc__, programs: str = PROGRAMS, out: str = "build/cover26.json",
         run=None) -> int:
    """The command line (``doc``'s first line, the ``programs`` list, the ``out`` file); ``run(program, iters, simt)``
    times one program (:func:`run_one` by default: another cover set's benchmark passes its own)."""
    ap = argparse.ArgumentParser(description=doc.splitlines()[0])
    ap.add_argument("--programs", default=programs)
    ap.add_argument("--iters", type=int, default=10)
    ap.add_argument("--no-simt", action="store_true", help="leave out the SIMT-path variant")
    ap.add_argument("--tiles", default="auto", choices=("auto", "program"),
                    help="program: the tensor-core variant keeps the program's own tiles")
    ap.add_argument("--out", default=out)
    opts = ap.parse_args(argv)
    LAUNCH.clear()
    if opts.tiles == "program":
        LAUNCH["tiles"] = "program"
    rows = []
    for program in opts.programs.split(","):
        row = (run or run_one)(program, opts.iters, not opts.no_simt)
        rows.append(row)
        print(" ".join([program, *[f"{k}={row.get(k)}" for k in SUMMARY],
                        *[f"{k}={row[k]}" for k in row if k.endswith(("_error", "_spills"))]]), flush=True)
    Path(opts.out).parent.mkdir(parents=True, exist_ok=True)
    Path(opts.out).write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
