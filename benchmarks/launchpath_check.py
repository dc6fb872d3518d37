"""Session 42 (s42-launchpath): batched GEMMs launched on operands whose matrices are not stacked -- a strided batch
of A (``x[::2]``: every other matrix of a larger buffer; of A and B for the small case) and a B broadcast over the batch by a stride of 0
(``w.expand(L, K, N)``) -- and ``(a * gamma[k]) @ b`` with gamma's base 2 bytes off a 16-byte boundary (the kernel
with the consumers' global loads of gamma, ``kvec_global=1``) -- on the GPU: the path each launch ran (``tileorch.testing.launch_path``: the tier, not the
SIMT fallback), the result against torch fp32 (output NaN-prefilled), then a short timing beside the same kernel on
stacked copies of the operands and the torch call a user would make (``torch.bmm`` / ``torch.matmul``, f16 out).

    python benchmarks/launchpath_check.py [--size 2048] [--batch 8] [--iters 20] [--out FILE]

Prints ``[s42 launchpath] ...`` lines and writes JSON."""

from __future__ import annotations

import argparse
import json


def main() -> int:
    import torch

    import tileorch.cutile
    from tileorch.launchers import cutile as rc
    from tileorch.testing import launch_path
    from tileorch.testing.timing import bench_ms
    from tileorch.testing.user_programs26 import bmm_b_broadcast_by_zero_batch_stride as bcast
    from tileorch.testing.user_programs31 import gemm_batched_strided_batch_view as strided

    ap = argparse.ArgumentParser()
    ap.add_argument("--size", type=int, default=2048)
    ap.add_argument("--batch", type=int, default=8)
    ap.add_argument("--iters", type=int, default=20)
    ap.add_argument("--max-err", type=float, default=2e-2)
    ap.add_argument("--out", default="launchpath.json")
    opts = ap.parse_args()
    stream = torch.cuda.current_stream()
    torch.manual_seed(0)
    rows, failures = [], 0

    def case(label, kernel, a, b, shape, ref, torch_call, timed, more=()):
        nonlocal failures
        c = torch.full(shape, float("nan"), device="cuda", dtype=torch.float32)
        grid = (-(-shape[1] // 64), -(-shape[2] // 64), shape[0])
        out = c[0] if more else c  # (the K-vector program is 2-D: C [M, N])
        args = (a, *more, b, out, 64, 64, 32 if not more else 64)
        rc.clear_caches()
        launch_path.begin()
        tileorch.cutile.launch(stream, grid, kernel, args)
        torch.cuda.synchronize()
        ran = launch_path.ran(kernel, grid)
        entry = rc.compiled(kernel, rc.describe_arguments(kernel, args), "sm_90a", "persistent", defer_gemm=True)
        remark = entry.launch_remarks.get(tuple(grid), "")
        err = float("nan") if torch.isnan(c).any() else float(((c - ref).abs().max() / ref.abs().max()).item())
        row = {"case": label, "shape": list(shape), "ran": ran, "err": err, "remark": remark[:300]}
        ok = ran == "gemm" and err < opts.max_err
        failures += not ok
        print(f"[s42 launchpath] {'ok' if ok else 'FAIL'} {label} {tuple(shape)}: ran {ran}, rel err {err:.2e}"
              + ("" if ok else f"; {remark[:200]}"))
        if ok and timed:
            flops = 2.0 * shape[0] * shape[1] * shape[2] * a.shape[-1]
            ms = bench_ms(lambda: tileorch.cutile.launch(stream, grid, kernel, args), opts.iters)
            stacked = (a.contiguous(), b.contiguous())
            aligned = tuple(x.clone() for x in more)  # (a vector at an aligned base: its TMA-loaded kernel)
            ms_stacked = bench_ms(lambda: tileorch.cutile.launch(stream, grid, kernel, (
                stacked[0], *aligned, stacked[1], out, *args[-3:])), opts.iters)
            ms_torch = bench_ms(torch_call, opts.iters)
            row.update(ms=ms, tflops=round(flops / ms / 1e9, 1), stacked_ms=ms_stacked,
                       stacked_tflops=round(flops / ms_stacked / 1e9, 1), torch_ms=ms_torch,
                       torch_tflops=round(flops / ms_torch / 1e9, 1))
            print(f"[s42 launchpath] time {label}: {row['tflops']} TFLOP/s (stacked copies {row['stacked_tflops']}, "
                  f"torch {row['torch_tflops']})")
        rows.append(row)

    for (L, M, N, K), timed in (((3, 100, 80, 64), False), ((opts.batch, opts.size, opts.size, opts.size), True)):
        big = torch.randn(2 * L, M, K, device="cuda", dtype=torch.float16)
        a = big[::2]  # every other matrix: batch stride 2 M K
        b = torch.randn(L, K, N, device="cuda", dtype=torch.float16)
        ref = torch.bmm(a.float(), b.float())
        case("strided_batch_a", strided, a, b, (L, M, N), ref, lambda a=a, b=b: torch.bmm(a, b), timed)
        if not timed:  # every other matrix of B too (correctness only)
            b2 = torch.randn(2 * L, K, N, device="cuda", dtype=torch.float16)[::2]
            case("strided_batch_ab", strided, a, b2, (L, M, N), torch.bmm(a.float(), b2.float()),
                 lambda a=a, b2=b2: torch.bmm(a, b2), False)
        w = torch.randn(K, N, device="cuda", dtype=torch.float16)
        a2 = torch.randn(L, M, K, device="cuda", dtype=torch.float16)
        we = w.expand(L, K, N)  # batch stride 0
        ref = torch.matmul(a2.float(), w.float())
        case("broadcast_b", bcast, a2, we, (L, M, N), ref, lambda a2=a2, w=w: torch.matmul(a2, w), timed)
    from tileorch.testing.computed_b_programs import a_times_gamma

    for (M, N, K), timed in (((100, 80, 160), False), ((opts.size, opts.size, opts.size), True)):
        a = torch.randn(M, K, device="cuda", dtype=torch.float16)
        g = (torch.rand(K + 1, device="cuda", dtype=torch.float16) + 0.5)[1:]  # base 2 bytes past 16
        b = torch.randn(K, N, device="cuda", dtype=torch.float16)
        ref = ((a.float() * g.float()).half().float() @ b.float())[None]
        case("misaligned_gamma", a_times_gamma, a, b, (1, M, N), ref,
             lambda a=a, g=g, b=b: torch.matmul(a * g, b), timed, more=(g,))
    with open(opts.out, "w") as f:
        json.dump({"rows": rows, "device": torch.cuda.get_device_name()}, f, indent=1)
    print(f"[s42 launchpath] {len(rows) - failures}/{len(rows)} cases on the tier and correct")
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
