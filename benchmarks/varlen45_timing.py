"""Session 45's varlen attention on the chained tier (issue 20): ``varlen45_programs.a45_varlen_causal`` /
``a45_varlen_full`` (Q, K, V gathered at ``start + positions`` under a row mask, O scattered back: row windows loaded
by TMA, the rows past a window's end zeroed in shared memory) through ``tileorch.cutile.launch`` beside torch in the
same process: SDPA (flash and cuDNN backends) on the batch padded to the longest sequence (the padding copy not
timed), and ``flash_attn.flash_attn_varlen_func`` where it is installed.  Sequences of random lengths (seeded) packed
back to back (``Used`` = the lengths).  Correctness: the tileorch output (NaN-prefilled) against torch float32 SDPA per
sequence (relative Frobenius error over the used rows); the path it took.  TFLOP/s of the varlen work itself:
4 D H sum(n^2) (non-causal), half of it causal.  Prints ``[s45 varlen] ...``; ``--out`` writes JSON."""

from __future__ import annotations

import argparse
import json
import math
import sys


def case(b: int, mean: int, h: int, d: int, causal: bool, iters: int, tm: int = 64) -> dict:
    import torch
    import torch.nn.functional as F

    import tileorch.cutile
    from tileorch.testing.timing import bench_ms, rates, time_variant
    from tileorch.testing.varlen45_programs import LOG2E, a45_varlen_causal, a45_varlen_full

    g = torch.Generator(device="cpu").manual_seed(45)
    lens = torch.randint(mean // 2, mean * 3 // 2 + 1, (b,), generator=g).tolist()
    cu = [0]
    for n in lens:
        cu.append(cu[-1] + n)
    t, smax = cu[-1], max(lens)
    gd = torch.Generator(device="cuda").manual_seed(45)
    q, k, v = (torch.randn(t, h, d, device="cuda", generator=gd).half() for _ in range(3))
    cu_t = torch.tensor(cu, dtype=torch.int32, device="cuda")
    used = torch.tensor(lens, dtype=torch.int32, device="cuda")
    scale = 1.0 / math.sqrt(d)
    ref = torch.full((t, h, d), float("nan"), device="cuda")
    for a, n in zip(cu[:-1], lens):
        ref[a:a + n] = F.scaled_dot_product_attention(*(x[a:a + n].transpose(0, 1).float() for x in (q, k, v)),
                                                      is_causal=causal, scale=scale).transpose(0, 1)
    row: dict = {"b": b, "mean": mean, "max": smax, "tokens": t, "h": h, "d": d, "causal": causal, "tiles": f"{tm}x64"}
    o = torch.full((t, h, d), float("nan"), device="cuda", dtype=torch.float16)
    kern = a45_varlen_causal if causal else a45_varlen_full
    time_variant(row, "tileorch", tileorch.cutile.launch, kern, ((smax + tm - 1) // tm, h, b),
                 (q, k, v, cu_t, used, o, LOG2E / math.sqrt(d), tm, 64, d, 1), o, ref, iters)
    pad = [torch.zeros(b, h, smax, d, device="cuda", dtype=torch.float16) for _ in range(3)]
    for i, (a, n) in enumerate(zip(cu[:-1], lens)):
        for x, p in zip((q, k, v), pad):
            p[i, :, :n] = x[a:a + n].transpose(0, 1)
    from torch.nn.attention import SDPBackend, sdpa_kernel

    for name, backend in (("flash", SDPBackend.FLASH_ATTENTION), ("cudnn", SDPBackend.CUDNN_ATTENTION)):
        try:
            with sdpa_kernel(backend):  # (keys past a sequence's end: zero padding, which causal masks out only
                row[f"sdpa_padded_{name}_ms"] = bench_ms(  # for causal; the time is what matters here)
                    lambda: F.scaled_dot_product_attention(*pad, is_causal=causal, scale=scale), iters)
        except Exception as exc:  # noqa: BLE001 - a backend that cannot run this case is a row entry
            row[f"sdpa_padded_{name}_error"] = f"{type(exc).__name__}: {exc}"[:300]
    try:
        from flash_attn import flash_attn_varlen_func

        row["flash_varlen_ms"] = bench_ms(lambda: flash_attn_varlen_func(q, k, v, cu_t, cu_t, smax, smax,
                                                                         softmax_scale=scale, causal=causal), iters)
    except Exception as exc:  # noqa: BLE001 - not installed, or it cannot run this case
        row["flash_varlen_error"] = f"{type(exc).__name__}: {exc}"[:200]
    flops = 4.0 * d * h * sum(n * n for n in lens) * (0.5 if causal else 1.0)
    rates(row, flops, ("tileorch", "sdpa_padded_flash", "sdpa_padded_cudnn", "flash_varlen"))
    return row


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--cases", default="16x1024x16x128:c,16x1024x16x64:c,16x1024x16x128:f,64x256x16x128:c",
                    help="BxMEANxHxD:c|f (causal / full), comma-separated")
    ap.add_argument("--iters", type=int, default=20)
    ap.add_argument("--out", default="")
    args = ap.parse_args(argv)
    import torch

    print(f"[s45 varlen] device {torch.cuda.get_device_name()}", flush=True)
    rows, ok = [], True
    for c in args.cases.split(","):
        shape, form = c.split(":")
        row = case(*(int(x) for x in shape.split("x")), form == "c", args.iters)
        rows.append(row)
        good = row.get("tileorch_rel_err", 1.0) < 1e-2 and row.get("tileorch_kind") == "chained"
        ok &= good
        print(f"[s45 varlen] {c} (max {row['max']}): tileorch {row.get('tileorch_tflops')} TFLOP/s "
              f"({row.get('tileorch_kind')}, rel err {row.get('tileorch_rel_err', float('nan')):.2e}"
              f"{', ' + row['tileorch_error'] if 'tileorch_error' in row else ''}"
              f"{', spills ' + str(row['tileorch_spills']) if 'tileorch_spills' in row else ''}); "
              + "; ".join(f"{x} {row.get(x + '_tflops')}" for x in ("sdpa_padded_flash", "sdpa_padded_cudnn",
                                                                   "flash_varlen"))
              + f"; correct+chained: {good}", flush=True)
    if args.out:
        with open(args.out, "w") as f:
            json.dump(rows, f, indent=1)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
