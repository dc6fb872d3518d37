"""Host time per ``tileorch.cutile.launch`` call of an N-major-B tf32 GEMM (``gemm_tf32_n_major_b``, 4096^3),
without a GPU (session 43): the launcher's full path (argument description, the compile caches' lookups,
``_launch_gemm``: the retiling decision, the K-major copy, the prepared problem) against the launch kept bound
(what a repeated call runs once the launch is bound: the copy's launch and the GEMM's).  The stand-ins of
tests/unit/test_k_major_copy.py replace torch, the driver's launches and the GEMM image (their work is not
measured); the programs are compiled for real (once, before the timed calls).

Before session 43 a launch that made a K-major copy was never kept bound, so every call paid the full path;
on the H100 (19:42 UTC) such a launch cost 1.5-2.3 ms more than its K-major twin.

Usage: ``PYTHONPATH=src python benchmarks/nmajor_host_cpu.py [--calls 50]``; prints the median microseconds
per call of each (min of 3 medians)."""

from __future__ import annotations

import argparse
import importlib.util
import statistics
import sys
import time
from pathlib import Path
from types import SimpleNamespace

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "unit"))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--calls", type=int, default=50)
    ap.add_argument("--tiles", default="auto")
    ap.add_argument("--profile", action="store_true", help="cProfile 20 full-path calls")
    opts = ap.parse_args()
    spec_ = importlib.util.spec_from_file_location("kmc_tests", ROOT / "tests/unit/test_k_major_copy.py")
    t = importlib.util.module_from_spec(spec_)
    spec_.loader.exec_module(t)

    from tileorch.launchers import cutile as rc
    from tileorch.launchers import cutile_bound
    from tileorch.launchers import k_major_copy as kc
    from tileorch.testing.dot_programs import PROGRAMS
    from tileorch.testing.export import FakeDeviceArray

    m = n = k = 4096
    p = PROGRAMS["gemm_tf32_n_major_b"]
    spec = [((m, k), "float32"), ((k, n), "float32"), ((m, n), "float32"), *p.tiles]
    seen: list = []
    sys.modules["torch"] = t._fake_torch(seen)
    rc.launch = t._recording_launch(seen)
    ptrs = (t.A_PTR, t.B_PTR, t.C_PTR)
    tensors = tuple(t._Tensor(ptrs[i], s[0], seen=seen) for i, s in enumerate(spec[:3]))
    images: dict = {}

    def full_path(fast):
        arguments = rc.describe_arguments(p.kernel, tuple(FakeDeviceArray(ptrs[i], s[0]) if isinstance(s, tuple)
                                                          else s for i, s in enumerate(spec)))
        arguments = [rc.dataclasses.replace(a, dtype="float32") if isinstance(a, rc.ArrayArg) else a
                     for a in arguments]
        entry = rc.compiled(p.kernel, arguments, "sm_90a", "persistent", defer_gemm=True)
        rc._launch_gemm(entry, p.kernel, arguments, "sm_90a", "persistent", 9, SimpleNamespace(sm_count=132), False,
                        opts.tiles, (*tensors, *spec[3:]), fast, grid=(m // 128, n // 128, 1))

    import tileorch.launchers.gemm_host as gh

    class Image(t._Image):  # the GEMM's image: prepare/launch recorded, nothing loaded
        def __init__(self, cfg, image, pdl=False):
            super().__init__(cfg, seen, [])

    gh.GemmKernel = Image
    t0 = time.perf_counter()
    full_path(None)  # compiles (the deferred program, the retiled kernel): not timed
    print(f"[nmajor host] first call (compiles) {time.perf_counter() - t0:.1f} s", flush=True)
    del images

    def median_us(fn, calls):
        best = None
        for _ in range(3):
            times = []
            for _ in range(calls):
                s = time.perf_counter()
                fn()
                times.append(time.perf_counter() - s)
                del seen[:]
            med = statistics.median(times) * 1e6
            best = med if best is None else min(best, med)
        return best

    if "--profile" in sys.argv[1:] or opts.profile:
        import cProfile, pstats
        pr = cProfile.Profile(); pr.enable()
        for _ in range(20):
            full_path(None)
        pr.disable(); pstats.Stats(pr).sort_stats("cumulative").print_stats(25)
    full = median_us(lambda: full_path(None), opts.calls)
    full_path(("key",))
    go = cutile_bound.bound_launches.get(("key",))
    print(f"[nmajor host] full path {full:.0f} us per call (every call before session 43)")
    if go is None:
        print("[nmajor host] the launch was not kept bound")
    else:
        bound = median_us(lambda: go(9), opts.calls * 20)
        print(f"[nmajor host] bound launch {bound:.2f} us per call (the stand-ins' copy and GEMM launches)")
    kc.clear()


if __name__ == "__main__":
    main()
