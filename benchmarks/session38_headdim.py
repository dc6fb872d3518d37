"""Session 38 (issue 20): attention at head dims 80 / 96 in 128-wide tiles, the dots at the head dim
(``TILEORCH_ATTN_HEAD_DIM_WIDTH=1``, after: the launcher compiles the program for the launch's head dims,
``launchers/head_dim_variant.py``) against the tile's width (``=0``, before), in one process, SDPA beside; at d80
4k also ``=32`` (after32: 96 columns in 32-column boxes, the 64-byte swizzle, against 80 in 16-column boxes with
the 32-byte swizzle).

The program is session 36's ``s36_plain`` (``[BH, S, D]``, ragged-key mask, exp2) and ``s36_causal``; B=4, H=16,
fp16, seq 1k and 4k, tiles 64x256 (the sweep's) and 128x128, causal d80 128x128 at 4k.  Each row: NaN-prefilled output of head 0 against a
torch fp32 reference (``err``, ``unwritten``), the whole output against SDPA's (``err_sdpa``), ms (the median of
``tileorch.testing.timing.bench_ms``), TFLOP/s of the two dots at the real head dim; the widths the
launched kernel's dots run and its ptxas registers.

    python3 benchmarks/session38_headdim.py [--iters 20] [--only d80_128x128_s1024,...]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time

LOG2E = 1.4426950408889634
CASES = [(d, bm, bn, s, False) for d in (80, 96) for bm, bn in ((64, 256), (128, 128)) for s in (4096, 1024)] + [
    (80, 128, 128, 4096, True)]
"""(head dim, BM, BN, seq, causal), the headline first (a timeout leaves the rows printed so far)."""


def main(argv=None) -> int:
    import torch
    import torch.nn.functional as F

    import tileorch.cutile
    from tileorch.launchers import cutile as rc
    from tileorch.launchers.head_dim_variant import specialised_arguments
    from tileorch.testing import attnsweep36_programs as P
    from tileorch.testing.timing import bench_ms

    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--iters", type=int, default=20)
    ap.add_argument("--only", default="")
    a = ap.parse_args(argv)
    B, H = 4, 16
    stream = torch.cuda.current_stream()
    for d, bm, bn, s, causal in CASES:
        name = f"d{d}_{bm}x{bn}_s{s}" + ("_causal" if causal else "")
        if a.only and name not in a.only.split(","):
            continue
        g = torch.Generator(device="cuda").manual_seed(d + s)
        q, k, v = (torch.randn(B * H, s, d, device="cuda", generator=g).half() for _ in range(3))
        qs, ks, vs = (x.view(B, H, s, d) for x in (q, k, v))
        kernel = P.s36_causal if causal else P.s36_plain
        sdpa_out = F.scaled_dot_product_attention(qs, ks, vs, is_causal=causal).reshape(B * H, s, d).float()
        sc = q[0].float() @ k[0].float().T / math.sqrt(d)
        if causal:
            sc = sc.masked_fill(torch.ones(s, s, device="cuda", dtype=torch.bool).triu(1), float("-inf"))
        ref = torch.softmax(sc, -1) @ v[0].float()
        flops = 4 * B * H * s * (s / 2 if causal else s) * d
        sdpa_ms = None
        variants = [("after", "1"), ("before", "0")]
        if d == 80 and s == 4096 and not causal:  # 96 columns, 64-byte swizzle, against 80 with the 32-byte one
            variants.insert(1, ("after32", "32"))
        for variant, env in variants:
            os.environ["TILEORCH_ATTN_HEAD_DIM_WIDTH"] = env
            o = torch.full((B * H, s, d), float("nan"), device="cuda", dtype=torch.float16)
            args = (q, k, v, o, LOG2E / math.sqrt(d), bm, bn, 128)
            grid = (-(-s // bm), B * H)
            row = {"case": name, "variant": variant}
            try:
                t0 = time.time()
                tileorch.cutile.launch(stream, grid, kernel, args)
                torch.cuda.synchronize()
                row["first_launch_s"] = round(time.time() - t0, 2)
                described = rc.describe_arguments(kernel, args)
                entry = rc.compiled(kernel, described, "sm_90a", "persistent")
                found = (specialised_arguments(entry.program.chained or {}, described, rc.flat_parameters(described))
                         if env != "0" else None)
                if found is not None:
                    entry = rc.compiled(kernel, found[0], "sm_90a", "persistent")
                rec = entry.program.chained or {}
                row["widths"] = rec.get("head_dim_width") or [128, 128]
                row["ptxas"] = next((str(r).split("ptxas: ", 1)[1] for r in entry.program.remarks
                                     if "ptxas:" in str(r) and "registers" in str(r)), None)
                row["unwritten"] = int(torch.isnan(o).sum())
                row["err"] = float((o[0].float() - ref).abs().nan_to_num(float("inf")).max())
                row["err_sdpa"] = float((o.float() - sdpa_out).abs().nan_to_num(float("inf")).max())

                def launch():
                    tileorch.cutile.launch(stream, grid, kernel, args)

                row["ms"] = round(bench_ms(launch, a.iters), 4)
                row["tflops"] = round(flops / row["ms"] / 1e9, 1)
                if sdpa_ms is None:
                    sdpa_ms = bench_ms(lambda: F.scaled_dot_product_attention(qs, ks, vs, is_causal=causal), a.iters)
                row["sdpa_tflops"] = round(flops / sdpa_ms / 1e9, 1)
            except Exception as exc:  # noqa: BLE001 - one run's failure is its row
                row["error"] = f"{type(exc).__name__}: {exc}"[:400]
            print(json.dumps(row), flush=True)
        del os.environ["TILEORCH_ATTN_HEAD_DIM_WIDTH"]
        torch.cuda.empty_cache()
    return 0


if __name__ == "__main__":
    sys.exit(main())
