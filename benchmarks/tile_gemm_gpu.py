"""examples/tile_gemm.mlir through the TileAS tier on the GPU: correctness on the shape suite and
ragged shapes, and speed against the hand-built GEMM (tileorch.gemm's default configuration) in
the same run.  Needs xDSL where it runs (the tier compiles the program there).

    python benchmarks/tile_gemm_gpu.py [--out DIR] [--iters N]

For each scheduler, ``lower_tile_program`` gives (GemmConfig, module); the script reports whether
the module's kernel has the same op sequence as the builder's kernel of that configuration,
compiles the tier's module itself to a cubin and launches it with the GEMM host
(``GemmKernel(cfg, cubin)``); the scheduler per shape is ``choose_schedule``'s.  Inputs fp16 randn, A [M,K], B [K,N]
row-major as the program reads them; outputs NaN-prefilled, checked against torch fp32.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "benchmarks"))

RAGGED = [(1000, 520, 384), (129, 264, 72), (4097, 1016, 1000), (64, 8, 8), (3000, 104, 4104)]
"""Ragged shapes (N and K multiples of 8: TMA's 16-byte strides)."""


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results")
    ap.add_argument("--iters", type=int, default=30)
    ns = ap.parse_args(argv)

    import torch

    import tileorch.launchers.gemm as api
    from gemm import bench_ms, suite_shapes
    from tileorch.kernels.gemm.ir import gemm_kernel_ir
    from tileorch.transforms.tileas.nv_tileas_to_cutlass import lower_tile_program

    from tileorch.driver import compile_module
    from tileorch.diagnostics import parse_module
    from tileorch.launchers.gemm_host import GemmKernel
    from tileorch.registry import make_context

    text = (ROOT / "examples" / "tile_gemm.mlir").read_text()
    configs, kernels = {}, {}
    for schedule in ("persistent", "streamk", "dp"):
        start = time.perf_counter()
        cfg, module = lower_tile_program(text, schedule)
        hand = parse_module(make_context(), gemm_kernel_ir(cfg), "builder")
        ours = [op.name for op in next(o for o in module.walk() if o.name == "func.func").walk()]
        theirs = [op.name for op in next(o for o in hand.walk() if o.name == "func.func").walk()]
        result = compile_module(module, make_context(), arch="sm_90a", emit="ptx", ptxas=True)
        seconds = time.perf_counter() - start
        configs[schedule] = cfg
        kernels[schedule] = GemmKernel(cfg, result.ptxas.cubin)  # the tier's own cubin
        print(f"{schedule:10s} {cfg.name}  tier+compile {seconds:.1f} s  same ops as the builder's kernel: "
              f"{ours == theirs}")

    def run_tier(schedule, a, b, c, m, n, k):
        key = (schedule, a.data_ptr(), b.data_ptr(), c.data_ptr(), m, n, k)
        if key not in prepared:
            prepared[key] = kernels[schedule].prepare(a.data_ptr(), b.data_ptr(), c.data_ptr(), m, n, k, 132,
                                                      lambda nbytes: torch.empty(nbytes, dtype=torch.uint8,
                                                                                 device="cuda"))
        prepared[key].launch(torch.cuda.current_stream().cuda_stream)

    prepared: dict = {}
    rows, bad = [], 0
    for (m, n, k) in [*suite_shapes(), *RAGGED]:
        g = torch.Generator(device="cuda").manual_seed(m * 7 + n)
        a = torch.randn((m, k), device="cuda", dtype=torch.float16, generator=g)
        b = torch.randn((k, n), device="cuda", dtype=torch.float16, generator=g)
        ref = a.float() @ b.float()
        schedule = api.choose_schedule(m, n, k, configs["persistent"], 132)
        cfg = configs[schedule]
        c = torch.full((m, n), float("nan"), device="cuda", dtype=torch.float16)
        run_tier(schedule, a, b, c, m, n, k)
        torch.cuda.synchronize()
        err = float((c.float() - ref).norm() / ref.norm()) if bool(torch.isfinite(c).all()) else float("inf")
        ok = err < 1e-2
        bad += not ok
        row = {"m": m, "n": n, "k": k, "schedule": schedule, "rel_err": err, "ok": ok}
        if (m, n, k) in suite_shapes():
            hand = api.default_config(m, n, k, "f16", "f16", "n", "auto", 132)
            row["tier_ms"] = bench_ms(lambda: run_tier(schedule, a, b, c, m, n, k), ns.iters)
            row["hand_ms"] = bench_ms(lambda: api.gemm(a, b, c, config=hand), ns.iters)
            row["cublas_ms"] = bench_ms(lambda: torch.matmul(a, b), ns.iters)
            row["tier_vs_hand"] = row["hand_ms"] / row["tier_ms"]
            row["hand_config"] = hand.name
        rows.append(row)
        print(f"{m:6d} {n:6d} {k:6d} {schedule:10s} err {err:.1e} {'OK' if ok else 'BAD'}"
              + (f"  tier/hand-built {row['tier_vs_hand']:.3f}  tier/cuBLAS {row['cublas_ms'] / row['tier_ms']:.3f}"
                 if "tier_ms" in row else ""), flush=True)
    ratios = [r["tier_vs_hand"] for r in rows if "tier_vs_hand" in r]
    summary = {"correct": f"{len(rows) - bad}/{len(rows)}",
               "tier_vs_hand_geomean": math.exp(sum(map(math.log, ratios)) / len(ratios)),
               "tier_configs": {s: c.name for s, c in configs.items()}}
    print(json.dumps(summary, indent=1))
    ns.out.mkdir(parents=True, exist_ok=True)
    (ns.out / "tile_gemm_gpu.json").write_text(json.dumps({"device": torch.cuda.get_device_name(), "rows": rows,
                                                          "summary": summary}, indent=1))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
