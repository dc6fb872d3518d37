"""Programmatic dependent launch (``TILEORCH_PDL=1``, issue 20's per-launch cost K0): correctness of dependent
kernels, then a same-process A/B of back-to-back launches with PDL off and on.

``--check``: chains of dependent launches, each kernel reading what the one before it wrote, enqueued back to back
without a synchronization (every output NaN-prefilled before the chain starts): attention ``O_i = attn(O_{i-1}, K,
V)`` (d64 and d128, seq 1024, 128x128 tiles; the chained persistent kernel) and GEMM ``C_i = C_{i-1} @ B`` (the
tier's kernel); each step compared with torch fp32 on the step's actual input (tileorch's previous output): a kernel
that read its input before the previous one finished would read NaN or stale values.  The compiled programs must
say ``pdl`` (the launch attribute is then on).

``--ab``: per shape, the kernel compiled with PDL off and on (both in this process; alternated off/on/off/on),
timed as batches of back-to-back launches (:func:`tileorch.testing.timing.best_batch_ms`: two events around the
batch, no event between launches: where PDL can overlap one launch's start with the previous one's tail) and per
launch (:func:`bench_ms`: an event before and after each launch).

Prints ``[s38 pdl]`` lines; ``--json PATH`` writes the rows.

    python3 benchmarks/session38_pdl.py --check --ab [--dims 64,128] [--seqs 1024,4096] [--steps 16]
"""

from __future__ import annotations

import argparse
import json
import math
import os


def _with_env(value: str):
    os.environ["TILEORCH_PDL"] = value
    from tileorch.launchers import cutile as launcher

    launcher.clear_caches()


def _program(kernel, args):
    from tileorch.launchers import cutile as launcher

    return launcher.compiled(kernel, launcher.describe_arguments(kernel, args), "sm_90a", "persistent").program


