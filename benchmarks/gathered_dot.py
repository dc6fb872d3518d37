"""Gathered-A MoE GEMM on the GPU (session 25, s25-moe): ``tileorch.testing.gathered_dot_programs``'s
``moe_gathered_rows_expert_table`` (vLLM's fused-MoE layout: sorted token ids, the expert of each 64-row tile
from a table, A's rows gathered in the K loop) through ``tileorch.cutile.launch``, against torch doing the
same work as users do without a fused kernel: ``torch.index_select`` of the routed rows, then one
``matmul`` per expert over its contiguous run of rows.  Two tileorch variants in one process: ``tier`` (the
GEMM tier's gathered A, the default) and ``simt`` (``TILEORCH_GATHERED_A=simt``: the SIMT path, mma.sync).
Prints one JSON line per shape: per variant the path the compiler took (``*_kind``), milliseconds (median of
event-timed launches, :func:`tileorch.testing.timing.bench_ms`), TFLOP/s, ``*_vs_torch`` (torch ms / its ms),
the max relative error against torch's fp32 product and the outputs left NaN.

Run: ``python benchmarks/gathered_dot.py --shapes 4096x2048x2048x8 --tiles 64x64x64,128x128x64`` (tokens x K x
N x experts, each token routed to 2 experts: about ``2 * tokens`` rows; the program's tiles).  Needs torch, cuda-tile and a GPU."""

from __future__ import annotations

import argparse
import json
import os


def _case(tokens: int, k: int, n: int, experts: int, iters: int, tiles: tuple[int, int, int]) -> dict:
    import torch

    import tileorch.cutile
    from tileorch.launchers import cutile as rc
    from tileorch.testing.gathered_dot_programs import moe_gathered_rows_expert_table as kernel
    from tileorch.testing.gathered_dot_programs import moe_routing
    from tileorch.testing.timing import bench_ms
    from tileorch.transforms.tileas.gathered_operand import GATHERED_A_ENV

    tm, tn, tk = tiles
    g = torch.Generator(device="cuda").manual_seed(25)
    x = torch.randn(tokens, k, device="cuda", generator=g).half()
    w = (torch.randn(experts, k, n, device="cuda", generator=g) / k ** 0.5).half()
    # top-2 routing; rows sorted by expert, each expert's run padded to the row tile with token 0 (vLLM pads)
    route = torch.randint(0, experts, (tokens, 2), device="cuda", generator=g)
    tok, te, bounds = moe_routing(route, experts, tm)
    rows = tok.numel()
    y = torch.full((rows, n), float("nan"), device="cuda", dtype=torch.float16)
    grid = (rows // tm, -(-n // tn), 1)
    stream = torch.cuda.current_stream()

    def ours():
        tileorch.cutile.launch(stream, grid, kernel, (x, tok, te, w, y, tm, tn, tk))

    yt, tok64 = torch.empty_like(y), tok.long()

    def theirs():
        xg = torch.index_select(x, 0, tok64)
        for e in range(experts):
            torch.matmul(xg[bounds[e]:bounds[e + 1]], w[e], out=yt[bounds[e]:bounds[e + 1]])

    ref = torch.cat([x[tok[bounds[e]:bounds[e + 1]].long()].float() @ w[e].float() for e in range(experts)])
    args = (x, tok, te, w, y, tm, tn, tk)
    row = {"program": "moe_gathered_rows_expert_table", "tokens": tokens, "rows": rows, "k": k, "n": n,
           "experts": experts, "tiles": "x".join(map(str, tiles)), "torch_ms": round(bench_ms(theirs, iters), 4)}
    flops = 2.0 * rows * k * n
    for label, value in (("tier", None), ("simt", "simt")):  # the tier's gathered A, then the SIMT path
        if value is None:
            os.environ.pop(GATHERED_A_ENV, None)
        else:
            os.environ[GATHERED_A_ENV] = value
        rc.clear_caches()  # (the in-process caches do not key on the switch; the disk cache does)
        try:
            y.fill_(float("nan"))
            ours()
            torch.cuda.synchronize()
            row[f"{label}_kind"] = rc.compiled(kernel, rc.describe_arguments(kernel, args), "sm_90a",
                                               "persistent").program.kind
            row[f"{label}_rel_err"] = ((y.float() - ref).abs().max() / ref.abs().max()).item()
            row[f"{label}_nan_outputs"] = int(torch.isnan(y).sum().item())
            ms = bench_ms(ours, iters)
            row[f"{label}_ms"] = round(ms, 4)
            row[f"{label}_tflops"] = round(flops / ms / 1e9, 1)
            row[f"{label}_vs_torch"] = round(row["torch_ms"] / ms, 3)
        except Exception as exc:  # noqa: BLE001 - a variant that cannot run is a row entry
            row[f"{label}_error"] = f"{type(exc).__name__}: {exc}"[:300]
    os.environ.pop(GATHERED_A_ENV, None)
    return row


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--shapes", default="4096x2048x2048x8", help="comma-separated TOKENSxKxNxEXPERTS")
    ap.add_argument("--iters", type=int, default=20)
    ap.add_argument("--tiles", default="64x64x64,128x128x64", help="comma-separated TMxTNxTK of the program")
    args = ap.parse_args()
    for shape in args.shapes.split(","):
        t, k, n, e = (int(v) for v in shape.split("x"))
        for tiles in args.tiles.split(","):
            try:
                print(json.dumps(_case(t, k, n, e, args.iters, tuple(int(v) for v in tiles.split("x")))), flush=True)
            except Exception as exc:  # one case's failure is reported, the others still run
                print(json.dumps({"shape": shape, "tiles": tiles, "error": f"{type(exc).__name__}: {exc}"[:400]}),
                      flush=True)


if __name__ == "__main__":
    main()
