"""MODS probes on the GPU (kernels in ``kernels_mods.py``): every CTA's start/end pair executes
(no hang, completion marker written), its SM id is below the device's SM count, the window's
elapsed time is positive and under a second, for throttle profiles 1 and 2, clusters of 1 and 2."""

from __future__ import annotations

from functools import partial

import numpy as np

from conformance import Case, KernelSource
from kernels_mods import MODS_THREADS, mods_kernel, mods_name

CLUSTER_X = (1, 2)
PROFILES = (1, 2)
CTAS = 16


def sources() -> list[KernelSource]:
    return [KernelSource(*mods_kernel(c, p)) for c in CLUSTER_X for p in PROFILES]


def run(cluster_x: int, iters: int, kernel) -> None:
    from tileorch import runtime, schedulers
    from tileorch.schedulers.device_params import pack_device_params

    p = schedulers.streamk_params((1024, 1024, 1024, 1), (128, 128, 64), (cluster_x, 1), 16)
    params = runtime.DeviceBuffer.from_array(np.frombuffer(pack_device_params(p), np.uint8))
    out = runtime.DeviceBuffer.from_array(np.full(4 * CTAS, -1, np.int32))
    runtime.launch(kernel, CTAS, MODS_THREADS, [params, out, iters], cluster=cluster_x, timeout_s=10)
    rec = out.download(np.int32).reshape(CTAS, 4)
    sms = kernel.module.device.sm_count
    assert (rec[:, 3] == 1).all(), f"CTAs without a completed start/end pair: {np.flatnonzero(rec[:, 3] != 1)}"
    assert ((rec[:, 0] >= 0) & (rec[:, 0] < sms)).all(), f"smid out of [0, {sms}): {rec[:, 0]}"
    elapsed = rec[:, 1].astype(np.uint32).astype(np.int64) | (rec[:, 2].astype(np.int64) << 32)
    assert ((elapsed > 0) & (elapsed < 1_000_000_000)).all(), f"elapsed ns out of (0, 1e9): {elapsed}"


def cases() -> list[Case]:
    return [Case(f"mods_c{c}x1_p{p}_it{n}", mods_name(c, p), partial(run, c, n),
                 {"mods", *(["sanitize"] if (c, n) == (2, 50) else [])})
            for c in CLUSTER_X for p in PROFILES for n in (1, 50)]
