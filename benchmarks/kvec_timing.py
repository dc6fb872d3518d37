"""Same-process A/B timing of computed-operand GEMMs (session 41): K-indexed vectors TMA-loaded by the producer
(``tileas/k_vector_tma.py``, the default) against the consumers' global loads
(``TILEORCH_COMPUTED_OPERAND=global_k_vectors``), each also as register A (``registers``) where A is computed, beside
NVIDIA's tileiras (``cuda.tile.launch``) and the torch call a user would make instead.

    python benchmarks/kvec_timing.py [--size 4096] [--iters 30] [--out FILE]

Per program and variant: the launcher's caches are cleared (the switch is read at each compile), the output
NaN-prefilled, one launch checked against the torch fp32 reference (relative error below ``--max-err``) and its
launch not on the SIMT path, then the median of ``--iters`` CUDA-event-timed launches
(``tileorch.testing.timing.bench_ms``).  A variant whose check fails is reported as FAIL, not timed.  Prints
``[s41 kvec] ...`` lines and writes JSON."""

from __future__ import annotations

import argparse
import json
import os

PROGRAMS = ("rmsnorm_gamma_gemm_f16", "gemm_w8a16_group128_f16", "linear_w8a16_channel_scale_f16", "relu_a_gemm_f16")
VARIANTS = {"tma": "", "global": "global_k_vectors", "tma_regs": "registers",
            "global_regs": "registers,global_k_vectors"}
ASKED = {"rmsnorm_gamma_gemm_f16": tuple(VARIANTS), "gemm_w8a16_group128_f16": ("tma", "global")}
"""The variants timed per program (the others, with no K-indexed vector, compile alike under every switch: "tma")."""


def _error(out, ref) -> float:
    from tileorch.testing.dot_programs import unwritten

    if unwritten(out).any():
        return float("nan")
    return float(((out.float() - ref).abs().max() / ref.abs().max().clamp_min(1e-6)).item())


def main() -> int:
    import cuda.tile as ct
    import torch

    import tileorch.cutile
    from tileorch.launchers import cutile as rc
    from tileorch.testing.dot_programs import build, refill
    from tileorch.testing.timing import bench_ms

    ap = argparse.ArgumentParser()
    ap.add_argument("--size", type=int, default=4096)
    ap.add_argument("--iters", type=int, default=30)
    ap.add_argument("--max-err", type=float, default=2e-2)
    ap.add_argument("--out", default="kvec_timing.json")
    opts = ap.parse_args()
    m = n = k = opts.size
    flops = 2.0 * m * n * k
    stream = torch.cuda.current_stream()
    rows = []
    for name in PROGRAMS:
        kernel, args, grid, out, ref, lib = build(name, m, n, k, seed=1)
        row = {"program": name, "size": opts.size}
        for label, switch in VARIANTS.items():
            if label not in ASKED.get(name, ("tma",)):
                continue
            os.environ["TILEORCH_COMPUTED_OPERAND"] = switch
            rc.clear_caches()
            refill(out)
            tileorch.cutile.launch(stream, grid, kernel, args)
            torch.cuda.synchronize()
            entry = rc.compiled(kernel, rc.describe_arguments(kernel, args), "sm_90a", "persistent", defer_gemm=True)
            err = _error(out, ref)
            remark = entry.launch_remarks.get(tuple(grid), "")
            cfg = entry.program.gemm_config
            row[f"{label}_kvecs"] = getattr(cfg, "kvecs", "") if cfg is not None else None
            row[f"{label}_stages"] = getattr(cfg, "stages", None) if cfg is not None else None
            if entry.program.kind != "gemm" or "SIMT path runs" in remark or not err < opts.max_err:
                row[f"{label}_fail"] = f"kind {entry.program.kind}, err {err:.3e}, {remark[:200]}"
                print(f"[s41 kvec] FAIL {name} {label}: {row[f'{label}_fail']}")
                continue
            ms = bench_ms(lambda: tileorch.cutile.launch(stream, grid, kernel, args), opts.iters)
            row[f"{label}_ms"] = ms
            row[f"{label}_tflops"] = round(flops / ms / 1e9, 1)
        os.environ["TILEORCH_COMPUTED_OPERAND"] = ""
        try:
            refill(out)
            ct.launch(stream, grid, kernel, args)
            torch.cuda.synchronize()
            row["tileiras_err"] = _error(out, ref)
            row["tileiras_ms"] = bench_ms(lambda: ct.launch(stream, grid, kernel, args), opts.iters)
            row["tileiras_tflops"] = round(flops / row["tileiras_ms"] / 1e9, 1)
        except Exception as exc:  # noqa: BLE001 - reported
            row["tileiras_error"] = f"{type(exc).__name__}: {str(exc)[:200]}"
        if lib is not None:
            row["torch_ms"] = bench_ms(lib, opts.iters)
            row["torch_tflops"] = round(flops / row["torch_ms"] / 1e9, 1)
        rows.append(row)
        cells = " ".join(f"{lab}={row[f'{lab}_tflops']}" for lab in (*VARIANTS, "tileiras", "torch")
                         if f"{lab}_tflops" in row)
        print(f"[s41 kvec] {name} {m}^3 TFLOP/s: {cells} (kvecs {row.get('tma_kvecs')!r}, stages tma "
              f"{row.get('tma_stages')} global {row.get('global_stages')})")
        if "tma_ms" in row and "global_ms" in row:
            print(f"[s41 kvec] {name}: tma/global speedup {row['global_ms'] / row['tma_ms']:.3f}"
                  + (f", tma vs tileiras {row['tileiras_ms'] / row['tma_ms']:.3f}" if "tileiras_ms" in row else ""))
    with open(opts.out, "w") as f:
        json.dump(rows, f, indent=1)
    return 1 if any(k.endswith("_fail") for r in rows for k in r) else 0


if __name__ == "__main__":
    raise SystemExit(main())
