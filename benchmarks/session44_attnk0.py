"""Session 44 (issue 20, K0): TILEORCH_ATTN_EARLY_TMA off / on, same process, on the chained attention kernel.

``tileorch.testing.attention_programs.attention_fwd`` (benchmarks/attention.py's textbook program, 128x128 tiles,
fp16, non-causal, bh = 262144 / seq) at d64 / d128 x seq 1k / 4k.  Per case: each variant compiled (the switch is
read at compile time: the launcher's caches cleared between variants), checked once against torch fp32 SDPA (math
backend on fp32 copies; output NaN-prefilled, NaN count reported), then timed in alternation off, on, off, on, off,
on: :func:`bench_ms` (an event around each launch, median; benchmarks/attention.py's timing) and
:func:`best_batch_ms` (back-to-back batches, the best batch's mean); SDPA cuDNN timed in the same process.  Prints
``[s44 attnk0]`` lines (TFLOP/s = 4 bh S^2 d / time; each variant's best and all its rounds) and writes ``--json``.

    python3 benchmarks/session44_attnk0.py [--dims 64,128] [--seqs 1024,4096] [--rounds 3] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import math
import os

ENV = "TILEORCH_ATTN_EARLY_TMA"


def _with(value: str) -> None:
    os.environ[ENV] = value
    from tileorch.launchers import cutile as launcher

    launcher.clear_caches()


def _program(kernel, args):
    from tileorch.launchers import cutile as launcher

    return launcher.compiled(kernel, launcher.describe_arguments(kernel, args), "sm_90a", "persistent").program


def run_case(d: int, seq: int, rounds: int, iters: int) -> dict:
    import torch
    import torch.nn.functional as F
    from torch.nn.attention import SDPBackend, sdpa_kernel

    import tileorch.cutile
    from tileorch.testing.attention_programs import LOG2E, attention_fwd
    from tileorch.testing.timing import bench_ms, best_batch_ms

    bh = 262144 // seq
    g = torch.Generator(device="cuda").manual_seed(d + seq)
    q, k, v = (torch.randn(bh, seq, d, device="cuda", generator=g, dtype=torch.float16) for _ in range(3))
    with sdpa_kernel(SDPBackend.MATH):
        ref = F.scaled_dot_product_attention(q.float().unsqueeze(0), k.float().unsqueeze(0),
                                             v.float().unsqueeze(0))[0]
    flops = 4.0 * bh * seq * seq * d
    stream = torch.cuda.current_stream()
    grid = ((seq + 127) // 128, bh, 1)
    row: dict = {"d": d, "seq": seq, "bh": bh}
    outs = {}
    for value in ("0", "1"):  # compile + correctness of each variant
        _with(value)
        out = torch.full_like(q, float("nan"))
        args = (q, k, v, out, 1.0 / math.sqrt(d) * LOG2E, seq, 128, 128, d, False)
        tileorch.cutile.launch(stream, grid, attention_fwd, args)
        torch.cuda.synchronize()
        name = "on" if value == "1" else "off"
        row[f"{name}_nan"] = int(torch.isnan(out).sum().item())
        row[f"{name}_err"] = float((out.float() - ref).abs().max().item())
        try:  # the compiled record: whether the switch took effect
            p = _program(attention_fwd, args)
            row[f"{name}_early_tma"] = (getattr(p, "chained", None) or {}).get("early_tma")
        except Exception as exc:  # noqa: BLE001 - a row entry
            row[f"{name}_early_tma"] = f"? {type(exc).__name__}: {exc}"[:120]
        outs[value] = out
    row["bit_identical"] = bool(torch.equal(outs["0"].view(torch.int16), outs["1"].view(torch.int16)))
    out = torch.empty_like(q)
    args = (q, k, v, out, 1.0 / math.sqrt(d) * LOG2E, seq, 128, 128, d, False)
    go = lambda: tileorch.cutile.launch(stream, grid, attention_fwd, args)  # noqa: E731
    ev = {"0": [], "1": []}
    bb = {"0": [], "1": []}
    for _ in range(rounds):
        for value in ("0", "1"):
            _with(value)
            go()
            torch.cuda.synchronize()
            ev[value].append(bench_ms(go, iters))
            bb[value].append(best_batch_ms(go, iters))
    for value, name in (("0", "off"), ("1", "on")):
        row[f"{name}_event_us"] = [round(1e3 * x, 2) for x in ev[value]]
        row[f"{name}_batch_us"] = [round(1e3 * x, 2) for x in bb[value]]
        row[f"{name}_tflops"] = round(flops / min(ev[value]) / 1e9, 1)
        row[f"{name}_batch_tflops"] = round(flops / min(bb[value]) / 1e9, 1)
    row["gain_event"] = round(min(ev["0"]) / min(ev["1"]), 4)
    row["gain_batch"] = round(min(bb["0"]) / min(bb["1"]), 4)
    q4, k4, v4 = q.unsqueeze(0), k.unsqueeze(0), v.unsqueeze(0)
    try:
        with sdpa_kernel(SDPBackend.CUDNN_ATTENTION):
            ms = bench_ms(lambda: F.scaled_dot_product_attention(q4, k4, v4), iters)
        row["cudnn_tflops"] = round(flops / ms / 1e9, 1)
    except Exception as exc:  # noqa: BLE001 - a row entry
        row["cudnn_error"] = f"{type(exc).__name__}: {exc}"[:200]
    return row


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dims", default="64,128")
    ap.add_argument("--seqs", default="1024,4096")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--iters", type=int, default=20)
    ap.add_argument("--json", default="")
    ns = ap.parse_args(argv)
    import torch

    rows = []
    for seq in (int(x) for x in ns.seqs.split(",")):
        for d in (int(x) for x in ns.dims.split(",")):
            try:
                row = run_case(d, seq, ns.rounds, ns.iters)
            except Exception as exc:  # noqa: BLE001 - one failure does not hide the rest
                row = {"d": d, "seq": seq, "error": f"{type(exc).__name__}: {exc}"[:400]}
            rows.append(row)
            if "error" in row:
                print(f"[s44 attnk0] d{d} seq {seq}: ERROR {row['error']}", flush=True)
                continue
            print(f"[s44 attnk0] d{d} seq {seq} bh {row['bh']}: off {row['off_tflops']} on {row['on_tflops']} TFLOP/s "
                  f"(event, gain {row['gain_event']}); batch off {row['off_batch_tflops']} on {row['on_batch_tflops']} "
                  f"(gain {row['gain_batch']}); cudnn {row.get('cudnn_tflops')}", flush=True)
            print(f"[s44 attnk0]   rounds event us off {row['off_event_us']} on {row['on_event_us']}; err off "
                  f"{row['off_err']:.2e} on {row['on_err']:.2e}; NaN {row['off_nan']}/{row['on_nan']}; bit-identical "
                  f"{row['bit_identical']}; early_tma {row['off_early_tma']}/{row['on_early_tma']}", flush=True)
    if ns.json:
        with open(ns.json, "w") as f:
            json.dump({"device": torch.cuda.get_device_name(), "rows": rows}, f, indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
