"""The atoms on their own (``kernels/bulk_copy.mlir``: mbarrier + ``atom.bulk_copy_g2s`` +
``atom.dynamic_smem``, no cutlass ops): the copied words equal the source, for several sizes."""

from __future__ import annotations

from functools import partial
from pathlib import Path

import numpy as np

from conformance import POISON, Case, KernelSource

KERNEL = "bulk_copy"
SIZES = (16, 512, 4096, 48 * 1024)


def sources() -> list[KernelSource]:
    return [KernelSource(KERNEL, (Path(__file__).parent / "kernels" / "bulk_copy.mlir").read_text())]


def run(nbytes: int, kernel) -> None:
    from tileorch import runtime

    host = np.random.default_rng(nbytes).integers(0, 1 << 32, nbytes // 4, dtype=np.uint32)
    src = runtime.DeviceBuffer.from_array(host)
    out = runtime.DeviceBuffer.from_array(np.full(host.size + 16, POISON, np.uint32))
    runtime.launch(kernel, 1, 128, [src, out, nbytes], smem=16 + nbytes, timeout_s=10)
    got = out.download(np.uint32)
    assert np.array_equal(got[: host.size], host), "copied words differ from the source"
    assert (got[host.size:] == POISON).all(), "words past the copy were written"


def cases() -> list[Case]:
    return [Case(f"bulk_copy_{n}B", KERNEL, partial(run, n), {"atoms", "sanitize"}) for n in SIZES]