def check_attention(d: int, seq: int, bh: int, steps: int) -> dict:
    import torch
    import torch.nn.functional as F

    import tileorch.cutile
    from tileorch.testing.attention_programs import LOG2E, attention_fwd

    g = torch.Generator(device="cuda").manual_seed(d + seq)
    q, k, v = (torch.randn(bh, seq, d, device="cuda", generator=g, dtype=torch.float16) for _ in range(3))
    outs = [torch.full_like(q, float("nan")) for _ in range(steps)]
    scale = 1.0 / math.sqrt(d)
    args = lambda qi, o: (qi, k, v, o, scale * LOG2E, seq, 128, 128, d, False)  # noqa: E731
    grid = ((seq + 127) // 128, bh, 1)
    stream = torch.cuda.current_stream()
    tileorch.cutile.launch(stream, grid, attention_fwd, args(q, torch.empty_like(q)))  # compiled and loaded first
    torch.cuda.synchronize()
    for i in range(steps):
        tileorch.cutile.launch(stream, grid, attention_fwd, args(q if i == 0 else outs[i - 1], outs[i]))
    torch.cuda.synchronize()
    worst, nan = 0.0, 0
    for i in range(steps):
        qi = (q if i == 0 else outs[i - 1]).float()
        ref = F.scaled_dot_product_attention(qi.unsqueeze(0), k.float().unsqueeze(0), v.float().unsqueeze(0))[0]
        nan += int(torch.isnan(outs[i]).sum().item())
        worst = max(worst, float((outs[i].float() - ref).abs().max().item()))
    p = _program(attention_fwd, args(q, outs[0]))
    return {"what": "attention", "d": d, "seq": seq, "bh": bh, "steps": steps, "max_abs_err": worst, "nan": nan,
            "pdl": bool(getattr(p, "pdl", False)), "ok": nan == 0 and worst < 2e-2}


def check_gemm(n: int, steps: int) -> dict:
    import torch

    import tileorch.cutile
    from tileorch.testing.dot_programs import gemm

    g = torch.Generator(device="cuda").manual_seed(n)
    a = torch.randn(n, n, device="cuda", generator=g, dtype=torch.float16)
    b = (torch.randn(n, n, device="cuda", generator=g) / math.sqrt(n)).to(torch.float16)  # keeps |C_i| ~ 1
    outs = [torch.full_like(a, float("nan")) for _ in range(steps)]
    grid = (n // 128, n // 128, 1)
    stream = torch.cuda.current_stream()
    tileorch.cutile.launch(stream, grid, gemm, (a, b, torch.empty_like(a), 128, 128, 64))
    torch.cuda.synchronize()
    for i in range(steps):
        tileorch.cutile.launch(stream, grid, gemm, (a if i == 0 else outs[i - 1], b, outs[i], 128, 128, 64))
    torch.cuda.synchronize()
    worst, nan = 0.0, 0
    for i in range(steps):
        ai = (a if i == 0 else outs[i - 1]).float()
        ref = ai @ b.float()
        nan += int(torch.isnan(outs[i]).sum().item())
        worst = max(worst, float(((outs[i].float() - ref).abs() / (ref.abs() + 1)).max().item()))
    p = _program(gemm, (a, b, outs[0], 128, 128, 64))
    return {"what": "gemm", "n": n, "steps": steps, "max_rel_err": worst, "nan": nan,
            "pdl": bool(getattr(p, "pdl", False)), "ok": nan == 0 and worst < 2e-2}


def ab_attention(d: int, seq: int, bh: int, iters: int) -> dict:
    import torch

    import tileorch.cutile
    from tileorch.testing.attention_programs import LOG2E, attention_fwd
    from tileorch.testing.timing import bench_ms, best_batch_ms

    g = torch.Generator(device="cuda").manual_seed(0)
    q, k, v = (torch.randn(bh, seq, d, device="cuda", generator=g, dtype=torch.float16) for _ in range(3))
    out = torch.empty_like(q)
    args = (q, k, v, out, 1.0 / math.sqrt(d) * LOG2E, seq, 128, 128, d, False)
    grid = ((seq + 127) // 128, bh, 1)
    stream = torch.cuda.current_stream()
    flops = 4.0 * bh * seq * seq * d
    row = {"d": d, "seq": seq, "bh": bh}
    go = lambda: tileorch.cutile.launch(stream, grid, attention_fwd, args)  # noqa: E731
    batch = {"0": [], "1": []}
    each = {"0": [], "1": []}
    for value in ("0", "1", "0", "1"):
        _with_env(value)
        go()
        torch.cuda.synchronize()
        batch[value].append(best_batch_ms(go, iters))
        each[value].append(bench_ms(go, iters))
    for value, name in (("0", "off"), ("1", "pdl")):
        row[f"{name}_batch_us"] = round(1e3 * min(batch[value]), 2)
        row[f"{name}_event_us"] = round(1e3 * min(each[value]), 2)
        row[f"{name}_batch_tflops"] = round(flops / min(batch[value]) / 1e9, 1)
    _with_env("1")
    row["pdl_program"] = bool(getattr(_program(attention_fwd, args), "pdl", False))
    row["batch_gain"] = round(row["off_batch_us"] / row["pdl_batch_us"], 4)
    return row


def ab_gemm(n: int, iters: int) -> dict:
    import torch

    import tileorch.cutile
    from tileorch.testing.dot_programs import gemm
    from tileorch.testing.timing import best_batch_ms

    a = torch.randn(n, n, device="cuda", dtype=torch.float16)
    b = torch.randn(n, n, device="cuda", dtype=torch.float16)
    c = torch.empty_like(a)
    stream = torch.cuda.current_stream()
    go = lambda: tileorch.cutile.launch(stream, (n // 128, n // 128, 1), gemm, (a, b, c, 128, 128, 64))  # noqa: E731
    batch = {"0": [], "1": []}
    for value in ("0", "1", "0", "1"):
        _with_env(value)
        go()
        torch.cuda.synchronize()
        batch[value].append(best_batch_ms(go, iters))
    row = {"gemm": n, "off_batch_us": round(1e3 * min(batch["0"]), 2), "pdl_batch_us": round(1e3 * min(batch["1"]), 2)}
    row["batch_gain"] = round(row["off_batch_us"] / row["pdl_batch_us"], 4)
    return row


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--ab", action="store_true")
    ap.add_argument("--dims", default="64,128")
    ap.add_argument("--seqs", default="1024,4096")
    ap.add_argument("--tokens", type=int, default=262144, help="batch*heads = tokens / seq")
    ap.add_argument("--steps", type=int, default=16)
    ap.add_argument("--iters", type=int, default=20)
    ap.add_argument("--gemm", type=int, default=2048)
    ap.add_argument("--json", default="")
    ns = ap.parse_args(argv)
    import torch

    rows = []
    ok = True
    if ns.check:
        _with_env("1")
        for d in (int(x) for x in ns.dims.split(",")):
            r = check_attention(d, 1024, 64, ns.steps)
            rows.append(r)
            ok &= r["ok"] and r["pdl"]
            print(f"[s38 pdl] check attention d{d} seq 1024 bh 64, {ns.steps} dependent launches: max abs err "
                  f"{r['max_abs_err']:.2e}, NaN {r['nan']}, compiled for PDL {r['pdl']} -> {'ok' if r['ok'] else 'FAIL'}",
                  flush=True)
        r = check_gemm(ns.gemm, ns.steps)
        rows.append(r)
        ok &= r["ok"] and r["pdl"]
        print(f"[s38 pdl] check gemm {ns.gemm}^3, {ns.steps} dependent launches: max rel err {r['max_rel_err']:.2e}, "
              f"NaN {r['nan']}, compiled for PDL {r['pdl']} -> {'ok' if r['ok'] else 'FAIL'}", flush=True)
    if ns.ab:
        for d in (int(x) for x in ns.dims.split(",")):
            for seq in (int(x) for x in ns.seqs.split(",")):
                r = ab_attention(d, seq, max(1, ns.tokens // seq), ns.iters)
                rows.append(r)
                print(f"[s38 pdl] A/B attention d{d} seq {seq} bh {r['bh']}: back-to-back {r['off_batch_us']} -> "
                      f"{r['pdl_batch_us']} us/launch ({r['off_batch_tflops']} -> {r['pdl_batch_tflops']} TFLOP/s, "
                      f"x{r['batch_gain']}); event per launch {r['off_event_us']} -> {r['pdl_event_us']} us; "
                      f"pdl program {r['pdl_program']}", flush=True)
        r = ab_gemm(ns.gemm, ns.iters * 5)
        rows.append(r)
        print(f"[s38 pdl] A/B gemm {ns.gemm}^3: back-to-back {r['off_batch_us']} -> {r['pdl_batch_us']} us/launch "
              f"(x{r['batch_gain']})", flush=True)
    if ns.json:
        with open(ns.json, "w") as f:
            json.dump({"device": torch.cuda.get_device_name(), "rows": rows}, f, indent=1)
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
