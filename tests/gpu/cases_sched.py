"""Persistent schedules on the GPU (kernels in ``kernels_sched.py``): the work items each CTA's
device scheduler walks equal, item for item, the host library's sequence for that CTA
(``tileorch.schedulers.work_sequence`` / ``static_persistent_sequence``)."""

from __future__ import annotations

from functools import partial

import numpy as np

from conformance import Case, KernelSource
from kernels_sched import ITEM_WORDS, walk_kernel, walk_name

TILE = (128, 128, 64)
PROBLEMS = ((1024, 1024, 4096, 1), (384, 640, 2048, 2), (2048, 512, 1024, 1), (640, 384, 8192, 1))
CLUSTERS = ((1, 1), (2, 1))
RASTERS = ("heuristic", "along_m", "along_n")
SMS = (8, 20)
STREAMK_MODES = ("stream_k", "data_parallel", "heuristic")


def sources() -> list[KernelSource]:
    return [KernelSource(*walk_kernel(kind, c, r))
            for kind in ITEM_WORDS for c in CLUSTERS for r in RASTERS]


def host_params(kind: str, problem, cluster, raster: str, sms: int, mode: str):
    from tileorch import schedulers as S

    if kind == "streamk":
        return S.streamk_params(problem, TILE, cluster, sms, raster=S.RasterOrderOptions(raster),
                                decomposition=S.DecompositionMode(mode))
    return S.static_persistent_params(problem, TILE, cluster, sms, raster=S.RasterOrderOptions(raster))


def host_rows(kind: str, p) -> list[list[tuple[int, ...]]]:
    from tileorch import schedulers as S

    if kind == "streamk":
        return [[(w.m, w.n, w.l, w.k_tile_start, w.k_tile_count) for w in seq] for seq in S.work_sequence(p)]
    return [[(w.m, w.n, w.l) for w in seq] for seq in S.static_persistent_sequence(p)]


def run(kind: str, problem, cluster, raster: str, sms: int, mode: str, kernel) -> None:
    from tileorch import runtime
    from tileorch.schedulers.device_params import pack_device_params

    p = host_params(kind, problem, cluster, raster, sms, mode)
    want = host_rows(kind, p)
    gx, gy, gz = p.grid
    assert gz == 1 and len(want) == gx * gy
    max_items = max(len(r) for r in want) + 2
    words = ITEM_WORDS[kind]
    record = np.frombuffer(pack_device_params(p), np.uint8)
    params = runtime.DeviceBuffer.from_array(record)
    rowlen = 1 + words * max_items
    out = runtime.DeviceBuffer.from_array(np.full(gx * gy * rowlen, -1, np.int32))
    runtime.launch(kernel, (gx, gy), 32, [params, out, max_items], cluster=cluster, timeout_s=10)
    got = out.download(np.int32).reshape(gx * gy, rowlen)
    for cta, seq in enumerate(want):
        items = got[cta, 0]
        dev = [tuple(int(v) for v in got[cta, 1 + words * i: 1 + words * (i + 1)]) for i in range(min(items, max_items))]
        assert items == len(seq) and dev == seq, (
            f"CTA {cta} (bx={cta % gx}, by={cta // gx}) walked {items} items {dev[:6]}..., host sequence "
            f"has {len(seq)}: {seq[:6]}...")


def cases() -> list[Case]:
    out = []
    for kind in ITEM_WORDS:
        modes = STREAMK_MODES if kind == "streamk" else ("-",)
        for cluster in CLUSTERS:
            for raster in RASTERS:
                for problem in PROBLEMS:
                    for sms in SMS:
                        for mode in modes:
                            try:
                                host_params(kind, problem, cluster, raster, sms, mode)
                            except ValueError:
                                continue
                            pid = "x".join(str(v) for v in problem)
                            out.append(Case(f"persistent_{kind}_c{cluster[0]}x{cluster[1]}_{raster}_{pid}_sms{sms}_{mode}",
                                            walk_name(kind, cluster, raster),
                                            partial(run, kind, problem, cluster, raster, sms, mode),
                                            {"sched", *(["sanitize"] if (cluster, raster, problem, sms) == ((2, 1), "heuristic", PROBLEMS[1], 20) and mode in ("stream_k", "-") else [])}))
    return out
