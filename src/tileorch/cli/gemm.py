"""``tileorch gemm M N K``: build (or run) the warp-specialized TMA + WGMMA GEMM for a problem.

Without a GPU it prints the configuration the API would choose, the scheduler's grid and the
kernel's IR (``--emit mlir``) or compiles it to a cubin in the cache (``--compile``); on an sm_90
GPU ``--run`` checks it against torch (fp32 reference) and ``--bench`` times it against
``torch.matmul`` (cuBLAS) the way ``benchmarks/gemm.py`` does.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace


def positive_int(text: str) -> int:
    """A size or count: a positive integer (0 or less is a user error, not a division by zero)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
    if value <= 0:
        raise argparse.ArgumentTypeError(f"{text!r} must be a positive integer")
    return value


def register(sub) -> None:
    p = sub.add_parser("gemm", help="build, check or benchmark the TMA + WGMMA GEMM for M N K",
                       description="Show the configuration tileorch picks for C[M,N] = A[M,K] @ B[K,N], print "
                                   "its kernel IR (--emit mlir), compile it (--compile) or run it on a GPU "
                                   "(--run, --bench).")
    p.add_argument("m", type=positive_int, help="rows of A and C (a positive integer)")
    p.add_argument("n", type=positive_int, help="columns of B and C")
    p.add_argument("k", type=positive_int, help="columns of A, rows of B")
    p.add_argument("--schedule", default="auto", choices=["auto", "persistent", "streamk", "dp"],
                   help="tile scheduler (default: auto)")
    p.add_argument("--dtype", default="bf16", choices=["bf16", "f16"], help="A and B element type (default: bf16)")
    p.add_argument("--b-major", default="k", choices=["k", "n"], help="B stored [N,K] (k) or [K,N] (n)")
    p.add_argument("--tile-n", type=positive_int, default=None, help="tile width N (64, 128, 192 or 256)")
    p.add_argument("--stages", type=positive_int, default=None, help="pipeline stages (2 to 16)")
    p.add_argument("--cluster-m", type=positive_int, default=None, help="CTAs per cluster along M")
    p.add_argument("--sms", type=positive_int, default=132, help="SMs the scheduler plans for (default: 132)")
    p.add_argument("--emit", choices=["none", "mlir"], default="none",
                   help="print the kernel IR on stdout (the summary then goes to stderr)")
    p.add_argument("--compile", action="store_true", help="compile to a cubin (cached) and report times")
    p.add_argument("--timings", action="store_true",
                   help="with --compile: print the time of every phase and pass on stderr, as tileorch compile "
                        "--timings does")
    p.add_argument("--run", action="store_true", help="run once on the GPU and compare with torch")
    p.add_argument("--bench", action="store_true", help="time against torch.matmul on the GPU")
    p.set_defaults(func=main)


def main(args) -> int:
    if args.timings and not args.compile:
        print("tileorch gemm: error: --timings times the compile: add --compile", file=sys.stderr)
        return 2
    if args.compile and not (args.run or args.bench):
        # a one-shot compile: LLVM loads in the code generation child while the tier and the
        # lowering run here (tileorch.backend.ptx.prefork_codegen, as `tileorch compile` does)
        from tileorch.backend.ptx import prefork_codegen

        prefork_codegen()
    try:
        return _main(args)
    finally:  # (a code generation child no compile took: main called in a process that goes on)
        from tileorch.backend.ptx import release_preforked

        release_preforked()


