"""Session 34's GQA head stacking (``tileas-stack-query-heads``) on the GPU, one process: each GQA program written
as a loop over the query heads sharing a K / V head, timed stacked (the default: two heads a chain of 128 rows) and
unstacked (``TILEORCH_ATTN_STACK_HEADS=1`` / ``=0``: each head its own 64-row chain instance, the kernel before session 34)
beside torch SDPA (fp16, K / V expanded to the query heads) with one timing method
(:func:`tileorch.testing.timing.bench_ms`); outputs NaN-prefilled and checked against torch fp32 first.

    python benchmarks/session34_zoo.py [--programs gqa_heads_loop,gqa_g4_causal,mqa_loop,gqa_heads_loop_bm32]
        [--iters 20]
        [--out build/session34_zoo.json]

Sizes: batch 4, 8 KV heads of 4 query heads, 2048 tokens, head dim 64, 64 x 64 tiles (cover26's GQA case; the
causal one the same with a causal mask; ``gqa_heads_loop_bm32``: the same program with 32-row query tiles, four
heads a chain); MQA: batch 4, 16 query heads over one K / V, 2048 tokens.  One JSON row
per program on stdout.
"""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path

from tileorch.testing.timing import bench_ms, rates, time_variant

LOG2E = 1.4426950408889634


def _case(program: str, g):
    """(kernel, grid, args(y), y factory, fp32 reference, torch call, flops)."""
    import torch
    import torch.nn.functional as F

    from tileorch.testing import attnzoo30_programs as Z30
    from tileorch.testing import attnzoo34_programs as Z34
    from tileorch.testing import cover26_programs as C26

    b, s, d = 4, 2048, 64
    kvh, grp = (1, 16) if program == "mqa_loop" else (8, 4)
    q = torch.randn((b, kvh * grp, s, d), device="cuda", generator=g).half()
    k = torch.randn((b, kvh, s, d), device="cuda", generator=g).half()
    v = torch.randn((b, kvh, s, d), device="cuda", generator=g).half()
    kr, vr = k.repeat_interleave(grp, dim=1), v.repeat_interleave(grp, dim=1)
    causal = program == "gqa_g4_causal"
    ref = F.scaled_dot_product_attention(q.float(), kr.float(), vr.float(), is_causal=causal)
    scale = 1.0 / math.sqrt(d) * LOG2E
    fresh = lambda: torch.full(q.shape, float("nan"), device="cuda", dtype=torch.float16)  # noqa: E731
    flops = 4.0 * b * kvh * grp * s * s * d / (2 if causal else 1)
    torch_fn = lambda: F.scaled_dot_product_attention(q, kr, vr, is_causal=causal)  # noqa: E731
    if program == "mqa_loop":
        k3, v3 = k[:, 0].contiguous(), v[:, 0].contiguous()
        return (Z30.zoo_mqa_loop_over_heads, (s // 64, b, 1), lambda y: (q, k3, v3, y, scale, grp, 64, 64, 64),
                fresh, ref, torch_fn, flops)
    kernel = Z34.z34_gqa_heads_loop_causal if causal else C26.attn_gqa_heads_loop
    bm = 32 if program == "gqa_heads_loop_bm32" else 64  # (32-row heads: four a chain)
    return (kernel, (s // bm, b * kvh, 1), lambda y: (q, k, v, y, scale, grp, bm, 64, 64), fresh, ref, torch_fn,
            flops)


_CURRENT = [None]


def _switch(tag: str) -> None:
    """Forget the launcher's bound (hot-path) launches when the variant changes: before session 35 a bound launch
    was keyed by the arguments alone and ran the other variant's kernel (launchers/stale_settings.py forgets them
    itself now; kept so that the script measures older trees the same way)."""
    if _CURRENT[0] != tag:
        from tileorch.launchers.cutile import forget_bound, forget_native

        forget_bound()
        forget_native()
        _CURRENT[0] = tag


def _launch_stacked(stream, grid, kernel, args, **kw):
    import tileorch.cutile
    from tileorch import settings

    _switch("1")
    with settings.overridden("TILEORCH_ATTN_STACK_HEADS", "1"):  # (stacked wherever it applies: auto may not)
        return tileorch.cutile.launch(stream, grid, kernel, args, **kw)


def _launch_unstacked(stream, grid, kernel, args, **kw):
    import tileorch.cutile
    from tileorch import settings

    _switch("0")
    with settings.overridden("TILEORCH_ATTN_STACK_HEADS", "0"):
        return tileorch.cutile.launch(stream, grid, kernel, args, **kw)


def run_one(program: str, iters: int) -> dict:
    import torch

    g = torch.Generator(device="cuda").manual_seed(34)
    kernel, grid, args, fresh, ref, torch_fn, flops = _case(program, g)
    row: dict = {"program": program}
    for name, launch in (("tileorch", _launch_stacked), ("tileorch_unstacked", _launch_unstacked),
                         ("tileorch", _launch_stacked), ("tileorch_unstacked", _launch_unstacked)):
        y = fresh()  # (each variant twice, alternating: the second timing kept)
        time_variant(row, name, launch, kernel, grid, args(y), y, ref, iters)
    row["torch_ms"] = bench_ms(torch_fn, iters)
    rates(row, flops, ("tileorch", "tileorch_unstacked", "torch"))
    from tileorch.launchers import cutile as rc

    from tileorch import settings

    for name, value in (("tileorch", "1"), ("tileorch_unstacked", "0"), ("default", "auto")):
        with settings.overridden("TILEORCH_ATTN_STACK_HEADS", value):
            prog = rc.compiled(kernel, rc.describe_arguments(kernel, args(fresh())), "sm_90a", "persistent").program
        row[f"{name}_tm"] = (prog.chained or {}).get("tm")  # (default_tm: what auto chose)
    return row


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--programs", default="gqa_heads_loop,gqa_g4_causal,mqa_loop,gqa_heads_loop_bm32")
    ap.add_argument("--iters", type=int, default=20)
    ap.add_argument("--out", default="")
    a = ap.parse_args(argv)
    rows = []
    for program in a.programs.split(","):
        try:
            row = run_one(program, a.iters)
        except Exception as exc:  # noqa: BLE001 - one program's failure is its row
            row = {"program": program, "error": f"{type(exc).__name__}: {exc}"}
        rows.append(row)
        print(json.dumps(row), flush=True)
    if a.out:
        Path(a.out).parent.mkdir(parents=True, exist_ok=True)
        Path(a.out).write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
