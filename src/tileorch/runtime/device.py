"""The current CUDA device: primary context (shared with torch/cupy), properties, health."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tileorch.runtime.driver import api, check
from tileorch.runtime.errors import ContextPoisoned


@dataclass
class Device:
    """Device ``ordinal`` with its primary context made current on this thread."""

    ordinal: int
    handle: Any
    context: Any
    name: str
    compute_capability: tuple[int, int]
    sm_count: int
    driver_version: int
    poisoned_by: str | None = None

    def require_healthy(self) -> None:
        if self.poisoned_by is not None:
            raise ContextPoisoned(
                f"the CUDA context is in error since {self.poisoned_by}; "
                "start a new process to use the GPU again"
            )

    def synchronize(self) -> None:
        check(api().cuCtxSynchronize(), "cuCtxSynchronize")


_devices: dict[int, Device] = {}


def current_device(ordinal: int = 0) -> Device:
    """Open (once) device ``ordinal`` and make its primary context current."""
    drv = api()
    dev = _devices.get(ordinal)
    if dev is None:
        handle = check(drv.cuDeviceGet(ordinal), f"cuDeviceGet({ordinal})")
        ctx = check(drv.cuDevicePrimaryCtxRetain(handle), "cuDevicePrimaryCtxRetain")
        check(drv.cuCtxSetCurrent(ctx), "cuCtxSetCurrent")
        raw = check(drv.cuDeviceGetName(256, handle), "cuDeviceGetName")
        attr = drv.CUdevice_attribute

        def get(a: Any) -> int:
            return int(check(drv.cuDeviceGetAttribute(a, handle), f"cuDeviceGetAttribute({a})"))

        dev = Device(
            ordinal=ordinal,
            handle=handle,
            context=ctx,
            name=raw.split(b"\0", 1)[0].decode(),
            compute_capability=(
                get(attr.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR),
                get(attr.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR),
            ),
            sm_count=get(attr.CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT),
            driver_version=int(check(drv.cuDriverGetVersion(), "cuDriverGetVersion")),
        )
        _devices[ordinal] = dev
    else:
        check(drv.cuCtxSetCurrent(dev.context), "cuCtxSetCurrent")
    return dev


def forget_devices() -> None:
    """Drop cached devices (tests that swap the driver module use this)."""
    _devices.clear()
