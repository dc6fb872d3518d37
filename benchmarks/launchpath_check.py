"""Session 42 (s42-launchpath): batched GEMMs launched on operands whose matrices are not stacked -- a strided batch
of A (``x[::2]``: every other matrix of a larger buffer; of A and B for the small case) and a B broadcast over the batch by a stride of 0
(``w.expand(L, K, N)``) -- and ``(a * gamma[k]) @ b`` with gamma's base 2 bytes off a 16-byte boundary (the kernel
with the consumers' global loads of gamma, ``kvec_global=1``) -- on the GPU: the path each launch ran (``tileorch.testing.launch_path``: the tier, not the
SIMT fallback), the result against torch fp32 (output NaN-prefilled), then a short timing beside the same kernel on
stacked copies of the operands and the torch call a user would make (``torch.bmm`` / ``torch.matmul``, f16 out).

Session 43 (s43-launch, ``--s43``): the misaligned gamma is copied into an aligned scratch before each launch and the
TMA kernel reads it (timed beside the aligned launch, torch, and the consumers' global loads of session 42's path,
``TILEORCH_COMPUTED_OPERAND=global_k_vectors``); a strided C batch (every other matrix) and transposed-view batches
(A and C ``transpose(0, 1)`` views of ``[M, L, K]`` / ``[M, L, N]`` storage) stored through a packed scratch C copied
out (timed beside stacked arrays and torch); an overlapping input batch (batch stride half a matrix, correctness).

    python benchmarks/launchpath_check.py [--size 2048] [--batch 8] [--iters 20] [--out FILE] [--s43]

Prints ``[s42 launchpath] ...`` lines (``[s43 launch] ...`` with ``--s43``) and writes JSON."""

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
    ap.add_argument("--s43", action="store_true", help="session 43's cases only (scratch copies, transposed views)")
    opts = ap.parse_args()
    tag = "[s43 launch]" if opts.s43 else "[s42 launchpath]"
    stream = torch.cuda.current_stream()
    torch.manual_seed(0)
    rows, failures = [], 0

    def case(label, kernel, a, b, shape, ref, torch_call, timed, more=(), c=None, tiles=None, stacked=None, also=()):
        """``c``: the output to launch on (default: a NaN-filled [L, M, N] f32 array); ``stacked``: the arguments
        of the fast path to time beside it (default: contiguous A and B, aligned vectors); ``also``: more
        (label, env, arguments) timed beside it, ``env`` set for its compile."""
        nonlocal failures
        if c is None:
            c = torch.full(shape, float("nan"), device="cuda", dtype=torch.float32)
        else:
            c.fill_(float("nan"))
        grid = (-(-shape[1] // (tiles or (64,))[0]), -(-shape[2] // (tiles or (64, 64))[1]), shape[0])
        out = c[0] if more else c  # (the K-vector program is 2-D: C [M, N])
        args = (a, *more, b, out, *(tiles or (64, 64, 32 if not more else 64)))
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
        print(f"{tag} {'ok' if ok else 'FAIL'} {label} {tuple(shape)}: ran {ran}, rel err {err:.2e}"
              + ("" if ok else f"; {remark[:200]}"))
        if ok and timed:
            flops = 2.0 * shape[0] * shape[1] * shape[2] * a.shape[-1]
            ms = bench_ms(lambda: tileorch.cutile.launch(stream, grid, kernel, args), opts.iters)
            if stacked is None:
                fast = (a.contiguous(), *(x.clone() for x in more), b.contiguous(), out, *args[-3:])
            else:  # (a vector at an aligned base: its TMA-loaded kernel; stacked arrays)
                fast = stacked
            ms_stacked = bench_ms(lambda: tileorch.cutile.launch(stream, grid, kernel, fast), opts.iters)
            ms_torch = bench_ms(torch_call, opts.iters)
            row.update(ms=ms, tflops=round(flops / ms / 1e9, 1), stacked_ms=ms_stacked,
                       stacked_tflops=round(flops / ms_stacked / 1e9, 1), torch_ms=ms_torch,
                       torch_tflops=round(flops / ms_torch / 1e9, 1))
            for name, env, more_args in also:
                import os

                old = {k_: os.environ.get(k_) for k_ in env}
                os.environ.update(env)
                rc.clear_caches()
                try:
                    ms_also = bench_ms(lambda: tileorch.cutile.launch(stream, grid, kernel, more_args), opts.iters)
                finally:
                    for k_, v in old.items():
                        os.environ.pop(k_, None) if v is None else os.environ.__setitem__(k_, v)
                    rc.clear_caches()
                row[f"{name}_tflops"] = round(flops / ms_also / 1e9, 1)
            print(f"{tag} time {label}: {row['tflops']} TFLOP/s (fast path {row['stacked_tflops']}, "
                  f"torch {row['torch_tflops']}"
                  + "".join(f", {name} {row[name + '_tflops']}" for name, _, _ in also) + ")")
        rows.append(row)

    if opts.s43:
        return s43(opts, case, rows, tag, lambda: failures)
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


def s43(opts, case, rows, tag, failures) -> int:
    """Session 43's cases (see the module's docstring)."""
    import torch

    from tileorch.testing.computed_b_programs import a_times_gamma
    from tileorch.testing.user_programs6 import mm_batched_strided_batch as tview
    from tileorch.testing.user_programs31 import gemm_batched_strided_batch_view as strided

    for (M, N, K), timed in (((100, 80, 160), False), ((opts.size, opts.size, opts.size), True)):
        a = torch.randn(M, K, device="cuda", dtype=torch.float16)
        g = (torch.rand(K + 1, device="cuda", dtype=torch.float16) + 0.5)[1:]  # base 2 bytes past 16
        b = torch.randn(K, N, device="cuda", dtype=torch.float16)
        ref = ((a.float() * g.float()).half().float() @ b.float())[None]
        c2 = torch.full((M, N), float("nan"), device="cuda", dtype=torch.float32)
        case("misaligned_gamma_copied", a_times_gamma, a, b, (1, M, N), ref,
             lambda a=a, g=g, b=b: torch.matmul(a * g, b), timed, more=(g,),
             also=[("global_loads", {"TILEORCH_COMPUTED_OPERAND": "global_k_vectors"},
                    (a, g, b, c2, 64, 64, 64))])
    for (L, M, N, K), timed in (((3, 100, 80, 64), False), ((opts.batch, opts.size, opts.size, opts.size), True)):
        a = torch.randn(L, M, K, device="cuda", dtype=torch.float16)
        b = torch.randn(L, K, N, device="cuda", dtype=torch.float16)
        big = torch.empty(2 * L, M, N, device="cuda", dtype=torch.float32)
        c = big[::2]  # every other matrix
        packed = torch.empty(L, M, N, device="cuda", dtype=torch.float32)
        ref = torch.bmm(a.float(), b.float())
        case("strided_c", strided, a, b, (L, M, N), ref, lambda a=a, b=b: torch.bmm(a, b), timed, c=c,
             stacked=(a, b, packed, 64, 64, 32))
        # transposed views: A of [M, L, K] storage, C of [M, L, N] storage (f16 C; tiles 128 x 128 x 64)
        a_store = torch.randn(M, L, K, device="cuda", dtype=torch.float16)
        c_store = torch.empty(M, L, N, device="cuda", dtype=torch.float16)
        at, ct_ = a_store.transpose(0, 1), c_store.transpose(0, 1)
        ref = torch.bmm(at.float(), b.float())
        case("transposed_views", tview, at, b, (L, M, N), ref, lambda at=at, b=b: torch.bmm(at, b), timed, c=ct_,
             tiles=(128, 128, 64), stacked=(at.contiguous(), b, torch.empty(L, M, N, device="cuda",
                                                                            dtype=torch.float16), 128, 128, 64))
        if not timed:  # an overlapping input batch: matrix l + 1 starts half-way into matrix l
            store = torch.randn(L * M * K, device="cuda", dtype=torch.float16)
            ao = store.as_strided((L, M, K), (M * K // 2, K, 1))
            case("overlapping_a", strided, ao, b, (L, M, N), torch.bmm(ao.float(), b.float()),
                 lambda: None, False)
    bad = attention_kt(opts, rows, tag)
    with open(opts.out, "w") as f:
        json.dump({"rows": rows, "device": torch.cuda.get_device_name()}, f, indent=1)
    bad += failures()
    print(f"{tag} {len(rows) - bad}/{len(rows)} cases on the tier and correct")
    return 1 if bad else 0



def attention_kt(opts, rows, tag) -> int:
    """sweep 36's cross attention with K stored transposed ``[BH, D, Sk]``: 2050 f16 keys (rows of 4100 bytes, no
    16-byte multiple: the chained kernel on a padded copy of K^T, made before each launch) beside 2048 keys (read in
    place) and torch's ``scaled_dot_product_attention``; O NaN-prefilled, vs torch fp32.  Returns the failures."""
    import math

    import torch

    import tileorch.cutile
    from tileorch.launchers import cutile as rc
    from tileorch.testing import launch_path
    from tileorch.testing.attnsweep36_programs import s36_kt_array_cross, scale2
    from tileorch.testing.timing import bench_ms

    bad = 0
    stream = torch.cuda.current_stream()
    bh, sq, d = 32, 2048, 96
    times = {}
    for keys in (2050, 2048):
        q = torch.randn(bh, sq, d, device="cuda", dtype=torch.float16)
        kt = torch.randn(bh, d, keys, device="cuda", dtype=torch.float16)
        v = torch.randn(bh, keys, d, device="cuda", dtype=torch.float16)
        o = torch.full((bh, sq, d), float("nan"), device="cuda", dtype=torch.float16)
        args, grid = (q, kt, v, o, scale2(d), 64, 64, 128), (sq // 64, bh, 1)
        rc.clear_caches()
        launch_path.begin()
        tileorch.cutile.launch(stream, grid, s36_kt_array_cross, args)
        torch.cuda.synchronize()
        ran = launch_path.ran(s36_kt_array_cross, grid)
        ref = torch.softmax(q.float() @ kt.float() / math.sqrt(d), dim=-1) @ v.float()
        err = float("nan") if torch.isnan(o).any() else float(((o.float() - ref).abs().max() / ref.abs().max()))
        ok = ran == "chained" and err < 2e-2
        bad += not ok
        flops = 4.0 * bh * sq * keys * d
        ms = bench_ms(lambda: tileorch.cutile.launch(stream, grid, s36_kt_array_cross, args), opts.iters)
        k = kt.transpose(1, 2)
        ms_torch = bench_ms(lambda: torch.nn.functional.scaled_dot_product_attention(q, k, v), opts.iters)
        times[keys] = round(flops / ms / 1e9, 1)
        rows.append({"case": f"attention_kt_{keys}", "ran": ran, "err": err, "tflops": times[keys],
                     "torch_tflops": round(flops / ms_torch / 1e9, 1)})
        print(f"{tag} {'ok' if ok else 'FAIL'} attention_kt keys={keys} ({bh}, {sq}, {d}): ran {ran}, rel err "
              f"{err:.2e}; {times[keys]} TFLOP/s (torch sdpa {rows[-1]['torch_tflops']})")
    return bad


if __name__ == "__main__":
    raise SystemExit(main())
