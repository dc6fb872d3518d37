"""Host time per ``tileorch.cutile.launch`` call (no GPU: the fake driver of tests/unit/test_cutile_launch.py and
its ``compile_program`` stand-in, given the compiler's written set of the real bytecode) for the call patterns
the written-argument checks of session 39 touch:

* ``apart_moving``: x, y, out at new addresses each call (re-pointed; the checks do not run),
* ``in_place_moving``: out is x, at a new address each call (session 39: not re-pointed, the full path runs
  the checks each call; before, re-pointed),
* ``in_place_same``: out is x at one address (the bound launch: unchanged),
* ``full_path_sync``: ``sync=True`` (never bound: the full path every call, the checks included).

Usage: ``PYTHONPATH=src python benchmarks/written_args_launch_cpu.py [--calls 2000] [--repeats 5]``; prints the
minimum over repeats of the mean microseconds per call, one JSON line per pattern.  Run it on two trees
(``PYTHONPATH=<tree>/src``) to compare them in one sitting."""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "unit"))


import cuda.tile as ct  # noqa: E402


@ct.kernel
def axpy(x, y, out, tile: ct.Constant[int]):
    i = ct.bid(0)
    ct.store(out, index=(i,), tile=ct.load(x, index=(i,), shape=(tile,)) * 2.0 + ct.load(y, index=(i,), shape=(tile,)))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--calls", type=int, default=2000)
    ap.add_argument("--repeats", type=int, default=5)
    args = ap.parse_args(argv)

    import os

    os.environ["TILEORCH_CACHE"] = "0"
    import pytest  # noqa: F401  (test_cutile_launch's fixtures import it)
    import test_cutile_launch as tl

    import tileorch.driver as frontend
    from tileorch.frontend.cuda_tile_bytecode import read_bytecode
    from tileorch.launchers import cutile as rc
    from tileorch.runtime import device as rt_device
    from tileorch.runtime.driver import use_api

    drv = tl.FakeDriver({})
    drv.compiles = []

    def compile_program(data, name, arch="sm_90a", schedule="persistent", ptxas=True, **_):
        entry = read_bytecode(data).body.block.first_op.body.block.first_op
        kernel = f"k{len(drv.compiles)}"
        drv.compiles.append(kernel)
        drv.params[kernel] = [8 if "ptr<" in str(t) or "64" in str(t) else 4 for t in entry.function_type.inputs.data]
        from types import SimpleNamespace

        written = getattr(frontend, "_written", None)
        return SimpleNamespace(kind="simt", ptx=f".version 8.0\n.visible .entry {kernel}()\n", cubin=None,
                               kernel=kernel, threads=128, gemm_config=None, gemm_args=None,
                               written=written(read_bytecode(data)) if written else None)

    frontend.compile_program = compile_program
    rc.clear_caches()
    rt_device.forget_devices()
    n = 4096
    pool = [tl.Dev(0x1000000 * (i + 1), (n,), "<f4") for i in range(64)]
    fresh = [tl.Dev(0x100000000 + 0x100000 * i, (n,), "<f4") for i in range(args.calls + 64)]  # never bound
    y = tl.Dev(0x90000000, (n,), "<f4")
    patterns = {
        "apart_moving": lambda i: ((pool[i % 32], y, pool[32 + i % 32], 256), False),
        "in_place_moving": lambda i: ((fresh[i], y, fresh[i], 256), False),  # (more than BOUND_MAX addresses)
        "in_place_same": lambda i: ((pool[0], y, pool[0], 256), False),
        "full_path_sync": lambda i: ((pool[i % 32], y, pool[32 + i % 32], 256), True),
    }
    with use_api(drv):
        for name, make in patterns.items():
            for i in range(64):  # warm: compiled, bound
                a, sync = make(i)
                rc.launch(0, (16,), axpy, a, sync=sync)
            best = float("inf")
            for _ in range(args.repeats):
                drv.launches.clear()
                calls = [make(i) for i in range(args.calls)]
                t0 = time.perf_counter()
                for a, sync in calls:
                    rc.launch(0, (16,), axpy, a, sync=sync)
                best = min(best, (time.perf_counter() - t0) / args.calls)
            print(json.dumps({"pattern": name, "us_per_call": round(best * 1e6, 2), "calls": args.calls,
                              "repeats": args.repeats, "tree": str(Path(rc.__file__).parents[2])}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
