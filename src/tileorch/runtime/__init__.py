"""Optional CUDA runtime (``pip install 'tileorch[gpu]'``, cuda-python's ``cuda.bindings.driver``).

Load PTX (JIT) or a ptxas cubin with :class:`Module`, launch with :func:`launch` (grid, block,
cluster, dynamic shared memory; arguments packed by the kernel's parameter sizes; device arrays
from torch/cupy/DLPack or :class:`DeviceBuffer`).  Every driver call is checked; a kernel that
does not finish within the launch's timeout raises :class:`KernelHang`.  Importing this package
never needs a GPU: without one, :func:`gpu_status` says why and GPU calls raise
:class:`GpuUnavailable`.
"""

from tileorch.runtime.buffers import DeviceBuffer, device_pointer
from tileorch.runtime.device import Device, current_device
from tileorch.runtime.driver import gpu_status
from tileorch.runtime.errors import ContextPoisoned, CudaError, GpuUnavailable, KernelFault, KernelHang
from tileorch.runtime.launch import Launch, LaunchConfig, launch
from tileorch.runtime.module import Kernel, Module, ptx_entries

__all__ = [
    "ContextPoisoned", "CudaError", "Device", "DeviceBuffer", "GpuUnavailable", "Kernel",
    "KernelFault", "KernelHang", "Launch", "LaunchConfig", "Module", "current_device",
    "device_pointer", "gpu_status", "launch", "ptx_entries",
]
