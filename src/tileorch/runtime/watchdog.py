"""Waiting for a launched kernel with a deadline: a kernel still running at the deadline is a
hang, one that stopped with an error is a fault.  Either leaves the CUDA context unusable, so the
device is marked poisoned and later launches fail at once with the first cause.

Every wait tileorch itself does goes through here: :func:`wait_for_event` (``runtime.launch(...,
wait=True)``, ``tileorch run``) and :func:`synchronize_stream` (``tileorch.cutile.synchronize``,
``tileorch.cutile.launch(..., sync=True)``), never an unbounded ``cuStreamSynchronize``.  The
deadline is the caller's, else :func:`default_timeout` (``$TILEORCH_SYNC_TIMEOUT`` seconds, else
10 s).  The launch path itself records nothing for it (no event, no bookkeeping per launch)."""

from __future__ import annotations

import math
import os
import time
from typing import Any

from tileorch.runtime.device import Device
from tileorch.runtime.driver import api, check, describe
from tileorch.runtime.errors import KernelFault, KernelHang

CUDA_ERROR_NOT_READY = 600
CU_EVENT_DISABLE_TIMING = 2
DEFAULT_TIMEOUT_S = 10.0
TIMEOUT_ENV = "TILEORCH_SYNC_TIMEOUT"


def check_timeout(value: Any, what: str = "timeout_s") -> float:
    """``value`` as a watchdog deadline in seconds: a positive finite number (``inf`` would turn the
    watchdog off); TypeError / ValueError naming ``what`` otherwise."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"{what} must be a number of seconds, got {value!r}")
    if not (math.isfinite(value) and value > 0):
        raise ValueError(f"{what} must be a positive, finite number of seconds, got {value!r}")
    return float(value)


def default_timeout() -> float:
    """``$TILEORCH_SYNC_TIMEOUT`` (seconds) when set, else :data:`DEFAULT_TIMEOUT_S`; a value that
    is not a positive finite number raises ValueError naming the variable."""
    text = os.environ.get(TIMEOUT_ENV, "").strip()
    if not text:
        return DEFAULT_TIMEOUT_S
    try:
        return check_timeout(float(text), TIMEOUT_ENV)
    except (TypeError, ValueError):
        raise ValueError(f"{TIMEOUT_ENV}={text!r}: expected a positive, finite number of seconds") from None


def synchronize_stream(stream: Any, device: Device, kernel: str, timeout_s: float | None = None,
                       config: str | None = None, subject: str | None = None) -> None:
    """``cuStreamSynchronize(stream)`` with a deadline: an event recorded on ``stream`` now is
    polled by :func:`wait_for_event`; :class:`KernelHang` names ``kernel`` (or says ``subject``:
    the kernels queued there) past ``timeout_s`` (None: :func:`default_timeout`), :class:`KernelFault`
    for a kernel that ended in error.  A poisoned device raises ``ContextPoisoned`` first."""
    timeout = default_timeout() if timeout_s is None else check_timeout(timeout_s)
    device.require_healthy()
    drv = api()
    handle = drv.CUstream(stream) if isinstance(stream, int) else stream
    label = f"stream {stream}" if isinstance(stream, int) else "the stream given"
    event = check(drv.cuEventCreate(CU_EVENT_DISABLE_TIMING), "cuEventCreate")
    try:
        check(drv.cuEventRecord(event, handle), "cuEventRecord")
        wait_for_event(event, device, kernel, config or f"the work queued on {label}", timeout, subject=subject)
    finally:
        try:
            drv.cuEventDestroy(event)
        except Exception:  # noqa: BLE001 - a poisoned context may refuse it; the wait's error matters
            pass


def wait_for_event(
    event: Any, device: Device, kernel: str, config: str, timeout_s: float,
    clock: Any = time.monotonic, sleep: Any = time.sleep, subject: str | None = None,
) -> None:
    """Poll ``event`` until it completes; raise :class:`KernelHang` past ``timeout_s`` seconds
    and :class:`KernelFault` when the kernel ended in error."""
    drv = api()
    deadline = clock() + timeout_s
    pause = 20e-6
    while True:
        (err,) = drv.cuEventQuery(event)
        code = int(err)
        if code == 0:
            return
        if code != CUDA_ERROR_NOT_READY:
            name, text = describe(err)
            cause = f"{subject or f'kernel {kernel!r}'} ({config}) failed: {name}: {text}"
            device.poisoned_by = cause
            raise KernelFault(
                cause + " (a bounded wait of the lowering prints the barrier and phase it "
                "waited on before it traps; see the program's standard output)"
            )
        if clock() >= deadline:
            hang = KernelHang(kernel, config, timeout_s, subject)
            device.poisoned_by = str(hang)
            raise hang
        sleep(pause)
        pause = min(pause * 2, 5e-3)