def _main(args) -> int:
    from tileorch.kernels.gemm.config import GemmConfigError
    from tileorch.launchers.gemm import default_config
    from tileorch.launchers.gemm_host import check_problem, scheduler_params

    try:
        cfg = default_config(args.m, args.n, args.k, args.dtype, args.dtype, args.b_major, args.schedule, args.sms)
        overrides = {k: v for k, v in (("tile_n", args.tile_n), ("stages", args.stages), ("cluster_m", args.cluster_m))
                     if v is not None}
        cfg = replace(cfg, **overrides).check()
        check_problem(args.m, args.n, args.k, cfg)
        grid = scheduler_params(cfg, args.m, args.n, args.k, args.sms).grid
    except (GemmConfigError, ValueError) as exc:
        print(f"tileorch gemm: error: {exc}", file=sys.stderr)
        return 1
    # with --emit mlir stdout is the kernel IR alone (it parses: `... --emit mlir | tileorch-opt`)
    info = sys.stderr if args.emit == "mlir" else sys.stdout
    print(f"{args.m}x{args.n}x{args.k}: {cfg.name}\n  grid {grid}, block {cfg.threads}, cluster {cfg.cluster_m}x1, "
          f"dynamic smem {cfg.smem_bytes} B", file=info)
    if args.emit == "mlir":
        from tileorch.kernels.gemm.ir import gemm_kernel_ir  # the built kernel, printed (needs xDSL)

        print(gemm_kernel_ir(cfg))
    if args.compile:
        from tileorch import cache
        from tileorch.launchers.gemm_host import compile_gemm, cubin_path

        try:
            r = compile_gemm(cfg, use_cache=False)
        except Exception as exc:  # noqa: BLE001 - a compile error is reported, not raised
            print(f"tileorch gemm: error: {exc}", file=sys.stderr)
            return 1
        # the cache's path only where the cubin was stored there (with the cache off, naming it
        # cost the compiler's fingerprint, a walk of its sources, after the compile)
        where = cubin_path(cfg) if cache.enabled() else f"not cached ({cache.CACHE_SWITCH_ENV}=0)"
        print(f"  compiled {len(r.cubin)} B cubin -> {where}; seconds: "
              + ", ".join(f"{k} {v:.2f}" for k, v in r.seconds.items() if "/" not in k), file=info)  # phases, not passes
        if args.timings:
            from tileorch import timing

            info.flush()
            print(timing.format_report(r.seconds), file=sys.stderr, end="")
    if args.run or args.bench:
        return _on_gpu(args, cfg)
    return 0


def _on_gpu(args, cfg) -> int:
    try:
        import torch
    except ImportError:
        print("tileorch gemm: error: --run/--bench need torch with CUDA and a Hopper GPU, and torch is not installed "
              "(pip install torch); without a GPU, --compile builds the kernel", file=sys.stderr)
        return 1
    if not torch.cuda.is_available():
        print("tileorch gemm: error: no CUDA GPU is visible (--run/--bench need an sm_90 GPU)", file=sys.stderr)
        return 1
    import tileorch.launchers.gemm as api

    dt = torch.bfloat16 if args.dtype == "bf16" else torch.float16
    a = torch.randn(args.m, args.k, device="cuda", dtype=dt)
    b = (torch.randn(args.n, args.k, device="cuda", dtype=dt).t() if args.b_major == "k"
         else torch.randn(args.k, args.n, device="cuda", dtype=dt))
    out = torch.full((args.m, args.n), float("nan"), device="cuda", dtype=dt)
    api.gemm(a, b, out, config=cfg)
    torch.cuda.synchronize()
    ref = a.float() @ b.float()
    err = float((out.float() - ref).norm() / ref.norm())
    print(f"  relative error vs torch fp32: {err:.2e}")
    if not (err < 1e-2):
        return 1
    if args.bench:
        from tileorch.testing.timing import bench_ms  # noqa: PLC0415 - the benchmarks' timing method

        t_ours = bench_ms(lambda: api.gemm(a, b, out, config=cfg))
        t_ref = bench_ms(lambda: torch.matmul(a, b))
        flops = 2.0 * args.m * args.n * args.k
        print(f"  tileorch {flops / t_ours / 1e9:.1f} TFLOP/s, cuBLAS {flops / t_ref / 1e9:.1f} TFLOP/s, "
              f"ratio {t_ref / t_ours:.3f}")
    return 0
