"""Timing of four of session 30's attention-zoo programs (``tileorch.testing.attnzoo30_programs``) at model
sizes through ``tileorch.cutile.launch``, beside ``F.scaled_dot_product_attention`` (flash backend) on the
plain attention of the same sizes in the same process: GQA in ``[B, S, H, D]`` (SDPA with K / V expanded
to the query heads), a causal 1024-key sliding window (SDPA: full causal, the speed line, not the same
work), the soft cap with key lengths and the LSE (SDPA: plain), causal with the query tiles taken
last-first (SDPA: causal).  TFLOP/s counts the two dots' work the program does (``4 B H Sq Sk D``, halved
when causal, the window's keys for the window).  Each output's first two heads are checked against a
torch fp32 reference (max abs error in the row).  Prints one JSON row per program; ``--out`` writes them.
Run on the device: ``python3 benchmarks/attnzoo30.py --out $OUT/attnzoo30.json``."""

from __future__ import annotations

import argparse
import json
import math
import sys


def _cases(torch):
    """name -> () -> (args, grid, out index, reference of heads [0, 2), flops, sdpa (b, hq, sq, sk, d, causal))."""
    def r(*shape, dt="float16", seed=0):
        g = torch.Generator(device="cuda").manual_seed(seed)
        return torch.randn(*shape, device="cuda", generator=g).to(getattr(torch, dt))

    def nan(*shape, dt="float16"):
        return torch.full(shape, float("nan"), device="cuda", dtype=getattr(torch, dt))

    def attn(q, k, v, scale, keep=None):
        s = (q.float() @ k.float().transpose(-1, -2)) * scale
        if keep is not None:
            s = s.masked_fill(~keep, float("-inf"))
        return torch.softmax(s, -1) @ v.float()

    def pos(sq, sk):
        return torch.arange(sq, device="cuda")[:, None], torch.arange(sk, device="cuda")[None, :]

    def gqa(b=4, s=4096, h=32, hkv=8, d=128):
        q, k, v = r(b, s, h, d, seed=1), r(b, s, hkv, d, seed=2), r(b, s, hkv, d, seed=3)
        o = nan(b, s, h, d)
        g = h // hkv
        def ref():  # query heads 0, 1 of batch 0 on KV head 0
            t = lambda x, n: x[0, :, :n].transpose(0, 1)  # noqa: E731
            return attn(t(q, 2), t(k, 1), t(v, 1), d ** -0.5)
        got = lambda: o[0, :, :2].transpose(0, 1)  # noqa: E731
        return (q, k, v, o, 1.4426950408889634 / math.sqrt(d), g, 128, 128, d), (s // 128, h, b), got, ref, \
            4 * b * h * s * s * d, (b, h, s, s, d, False)

    def window(bh=32, s=4096, d=128, w=1024):
        q, k, v = (r(bh, s, d, dt="bfloat16", seed=i) for i in (4, 5, 6))
        o = nan(bh, s, d, dt="bfloat16")
        i, j = pos(s, s)
        ref = lambda: attn(q[:2], k[:2], v[:2], d ** -0.5, (j <= i) & (j > i - w))  # noqa: E731
        return (q, k, v, o, 1.4426950408889634 / math.sqrt(d), w, 128, 128, d), (s // 128, bh, 1), \
            lambda: o[:2], ref, 4 * bh * s * w * d, (1, bh, s, s, d, True)

    def softcap(bh=32, heads=16, s=4096, d=128):
        q, k, v = (r(bh, s, d, dt="bfloat16", seed=i) for i in (7, 8, 9))
        lens = torch.full((bh // heads,), s, device="cuda", dtype=torch.int32)
        o, lse = nan(bh, s, d, dt="bfloat16"), nan(bh, s, dt="float32")

        def ref():
            sc = 30.0 * torch.tanh((q[:2].float() @ k[:2].float().transpose(-1, -2)) * d ** -0.5 / 30.0)
            return torch.softmax(sc, -1) @ v[:2].float()
        return (q, k, v, lens, o, lse, d ** -0.5, 30.0, heads, 128, 128, d), (s // 128, bh, 1), lambda: o[:2], \
            ref, 4 * bh * s * s * d, (1, bh, s, s, d, False)

    def reversed_causal(bh=32, s=4096, d=128):
        q, k, v = (r(bh, s, d, seed=i) for i in (10, 11, 12))
        o = nan(bh, s, d)
        i, j = pos(s, s)
        ref = lambda: attn(q[:2], k[:2], v[:2], d ** -0.5, j <= i)  # noqa: E731
        return (q, k, v, o, 1.4426950408889634 / math.sqrt(d), 128, 128, d), (s // 128, bh, 1), lambda: o[:2], \
            ref, 2 * bh * s * s * d, (1, bh, s, s, d, True)

    return {"zoo_gqa_bshd_cross_1000x777_d96": gqa, "zoo_window_causal_from_lo_bf16_d128": window,
            "zoo_softcap_lens_lse_bf16_d128": softcap, "zoo_reversed_q_tiles_causal": reversed_causal}


def run_one(torch, name: str, make, iters: int) -> dict:
    import torch.nn.functional as F
    from torch.nn.attention import SDPBackend, sdpa_kernel

    import tileorch.cutile
    from tileorch.launchers import cutile as rc
    from tileorch.testing.attnzoo30_programs import PROGRAMS
    from tileorch.testing.timing import bench_ms

    args, grid, got, ref, flops, (b, hq, sq, sk, d, causal) = make()
    kernel = PROGRAMS[name].kernel
    stream = torch.cuda.current_stream()
    row: dict = {"program": name, "b": b, "hq": hq, "sq": sq, "sk": sk, "d": d, "causal": causal}
    tileorch.cutile.launch(stream, grid, kernel, args)
    torch.cuda.synchronize()
    row["tileorch_path"] = rc.compiled(kernel, rc.describe_arguments(kernel, tuple(args)), "sm_90a",
                                       "persistent").program.kind
    row["tileorch_err"] = float((got().float() - ref()).abs().max().item())
    row["tileorch_ms"] = bench_ms(lambda: tileorch.cutile.launch(stream, grid, kernel, args), iters)
    dt = args[0].dtype
    q4, k4, v4 = (torch.randn(b, hq, n, d, device="cuda", dtype=dt) for n in (sq, sk, sk))
    with sdpa_kernel(SDPBackend.FLASH_ATTENTION):
        row["sdpa_flash_ms"] = bench_ms(lambda: F.scaled_dot_product_attention(q4, k4, v4, is_causal=causal), iters)
    for key in ("tileorch", "sdpa_flash"):
        row[f"{key}_tflops"] = round(flops / row[f"{key}_ms"] / 1e9, 1)
    row["sdpa_over_tileorch_ms"] = round(row["sdpa_flash_ms"] / row["tileorch_ms"], 3)
    return row


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--iters", type=int, default=20)
    ap.add_argument("--only", default="", help="comma-separated program names")
    ap.add_argument("--out", default="")
    ns = ap.parse_args(argv)
    import torch

    rows = []
    for name, make in _cases(torch).items():
        if ns.only and name not in ns.only.split(","):
            continue
        try:
            row = run_one(torch, name, make, ns.iters)
        except Exception as exc:  # noqa: BLE001 - a program that cannot run is a row entry
            row = {"program": name, "error": f"{type(exc).__name__}: {exc}"[:300]}
        rows.append(row)
        print(json.dumps(row), flush=True)
        if ns.out:
            with open(ns.out, "w") as f:
                json.dump(rows, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
