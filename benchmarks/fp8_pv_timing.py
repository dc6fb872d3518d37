"""FlashAttention-3's fp8 forward on the chained tier (session 45, issue 20): the cuTile program
``fp8attn43_programs.fp8qkv_p_fp8`` (e4m3 Q, K and V, P cast to e4m3 for an e4m3 ``P V`` WGMMA reading V's launch-time
key-major copy) through ``tileorch.cutile.launch``, beside the same program with an f16 V (its f16-P form: P cast to
f16, the 16-bit ``P V``), torch SDPA fp16 (flash and cuDNN backends) in the same process, and the key-major copy of V
alone (tileorch's ``key_major16_copy_3d``, made by every fp8 launch: its time is inside the fp8 row's), non-causal.
Correctness: each tileorch output against the online softmax computed key tile by key tile in float32 with P rounded as
the program rounds it (relative Frobenius error, NaN-prefilled outputs); the path each ran.  TFLOP/s = 4 BH S^2 D.
Prints ``[s45 fp8attn] ...`` lines; ``--out`` writes the rows as JSON."""

from __future__ import annotations

import argparse
import json
import math
import sys


def online_ref(q, k, v, scale, bn, p_type):
    """O of the program's online softmax (float32, P rounded to ``p_type`` per key tile, the unrounded P summed)."""
    import torch

    s = (q.float() @ k.float().transpose(-1, -2)) * scale
    m = torch.full(s.shape[:-1] + (1,), float("-inf"), device=s.device)
    den = torch.zeros_like(m)
    acc = torch.zeros(s.shape[:-1] + (v.shape[-1],), device=s.device)
    for j in range(0, s.shape[-1], bn):
        sj = s[..., j:j + bn]
        m_new = torch.maximum(m, sj.amax(-1, keepdim=True))
        p, alpha = torch.exp(sj - m_new), torch.exp(m - m_new)
        den = den * alpha + p.sum(-1, keepdim=True)
        acc = acc * alpha + p.to(p_type).float() @ v[..., j:j + bn, :].float()
        m = m_new
    return acc / den


