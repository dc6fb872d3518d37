"""Session 44's attention forms on the chained tier (issue 20): (1) query rows routed by an index vector
(``attnforms44_programs.a44_routed_q``: ``Q[Idx]`` gathered by the consumer warp groups into the swizzled Q tile,
K / V by TMA) and (2) sink keys / values in arrays of their own computed by a dot before the key loop
(``attnsweep43_programs.a43_sink_block_dot_before``: the step fused as the loop's first iteration, read through tensor
maps of their own), each through ``tileorch.cutile.launch`` beside torch in the same process: SDPA (flash and cuDNN
backends, f16) of the same attention with the gather / the concatenation done by torch first (``Q[Idx]``,
``torch.cat``) and timed with it, and SDPA of contiguous inputs without it.  Correctness: the tileorch output
(NaN-prefilled) against torch float32 SDPA (relative Frobenius error); the path each tileorch variant took.
TFLOP/s = 4 n S D H (routed), 4 BH S (S + BN) D (sink).  Prints ``[s44 attnforms] ...``; ``--out`` writes JSON."""

from __future__ import annotations

import argparse
import json
import math
import sys


def _sdpa_rows(row: dict, prefix: str, fn, iters: int) -> None:
    from torch.nn.attention import SDPBackend, sdpa_kernel

    from tileorch.testing.timing import bench_ms

    for name, backend in (("flash", SDPBackend.FLASH_ATTENTION), ("cudnn", SDPBackend.CUDNN_ATTENTION)):
        try:
            with sdpa_kernel(backend):
                row[f"{prefix}_{name}_ms"] = bench_ms(fn, iters)
        except Exception as exc:  # noqa: BLE001 - a backend that cannot run this case is a row entry
            row[f"{prefix}_{name}_error"] = f"{type(exc).__name__}: {exc}"[:300]


