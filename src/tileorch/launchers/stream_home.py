"""Bound launches that write a scratch buffer kept per stream, replayed on another stream.

The launcher shares a scratch buffer between the launches of one stream: the K-major copy of an N-major B
(:mod:`tileorch.launchers.k_major_copy`, one per operand, shape, dtype and stream), the packed scratch C of a C
whose matrices are not stacked (``cutile._c_scratch``, one per size and stream), the padded copies of a chained
program's arrays (``cutile._chained_scratch``).  Launches of one stream use it in stream order.  A launch kept bound
(``cutile_bound.bound_launches``) is replayed by the next call with equal arguments, and the call key holds no
stream: replayed on stream T, a launch bound on stream S would write S's buffer while S's own launches (other
GEMMs of the same shapes, bound to the same buffer) write it too -- two streams, one buffer, wrong results and no
error (review of session 43).

:func:`homed` wraps such a bound launch: on its own stream (one int compare) it is the launch; on another stream
the launch is ordered after the work queued on its stream so far, and its stream's later work after it
(:func:`order_after`, an event each way), so the buffer is used by one stream's order at a time.  The two streams
do not overlap for that launch; said once per bound launch as a PerformanceWarning.  Memory stays as it was:
one buffer per stream and layout, none per bound launch.  (The first launch on another stream through the full
path gets that stream's buffer: the launcher's caches key the scratch by stream.)

Known limits (review of session 43, not handled): the replay records and waits on the home stream's handle, so
that stream must still exist (a bound launch made on a temporary cupy / cuda-python stream that was destroyed, then
replayed with equal arguments on another stream, uses a dangling handle); and a replay on a stream being captured
into a CUDA graph pulls the home stream into the capture."""

from __future__ import annotations

from collections.abc import Callable


def order_after(waiter: int, on: int) -> None:
    """Make stream ``waiter`` wait for the work queued on stream ``on`` so far (an event recorded on ``on``,
    waited for by ``waiter``; the event destroyed at once: the driver releases it once it completed)."""
    from tileorch.runtime.driver import api, check
    from tileorch.runtime.watchdog import CU_EVENT_DISABLE_TIMING

    drv = api()
    event = check(drv.cuEventCreate(CU_EVENT_DISABLE_TIMING), "cuEventCreate")
    try:
        check(drv.cuEventRecord(event, drv.CUstream(on)), "cuEventRecord")
        check(drv.cuStreamWaitEvent(drv.CUstream(waiter), event, 0), "cuStreamWaitEvent")
    finally:
        drv.cuEventDestroy(event)


def homed(go: Callable[[int], None], home: int, warning: str) -> Callable[[int], None]:
    """``go`` (a bound launch taking a stream handle) for a launch that writes stream ``home``'s scratch: on
    ``home`` itself ``go``; on another stream ``go`` ordered between ``home``'s work before and after it.
    ``warning``: the head of the PerformanceWarning said the first time it runs on another stream."""
    said = [False]

    def on_stream(handle: int, go: Callable[[int], None] = go, home: int = home) -> None:
        if handle == home:
            go(handle)
            return
        order_after(handle, home)
        go(handle)
        order_after(home, handle)
        if not said[0]:
            said[0] = True
            import warnings

            from tileorch.diagnostics import PerformanceWarning, user_stacklevel

            warnings.warn(f"{warning}: a launch kept bound on stream {home} was replayed on stream {handle}; its "
                          f"scratch buffer is stream {home}'s, so it runs after the work queued on stream {home} and "
                          f"stream {home}'s later work after it (the two streams do not overlap for it)",
                          PerformanceWarning, stacklevel=user_stacklevel())

    on_stream.home = home  # type: ignore[attr-defined]
    return on_stream