def run_case(bh: int, seq: int, d: int, tm: int, tn: int, iters: int) -> dict:
    import torch
    import torch.nn.functional as F
    from torch.nn.attention import SDPBackend, sdpa_kernel

    import tileorch.cutile
    from tileorch.launchers import launch_copies
    from tileorch.testing.attention_programs import LOG2E
    from tileorch.testing.fp8attn43_programs import fp8qkv_p_fp8
    from tileorch.testing.timing import bench_ms, rates, time_variant

    g = torch.Generator(device="cuda").manual_seed(45)
    q32, k32, v32 = (torch.randn(bh, seq, d, device="cuda", generator=g) for _ in range(3))
    q8, k8, v8 = ((x * 2).to(torch.float8_e4m3fn) for x in (q32, k32, v32))
    v16 = v8.half()  # the same values: the f16-P form differs in P's rounding only
    descale, scale = 0.25, 1.0 / math.sqrt(d)
    grid = ((seq + tm - 1) // tm, bh, 1)
    row: dict = {"bh": bh, "seq": seq, "d": d, "tiles": f"{tm}x{tn}"}
    for name, v, p_type in (("tileorch_fp8_pv", v8, torch.float8_e4m3fn), ("tileorch_f16_pv", v16, torch.float16)):
        ref = online_ref(q8, k8, v, descale * scale, tn, p_type) * 0.5
        out = torch.full((bh, seq, d), float("nan"), device="cuda", dtype=torch.float16)
        time_variant(row, name, tileorch.cutile.launch, fp8qkv_p_fp8, grid,
                     (q8, k8, v, out, descale, 0.5, scale * LOG2E, tm, tn, d), out, ref, iters)
        del ref
    buf = torch.empty(launch_copies.key_major16_shape(v8.shape), dtype=torch.uint8, device="cuda")
    from tileorch.launchers.k_major_copy import key_major16_plan

    found = key_major16_plan(v8.data_ptr(), tuple(v8.shape), tuple(v8.stride()), buf.data_ptr())
    stream = torch.cuda.current_stream()
    if isinstance(found, str):  # (the launcher's fallback: torch's strided copy)
        row["key_major16_copy_how"] = f"torch ({found})"
        row["key_major16_copy_ms"] = bench_ms(
            lambda: launch_copies.key_major16_torch(torch, v8.view(torch.uint8), buf), iters)
    else:
        kernel, cgrid, cargs = found
        row["key_major16_copy_how"] = "tileorch's key_major16_copy_3d"
        row["key_major16_copy_ms"] = bench_ms(lambda: tileorch.cutile.launch(stream, cgrid, kernel, cargs), iters)
    q4, k4, v4 = q32.half()[None], k32.half()[None], v32.half()[None]
    for name, backend in (("sdpa_flash_f16", SDPBackend.FLASH_ATTENTION),
                          ("sdpa_cudnn_f16", SDPBackend.CUDNN_ATTENTION)):
        try:
            with sdpa_kernel(backend):
                row[f"{name}_ms"] = bench_ms(lambda: F.scaled_dot_product_attention(q4, k4, v4, scale=scale), iters)
        except Exception as exc:  # noqa: BLE001 - a backend that cannot run this case is a row entry
            row[f"{name}_error"] = f"{type(exc).__name__}: {exc}"[:300]
    rates(row, 4.0 * bh * seq * seq * d, ("tileorch_fp8_pv", "tileorch_f16_pv", "sdpa_flash_f16", "sdpa_cudnn_f16"),
          against="tileorch_fp8_pv")
    return row


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--cases", default="32x4096x64:128x128,32x4096x128:128x128,16x8192x128:128x128",
                    help="BHxSxD:TMxTN, comma-separated")
    ap.add_argument("--iters", type=int, default=30)
    ap.add_argument("--out", default="")
    args = ap.parse_args(argv)
    import torch

    print(f"[s45 fp8attn] device {torch.cuda.get_device_name()}", flush=True)
    rows, ok = [], True
    for case in args.cases.split(","):
        shape, tiles = case.split(":")
        bh, seq, d = (int(x) for x in shape.split("x"))
        tm, tn = (int(x) for x in tiles.split("x"))
        row = run_case(bh, seq, d, tm, tn, args.iters)
        rows.append(row)
        good = row.get("tileorch_fp8_pv_rel_err", 1.0) < 1e-2 and row.get("tileorch_fp8_pv_kind") == "chained"
        ok &= good
        print(f"[s45 fp8attn] BH {bh} S {seq} D {d} tiles {tm}x{tn}: fp8 P V {row.get('tileorch_fp8_pv_tflops')} "
              f"TFLOP/s ({row.get('tileorch_fp8_pv_kind')}, rel err {row.get('tileorch_fp8_pv_rel_err', float('nan')):.2e}"
              f"{', ' + row['tileorch_fp8_pv_error'] if 'tileorch_fp8_pv_error' in row else ''}"
              f"{', spills ' + str(row['tileorch_fp8_pv_spills']) if 'tileorch_fp8_pv_spills' in row else ''}; "
              f"V copy {row.get('key_major16_copy_ms', float('nan')):.4f} ms of {row.get('tileorch_fp8_pv_ms', 0):.4f}); "
              f"f16-P form {row.get('tileorch_f16_pv_tflops')} ({row.get('tileorch_f16_pv_kind')}, rel err "
              f"{row.get('tileorch_f16_pv_rel_err', float('nan')):.2e}); SDPA f16 flash {row.get('sdpa_flash_f16_tflops')}"
              f" cuDNN {row.get('sdpa_cudnn_f16_tflops')}; correct+chained: {good}", flush=True)
    if args.out:
        with open(args.out, "w") as f:
            json.dump(rows, f, indent=1)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
