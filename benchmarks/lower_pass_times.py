"""CPU time of each lowering pass on one GEMM kernel, in process (issue 22: where the lower phase goes).

Usage::

    PYTHONPATH=SRC python benchmarks/lower_pass_times.py [--repeat 7] [--mnk 4096x4096x4096] [--dtype bf16]

The kernel the API would choose for the problem (``tileorch.launchers.gemm.default_config``,
132 SMs) is built through the TileAS tier afresh for every repeat, then each pass of
:data:`tileorch.backend.pipeline.PIPELINE` is applied in turn under the compile driver's
garbage-collection deferral, timed by ``time.process_time`` (the process's CPU: on a shared
machine other work moves it less than wall time).  Prints min and median milliseconds per pass
and their sum; run it on two source trees (``PYTHONPATH``) to compare them.
"""

from __future__ import annotations

import argparse
import statistics
import time


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--mnk", default="4096x4096x4096")
    ap.add_argument("--dtype", default="bf16")
    args = ap.parse_args()
    from tileorch.backend import pipeline
    from tileorch.gc_deferral import gc_deferred
    from tileorch.launchers.gemm import default_config
    from tileorch.launchers.gemm_program import lower_gemm
    from tileorch.registry import make_context

    m, n, k = (int(v) for v in args.mnk.split("x"))
    cfg = default_config(m, n, k, args.dtype, args.dtype, "k", "auto", 132)
    times: dict[str, list[float]] = {}
    for _ in range(args.repeat):
        module, ctx = lower_gemm(cfg), make_context()
        with gc_deferred():
            for p in pipeline.make_passes(pipeline.PIPELINE):
                t = time.process_time()
                p.apply(ctx, module)
                times.setdefault(p.name, []).append(time.process_time() - t)
    print(f"{cfg.name}: CPU ms per pass, min / median of {args.repeat}")
    for name, v in times.items():
        print(f"  {name:40s} {min(v) * 1e3:7.1f} {statistics.median(v) * 1e3:7.1f}")
    print(f"  {'sum of the minima':40s} {sum(min(v) for v in times.values()) * 1e3:7.1f}")


if __name__ == "__main__":
    main()
