"""Barrier configurations (kernels in ``kernels_barriers.py``) checked against NumPy:
the ordered sequence barrier's logs alternate the two groups, named barriers hand every round's
words over intact, and generic barriers serialise the turnstile and separate the grid's phases."""

from __future__ import annotations

from functools import partial

import numpy as np

from conformance import POISON, Case, KernelSource
from kernels_barriers import GBAR_THREADS, NAMED_WORDS, gbar_kernel, named_kernel, seqbar_kernel

SEQBAR_UNITS = ("warpgroup", "warp")
NAMED_WARPS = (1, 2, 4)
GBAR_SYNCS = ("syncthreads", "named")


def sources() -> list[KernelSource]:
    kernels = [seqbar_kernel(u) for u in SEQBAR_UNITS] + [named_kernel(w) for w in NAMED_WARPS]
    kernels += [gbar_kernel(s) for s in GBAR_SYNCS]
    return [KernelSource(name, text) for name, text, _ in kernels]


def _mismatch(got: np.ndarray, want: np.ndarray, what: str) -> str:
    bad = np.flatnonzero(got != want)
    return "" if bad.size == 0 else (f"{what}: {bad.size} of {want.size} words differ, first at {bad[0]}: "
                                      f"got {got[bad[0]]:#x}, want {want[bad[0]]:#x}")


def run_seqbar(unit: str, ntiles: int, kernel) -> None:
    from tileorch import runtime

    _, _, block = seqbar_kernel(unit)
    logs = [runtime.DeviceBuffer.from_array(np.full(ntiles + 8, POISON, np.uint32)) for _ in range(2)]
    runtime.launch(kernel, 1, block, [logs[0], logs[1], ntiles], smem=16, timeout_s=10)
    tags = np.array([2 * t + t % 2 for t in range(ntiles)], np.uint32)  # tile t ran on group t % 2
    want = np.concatenate([tags, np.full(8, POISON, np.uint32)])
    for stage, log in enumerate(logs):
        msg = _mismatch(log.download(np.uint32), want, f"log of depth stage {stage}")
        assert not msg, msg


def run_named(warps: int, rounds: int, kernel) -> None:
    from tileorch import runtime

    host = np.random.default_rng([warps, rounds]).integers(0, 1 << 32, rounds * NAMED_WORDS, dtype=np.uint32)
    src = runtime.DeviceBuffer.from_array(host)
    out = runtime.DeviceBuffer.from_array(np.full(host.size + 64, POISON, np.uint32))
    runtime.launch(kernel, 1, 64 * warps, [src, out, rounds], smem=4 * NAMED_WORDS, timeout_s=10)
    msg = _mismatch(out.download(np.uint32), np.concatenate([host, np.full(64, POISON, np.uint32)]), "out")
    assert not msg, msg


def run_gbar(sync: str, ctas: int, kernel) -> None:
    from tileorch import runtime

    lock = runtime.DeviceBuffer.from_array(np.zeros(2, np.uint32))
    acc = runtime.DeviceBuffer.from_array(np.zeros(1, np.uint32))
    data = runtime.DeviceBuffer.from_array(np.full(ctas * GBAR_THREADS, POISON, np.uint32))
    out = runtime.DeviceBuffer.from_array(np.full(ctas * GBAR_THREADS, POISON, np.uint32))
    runtime.launch(kernel, ctas, GBAR_THREADS, [lock, acc, data, out], timeout_s=10)
    want_acc = 0
    for b in range(ctas):  # the turnstile admits CTA 0, 1, 2, ... in order
        want_acc = (want_acc * 31 + b + 1) & 0xFFFFFFFF
    got_acc = int(acc.download(np.uint32)[0])
    assert got_acc == want_acc, f"turnstile accumulator {got_acc:#x}, want {want_acc:#x}"
    assert lock.download(np.uint32).tolist() == [ctas, ctas], "lock counts"
    tid = np.arange(GBAR_THREADS, dtype=np.uint32)
    want = np.concatenate([((b + 1) % ctas) * 1000 + tid for b in range(ctas)]).astype(np.uint32)
    msg = _mismatch(out.download(np.uint32), want, "words read after the grid barrier")
    assert not msg, msg


def cases() -> list[Case]:
    out = [Case(f"seqbar_{u}_tiles{n}", f"seqbar_{u}", partial(run_seqbar, u, n),
                {"seqbar", *(["sanitize"] if n == 9 else [])})
           for u in SEQBAR_UNITS for n in (1, 2, 9, 64)]
    out += [Case(f"named_{w}w_rounds{r}", f"named_{w}w", partial(run_named, w, r),
                 {"named", *(["sanitize"] if r == 17 else [])})
            for w in NAMED_WARPS for r in (1, 2, 17)]
    out += [Case(f"gbar_{s}_ctas{n}", f"gbar_{s}", partial(run_gbar, s, n), {"gbar"})
            for s in GBAR_SYNCS for n in (2, 16, 64)]
    return out
