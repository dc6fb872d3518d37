"""Access to ``cuda.bindings.driver`` (the optional ``tileorch[gpu]`` extra) with checked calls.

Nothing here imports cuda-python at module import time: :func:`api` loads it on first use and
raises :class:`GpuUnavailable` with the reason when it cannot.  Tests substitute a fake module
with :func:`use_api`.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from types import ModuleType
from typing import Any

from tileorch.runtime.errors import CudaError, GpuUnavailable

_api: ModuleType | None = None
_loaded: ModuleType | None = None  # the cuda.bindings.driver that _load() initialised (never a stand-in)


def _load() -> ModuleType:
    try:
        from cuda.bindings import driver
    except Exception as exc:  # ImportError, or a broken install raising anything at import
        raise GpuUnavailable(
            f"cuda-python is not usable ({type(exc).__name__}: {exc}); "
            "install the GPU extra: pip install 'tileorch[gpu]'"
        ) from None
    try:
        (err,) = driver.cuInit(0)
    except Exception as exc:  # cuda-python raises when libcuda itself cannot be found
        raise GpuUnavailable(f"no NVIDIA driver found ({type(exc).__name__}: {exc})") from None
    if int(err) != 0:
        name, text = describe(err, driver)
        raise GpuUnavailable(f"cuInit failed: {name}: {text}")
    err, count = driver.cuDeviceGetCount()
    if int(err) != 0 or count == 0:
        raise GpuUnavailable("the NVIDIA driver reports no CUDA device")
    return driver


def api() -> ModuleType:
    """The initialised driver module; raises :class:`GpuUnavailable` when there is none."""
    global _api, _loaded
    if _api is None:
        _api = _loaded = _load()
    return _api


def loaded_driver() -> ModuleType | None:
    """The ``cuda.bindings.driver`` module :func:`api` loaded and initialised, None before (a
    module handed in with :func:`use_api` is never it)."""
    return _loaded


def gpu_status() -> tuple[bool, str]:
    """``(True, device description)`` or ``(False, the reason no GPU can be used)``."""
    try:
        drv = api()
    except GpuUnavailable as exc:
        return False, str(exc)
    err, dev = drv.cuDeviceGet(0)
    err2, name = drv.cuDeviceGetName(256, dev)
    if int(err) or int(err2):
        return False, "the driver could not describe device 0"
    return True, name.split(b"\0", 1)[0].decode()


@contextmanager
def use_api(module: Any) -> Iterator[None]:
    """Use ``module`` in place of ``cuda.bindings.driver`` inside the block (for tests)."""
    global _api
    saved, _api = _api, module
    try:
        yield
    finally:
        _api = saved


def describe(err: Any, drv: Any = None) -> tuple[str, str]:
    """(name, description) of a CUresult."""
    drv = drv if drv is not None else api()
    try:
        e1, name = drv.cuGetErrorName(err)
        e2, text = drv.cuGetErrorString(err)
        if int(e1) == 0 and int(e2) == 0:
            return name.decode(), text.decode()
    except Exception:
        pass
    return f"CUresult {int(err)}", "unknown error code"


def check(result: Any, call: str) -> Any:
    """Unpack a cuda-python result tuple ``(err, *values)``; raise :class:`CudaError` on error.

    Returns ``None`` for no values, the value for one, and a tuple for several.
    """
    if not isinstance(result, tuple):
        result = (result,)
    err, values = result[0], result[1:]
    if int(err) != 0:
        name, text = describe(err)
        raise CudaError(call, name, text, int(err))
    if not values:
        return None
    return values[0] if len(values) == 1 else values
