"""GPU timing for benchmarks and ``tileorch gemm --bench``: one method, used everywhere.

:func:`bench_ms` warms up, queues a GPU sleep so the timed launches start back to back from a
full queue (host launch overhead hidden), records CUDA events around each of ``iters`` calls and
returns the median in milliseconds.  :func:`best_batch_ms` is the memory-bound benchmarks' method:
the best of a few batches of back-to-back calls, each batch timed by one pair of events (the
per-call host time inside a batch is part of what it measures).  Needs torch and a GPU.
"""

from __future__ import annotations

import re
from typing import Callable


def bench_ms(fn: Callable[[], object], iters: int = 50) -> float:
    """Median milliseconds of ``fn()`` over ``iters`` event-timed launches (after 3 warm-up calls)."""
    import torch

    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    starts = [torch.cuda.Event(enable_timing=True) for _ in range(iters)]
    ends = [torch.cuda.Event(enable_timing=True) for _ in range(iters)]
    torch.cuda._sleep(40_000_000)
    for s, e in zip(starts, ends):
        s.record()
        fn()
        e.record()
    torch.cuda.synchronize()
    times = sorted(s.elapsed_time(e) for s, e in zip(starts, ends))
    return times[len(times) // 2]


def best_batch_ms(fn: Callable[[], object], iters: int, batches: int = 3) -> float:
    """Milliseconds per call of ``fn()``: after one warm-up call, ``batches`` batches of ``iters``
    back-to-back calls, each between two CUDA events; the best batch's mean."""
    import torch

    fn()
    torch.cuda.synchronize()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    best = float("inf")
    for _ in range(batches):
        start.record()
        for _ in range(iters):
            fn()
        end.record()
        end.synchronize()
        best = min(best, start.elapsed_time(end) / iters)
    return best


_SPILL = re.compile(r"ptxas spilled registers of [^:;]+: \d+ B stores, \d+ B loads \(\d+ registers\)")


def time_variant(row: dict, name: str, launch: Callable, kernel, grid, args: tuple, out, ref, iters: int,
                 stream=None, **kw) -> None:
    """One variant of a cuTile program's benchmark row: ``launch(stream, grid, kernel, args, **kw)`` once, then
    ``row[name + "_rel_err"]`` (the relative Frobenius error of ``out``, a torch tensor the launch wrote,
    against ``ref``), ``row[name + "_ms"]`` (:func:`bench_ms`) and, for tileorch's launcher, the path its
    program took (``row[name + "_kind"]``, with ``kw``'s schedule); an exception is ``row[name + "_error"]``.
    The ptxas spill reports among the warnings the first launch raised (the launcher's, once per compiled kernel:
    the kernel this variant runs) are ``row[name + "_spills"]``, so a spill is told apart by variant; every warning
    is shown as before."""
    import warnings

    import torch

    stream = torch.cuda.current_stream() if stream is None else stream
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            launch(stream, grid, kernel, args, **kw)
        for w in caught:
            warnings.showwarning(w.message, w.category, w.filename, w.lineno)
        spills = [s for w in caught for s in _SPILL.findall(str(w.message))]
        if spills:
            row[f"{name}_spills"] = spills
        torch.cuda.synchronize()
        row[f"{name}_rel_err"] = float(((out.float() - ref).norm() / ref.norm()).item())
        row[f"{name}_ms"] = bench_ms(lambda: launch(stream, grid, kernel, args, **kw), iters)
        if name.startswith("tileorch"):
            from tileorch.launchers import cutile as rc

            prog = rc.compiled(kernel, rc.describe_arguments(kernel, args), "sm_90a",
                               kw.get("schedule", "persistent")).program
            row[f"{name}_kind"] = prog.kind
    except Exception as exc:  # noqa: BLE001 - a variant that cannot run this case is a row entry
        row[f"{name}_error"] = f"{type(exc).__name__}: {exc}"[:300]


def rates(row: dict, flops: float, names: tuple[str, ...], against: str = "tileorch") -> None:
    """``row[name + "_tflops"]`` of every timed variant, and ``row["vs_" + name]``: its time over ``against``'s."""
    for key in names:
        if f"{key}_ms" in row:
            row[f"{key}_tflops"] = round(flops / row[f"{key}_ms"] / 1e9, 1)
    for key in names:
        if key != against and f"{key}_ms" in row and f"{against}_ms" in row:
            row[f"vs_{key}"] = round(row[f"{key}_ms"] / row[f"{against}_ms"], 3)


__all__ = ["bench_ms", "best_batch_ms", "rates", "time_variant"]
