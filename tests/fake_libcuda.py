"""A stand-in for libcuda's launch entry points, for the ctypes launch path
(:mod:`tileorch.runtime.direct_launch`) without a GPU.

``cuLaunchKernelEx``, ``cuGetErrorName`` and ``cuGetErrorString`` are real C function pointers
(ctypes callbacks with the prototypes of cuda.h), so what the launcher passes goes through the
same foreign-call conversions as a call into libcuda.  Each launch is decoded from raw memory
with cuda.h's layout written out here by hand (``CUlaunchConfig``: seven ``unsigned int``, 4
bytes of padding, the stream, the attributes pointer, ``numAttrs`` and padding, 56 bytes;
``CUlaunchAttribute``: a 4-byte id, 4 bytes of padding, a 64-byte value whose first 12 bytes are
the cluster dimensions, or whose first 4 the programmatic stream serialization flag), not with the structures under test.

Function handles: :func:`handle` gives a stand-in driver's function name an integer handle
(``int(h)``, as a cuda-python ``CUfunction`` has); the launch records the name again.
"""

from __future__ import annotations

import ctypes
import struct

CONFIG = struct.Struct("<7I4xQQI4x")
ATTRIBUTE = struct.Struct("<i4x3I52x")
assert CONFIG.size == 56 and ATTRIBUTE.size == 72

_names: dict[int, str] = {}  # handle -> name
_handles: dict[str, int] = {}  # name -> handle


class Handle(str):
    """A stand-in driver's function (its name, so dictionaries keyed by name still find it) with
    the integer handle a cuda-python ``CUfunction`` gives to ``int()``."""

    def __int__(self) -> int:
        return _handles[str(self)]


def handle(name: str) -> Handle:
    if name not in _handles:
        _handles[name] = h = 0x5000 + 16 * len(_handles)
        _names[h] = name
    return Handle(name)


ERRORS = {1: "CUDA_ERROR_INVALID_VALUE", 700: "CUDA_ERROR_ILLEGAL_ADDRESS"}


class FakeLibcuda:
    """``cuLaunchKernelEx`` decodes and records each launch (:attr:`launches`: grid, block, smem,
    stream, attributes as ``(id, (x, y, z))``, the function's name, each parameter's bytes by
    ``sizes(name)``) and returns :attr:`result`."""

    def __init__(self, sizes):
        self.sizes, self.launches, self.result = sizes, [], 0
        proto = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p)
        self.cuLaunchKernelEx = proto(self._launch)
        text = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_int, ctypes.POINTER(ctypes.c_char_p))
        self._strings = {code: (name.encode(), f"text of {name}".encode()) for code, name in ERRORS.items()}
        self.cuGetErrorName = text(lambda code, out: self._text(code, out, 0))
        self.cuGetErrorString = text(lambda code, out: self._text(code, out, 1))

    def _text(self, code, out, which) -> int:
        if code not in self._strings:
            return 1
        out[0] = self._strings[code][which]
        return 0

    def _launch(self, config, fn, params, extra) -> int:
        gx, gy, gz, bx, by, bz, smem, stream, attrs, n = CONFIG.unpack(ctypes.string_at(config, CONFIG.size))
        decoded = [ATTRIBUTE.unpack(ctypes.string_at(attrs + i * ATTRIBUTE.size, ATTRIBUTE.size)) for i in range(n)]
        name = _names[fn]
        sizes = self.sizes(name)
        ptrs = struct.unpack(f"<{len(sizes)}Q", ctypes.string_at(params, 8 * len(sizes))) if sizes else ()
        self.launches.append({"grid": (gx, gy, gz), "block": (bx, by, bz), "smem": smem, "stream": stream,
                              "attrs": [(a[0], a[1:]) for a in decoded], "fn": name, "extra": extra,
                              "params": [ctypes.string_at(p, s) for p, s in zip(ptrs, sizes)]})
        return self.result


def cuda_python_launch(config, fn, params: list[bytes]) -> dict:
    """A stand-in cuda-python driver's record of a launch (its ``CUlaunchConfig`` namespace) in
    :class:`FakeLibcuda`'s terms."""
    attrs = [(6, (a.value.programmaticStreamSerializationAllowed, 0, 0)) if a.id in (6, "pdl") else
             (4 if a.id in (4, "cluster") else a.id, (a.value.clusterDim.x, a.value.clusterDim.y, a.value.clusterDim.z))
             for a in config.attrs]
    return {"grid": (config.gridDimX, config.gridDimY, config.gridDimZ),
            "block": (config.blockDimX, config.blockDimY, config.blockDimZ), "smem": config.sharedMemBytes,
            "stream": config.hStream or 0, "attrs": attrs[:config.numAttrs], "fn": str(fn), "extra": None,
            "params": params}
