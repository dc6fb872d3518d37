"""Loading PTX (JIT-compiled by the driver) or a ptxas cubin, and looking kernels up."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tileorch.backend.ptx_names import ptx_entries  # noqa: F401 (re-exported: tileorch.runtime.ptx_entries)
from tileorch.runtime.device import Device, current_device
from tileorch.runtime.driver import api, check
from tileorch.runtime.errors import CudaError



@dataclass
class Kernel:
    """One kernel of a loaded module, with its parameter sizes read from the image."""

    name: str
    function: Any
    module: Module
    param_sizes: list[int] = field(default_factory=list)
    max_dynamic_smem: int = 0
    max_shared_carveout: bool = False  # (the largest shared-memory carveout asked for: launch.prefer_max_shared)
    pdl: bool = False
    """Compiled for programmatic dependent launch (``TILEORCH_PDL=1``: the compiled program's ``pdl``, set by
    the launcher that loads it): every launch of it carries ``CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION``.
    Only a kernel that waits (``griddepcontrol.wait``) before every global access may: the attribute on any
    other kernel lets it race with the kernel before it."""
    _registers: int | None = None

    def registers(self) -> int:
        """Registers per thread ptxas gave the kernel (``CU_FUNC_ATTRIBUTE_NUM_REGS``), read once."""
        if self._registers is None:
            drv = api()
            self._registers = int(check(drv.cuFuncGetAttribute(
                drv.CUfunction_attribute.CU_FUNC_ATTRIBUTE_NUM_REGS, self.function), "cuFuncGetAttribute(NUM_REGS)"))
        return self._registers


def _param_sizes(function: Any) -> list[int]:
    drv = api()
    sizes: list[int] = []
    while True:
        result = drv.cuFuncGetParamInfo(function, len(sizes))
        if int(result[0]) != 0:  # CUDA_ERROR_INVALID_VALUE past the last parameter
            return sizes
        sizes.append(int(result[2]))


class Module:
    """A loaded CUDA module.  ``image`` is PTX text (str, or bytes starting with text) or a cubin."""

    def __init__(self, image: str | bytes, device: Device | None = None, label: str = "<module>"):
        self.device = device or current_device()
        self.label = label
        data = image.encode() if isinstance(image, str) else bytes(image)
        self.is_ptx = not data.startswith(b"\x7fELF")
        if self.is_ptx and not data.endswith(b"\0"):
            data += b"\0"
        self.entries = ptx_entries(data.decode(errors="replace")) if self.is_ptx else []
        try:
            self.handle = check(api().cuModuleLoadData(data), f"cuModuleLoadData({label})")
        except CudaError as exc:
            hint = (
                " (the driver's JIT rejected the PTX: run `ptxas -arch=sm_90a` on it for the "
                "line-level message)"
                if self.is_ptx
                else ""
            )
            raise CudaError(exc.call, exc.name, exc.description + hint, exc.code) from None
        self._kernels: dict[str, Kernel] = {}

    @classmethod
    def from_file(cls, path: str | Path) -> Module:
        path = Path(path)
        return cls(path.read_bytes(), label=str(path))

    def kernel(self, name: str) -> Kernel:
        """The kernel called ``name``; the error lists the module's kernels when it is missing."""
        if name not in self._kernels:
            try:
                fn = check(
                    api().cuModuleGetFunction(self.handle, name.encode()),
                    f"cuModuleGetFunction({name!r})",
                )
            except CudaError as exc:
                known = f"; kernels in {self.label}: {', '.join(self.entries)}" if self.entries else ""
                raise CudaError(exc.call, exc.name, f"no kernel named {name!r}{known}", exc.code) from None
            self._kernels[name] = Kernel(name, fn, self, _param_sizes(fn))
        return self._kernels[name]
