"""Speed lines of session 37's paged-KV / decode set (``tileorch.testing.attnpaged37_programs``) at serving sizes,
through ``tileorch.cutile.launch``, beside torch's ``F.scaled_dot_product_attention`` on the K / V gathered through
the block table (contiguous ``[B, H_kv, n, D]``, gathered once before timing; GQA heads repeated before timing when
this torch has no ``enable_gqa``) in the same process (one timing method: :func:`tileorch.testing.timing.bench_ms`).
``gather_sdpa_ms`` also times the gather itself followed by SDPA (what a torch-only server would run).  Decode:
``B`` sequences of ``N`` keys, ``H_kv`` 8 KV heads, the query heads of a KV head stacked as rows (``G`` of them).
``GBps`` counts the K / V bytes read once.  Before timing, each output is checked against a torch fp32 reference
(max abs error ``err``; NaN-prefilled outputs: ``unwritten``).  One JSON row per program on stdout; ``--out``
writes them all.

    python3 benchmarks/session37_paged.py [--only name,name] [--iters 20] [--out build/paged37.json]
"""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path

LOG2E = 1.4426950408889634
B, N, HKV, D = 32, 4096, 8, 128


def _cases(torch):
    """name -> () -> dict(launches, got, ref, bytes, flops, sdpa, gather_sdpa)."""
    import torch.nn.functional as F

    from tileorch.testing import attnpaged37_programs as P

    def r(*shape, dt="float16", seed=0):
        g = torch.Generator(device="cuda").manual_seed(seed)
        return torch.randn(*shape, device="cuda", generator=g).to(getattr(torch, dt))

    def nan(*shape, dt="float16"):
        return torch.full(shape, float("nan"), device="cuda", dtype=getattr(torch, dt))

    def zeros(*shape):
        return torch.zeros(*shape, device="cuda", dtype=torch.float16)

    try:  # this torch's SDPA takes grouped KV heads (enable_gqa, torch >= 2.5)
        F.scaled_dot_product_attention(zeros(1, 2, 1, 16), zeros(1, 1, 4, 16), zeros(1, 1, 4, 16), enable_gqa=True)
        gqa = True
    except (TypeError, RuntimeError):
        gqa = False

    def sdpa_gqa(q, k, v, g):
        """SDPA with ``g`` query heads a KV head (``enable_gqa``; without it, call :func:`repeated` first)."""
        if gqa:
            return F.scaled_dot_product_attention(q, k, v, enable_gqa=True)
        return F.scaled_dot_product_attention(q, k, v)

    def repeated(k, v, g):
        """K / V as SDPA takes them: as they are with ``enable_gqa``, each KV head repeated ``g`` times without."""
        return (k, v) if gqa else (k.repeat_interleave(g, 1), v.repeat_interleave(g, 1))

    def decode(kernel, g, bs, consts, layout="vllm", dt="float16"):
        """A decode program ``(Q, Kc, Vc, Table, Lens, O, qk_scale, *consts)`` on a ``(H_kv, B)`` grid."""
        def build():
            pages = N // bs
            nb = B * pages
            shape = (nb, HKV, bs, D) if layout == "hmajor" else (nb * bs, HKV, D) if layout == "flat" else \
                (nb, bs, HKV, D)
            kc, vc = r(*shape, dt=dt, seed=2), r(*shape, dt=dt, seed=3)
            q = r(B, HKV * g, D, dt=dt, seed=1)
            table = torch.randperm(nb, device="cuda").to(torch.int32).view(B, pages)
            lens = torch.full((B,), N, device="cuda", dtype=torch.int32)
            o = nan(B, HKV * g, D, dt=dt)

            def gather():
                t = table.long()
                if layout == "hmajor":  # [B, pages, H, bs, D] -> [B, H, N, D]
                    return tuple(c[t].permute(0, 2, 1, 3, 4).reshape(B, HKV, N, D) for c in (kc, vc))
                return tuple(c.view(nb, bs, HKV, D)[t].reshape(B, N, HKV, D).transpose(1, 2) for c in (kc, vc))

            kg, vg = (x.contiguous() for x in gather())
            ks, vs = repeated(kg, vg, g)
            qs = q.view(B, HKV * g, 1, D)
            args = (q, kc, vc, table, lens, o, LOG2E / math.sqrt(D), *consts)

            def ref():
                s = (q.float().view(B, HKV, g, D) @ kg.float().transpose(-1, -2)) / math.sqrt(D)
                return (torch.softmax(s, -1) @ vg.float()).reshape(B, HKV * g, D)

            def gather_sdpa():
                return sdpa_gqa(qs, *repeated(*gather(), g), g)
            return dict(launches=[(kernel, (HKV, B), args)], got=lambda: o, ref=ref,
                        bytes=2 * B * HKV * N * D * 2, flops=4 * B * HKV * g * N * D,
                        sdpa=lambda: sdpa_gqa(qs, ks, vs, g), gather_sdpa=gather_sdpa)
        return build

    def split_kv(g=16, bs=64, splits=8):
        def build():
            pages = N // bs
            nb = B * pages
            kc, vc = r(nb, bs, HKV, D, seed=2), r(nb, bs, HKV, D, seed=3)
            q = r(B, HKV * g, D, seed=1)
            table = torch.randperm(nb, device="cuda").to(torch.int32).view(B, pages)
            lens = torch.full((B,), N, device="cuda", dtype=torch.int32)
            op, lp = nan(B, HKV, splits, g, D, dt="float32"), nan(B, HKV, splits, g, dt="float32")
            o = nan(B, HKV * g, D)
            kg = kc[table.long()].reshape(B, N, HKV, D).transpose(1, 2).contiguous()
            vg = vc[table.long()].reshape(B, N, HKV, D).transpose(1, 2).contiguous()
            qs = q.view(B, HKV * g, 1, D)
            ks, vs = repeated(kg, vg, g)

            def ref():
                s = (q.float().view(B, HKV, g, D) @ kg.float().transpose(-1, -2)) / math.sqrt(D)
                return (torch.softmax(s, -1) @ vg.float()).reshape(B, HKV * g, D)
            tps = pages // splits
            return dict(launches=[(P.p37_split_kv_paged, (splits, HKV, B),
                                   (q, kc, vc, table, lens, op, lp, LOG2E / math.sqrt(D), tps, g, bs, D)),
                                  (P.p37_split_kv_combine, (HKV, B), (op, lp, o, splits, g, D))],
                        got=lambda: o, ref=ref, bytes=2 * B * HKV * N * D * 2, flops=4 * B * HKV * g * N * D,
                        sdpa=lambda: sdpa_gqa(qs, ks, vs, g), gather_sdpa=None)
        return build

    return {
        "p37_decode_page_gather_g16_d128": decode(P.p37_decode_page_gather, 16, 64, (16, 64, D)),
        "p37_decode_page_gather_g8": decode(P.p37_decode_page_gather, 8, 64, (8, 64, D)),
        "p37_decode_page_gather_g64_bn128": decode(P.p37_decode_page_gather, 64, 128, (64, 128, D)),
        "p37_decode_page_gather_bs16": decode(P.p37_decode_page_gather, 16, 16, (16, 16, D)),
        "p37_decode_page_item_g16_bf16": decode(P.p37_decode_page_item, 16, 64, (16, 64, D), dt="bfloat16"),
        "p37_decode_page_hmajor_g32": decode(P.p37_decode_page_hmajor, 32, 64, (32, 64, D), layout="hmajor"),
        "p37_decode_page_of_tiles_r2": decode(P.p37_decode_page_of_tiles, 16, 128, (16, 64, D, 2)),
        "p37_decode_page_inner_loop_r2": decode(P.p37_decode_page_inner_loop, 16, 128, (16, 64, D, 2)),
        "p37_decode_pages_cat_bs32": decode(P.p37_decode_pages_cat, 16, 32, (16, 32, D)),
        "p37_decode_slot_gather_bs16": decode(P.p37_decode_slot_gather, 16, 16, (16, 16, 64, D)),
        "p37_decode_slot_gather_flat_bs16": decode(P.p37_decode_slot_gather_flat, 16, 16, (16, 16, 64, D),
                                                   layout="flat"),
        "p37_decode_slot_gather_bs32_bn128_g64": decode(P.p37_decode_slot_gather, 64, 32, (64, 32, 128, D)),
        "p37_split_kv_paged+combine": split_kv(),
    }


