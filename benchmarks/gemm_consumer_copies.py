"""What each consumer warp group's copy of the GEMM kernel's code costs to compile (issue 22: IR -> cubin < 0.5 s).

Usage::

    PYTHONPATH=SRC python benchmarks/gemm_consumer_copies.py [--mnk 4096x4096x4096] [--tile-n 64 128 256] [--repeat 3]

The GEMM builder (:func:`tileorch.kernels.gemm.build.build_gemm_kernel`) writes one consumer body
per consumer warp group (``_consumer(kernel, wg)`` for each of ``cfg.consumer_groups``): a 128-row
tile has two copies of the K loop's WGMMAs (``tile_n / 2`` f32 accumulator registers each) and of
the epilogue.  For the configuration the API would choose and each ``--tile-n``, this compiles the
builder's kernel at ``tile_m`` 128 (two copies) and 64 (one copy, the same work per warp group) in
this process (``compile_module(..., isolate=True, kind="gemm")``, as ``compile_gemm`` compiles the
tier's kernel) ``--repeat`` times after one unmeasured compile, and prints the best CPU seconds of
this process (``self``: lowering, translation, verification), of its children (the LLVM child and
ptxas) and of ptxas alone on the PTX, with the PTX's lines and the LLVM IR's bytes: the
difference between the two rows is what one consumer copy costs, i.e. what a consumer body shared
by the warp groups (indexed by the warp group at run time) would save.
"""

from __future__ import annotations

import argparse
import os
import resource
import time
from dataclasses import replace


def _children_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def measure(cfg, repeat: int) -> dict:
    """Best CPU seconds (self, children, ptxas alone) of compiling the builder's kernel for ``cfg``."""
    from tileorch.backend.ptxas import run_ptxas
    from tileorch.driver import compile_module
    from tileorch.kernels.gemm.build import build_gemm_kernel

    best = {"self": float("inf"), "children": float("inf"), "ptxas": float("inf")}
    for _ in range(repeat):
        c0, s0 = _children_cpu(), time.process_time()
        result = compile_module(build_gemm_kernel(cfg), isolate=True, kind="gemm")
        best["self"] = min(best["self"], time.process_time() - s0)
        best["children"] = min(best["children"], _children_cpu() - c0)
    for _ in range(repeat):
        c0 = _children_cpu()
        run_ptxas(result.ptx, result.arch)
        best["ptxas"] = min(best["ptxas"], _children_cpu() - c0)
    return {**best, "ptx_lines": result.ptx.count("\n"), "llvm_ir_bytes": len(result.llvm_ir)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--mnk", default="4096x4096x4096")
    ap.add_argument("--dtype", default="bf16")
    ap.add_argument("--tile-n", type=int, nargs="+", default=[64, 128, 256])
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    os.environ["TILEORCH_CACHE"] = "0"
    from tileorch.driver import compile_module
    from tileorch.kernels.gemm.build import build_gemm_kernel
    from tileorch.launchers.gemm import default_config

    m, n, k = (int(v) for v in args.mnk.split("x"))
    base = default_config(m, n, k, args.dtype, args.dtype, "k", "auto", 132)
    compile_module(build_gemm_kernel(base), isolate=True, kind="gemm")  # imports and first use, not measured
    print(f"load {os.getloadavg()[0]:.1f}; CPU seconds, best of {args.repeat}")
    print(f"{'configuration':70s} {'self':>6s} {'child':>6s} {'ptxas':>6s} {'PTX':>5s} {'LLVM IR':>8s}")
    for tile_n in args.tile_n:
        for tile_m in (128, 64):
            cfg = replace(base, tile_n=tile_n, tile_m=tile_m).check()
            r = measure(cfg, args.repeat)
            print(f"{cfg.name:70s} {r['self']:6.3f} {r['children']:6.3f} {r['ptxas']:6.3f} {r['ptx_lines']:5d} "
                  f"{r['llvm_ir_bytes']:8d}", flush=True)


if __name__ == "__main__":
    main()
