"""GPU timing for benchmarks and ``tileorch gemm --bench``: one method, used everywhere.

:func:`bench_ms` warms up, queues a GPU sleep so the timed launches start back to back from a
full queue (host launch overhead hidden), records CUDA events around each of ``iters`` calls and
returns the median in milliseconds.  :func:`best_batch_ms` is the memory-bound benchmarks' method:
the best of a few batches of back-to-back calls, each batch timed by one pair of events (the
per-call host time inside a batch is part of what it measures).  Needs torch and a GPU.
"""

from __future__ import annotations

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


__all__ = ["bench_ms", "best_batch_ms"]
