"""FlashAttention backward kernels of ``tileorch.testing.attention_programs4`` (Triton's tutorial ported
to cuTile: ``bwd_dq``, ``bwd_dkdv``) through ``tileorch.cutile.launch`` on the path the compiler
chooses (``auto``) and forced onto the SIMT path (``schedule="simt"``: the path they took before
session 23), beside torch's SDPA backward (flash backend: its dQ, dK, dV and preprocess together).

FLOPs: dQ 6 * BH * S^2 * D (S = Q K^T, dP = dO V^T, dQ = dS K), dK/dV 8 * BH * S^2 * D (+ dV = P^T dO,
dK = dS^T Q), the whole backward 10 * BH * S^2 * D (FlashAttention's 2.5x the forward's); halved
when causal.  Each kernel's output is checked against torch autograd in fp32 (max abs error in the
row).  Prints one JSON row per (shape, causal) and writes them to ``--out``.json.

Run (GPU): ``python benchmarks/attention_backward.py --out results/attn_bwd``."""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path

from tileorch.testing.timing import bench_ms

LOG2E = 1.4426950408889634


def _path(kernel, args) -> str:
    """The path ``tileorch.cutile.launch`` compiles ``kernel`` on for ``args`` (``chained``, ``simt``)."""
    from tileorch.launchers import cutile as rc

    return rc.compiled(kernel, rc.describe_arguments(kernel, tuple(args)), "sm_90a", "persistent").program.kind


def run_one(bh: int, seq: int, d: int, causal: bool, iters: int, bm: int = 64, bn: int = 64) -> dict:
    import torch
    import torch.nn.functional as F
    from torch.nn.attention import SDPBackend, sdpa_kernel

    import tileorch.cutile
    from tileorch.testing.attention_programs4 import bwd_dkdv, bwd_dq

    g = torch.Generator(device="cuda").manual_seed(0)
    q, k, v, do = (torch.randn(bh, seq, d, device="cuda", generator=g, dtype=torch.float16) for _ in range(4))
    scale = 1.0 / math.sqrt(d)
    qf, kf, vf = (x.float().requires_grad_() for x in (q, k, v))
    s = (qf @ kf.transpose(-1, -2)) * scale
    if causal:
        s = s.masked_fill(torch.ones(seq, seq, device="cuda", dtype=torch.bool).triu(1), float("-inf"))
    o = torch.softmax(s, -1) @ vf
    o.backward(do.float())
    lse2 = (torch.logsumexp(s, -1).detach() * LOG2E).contiguous()
    delta = (o.detach() * do.float()).sum(-1).contiguous()
    ref = {"dq": qf.grad, "dk": kf.grad, "dv": vf.grad}
    del s, o
    half = 2 if causal else 1
    row: dict = {"bh": bh, "seq": seq, "d": d, "causal": causal, "tiles": f"{bm}x{bn}"}
    stream = torch.cuda.current_stream()
    dq = torch.full((bh, seq, d), float("nan"), device="cuda")
    dk, dv = (torch.full_like(q, float("nan")) for _ in range(2))
    kernels = {
        "dq": (bwd_dq, ((seq + bm - 1) // bm, bh, 1), (q, k, v, do, lse2, delta, dq, scale, causal, bm, bn, d),
               6.0, {"dq": dq}),
        "dkdv": (bwd_dkdv, ((seq + bn - 1) // bn, bh, 1), (q, k, v, do, lse2, delta, dk, dv, scale, causal, bm, bn, d),
                 8.0, {"dk": dk, "dv": dv}),
    }
    for name, (kernel, grid, args, per, outs) in kernels.items():
        flops = per * bh * seq * seq * d / half
        row[f"{name}_path"] = _path(kernel, args)
        for path in ("auto", "simt") if row[f"{name}_path"] != "simt" else ("auto",):  # simt: the same path twice
            key = f"{name}_{path}"
            try:
                for t in outs.values():
                    t.fill_(float("nan"))
                tileorch.cutile.launch(stream, grid, kernel, args, schedule=path)
                torch.cuda.synchronize()
                row[f"{key}_err"] = max(float((t.float() - ref[o_name]).abs().max().item()) for o_name, t in outs.items())
                ms = bench_ms(lambda: tileorch.cutile.launch(stream, grid, kernel, args, schedule=path), iters)
                row[f"{key}_ms"], row[f"{key}_tflops"] = round(ms, 4), round(flops / ms / 1e9, 1)
            except Exception as exc:  # noqa: BLE001 - a path that cannot run this case is a row entry
                row[f"{key}_error"] = f"{type(exc).__name__}: {exc}"[:300]
        if f"{name}_auto_ms" in row and f"{name}_simt_ms" in row:
            row[f"{name}_vs_simt"] = round(row[f"{name}_simt_ms"] / row[f"{name}_auto_ms"], 2)
    q4, k4, v4 = (x.detach().unsqueeze(0).requires_grad_() for x in (q, k, v))
    try:
        with sdpa_kernel(SDPBackend.FLASH_ATTENTION):
            out = F.scaled_dot_product_attention(q4, k4, v4, is_causal=causal)
            grad = do.unsqueeze(0)
            ms = bench_ms(lambda: torch.autograd.grad(out, (q4, k4, v4), grad, retain_graph=True), iters)
        row["sdpa_flash_bwd_ms"] = round(ms, 4)
        row["sdpa_flash_bwd_tflops"] = round(10.0 * bh * seq * seq * d / half / ms / 1e9, 1)
    except Exception as exc:  # noqa: BLE001
        row["sdpa_flash_bwd_error"] = f"{type(exc).__name__}: {exc}"[:300]
    if all(f"{n}_auto_ms" in row for n in ("dq", "dkdv")):  # the two kernels (no preprocess) as one backward
        ms = row["dq_auto_ms"] + row["dkdv_auto_ms"]
        row["tileorch_bwd_tflops"] = round(10.0 * bh * seq * seq * d / half / ms / 1e9, 1)
    return row


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--shapes", default="16x4096x64,16x4096x128", help="BHxSEQxD,...")
    ap.add_argument("--causal", default="0,1")
    ap.add_argument("--tiles", default="64x64", help="BMxBN,... (query rows x key rows of the programs' tiles)")
    ap.add_argument("--iters", type=int, default=20)
    ap.add_argument("--out", default="attention_backward")
    a = ap.parse_args()
    rows = []
    for shape in a.shapes.split(","):
        bh, seq, d = (int(x) for x in shape.split("x"))
        for causal in (c == "1" for c in a.causal.split(",")):
            for tiles in a.tiles.split(","):
                bm, bn = (int(x) for x in tiles.split("x"))
                row = run_one(bh, seq, d, causal, a.iters, bm, bn)
                print(json.dumps(row), flush=True)
                rows.append(row)
    Path(a.out).parent.mkdir(parents=True, exist_ok=True)
    Path(a.out + ".json").write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
