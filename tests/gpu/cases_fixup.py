"""Stream-K fix-up on the GPU (kernels in ``kernels_fixup.py``): the partial accumulators of every
split tile, reduced through the workspace, equal the unsplit sum over all K tiles, for stream-K and
split-K decompositions in deterministic and nondeterministic reduction modes."""

from __future__ import annotations

from functools import partial

import numpy as np

from conformance import Case, KernelSource
from kernels_fixup import VEC, fixup_kernel, fixup_name

TILE = (128, 128, 64)
WGS = (1, 2)
PROBLEMS = ((512, 512, 4096, 1), (640, 384, 2048, 2), (256, 1024, 8192, 1))
SETUPS = (("stream_k", 1, 10), ("stream_k", 1, 24), ("split_k", 3, 16))  # decomposition, splits, sms
REDUCTIONS = ("deterministic", "nondeterministic")


def sources() -> list[KernelSource]:
    return [KernelSource(*fixup_kernel(w)) for w in WGS]


def run(wgs: int, problem, decomposition: str, splits: int, sms: int, reduction: str, kernel) -> None:
    from tileorch import runtime, schedulers as S
    from tileorch.schedulers.device_params import pack_device_params
    from tileorch.schedulers.workspace import barrier_workspace_size, reduction_workspace_size

    p = S.streamk_params(problem, TILE, (1, 1), sms, splits=splits, decomposition=S.DecompositionMode(decomposition),
                         reduction=S.ReductionMode(reduction))
    tiles_m, tiles_n = -(-problem[0] // TILE[0]), -(-problem[1] // TILE[1])
    tiles, kt = tiles_m * tiles_n * problem[3], p.k_tiles_per_output_tile
    rng = np.random.default_rng([wgs, tiles, kt, splits, sms])
    a = rng.integers(-8, 9, (tiles, kt, wgs, 128, VEC)).astype(np.float32)
    want = a.sum(axis=1, dtype=np.float64).astype(np.float32)  # (tiles, wgs, 128, VEC): exact integers
    # the kernel's reduction tile is its W*128 threads' VEC-element fragments (CUTLASS: BLK_M x BLK_N)
    reduction_bytes = reduction_workspace_size(tiles, (128 * wgs, VEC, TILE[2]), 32)
    barrier_bytes = barrier_workspace_size(tiles, wgs)
    workspace = runtime.DeviceBuffer.from_array(np.zeros(reduction_bytes + barrier_bytes, np.uint8))
    record = pack_device_params(p, workspace.ptr, reduction_bytes, barrier_bytes)
    params = runtime.DeviceBuffer.from_array(np.frombuffer(record, np.uint8))
    src = runtime.DeviceBuffer.from_array(a.ravel())
    out = runtime.DeviceBuffer.from_array(np.full(want.size, np.nan, np.float32))
    runtime.launch(kernel, p.grid[:2], 128 * wgs, [params, src, out, tiles_m, tiles_n, kt], timeout_s=10)
    got = out.download(np.float32).reshape(want.shape)
    bad = np.argwhere(~(got == want))
    assert bad.size == 0, (f"{len(bad)} of {want.size} accumulator elements differ; first (tile, wg, thread, i) = "
                           f"{tuple(bad[0])}: got {got[tuple(bad[0])]}, want {want[tuple(bad[0])]} "
                           f"(grid {p.grid}, sk_units {p.sk_units}, sk_tiles {p.sk_tiles})")


def cases() -> list[Case]:
    out = []
    for w in WGS:
        for problem in PROBLEMS:
            for decomposition, splits, sms in SETUPS:
                for reduction in REDUCTIONS:
                    pid = "x".join(str(v) for v in problem)
                    out.append(Case(f"fixup_wg{w}_{pid}_{decomposition}{splits}_sms{sms}_{reduction}", fixup_name(w),
                                    partial(run, w, problem, decomposition, splits, sms, reduction),
                                    {"fixup", *(["sanitize"] if (w, problem, sms, reduction) == (2, PROBLEMS[0], 10, "deterministic") else [])}))
    return out