def routed(tokens: int, n: int, h: int, seq: int, d: int, tm: int, iters: int) -> dict:
    import torch
    import torch.nn.functional as F

    import tileorch.cutile
    from tileorch.testing.attnforms44_programs import a44_routed_q, scale2
    from tileorch.testing.timing import rates, time_variant

    g = torch.Generator(device="cuda").manual_seed(44)
    q = torch.randn(tokens, h, d, device="cuda", generator=g).half()
    k, v = (torch.randn(h, seq, d, device="cuda", generator=g).half() for _ in range(2))
    idx = torch.randperm(tokens, device="cuda", generator=g)[:n].to(torch.int32)
    scale = 1.0 / math.sqrt(d)
    qg = q[idx.long()].transpose(0, 1)  # [H, n, D]
    ref = F.scaled_dot_product_attention(qg.float(), k.float(), v.float(), scale=scale).transpose(0, 1)
    row: dict = {"form": "routed_q", "tokens": tokens, "n": n, "h": h, "seq": seq, "d": d, "tiles": f"{tm}x64"}
    o = torch.full((n, h, d), float("nan"), device="cuda", dtype=torch.float16)
    time_variant(row, "tileorch", tileorch.cutile.launch, a44_routed_q, ((n + tm - 1) // tm, h, 1),
                 (q, idx, k, v, o, scale2(d), tm, 64, d), o, ref, iters)
    _sdpa_rows(row, "sdpa_gather", lambda: F.scaled_dot_product_attention(q[idx.long()].transpose(0, 1)[None], k[None],
                                                                          v[None], scale=scale), iters)
    qc = qg.contiguous()[None]
    _sdpa_rows(row, "sdpa_contig", lambda: F.scaled_dot_product_attention(qc, k[None], v[None], scale=scale), iters)
    rates(row, 4.0 * n * seq * d * h, ("tileorch", "sdpa_gather_flash", "sdpa_gather_cudnn", "sdpa_contig_flash",
                                       "sdpa_contig_cudnn"))
    return row


def sink(bh: int, seq: int, d: int, iters: int) -> dict:
    import torch
    import torch.nn.functional as F

    import tileorch.cutile
    from tileorch.testing.attnsweep43_programs import a43_sink_block_dot_before, scale2
    from tileorch.testing.timing import rates, time_variant

    g = torch.Generator(device="cuda").manual_seed(45)
    q, k, v = (torch.randn(bh, seq, d, device="cuda", generator=g).half() for _ in range(3))
    ks, vs = (torch.randn(bh, 64, d, device="cuda", generator=g).half() for _ in range(2))
    scale = 1.0 / math.sqrt(d)
    ref = F.scaled_dot_product_attention(q.float(), torch.cat([ks, k], 1).float(), torch.cat([vs, v], 1).float(),
                                         scale=scale)
    row: dict = {"form": "sink_dot_before", "bh": bh, "seq": seq, "d": d, "tiles": "64x64"}
    o = torch.full((bh, seq, d), float("nan"), device="cuda", dtype=torch.float16)
    time_variant(row, "tileorch", tileorch.cutile.launch, a43_sink_block_dot_before, ((seq + 63) // 64, bh, 1),
                 (q, k, v, ks, vs, o, scale2(d), 64, 64, d), o, ref, iters)
    _sdpa_rows(row, "sdpa_cat", lambda: F.scaled_dot_product_attention(q[None], torch.cat([ks, k], 1)[None],
                                                                       torch.cat([vs, v], 1)[None], scale=scale), iters)
    kc, vc = torch.cat([ks, k], 1)[None], torch.cat([vs, v], 1)[None]
    _sdpa_rows(row, "sdpa_contig", lambda: F.scaled_dot_product_attention(q[None], kc, vc, scale=scale), iters)
    rates(row, 4.0 * bh * seq * (seq + 64) * d, ("tileorch", "sdpa_cat_flash", "sdpa_cat_cudnn", "sdpa_contig_flash",
                                                 "sdpa_contig_cudnn"))
    return row


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--routed", default="16384x8192x16x4096x128:128,16384x8192x16x4096x64:128",
                    help="TxNxHxSxD:TM, comma-separated (empty: none)")
    ap.add_argument("--sink", default="32x4096x128,32x4096x64", help="BHxSxD, comma-separated (empty: none)")
    ap.add_argument("--iters", type=int, default=20)
    ap.add_argument("--out", default="")
    args = ap.parse_args(argv)
    import torch

    print(f"[s44 attnforms] device {torch.cuda.get_device_name()}", flush=True)
    rows, ok = [], True
    cases = [("routed", c) for c in args.routed.split(",") if c] + [("sink", c) for c in args.sink.split(",") if c]
    for form, case in cases:
        if form == "routed":
            shape, tm = case.split(":")
            row = routed(*(int(x) for x in shape.split("x")), int(tm), args.iters)
            others = ("sdpa_gather_flash", "sdpa_gather_cudnn", "sdpa_contig_flash", "sdpa_contig_cudnn")
        else:
            row = sink(*(int(x) for x in case.split("x")), args.iters)
            others = ("sdpa_cat_flash", "sdpa_cat_cudnn", "sdpa_contig_flash", "sdpa_contig_cudnn")
        rows.append(row)
        good = row.get("tileorch_rel_err", 1.0) < 1e-2 and row.get("tileorch_kind") == "chained"
        ok &= good
        print(f"[s44 attnforms] {form} {case}: tileorch {row.get('tileorch_tflops')} TFLOP/s ({row.get('tileorch_kind')}"
              f", rel err {row.get('tileorch_rel_err', float('nan')):.2e}"
              f"{', ' + row['tileorch_error'] if 'tileorch_error' in row else ''}"
              f"{', spills ' + str(row['tileorch_spills']) if 'tileorch_spills' in row else ''}); "
              + "; ".join(f"{x} {row.get(x + '_tflops')}" for x in others) + f"; correct+chained: {good}", flush=True)
    if args.out:
        with open(args.out, "w") as f:
            json.dump(rows, f, indent=1)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