def run_one(name, build, iters, torch):
    import tileorch.cutile
    from tileorch.launchers import cutile as rc
    from tileorch.testing.timing import bench_ms

    c = build()
    stream = torch.cuda.current_stream()
    row = {"program": name}

    def launch():
        for kernel, grid, args in c["launches"]:
            tileorch.cutile.launch(stream, grid, kernel, args)

    launch()
    torch.cuda.synchronize()
    kernel, _, args = c["launches"][0]
    row["tileorch_path"] = rc.compiled(kernel, rc.describe_arguments(kernel, args), "sm_90a",
                                       "persistent").program.kind
    got, ref = c["got"]().float(), c["ref"]()
    row["unwritten"] = int(torch.isnan(got).sum())
    row["tileorch_err"] = float((got - ref).abs().nan_to_num(float("inf")).max())
    row["tileorch_ms"] = round(bench_ms(launch, iters), 4)
    row["tileorch_GBps"] = round(c["bytes"] / row["tileorch_ms"] / 1e6, 1)
    try:
        row["sdpa_ms"] = round(bench_ms(c["sdpa"], iters), 4)
        row["sdpa_GBps"] = round(c["bytes"] / row["sdpa_ms"] / 1e6, 1)
        row["vs_sdpa"] = round(row["sdpa_ms"] / row["tileorch_ms"], 3)  # > 1: tileorch faster
        if c["gather_sdpa"] is not None:
            row["gather_sdpa_ms"] = round(bench_ms(c["gather_sdpa"], iters), 4)
    except Exception as exc:  # noqa: BLE001 - SDPA without a backend for this case
        row["sdpa_error"] = f"{type(exc).__name__}: {exc}"[:200]
    return row


def main(argv=None) -> int:
    import torch

    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--only", default="")
    ap.add_argument("--iters", type=int, default=20)
    ap.add_argument("--out", default="")
    a = ap.parse_args(argv)
    rows = []
    for name, build in _cases(torch).items():
        if a.only and name not in a.only.split(","):
            continue
        try:
            row = run_one(name, build, a.iters, torch)
        except Exception as exc:  # noqa: BLE001 - one program's failure is its row
            row = {"program": name, "error": f"{type(exc).__name__}: {exc}"[:400]}
        rows.append(row)
        print(json.dumps(row), flush=True)
        torch.cuda.empty_cache()
    if a.out:
        Path(a.out).parent.mkdir(parents=True, exist_ok=True)
        Path(a.out).write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
