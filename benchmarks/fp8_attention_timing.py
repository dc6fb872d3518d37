"""fp8 attention on the chained tier (session 43, issue 20): the cuTile FlashAttention forward with e4m3 Q and K and
f16 V (``fp8attn43_programs.fp8qk_descaled``: ``S = (Q K^T) * descale`` on the e4m3 WGMMA, exp2 softmax, f16 ``P V``)
through ``tileorch.cutile.launch``, beside the same program shape in f16 (``attention_programs.attention_fwd``), torch
SDPA fp16 (flash and cuDNN backends) in the same process, non-causal.  Correctness: the fp8 output against torch
float32 SDPA of the dequantized inputs (relative Frobenius error, NaN-prefilled output); the path each tileorch
variant ran.  TFLOP/s = 4 BH S^2 D.  Prints ``[s43 fp8attn] ...`` lines; ``--out`` writes the rows as JSON.
"""

from __future__ import annotations

import argparse
import json
import math
import sys


def run_case(bh: int, seq: int, d: int, tm: int, tn: int, iters: int) -> dict:
    import torch
    import torch.nn.functional as F
    from torch.nn.attention import SDPBackend, sdpa_kernel

    import tileorch.cutile
    from tileorch.testing.attention_programs import LOG2E, attention_fwd
    from tileorch.testing.fp8attn43_programs import fp8qk_descaled
    from tileorch.testing.timing import rates, time_variant

    g = torch.Generator(device="cuda").manual_seed(43)
    q32, k32, v32 = (torch.randn(bh, seq, d, device="cuda", generator=g) for _ in range(3))
    q8, k8 = (q32 * 2).to(torch.float8_e4m3fn), (k32 * 2).to(torch.float8_e4m3fn)
    v16 = v32.half()
    descale, scale = 0.25, 1.0 / math.sqrt(d)
    ref8 = F.scaled_dot_product_attention(q8.float()[None], k8.float()[None], v16.float()[None],
                                          scale=descale * scale)[0]
    grid = ((seq + tm - 1) // tm, bh, 1)
    row: dict = {"bh": bh, "seq": seq, "d": d, "tiles": f"{tm}x{tn}"}
    o8 = torch.full((bh, seq, d), float("nan"), device="cuda", dtype=torch.float16)
    time_variant(row, "tileorch_fp8", tileorch.cutile.launch, fp8qk_descaled, grid,
                 (q8, k8, v16, o8, descale, scale * LOG2E, tm, tn, d), o8, ref8, iters)
    q16, k16 = q32.half(), k32.half()
    ref16 = F.scaled_dot_product_attention(q16.float()[None], k16.float()[None], v16.float()[None], scale=scale)[0]
    o16 = torch.full((bh, seq, d), float("nan"), device="cuda", dtype=torch.float16)
    time_variant(row, "tileorch_f16", tileorch.cutile.launch, attention_fwd, grid,
                 (q16, k16, v16, o16, scale * LOG2E, seq, tm, tn, d, False), o16, ref16, iters)
    q4, k4, v4 = q16[None], k16[None], v16[None]
    for name, backend in (("sdpa_flash_f16", SDPBackend.FLASH_ATTENTION), ("sdpa_cudnn_f16", SDPBackend.CUDNN_ATTENTION)):
        try:
            with sdpa_kernel(backend):
                from tileorch.testing.timing import bench_ms

                row[f"{name}_ms"] = bench_ms(lambda: F.scaled_dot_product_attention(q4, k4, v4, scale=scale), iters)
        except Exception as exc:  # noqa: BLE001 - a backend that cannot run this case is a row entry
            row[f"{name}_error"] = f"{type(exc).__name__}: {exc}"[:300]
    rates(row, 4.0 * bh * seq * seq * d, ("tileorch_fp8", "tileorch_f16", "sdpa_flash_f16", "sdpa_cudnn_f16"),
          against="tileorch_fp8")
    return row


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--cases", default="32x4096x64:128x128,32x4096x128:128x128,16x8192x128:128x128",
                    help="BHxSxD:TMxTN, comma-separated")
    ap.add_argument("--iters", type=int, default=30)
    ap.add_argument("--out", default="")
    args = ap.parse_args(argv)
    import torch

    print(f"[s43 fp8attn] device {torch.cuda.get_device_name()}", flush=True)
    rows, ok = [], True
    for case in args.cases.split(","):
        shape, tiles = case.split(":")
        bh, seq, d = (int(x) for x in shape.split("x"))
        tm, tn = (int(x) for x in tiles.split("x"))
        row = run_case(bh, seq, d, tm, tn, args.iters)
        rows.append(row)
        good = row.get("tileorch_fp8_rel_err", 1.0) < 1e-2 and row.get("tileorch_fp8_kind") == "chained"
        ok &= good
        print(f"[s43 fp8attn] BH {bh} S {seq} D {d} tiles {tm}x{tn}: fp8 {row.get('tileorch_fp8_tflops')} TFLOP/s "
              f"({row.get('tileorch_fp8_kind')}, rel err {row.get('tileorch_fp8_rel_err', float('nan')):.2e}"
              f"{', ' + row['tileorch_fp8_error'] if 'tileorch_fp8_error' in row else ''}"
              f"{', spills ' + str(row['tileorch_fp8_spills']) if 'tileorch_fp8_spills' in row else ''}); "
              f"tileorch f16 {row.get('tileorch_f16_tflops')} ({row.get('tileorch_f16_kind')}, rel err "
              f"{row.get('tileorch_f16_rel_err', float('nan')):.2e}); SDPA f16 flash {row.get('sdpa_flash_f16_tflops')}"
              f" cuDNN {row.get('sdpa_cudnn_f16_tflops')}; correct+chained: {good}", flush=True)
    if args.out:
        with open(args.out, "w") as f:
            json.dump(rows, f, indent=1)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
