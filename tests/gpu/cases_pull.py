"""The WorkID pull model on the GPU (kernels in ``kernels_pull.py``): CTAs of a persistent grid
claim tiles from the workspace counter; whatever the claim order, every tile of the (padded)
problem is walked exactly once, each CTA starts at its launch index, and the counter ends at the
number of tiles (each CTA with a valid first tile makes exactly one claim past the end).

    python tests/gpu/cases_pull.py build   # PTX -> build/gpu/pull/*.cubin (needs xDSL + ptxas)
    python tests/gpu/cases_pull.py run     # on the GPU: every case, prebuilt cubins
"""

from __future__ import annotations

import subprocess
import sys
from functools import partial
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "src"))

from conformance import Case, KernelSource  # noqa: E402
from kernels_pull import ITEM_WORDS, THREADS, pull_kernel, pull_name  # noqa: E402

BUILD = Path(__file__).resolve().parents[2] / "build" / "gpu" / "pull"
TILE = (128, 128, 64)
PROBLEMS = ((1024, 1024, 4096, 1), (384, 640, 2048, 2), (4096, 4096, 512, 3), (128, 256, 64, 1))
RASTERS = ("along_m", "along_n")
SMS = (8, 132)
COUNTER_BYTES = 16  # one i32 counter in a 16-byte aligned workspace


def sources() -> list[KernelSource]:
    return [KernelSource(*pull_kernel("dp", r)) for r in RASTERS]


def launch_index(p, bx: int, by: int) -> int:
    gx, gy, _ = p.grid
    return bx + by * gx if p.raster.along_n else bx * gy + by


def run(problem, raster: str, sms: int, kernel) -> None:
    from tileorch import runtime
    from tileorch import schedulers as S
    from tileorch.schedulers.device_params import pack_device_params

    p = S.static_persistent_params(problem, TILE, (1, 1), sms, raster=S.RasterOrderOptions(raster))
    rp = p.raster
    total = rp.blocks_per_problem
    gx, gy, gz = p.grid
    ctas = gx * gy * gz
    counter = runtime.DeviceBuffer.from_array(np.zeros(COUNTER_BYTES // 4, np.int32))
    params = runtime.DeviceBuffer.from_array(np.frombuffer(pack_device_params(p, counter.ptr), np.uint8))
    max_items = total
    rowlen = 1 + ITEM_WORDS * max_items
    out = runtime.DeviceBuffer.from_array(np.full(ctas * rowlen, -1, np.int32))
    runtime.launch(kernel, (gx, gy), THREADS, [params, out, max_items], timeout_s=10)
    got = out.download(np.int32).reshape(ctas, rowlen)
    seen = []
    for row in range(ctas):
        items = int(got[row, 0])
        assert 0 <= items <= max_items, f"CTA {row} recorded {items} items"
        walk = [tuple(int(v) for v in got[row, 1 + ITEM_WORDS * i: 1 + ITEM_WORDS * (i + 1)]) for i in range(items)]
        first = launch_index(p, row % gx, row // gx)
        starts = [walk[0][3]] if walk else []
        assert starts == ([first] if first < total else []), f"CTA {row} started at {walk[:1]}, launch index {first}"
        seen.extend(walk)
    tiles = sorted((m, n, l) for m, n, l, _ in seen)
    every = [(m, n, l) for m in range(rp.blocks_m) for n in range(rp.blocks_n) for l in range(rp.blocks_l)]
    assert tiles == sorted(every), f"{len(seen)} tiles walked, {len(set(tiles))} distinct, {total} expected"
    assert sorted(lin for *_, lin in seen) == list(range(total))
    claims = int(counter.download(np.int32)[0])
    assert claims == total, f"counter ended at {claims}, expected one claim per tile: {total}"


def cases() -> list[Case]:
    out = []
    for raster in RASTERS:
        for problem in PROBLEMS:
            for sms in SMS:
                pid = "x".join(str(v) for v in problem)
                out.append(Case(f"pull_dp_{raster}_{pid}_sms{sms}", pull_name("dp", raster),
                                partial(run, problem, raster, sms), {"sched", "pull"}))
    return out


def build() -> int:
    from tileorch.cli.run import compile_mlir

    BUILD.mkdir(parents=True, exist_ok=True)
    for src in sources():
        ptx = BUILD / f"{src.name}.ptx"
        ptx.write_text(compile_mlir(src.mlir, f"{src.name}.mlir"))
        subprocess.run(["ptxas", "-arch=sm_90a", str(ptx), "-o", str(BUILD / f"{src.name}.cubin")], check=True)
    print(f"compiled {len(sources())} kernels into {BUILD}")
    return 0


def main() -> int:
    if sys.argv[1:] == ["build"]:
        return build()
    from tileorch import runtime

    bad = 0
    for case in cases():
        module = runtime.Module((BUILD / f"{case.kernel}.cubin").read_bytes(), label=case.kernel)
        try:
            case.run(module.kernel(case.kernel))
            print(f"ok   {case.id}")
        except AssertionError as exc:
            bad += 1
            print(f"FAIL {case.id}: {exc}")
    print(f"{len(cases()) - bad}/{len(cases())} cases exact")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
