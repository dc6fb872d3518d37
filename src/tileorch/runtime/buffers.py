"""Device memory: pointers from foreign arrays (CUDA array interface, DLPack) and own buffers."""

from __future__ import annotations

import ctypes
from typing import Any

from tileorch.runtime.device import current_device
from tileorch.runtime.driver import api, check

_KDL_CUDA = 2
_KDL_CUDA_MANAGED = 13


class _DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class _DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class _DLTensor(ctypes.Structure):
    _fields_ = [
        ("data", ctypes.c_void_p),
        ("device", _DLDevice),
        ("ndim", ctypes.c_int32),
        ("dtype", _DLDataType),
        ("shape", ctypes.POINTER(ctypes.c_int64)),
        ("strides", ctypes.POINTER(ctypes.c_int64)),
        ("byte_offset", ctypes.c_uint64),
    ]


_capsule_get_pointer = ctypes.pythonapi.PyCapsule_GetPointer
_capsule_get_pointer.restype = ctypes.c_void_p
_capsule_get_pointer.argtypes = [ctypes.py_object, ctypes.c_char_p]


def _dlpack_pointer(obj: Any) -> int:
    # The capsule is not consumed (its name stays "dltensor"), so its deleter frees the
    # DLManagedTensor; ``obj`` keeps the memory itself alive.  DLTensor is the first member.
    capsule = obj.__dlpack__()
    tensor = _DLTensor.from_address(_capsule_get_pointer(capsule, b"dltensor"))
    if tensor.device.device_type not in (_KDL_CUDA, _KDL_CUDA_MANAGED):
        raise TypeError(
            f"{type(obj).__name__} lives on DLPack device type {tensor.device.device_type}, "
            "not on a CUDA device: copy it to the GPU first"
        )
    return int(tensor.data or 0) + int(tensor.byte_offset)


def device_pointer(obj: Any) -> int:
    """The device address of ``obj``: a :class:`DeviceBuffer`, anything exposing
    ``__cuda_array_interface__`` (torch, cupy, numba) or ``__dlpack__`` on a CUDA device."""
    if isinstance(obj, DeviceBuffer):
        return obj.ptr
    cai = getattr(obj, "__cuda_array_interface__", None)
    if cai is not None:
        return int(cai["data"][0])
    if hasattr(obj, "__dlpack__"):
        return _dlpack_pointer(obj)
    raise TypeError(
        f"cannot pass a {type(obj).__name__} as a device buffer: it has neither "
        "__cuda_array_interface__ nor __dlpack__ (use a torch/cupy GPU tensor or DeviceBuffer)"
    )


def is_device_array(obj: Any) -> bool:
    return isinstance(obj, DeviceBuffer) or hasattr(obj, "__cuda_array_interface__") or hasattr(
        obj, "__dlpack__"
    )


class DeviceBuffer:
    """``nbytes`` of device memory from ``cuMemAlloc``, freed when the object is collected."""

    def __init__(self, nbytes: int):
        current_device()
        self.nbytes = int(nbytes)
        self._ptr = check(api().cuMemAlloc(max(self.nbytes, 1)), f"cuMemAlloc({self.nbytes})")

    @property
    def ptr(self) -> int:
        return int(self._ptr)

    @classmethod
    def from_array(cls, host: np.ndarray) -> DeviceBuffer:
        buf = cls(host.nbytes)
        buf.upload(host)
        return buf

    def upload(self, host: np.ndarray) -> None:
        import numpy as np

        data = np.ascontiguousarray(host)
        if data.nbytes > self.nbytes:
            raise ValueError(f"{data.nbytes} bytes do not fit a {self.nbytes}-byte buffer")
        check(api().cuMemcpyHtoD(self._ptr, data.ctypes.data, data.nbytes), "cuMemcpyHtoD")

    def download(self, dtype: Any = "uint8", count: int | None = None) -> np.ndarray:
        import numpy as np

        dtype = np.dtype(dtype)
        n = self.nbytes // dtype.itemsize if count is None else count
        out = np.empty(n, dtype)
        check(api().cuMemcpyDtoH(out.ctypes.data, self._ptr, out.nbytes), "cuMemcpyDtoH")
        return out

    def fill_bytes(self, value: int) -> None:
        check(api().cuMemsetD8(self._ptr, value & 0xFF, self.nbytes), "cuMemsetD8")

    def __del__(self) -> None:
        ptr = getattr(self, "_ptr", None)
        if ptr is not None:
            try:
                api().cuMemFree(ptr)
            except Exception:
                pass
