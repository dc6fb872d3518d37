"""Cluster pipelines (kernels in ``kernels_cluster.py``): every CTA's every consumer group sees,
for every iteration, the parts multicast by all producers of its cluster, in rank order."""

from __future__ import annotations

from functools import partial

import numpy as np

from conformance import POISON, Case, KernelSource
from kernels_cluster import PART_WORDS, ClusterConfig, all_configs, cluster_kernel

CLUSTERS = 2  # clusters per launch
SANITIZE = {ClusterConfig((2, 1), 2, 4, 1, True), ClusterConfig((1, 2), 4, 1, 2, True)}


def sources() -> list[KernelSource]:
    return [KernelSource(c.name, cluster_kernel(c)) for c in all_configs()]


def iteration_counts(stages: int) -> list[int]:
    return sorted({1, stages, 10 * stages + 3})


def run(cfg: ClusterConfig, iters: int, kernel) -> None:
    from tileorch import runtime

    rng = np.random.default_rng([cfg.stages, cfg.size, cfg.groups, iters])
    host_in = rng.integers(0, 1 << 32, (CLUSTERS, iters, cfg.size, PART_WORDS), dtype=np.uint32)
    gx, gy = cfg.grid(CLUSTERS)
    cx, cy = cfg.cluster
    want = np.empty((gx * gy, cfg.groups, iters, cfg.stage_words), np.uint32)
    for y in range(gy):
        for x in range(gx):
            cluster = (y // cy) * (gx // cx) + x // cx  # clusterid.y * nclusterid.x + clusterid.x
            want[y * gx + x] = host_in[cluster].reshape(iters, cfg.stage_words)
    want = np.concatenate([want.ravel(), np.full(64, POISON, np.uint32)])
    src = runtime.DeviceBuffer.from_array(host_in.ravel())
    out = runtime.DeviceBuffer.from_array(np.full(want.size, POISON, np.uint32))
    runtime.launch(kernel, (gx, gy), cfg.block, [src, out, iters], cluster=cfg.cluster, smem=cfg.smem,
                   timeout_s=10)
    got = out.download(np.uint32)
    bad = np.flatnonzero(got != want)
    assert bad.size == 0, (f"{bad.size} of {want.size} words differ, first at word {bad[0]}: "
                           f"got {got[bad[0]]:#x}, want {want[bad[0]]:#x}")


def cases() -> list[Case]:
    return [
        Case(f"{c.name}_it{n}", c.name, partial(run, c, n),
             {"cluster", *(["sanitize"] if c in SANITIZE and n == c.stages else [])})
        for c in all_configs()
        for n in iteration_counts(c.stages)
    ]
