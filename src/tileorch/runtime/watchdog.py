"""Waiting for a launched kernel with a deadline: a kernel still running at the deadline is a
hang, one that stopped with an error is a fault.  Either leaves the CUDA context unusable, so the
device is marked poisoned and later launches fail at once with the first cause."""

from __future__ import annotations

import time
from typing import Any

from tileorch.runtime.device import Device
from tileorch.runtime.driver import api, describe
from tileorch.runtime.errors import KernelFault, KernelHang

CUDA_ERROR_NOT_READY = 600


def wait_for_event(
    event: Any, device: Device, kernel: str, config: str, timeout_s: float,
    clock: Any = time.monotonic, sleep: Any = time.sleep,
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
            cause = f"kernel '{kernel}' ({config}) failed: {name}: {text}"
            device.poisoned_by = cause
            raise KernelFault(
                cause + " (a bounded wait of the lowering prints the barrier and phase it "
                "waited on before it traps; see the program's standard output)"
            )
        if clock() >= deadline:
            hang = KernelHang(kernel, config, timeout_s)
            device.poisoned_by = str(hang)
            raise hang
        sleep(pause)
        pause = min(pause * 2, 5e-3)
