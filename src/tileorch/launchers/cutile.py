"""Run cuTile kernels through tileorch: ``tileorch.cutile.launch(stream, grid, kernel, args)``
takes the arguments ``cuda.tile.launch`` takes.

1. The kernel's :class:`cuda.tile.compilation.KernelSignature` is built from the actual
   arguments (:func:`describe_arguments`, :func:`kernel_signature`): per array its dtype, rank,
   ``int32`` indices (``int64`` for ``ct.IndexedWithInt64`` parameters), a constant last stride
   of 1 only when it is 1 (a column-major matrix: a constant stride 1 on dimension -2 instead,
   and the compiled kernel reads it as its row-major transpose, :meth:`ArrayArg.as_stored`), the base address's real alignment (at most 16 bytes), no shape or
   stride divisibility; Python ints are ``int32`` scalars (``int64`` for ``ct.ScalarInt64``),
   floats ``float32``, bools ``int32``; ``ct.Constant`` parameters by value.
2. cuTile exports Tile IR bytecode for that signature (no GPU needed) and
   ``tileorch.driver.compile_program`` compiles it; both are cached in process, keyed
   by the kernel function, the signature, the target and the schedule.
3. A ``simt`` program is launched on the cuTile grid with the cuTile entry's own parameters
   (:func:`pack_simt_arguments`); a ``gemm`` program goes through tileorch's GEMM host side
   (tensor maps, tile scheduler), which chooses the grid itself.

Nothing here imports cuda.tile or touches a GPU at import time.
"""

from __future__ import annotations

import dataclasses
import io
import math
import struct
import sys
import weakref
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

from tileorch import settings
from tileorch.cache import compile_environment
from tileorch.gc_deferral import gc_deferred
from tileorch.launchers.cutile_bound import clear as forget_bound
from tileorch.launchers.row_cache_smem import launch_smem
from tileorch.launchers.cutile_bound import (generic_hot, hot_launchers, keep, keep_layout, last_hot, learn,
                                             stream_handle)
from tileorch.launchers.cutile_native import enabled as native_on
from tileorch.launchers.cutile_native import forget as forget_native
from tileorch.launchers.cutile_native import launch as native_launch
from tileorch.launchers.cutile_native import routes as native_routes
from tileorch.launchers.cutile_programs import (ARCHS, BYTECODE_VERSION, LOWERED_ONLY, _compile_program, _read_indexed,
                                               _write_index, kernel_location, kernel_name, kernel_warning,
                                               source_cache_key)
from tileorch.launchers import stale_settings
from tileorch.launchers.array_overlap import elements_overlap, shared_element
from tileorch.launchers.cutile_source_key import note_exported
from tileorch.launchers import launch_copies
from tileorch.launchers.launch_copies import unpacking_copies as c_scatter_copies
from tileorch.launchers.stale_settings import note_bound, recheck as recheck_settings, stale as settings_stale

_NOT_SEEN = object()  # launch(): a kernel the native route has not seen
SCHEDULES = ("auto", "persistent", "streamk", "dp", "simt")
GRID_LIMITS = ((1 << 31) - 1, 65535, 65535)  # CUDA's grid extents (x, y, z), every GPU since compute capability 3.0
_INT32 = (-(1 << 31), (1 << 31) - 1)
_INT64 = (-(1 << 63), (1 << 63) - 1)
_SEQUENCES = (tuple, list)  # isinstance(x, tuple | list) builds the union at every call
_PY_SCALARS = (bool, int, float)

# element type names (cuTile's DType.name) by foreign spelling
_TORCH_DTYPES = {
    "torch.bool": "bool_", "torch.int8": "int8", "torch.int16": "int16", "torch.int32": "int32",
    "torch.int64": "int64", "torch.uint8": "uint8", "torch.uint16": "uint16", "torch.uint32": "uint32",
    "torch.uint64": "uint64", "torch.float16": "float16", "torch.bfloat16": "bfloat16",
    "torch.float32": "float32", "torch.float64": "float64", "torch.float8_e4m3fn": "float8_e4m3fn",
    "torch.float8_e5m2": "float8_e5m2", "torch.float8_e8m0fnu": "float8_e8m0fnu",
}
_TYPESTR_KINDS = {"b": "bool_", "i": "int", "u": "uint", "f": "float"}
# DLPack type codes: 0 int, 1 uint, 2 float, 4 bfloat, 6 bool
_DLPACK_CODES = {0: "int", 1: "uint", 2: "float", 4: "bfloat", 6: "bool_"}
_DLPACK_DEVICES = {1: "host (CPU)", 3: "pinned host (cudaHost)", 4: "OpenCL", 7: "Vulkan", 8: "Metal", 9: "VPI",
                   10: "ROCm", 11: "pinned ROCm host", 12: "an extension device's", 14: "oneAPI", 15: "WebGPU",
                   16: "Hexagon"}  # DLPack's DLDeviceType values that are not CUDA device memory
SUPPORTED_DTYPES = frozenset(_TORCH_DTYPES.values())
_ITEMSIZE = {"bool_": 1, "int8": 1, "uint8": 1, "int16": 2, "uint16": 2, "float16": 2, "bfloat16": 2,
             "int32": 4, "uint32": 4, "float32": 4, "int64": 8, "uint64": 8, "float64": 8,
             "float8_e4m3fn": 1, "float8_e5m2": 1, "float8_e8m0fnu": 1}


def _require_cutile():
    ct, compilation = sys.modules.get("cuda.tile"), sys.modules.get("cuda.tile.compilation")
    if ct is not None and compilation is not None:  # imported (None: marked missing)
        return ct, compilation
    try:
        import cuda.tile as ct
        from cuda.tile import compilation
    except ImportError as exc:
        raise ImportError(f"tileorch.cutile needs cuTile Python ({exc}); install it with: pip install cuda-tile") from None
    return ct, compilation


# --------------------------------------------------------------------------- argument analysis


@dataclass(frozen=True)
class ArrayArg:
    """One array argument as the kernel sees it (strides in elements)."""

    position: int
    name: str
    dtype: str
    shape: tuple[int, ...]
    strides: tuple[int, ...]
    ptr: int
    index_dtype: str = "int32"
    alias_groups: tuple[str, ...] = ()
    static_shape: tuple[int | None, ...] = ()
    """Per dimension the extent the kernel is specialised to (``ct.ArrayAnnotation(static_shape_dims=...)``),
    None on the other dimensions; () when the parameter's annotation lists none."""
    static_strides: tuple[int | None, ...] = ()
    """Likewise for ``static_stride_dims`` (in elements)."""
    read_only: str = ""
    """Why the array may not be written ("": it may): its ``__cuda_array_interface__`` or DLPack
    capsule flags it read-only.  Not part of the kernel's signature: :func:`check_written_arguments`
    refuses such an array where the kernel writes it."""

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def itemsize(self) -> int:
        return _ITEMSIZE[self.dtype]

    @property
    def alignment(self) -> int:
        """The largest power of two (at most 16) dividing the base address (16 for a null one)."""
        return 16 if self.ptr == 0 else min(16, self.ptr & -self.ptr)

    @property
    def may_alias_internally(self) -> bool:
        return any(s == 0 and d > 1 for s, d in zip(self.strides, self.shape))

    def byte_range(self) -> tuple[int, int]:
        """[first, past the last) byte the array addresses ((ptr, ptr) when it is empty)."""
        lo = hi = 0  # the lowest and highest element offsets
        for d, s in zip(self.shape, self.strides):
            if d == 0:
                return self.ptr, self.ptr
            if s < 0:
                lo += (d - 1) * s
            else:
                hi += (d - 1) * s
        return self.ptr + lo * self.itemsize, self.ptr + (hi + 1) * self.itemsize

    @property
    def column_major(self) -> bool:
        """The matrix (the last two dimensions) is column-major and not also row-major: unit stride
        on dimension -2, a last stride of at least dimension -2's extent.  The kernel is compiled for
        that unit stride (the signature states it) and reads the array as its row-major transpose
        (``tileaa-transpose-column-major``): see :meth:`as_stored`."""
        if self.ndim < 2 or self.strides[-1] == 1:
            return False
        return self.strides[-2] == 1 and self.strides[-1] >= max(self.shape[-2], 1)

    def as_stored(self) -> ArrayArg:
        """The array as the compiled kernel reads it: a column-major one as its row-major transpose
        (the last two extents and strides swapped), any other one as it is."""
        if not self.column_major:
            return self
        return dataclasses.replace(self, shape=(*self.shape[:-2], self.shape[-1], self.shape[-2]),
                                   strides=(*self.strides[:-2], self.strides[-1], self.strides[-2]))

    def key(self) -> tuple:
        return ("array", self.dtype, self.ndim, self.index_dtype, self.strides[-1:] == (1,), self.column_major,
                self.alignment, tuple(s >= 0 for s in self.strides), self.may_alias_internally, self.alias_groups,
                self.static_shape, self.static_strides)


@dataclass(frozen=True)
class ScalarArg:
    """A Python ``int`` / ``float`` argument at ``position``: a kernel parameter of ``dtype`` holding ``value``."""

    position: int
    name: str
    dtype: str  # int32, int64 or float32
    value: int | float

    def key(self) -> tuple:
        return ("scalar", self.dtype)


@dataclass(frozen=True)
class ConstantArg:
    """A ``ct.Constant`` argument at ``position``: ``value`` is compiled into the kernel (part of its key)."""

    position: int
    name: str
    value: bool | int | float

    def key(self) -> tuple:
        v = self.value
        return ("constant", type(v).__name__, struct.pack("<d", v) if isinstance(v, float) else v)


@dataclass(frozen=True)
class ListArg:
    """A list-of-arrays argument (a Python ``list`` of GPU arrays of one dtype and rank): the kernel
    takes a pointer to a device table of ``len(items)`` rows of i64 words, ``[data pointer,
    shape..., strides...]`` (cuTile's list layout: ``1 + 2 * ndim`` words a row, strides in
    elements), and the list's length.  ``table_ptr``: that table's device address once uploaded
    (:func:`upload_list_tables`; 0 while only described)."""

    position: int
    name: str
    items: tuple[ArrayArg, ...]
    table_ptr: int = 0

    @property
    def dtype(self) -> str:
        return self.items[0].dtype

    @property
    def ndim(self) -> int:
        return self.items[0].ndim

    @property
    def index_dtype(self) -> str:
        return "int64" if any(a.index_dtype == "int64" for a in self.items) else "int32"

    @property
    def alignment(self) -> int:
        return min(a.alignment for a in self.items)

    @property
    def unit_last_stride(self) -> bool:
        return all(a.strides[-1:] == (1,) for a in self.items)

    @property
    def alias_groups(self) -> tuple[str, ...]:
        return tuple(sorted({g for a in self.items for g in a.alias_groups}))

    @property
    def elements_may_alias(self) -> bool:
        ranges = [a.byte_range() for a in self.items]
        return any(ranges[i][0] < ranges[j][1] and ranges[j][0] < ranges[i][1]
                   for i in range(len(ranges)) for j in range(i + 1, len(ranges)))

    def table(self) -> bytes:
        """The device table's bytes (little-endian i64 words, one row per array)."""
        words = [w for a in self.items for w in (a.ptr, *a.shape, *a.strides)]
        return struct.pack(f"<{len(words)}q", *words)

    def key(self) -> tuple:
        return ("list", self.dtype, self.ndim, self.index_dtype, self.unit_last_stride, self.alignment,
                all(s >= 0 for a in self.items for s in a.strides), any(a.may_alias_internally for a in self.items),
                self.alias_groups, self.elements_may_alias)


Argument = ArrayArg | ScalarArg | ConstantArg | ListArg


def _where(name: str, position: int) -> str:
    return f"argument {position} ('{name}')"


def _torch_tensor_type():
    torch = sys.modules.get("torch")
    return getattr(torch, "Tensor", None) if torch is not None else None


def _contiguous_strides(shape: tuple[int, ...]) -> tuple[int, ...]:
    strides, step = [], 1
    for d in reversed(shape):
        strides.append(step)
        step *= max(d, 1)
    return tuple(reversed(strides))


def _torch_device_index(device: Any) -> int:
    """The CUDA ordinal of a torch device (``torch.device`` or its text, ``cuda`` being 0)."""
    if isinstance(device, str):
        return int(device.rsplit(":", 1)[1]) if ":" in device else 0
    return int(getattr(device, "index", None) or 0)


def _require_device_0(ordinal: int, name: str, where: str) -> None:
    """Kernels run on device 0 (:func:`_check_device`): an array on another GPU is refused
    (a kernel on device 0 reading another device's memory faults or reads through peer access
    silently slowly)."""
    if ordinal != 0:
        raise ValueError(f"{where} is on {name}; tileorch.cutile.launch runs kernels on device 0 (cuda:0): "
                         "move the array there (.to('cuda:0')), or make the GPU device 0 with CUDA_VISIBLE_DEVICES")


def _array_facts(obj: Any, where: str) -> tuple[str, tuple[int, ...], tuple[int, ...], int, str]:
    """(dtype name, shape, strides in elements, device pointer, why it is read-only or "") of a GPU array."""
    tensor_type = _torch_tensor_type()
    if tensor_type is not None and isinstance(obj, tensor_type):
        if not obj.is_cuda:
            raise TypeError(f"{where} is a torch tensor on {obj.device}, not on a CUDA device: move it with .cuda()")
        _require_device_0(_torch_device_index(obj.device), f"cuda:{_torch_device_index(obj.device)}", where)
        dtype = _TORCH_DTYPES.get(str(obj.dtype))
        if dtype is None:
            raise TypeError(f"{where} has dtype {obj.dtype}, which cuTile kernels do not take "
                            f"(supported: {', '.join(sorted(SUPPORTED_DTYPES))})")
        return dtype, tuple(int(d) for d in obj.shape), tuple(int(s) for s in obj.stride()), int(obj.data_ptr()), ""
    cai = getattr(obj, "__cuda_array_interface__", None)
    if cai is not None:
        _check_cuda_array_interface(cai, where)
        typestr = str(cai["typestr"])
        kind = _TYPESTR_KINDS.get(typestr[1:2])
        size = int(typestr[2:] or 0) if typestr[2:].isdigit() else 0
        dtype = "bool_" if kind == "bool_" and size == 1 else f"{kind}{8 * size}" if kind and kind != "bool_" else None
        if dtype not in SUPPORTED_DTYPES:
            raise TypeError(f"{where} has element type {typestr!r}, which cuTile kernels do not take "
                            f"(supported: {', '.join(sorted(SUPPORTED_DTYPES))})")
        shape = tuple(int(d) for d in cai["shape"])
        if cai.get("strides") is None:
            strides = _contiguous_strides(shape)
        else:
            byte_strides = tuple(int(s) for s in cai["strides"])
            if any(s % size for s in byte_strides):
                raise ValueError(f"{where} has strides {byte_strides} bytes, not a multiple of its {size}-byte elements")
            strides = tuple(s // size for s in byte_strides)
        ptr = int(cai["data"][0] or 0)
        if ptr == 0 and all(shape):
            raise ValueError(f"{where} has {math.prod(shape)} elements at address 0 (a null pointer): a kernel "
                             "reading it faults on the GPU")
        read_only = "its __cuda_array_interface__ 'data' says read-only" if cai["data"][1] else ""
        return dtype, shape, strides, ptr, read_only
    if hasattr(obj, "__dlpack__"):
        return _dlpack_facts(obj, where)
    raise TypeError(f"{where}: cannot pass a {type(obj).__name__} to a cuTile kernel (arrays must be torch/cupy GPU "
                    "tensors or DLPack GPU arrays; scalars Python int, float or bool)")


def _check_cuda_array_interface(cai: Any, where: str) -> None:
    """``__cuda_array_interface__`` (version 3) has what :func:`_array_facts` reads: a ``typestr``
    string, a ``shape`` of non-negative ints, ``data`` = (pointer int or None, read-only flag) and
    ``strides`` None or one int per dimension; else TypeError/ValueError naming the argument (was
    a ``KeyError`` or an unrelated ``TypeError`` from inside the launcher)."""

    def bad(what: str) -> TypeError:
        return TypeError(f"{where} has a malformed __cuda_array_interface__: {what}")

    if not isinstance(cai, dict):
        raise bad(f"a dict is expected, got {type(cai).__name__}")
    for key in ("typestr", "shape", "data"):
        if key not in cai:
            raise bad(f"no {key!r} entry")
    if not isinstance(cai["typestr"], str):
        raise bad(f"'typestr' must be a string such as '<f4', got {cai['typestr']!r}")
    shape = cai["shape"]
    if not isinstance(shape, tuple | list) or not all(isinstance(d, int) and not isinstance(d, bool) for d in shape):
        raise bad(f"'shape' must be a tuple of ints, got {shape!r}")
    if any(d < 0 for d in shape):
        raise ValueError(f"{where} has shape {tuple(shape)}: an extent is negative")
    data = cai["data"]
    if (not isinstance(data, tuple | list) or len(data) != 2
            or not (data[0] is None or isinstance(data[0], int) and not isinstance(data[0], bool))):
        raise bad(f"'data' must be (pointer, read_only), got {data!r}")
    strides = cai.get("strides")
    if strides is not None and (not isinstance(strides, tuple | list) or len(strides) != len(shape)
                                or not all(isinstance(x, int) and not isinstance(x, bool) for x in strides)):
        raise bad(f"'strides' must be None or {len(shape)} int(s) (bytes per step of each dimension), got {strides!r}")


_VERSIONED: list = []  # the ctypes structure of DLManagedTensorVersioned, made on first use
_DLPACK_READ_ONLY = 1  # DLPACK_FLAG_BITMASK_READ_ONLY of DLManagedTensorVersioned.flags (DLPack 1.0)


def _dlpack_tensor(obj: Any) -> tuple[Any, Any, bool]:
    """(the capsule, its DLTensor, whether the producer flags it read-only): a versioned capsule
    (DLPack 1.0, ``__dlpack__(max_version=(1, 0))``, which carries the read-only flag) where the
    producer gives one, else the unversioned one (no flag: writable).  The capsule is returned so
    that the DLTensor stays alive while it is read; it is not consumed (its deleter runs when it is
    collected)."""
    import ctypes

    from tileorch.runtime.buffers import _capsule_get_pointer, _DLTensor

    try:
        capsule = obj.__dlpack__(max_version=(1, 0))
    except TypeError:  # a producer before DLPack 1.0: no max_version keyword
        capsule = obj.__dlpack__()
    get_name = ctypes.pythonapi.PyCapsule_GetName
    get_name.restype, get_name.argtypes = ctypes.c_char_p, [ctypes.py_object]
    if get_name(capsule) == b"dltensor_versioned":
        if not _VERSIONED:
            class Versioned(ctypes.Structure):  # DLManagedTensorVersioned
                _fields_ = [("major", ctypes.c_uint32), ("minor", ctypes.c_uint32), ("manager_ctx", ctypes.c_void_p),
                            ("deleter", ctypes.c_void_p), ("flags", ctypes.c_uint64), ("dl_tensor", _DLTensor)]

            _VERSIONED.append(Versioned)
        managed = _VERSIONED[0].from_address(_capsule_get_pointer(capsule, b"dltensor_versioned"))
        return capsule, managed.dl_tensor, bool(managed.flags & _DLPACK_READ_ONLY)
    return capsule, _DLTensor.from_address(_capsule_get_pointer(capsule, b"dltensor")), False


def _dlpack_facts(obj: Any, where: str) -> tuple[str, tuple[int, ...], tuple[int, ...], int, str]:
    from tileorch.runtime.buffers import _KDL_CUDA, _KDL_CUDA_MANAGED

    capsule, t, read_only = _dlpack_tensor(obj)
    if t.device.device_type not in (_KDL_CUDA, _KDL_CUDA_MANAGED):
        numpy = sys.modules.get("numpy")
        if numpy is not None and isinstance(obj, numpy.ndarray):
            raise TypeError(f"{where} is a numpy array, in host memory: cuTile kernels take GPU arrays; copy it to "
                            "the GPU first (torch.from_numpy(x).cuda(), cupy.asarray(x))")
        kind = _DLPACK_DEVICES.get(t.device.device_type, f"DLPack device type {t.device.device_type}")
        raise TypeError(f"{where} lives in {kind} memory, not on a CUDA device: copy it to the GPU first")
    _require_device_0(int(t.device.device_id), f"CUDA device {t.device.device_id}", where)
    kind = _DLPACK_CODES.get(t.dtype.code)
    bits = int(t.dtype.bits)
    if t.dtype.lanes != 1 or kind is None:
        dtype = None
    elif kind == "bool_":
        dtype = "bool_" if bits == 8 else None
    elif kind == "bfloat":
        dtype = "bfloat16" if bits == 16 else None
    else:
        dtype = f"{kind}{bits}"
    if dtype not in SUPPORTED_DTYPES:
        raise TypeError(f"{where} has DLPack type (code {t.dtype.code}, {bits} bits, {t.dtype.lanes} lanes), which "
                        f"cuTile kernels do not take (supported: {', '.join(sorted(SUPPORTED_DTYPES))})")
    shape = tuple(int(t.shape[i]) for i in range(t.ndim))
    strides = tuple(int(t.strides[i]) for i in range(t.ndim)) if t.strides else _contiguous_strides(shape)
    ptr = int(t.data or 0) + int(t.byte_offset)
    del capsule  # (t was read while it was alive)
    return dtype, shape, strides, ptr, "its DLPack capsule is flagged read-only" if read_only else ""


def _is_array(obj: Any) -> bool:
    tensor_type = _torch_tensor_type()
    return ((tensor_type is not None and isinstance(obj, tensor_type))
            or hasattr(obj, "__cuda_array_interface__") or hasattr(obj, "__dlpack__"))


def _parameters(kernel: Any) -> tuple[list[str], list[Any]]:
    ann = getattr(kernel, "_annotated_function", None)
    if ann is None:
        raise TypeError(f"kernel must be a function decorated with @cuda.tile.kernel, got {type(kernel).__name__}")
    return list(ann.pysig.parameters), list(ann.parameter_annotations)


_INT_CONSTANTS: Any = weakref.WeakKeyDictionary()  # kernel function -> its ct.Constant[int] parameters


def _declared_int_text(kernel: Any, fname: str, where: str, value: float) -> str:
    """The words for a float given to a ``ct.Constant[int]`` parameter (a warning at the launch, a note on
    cuTile's error when the export fails at an integer use of it)."""
    code = kernel._annotated_function.pyfunc.__code__
    return (f"{where} is declared ct.Constant[int] (kernel '{fname}', {code.co_filename}:{code.co_firstlineno}), "
            f"got float {value!r}: pass an int{f' ({int(value)})' if value.is_integer() else ''}")


def _constant_declares_int(kernel: Any, name: str) -> bool:
    """Whether the kernel declares parameter ``name`` as ``ct.Constant[int]`` (its Python type hint
    ``Annotated[int, ConstantAnnotation()]``); False where the hints cannot be read (a name a string
    annotation cannot resolve): then nothing is checked.  Read once per kernel function (a float
    given to a ``ct.Constant[float]`` asks on every described call)."""
    import typing

    fn = kernel._annotated_function.pyfunc
    names = _INT_CONSTANTS.get(fn)
    if names is None:
        try:
            hints = typing.get_type_hints(fn, include_extras=True)
        except Exception:  # noqa: BLE001 - an unresolvable annotation: cuTile's own typing decides
            hints = {}
        names = _INT_CONSTANTS[fn] = frozenset(
            n for n, h in hints.items() if typing.get_origin(h) is typing.Annotated and typing.get_args(h)[0] is int)
    return name in names


_INT_SCALARS: Any = weakref.WeakKeyDictionary()  # kernel function -> its parameters annotated plain ``int``


def _scalar_declares_int(kernel: Any, name: str) -> bool:
    """Whether the kernel annotates parameter ``name`` as a plain ``int`` (``limit: int``); False where the
    hints cannot be read.  Read once per kernel function."""
    import typing

    fn = kernel._annotated_function.pyfunc
    names = _INT_SCALARS.get(fn)
    if names is None:
        try:
            hints = typing.get_type_hints(fn)
        except Exception:  # noqa: BLE001 - an unresolvable annotation: nothing is checked
            hints = {}
        names = _INT_SCALARS[fn] = frozenset(n for n, h in hints.items() if h is int)
    return name in names


def _assign_alias_groups(arrays: list[ArrayArg]) -> list[ArrayArg]:
    """Arrays whose byte ranges overlap share an alias group (cuTile assumes no aliasing otherwise)."""
    ranges = [a.byte_range() for a in arrays]
    overlapping = [(i, j) for i in range(len(arrays)) for j in range(i + 1, len(arrays))
                   if ranges[i][0] < ranges[j][1] and ranges[j][0] < ranges[i][1]]
    if not overlapping:
        return list(arrays)
    parent = list(range(len(arrays)))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for i, j in overlapping:
        parent[find(i)] = find(j)
    members: dict[int, list[int]] = {}
    for i in range(len(arrays)):
        members.setdefault(find(i), []).append(i)
    out = list(arrays)
    for n, group in enumerate(g for g in members.values() if len(g) > 1):
        for i in group:
            out[i] = dataclasses.replace(arrays[i], alias_groups=(f"alias{n}",))
    return out


def describe_arguments(kernel: Any, args: Any) -> list[Argument]:
    """Classify ``args`` against the kernel's parameters; errors name the argument."""
    ct, _ = _require_cutile()
    names, annotations = _parameters(kernel)
    fname = kernel_name(kernel)
    if not isinstance(args, _SEQUENCES):
        raise TypeError(f"kernel arguments must be a tuple, got {type(args).__name__}")
    if len(args) != len(names):
        raise TypeError(f"kernel '{fname}' takes {len(names)} arguments ({', '.join(names)}), got {len(args)}")
    out: list[Argument] = []
    for pos, (name, node, value) in enumerate(zip(names, annotations, args)):
        where = _where(name, pos)
        if (getattr(node, "KIND", "leaf") == "leaf" and isinstance(value, list) and not node.constant
                and node.scalar is None and node.array is None):
            out.append(_list_argument(pos, name, node, value, where, ct))
            continue
        if node.constant and getattr(node, "KIND", "leaf") == "leaf" and isinstance(value, _SEQUENCES):
            raise TypeError(f"{where} is a ct.Constant parameter: it takes a Python bool, int or float, "
                            f"got {type(value).__name__}")  # (a tile size given as [64]: not a tuple parameter)
        if getattr(node, "KIND", "leaf") != "leaf" or isinstance(value, _SEQUENCES):
            raise TypeError(f"{where}: tuple parameters (and lists of anything but arrays) are not supported by "
                            "tileorch.cutile.launch yet")
        if node.constant:
            if _is_array(value) or not isinstance(value, _PY_SCALARS):
                raise TypeError(f"{where} is a ct.Constant parameter: it takes a Python bool, int or float, "
                                f"got {type(value).__name__}")
            if isinstance(value, float) and _constant_declares_int(kernel, name):
                # cuTile types it as a float tile (it never reads the T of Constant[T]): it computes with it
                # where a float is allowed and fails at an integer use (a shape: "Expected a tuple of
                # integers"), naming neither; so a warning here, and a note on cuTile's error at the export.
                # A bool is what cuTile takes for an int flag (``if FLAG:``): accepted as it is.
                import warnings

                warnings.warn(_declared_int_text(kernel, fname, where, value), UserWarning, stacklevel=3)
            out.append(ConstantArg(pos, name, value))
        elif isinstance(value, _PY_SCALARS):
            if node.array is not None:
                raise TypeError(f"{where} is annotated as an array, got a {type(value).__name__}")
            if isinstance(value, float):
                if node.scalar is not None:  # ScalarAnnotation: int32 or int64 only
                    raise TypeError(f"{where} is annotated as an {node.scalar.dtype.name} scalar, got a float "
                                    f"({value!r}); pass an int, or drop the annotation for a float32 scalar")
                try:
                    struct.pack("<f", value)
                except OverflowError:
                    raise ValueError(f"{where} = {value!r} does not fit in float32 (largest finite value "
                                     "3.4028235e+38); pass float('inf') if infinity is meant") from None
                if _scalar_declares_int(kernel, name):  # cuTile types it by the value: an f32 variant, silently
                    import warnings

                    code = kernel._annotated_function.pyfunc.__code__
                    warnings.warn(f"{where} is annotated int (kernel '{fname}', {code.co_filename}:"
                                  f"{code.co_firstlineno}), got float {value!r}: cuTile types a scalar by its value, "
                                  "so the kernel compiles with a float32 there (comparisons and arithmetic in float); "
                                  f"pass an int{f' ({int(value)})' if value.is_integer() else ''}", UserWarning,
                                  stacklevel=3)
                out.append(ScalarArg(pos, name, "float32", value))
                continue
            wide = node.scalar is not None and node.scalar.dtype == ct.int64
            lo, hi = _INT64 if wide else _INT32
            if not lo <= int(value) <= hi:
                hint = "" if wide else "; annotate the parameter with ct.ScalarInt64"
                raise ValueError(f"{where} = {value} does not fit in {'int64' if wide else 'int32'}{hint}")
            out.append(ScalarArg(pos, name, "int64" if wide else "int32", int(value)))
        else:
            numpy = sys.modules.get("numpy")
            if numpy is not None and isinstance(value, numpy.generic):
                raise TypeError(f"{where} is a numpy {value.dtype} scalar: pass a Python int, float or bool")
            dtype, shape, strides, ptr, read_only = _array_facts(value, where)
            if node.scalar is not None:
                raise TypeError(f"{where} is annotated as a scalar, got an array")
            _require_element_alignment(ptr, dtype, where)
            wide = node.array is not None and node.array.index_dtype == ct.int64
            lo, hi = _INT64 if wide else _INT32
            if any(not lo <= v <= hi for v in (*shape, *strides)):
                raise ValueError(f"{where}: shape {shape} or strides {strides} exceed the int32 index range; annotate "
                                 "the parameter with ct.IndexedWithInt64")
            if wide:
                _refuse_past_32_bit_indices(where, shape, strides)
            static_shape, static_strides = _static_dims(node.array, shape, strides, where)
            out.append(ArrayArg(pos, name, dtype, shape, strides, ptr, "int64" if wide else "int32",
                                static_shape=static_shape, static_strides=static_strides, read_only=read_only))
    # alias groups over every array, the lists' items included (an item overlapping an array
    # argument shares a group with it: the list's element constraint carries its items' groups)
    arrays = [x for a in out if isinstance(a, ArrayArg | ListArg)
              for x in (a.items if isinstance(a, ListArg) else (a,))]
    grouped = iter(_assign_alias_groups(arrays))
    result: list[Argument] = []
    for a in out:
        if isinstance(a, ArrayArg):
            a = next(grouped)
        elif isinstance(a, ListArg):
            a = dataclasses.replace(a, items=tuple(next(grouped) for _ in a.items))
        result.append(a)
    return result


def _array_parameters(arguments: list[Argument]) -> list[tuple[ArrayArg, int]]:
    """(array, the entry parameter of its pointer, or of its list's table) per array argument and list item, as
    :func:`flat_parameters` numbers the parameters."""
    out = []
    index = 0
    for a in arguments:
        if isinstance(a, ArrayArg):
            out.append((a, index))
            index += 1 + 2 * len(a.shape)
        elif isinstance(a, ScalarArg):
            index += 1
        elif isinstance(a, ListArg):
            out += [(x, index) for x in a.items]
            index += 2
    return out


def _same_view(a: ArrayArg, b: ArrayArg) -> bool:
    """``a`` and ``b`` address the same elements the same way (an in-place update)."""
    return (a.ptr, a.itemsize) == (b.ptr, b.itemsize) and [(d, s) for d, s in zip(a.shape, a.strides) if d != 1] == \
        [(d, s) for d, s in zip(b.shape, b.strides) if d != 1]


def check_written_arguments(kernel: Any, arguments: list[Argument], written: list | None,
                            read: list | None = None) -> bool:
    """Refuse an array the kernel writes (``written``, the compiled program's record; None: unknown,
    nothing checked) that cannot be written correctly, with a ``ValueError`` naming it and the line
    that writes it:

    * flagged read-only by its producer (``__cuda_array_interface__``'s ``data[1]``, a DLPack 1.0
      capsule's read-only flag);
    * two of its indices addressing one element (an ``expand``-ed view: stride 0; strides that fold
      onto each other) where a plain store writes it: program instances storing to one element
      race (atomics on such an array are well defined and taken);
    * sharing an element with another array argument the kernel reads or writes (``read``: the
      parameters it loads from; None: every array counts) without being the same view (same address,
      extents and strides): what one program instance reads or writes another may already have
      written, in no defined order; or with an array its producer flags read-only.  The same view (an in-place update, ``x`` given as input and
      output) is taken: each program instance must then read only what it writes, as in cuTile.

    cuTile 1.7's own launcher checks none of these (it reads no read-only flag, and states overlaps
    only as alias groups, which order one program instance's accesses, not the instances').
    Returns whether a written array shares memory with another array (the same view): a launch bound
    for it is re-pointed only onto calls with the arrays at one address again
    (:func:`tileorch.launchers.cutile_bound._overlaps`), never onto shifted ones."""
    if not written:
        return False
    by_param = {index: (bool(plain), where) for index, plain, where in written}
    located = _array_parameters(arguments)
    targets = [(x, *by_param[i]) for x, i in located if i in by_param]
    if not targets:
        return False
    fname = kernel_name(kernel)
    touched = None if read is None else set(read) | set(by_param)
    arrays = [x for x, i in located]
    untouched = set() if touched is None else {id(x) for x, i in located if i not in touched}
    shared = False
    for a, plain, where in targets:
        name = _where(a.name, a.position)
        at = f" (first at {where})" if where and where != "<unknown>" else ""
        if a.read_only and all(a.shape):
            raise ValueError(f"{name} is read-only ({a.read_only}) and kernel '{fname}' writes it{at}: pass a "
                             "writable array")
        if plain:
            folded = shared_element(a.shape, a.strides)
            if folded is not None:
                raise ValueError(
                    f"{name} has elements that share memory ({folded}: an expand()-ed or broadcast view, or "
                    f"as_strided) and kernel '{fname}' stores to it{at}: program instances storing to one element "
                    "race, so the result would depend on their order; pass an array with its own storage "
                    "(.contiguous() or .clone())")
        lo, hi = a.byte_range()
        for b in arrays:
            if b is a or (b.position == a.position and b.name == a.name):
                continue
            b_lo, b_hi = b.byte_range()
            if not (lo < b_hi and b_lo < hi):  # apart (the common case: no search)
                continue
            if b.read_only and (_same_view(a, b) or elements_overlap(a.ptr, a.shape, a.strides, a.itemsize, b.ptr,
                                                                  b.shape, b.strides, b.itemsize) is not False):
                raise ValueError(f"{_where(b.name, b.position)} is read-only ({b.read_only}) and shares memory with "
                                 f"{name}, which kernel '{fname}' writes{at}: pass writable arrays")
            if _same_view(a, b):  # (non-empty: its byte range overlaps b's)
                shared = True
                continue
            if id(b) in untouched:  # (an array the kernel neither loads from nor writes: its extents only)
                continue
            found = elements_overlap(a.ptr, a.shape, a.strides, a.itemsize, b.ptr, b.shape, b.strides, b.itemsize)
            if found is False:
                continue
            how = "shares memory with" if found else "may share memory with (not decided)"
            raise ValueError(
                f"{name} {how} {_where(b.name, b.position)} without being the same view (address "
                f"{a.ptr:#x} shape {a.shape} strides {a.strides} against {b.ptr:#x} {b.shape} {b.strides}), and kernel "
                f"'{fname}' writes {a.name!r}{at}: program instances run in no defined order, so what one reads or "
                "writes there another may already have overwritten; pass separate arrays (clone the input), or "
                "the very same view for an in-place update")
    return shared


def _static_dims(annotation: Any, shape: tuple, strides: tuple, where: str) -> tuple[tuple, tuple]:
    """``(static_shape, static_strides)`` of an array parameter annotated with ``ct.ArrayAnnotation``:
    per dimension the launch-time extent (stride) where ``static_shape_dims`` (``static_stride_dims``)
    names it, negative axes counting from the last, None elsewhere; () for a field that names none
    (the kernel is then compiled for any value, as without the annotation)."""
    nd = len(shape)

    def pick(field: str, values: tuple) -> tuple:
        dims = tuple(getattr(annotation, field, ()) or ()) if annotation is not None else ()
        if not dims:
            return ()
        bad = [d for d in dims if not -nd <= d < nd]
        if bad:
            raise ValueError(f"{where}: ct.ArrayAnnotation({field}={dims}) names axis {bad[0]} of a {nd}-D array")
        chosen = {d % nd for d in dims}
        return tuple(v if i in chosen else None for i, v in enumerate(values))

    return pick("static_shape_dims", shape), pick("static_stride_dims", strides)


def _refuse_past_32_bit_indices(where: str, shape: tuple, strides: tuple) -> None:
    """An array annotated ``ct.IndexedWithInt64`` (i64 sizes and strides in the kernel's signature) with a size
    or stride of 2**31 or more: refused.  tileorch's kernels (the SIMT path and the tier's epilogues) compute
    element positions, sizes and strides in 32 bits and truncate the i64 values they are given, so such an
    array would be read and written at wrong positions (or not at all), silently."""
    lo, hi = _INT32
    if any(not lo <= v <= hi for v in (*shape, *strides)):
        raise ValueError(f"{where}: shape {shape} or strides {strides} reach 2**31: ct.IndexedWithInt64 is "
                         "accepted, but tileorch's kernels compute sizes, strides and element positions in 32 "
                         "bits (not supported yet: they would be truncated); pass views of fewer than 2**31 "
                         "elements per dimension and stride")


def _require_element_alignment(ptr: int, dtype: str, where: str) -> None:
    """An array's base address must be a multiple of its element size (a misaligned load or
    store faults on the GPU, and the fault poisons the CUDA context)."""
    size = _ITEMSIZE[dtype]
    if ptr % size:
        raise ValueError(f"{where}: base address {ptr:#x} is not a multiple of its {size}-byte {dtype} elements "
                         "(a misaligned access faults on the GPU); pass an array whose data starts at an "
                         "element boundary")


def _list_argument(pos: int, name: str, node: Any, value: list, where: str, ct: Any) -> ListArg:
    """A list of arrays (one dtype and rank, at least one array): each described as an array."""
    if not value:
        raise TypeError(f"{where} is an empty list: a list argument takes at least one array")
    items = []
    for i, obj in enumerate(value):
        w = f"{where} item {i}"
        if not _is_array(obj):
            raise TypeError(f"{w} is a {type(obj).__name__}: a list argument takes GPU arrays only")
        dtype, shape, strides, ptr, read_only = _array_facts(obj, w)
        _require_element_alignment(ptr, dtype, w)
        wide = node.list is not None and node.list.element.index_dtype == ct.int64
        lo, hi = _INT64 if wide else _INT32
        if any(not lo <= v <= hi for v in (*shape, *strides)):
            raise ValueError(f"{w}: shape {shape} or strides {strides} exceed the int32 index range; annotate "
                             "the parameter with ct.ListAnnotation(element=ct.IndexedWithInt64)")
        if wide:
            _refuse_past_32_bit_indices(w, shape, strides)
        items.append(ArrayArg(pos, f"{name}[{i}]", dtype, shape, strides, ptr, "int64" if wide else "int32",
                              read_only=read_only))
    first = items[0]
    for i, a in enumerate(items[1:], 1):
        if (a.dtype, a.ndim) != (first.dtype, first.ndim):
            raise TypeError(f"{where}: the arrays of a list must share one dtype and rank: item 0 is {first.ndim}-D "
                            f"{first.dtype}, item {i} is {a.ndim}-D {a.dtype}")
    return ListArg(pos, name, tuple(items))


def signature_key(arguments: list[Argument]) -> tuple:
    """Hashable identity of the signature :func:`kernel_signature` builds (the compile cache key)."""
    return tuple(a.key() for a in arguments)


def _constraint(a: Argument, ct: Any, compilation: Any) -> Any:
    if isinstance(a, ConstantArg):
        return compilation.ConstantConstraint(a.value)
    if isinstance(a, ScalarArg):
        return compilation.ScalarConstraint(getattr(ct, a.dtype))
    if isinstance(a, ListArg):
        nd = a.ndim
        element = compilation.ArrayConstraint(
            getattr(ct, a.dtype), nd, index_dtype=getattr(ct, a.index_dtype),
            stride_lower_bound_incl=tuple(0 if all(x.strides[d] >= 0 for x in a.items) else None for d in range(nd)),
            alias_groups=a.alias_groups, may_alias_internally=any(x.may_alias_internally for x in a.items),
            stride_constant=(None,) * (nd - 1) + ((1 if a.unit_last_stride else None),) if nd else (),
            stride_divisible_by=(1,) * nd, shape_divisible_by=(1,) * nd, base_addr_divisible_by=a.alignment)
        return compilation.ListConstraint(element, alias_groups=(), elements_may_alias=a.elements_may_alias)
    nd = a.ndim
    stride_constant: tuple = (None,) * (nd - 1) + ((1 if a.strides[-1] == 1 else None),) if nd else ()
    if a.column_major:  # compiled for the unit stride on dimension -2 (read as the transpose)
        stride_constant = (None,) * (nd - 2) + (1, None)
    if a.static_strides:  # ct.ArrayAnnotation(static_stride_dims=...): the named dimensions' strides, the
        # defaults (the unit last stride, a column-major matrix's unit stride) kept on the dimensions it does not name
        stride_constant = tuple(s if s is not None else d for s, d in zip(a.static_strides, stride_constant))
    return compilation.ArrayConstraint(
        getattr(ct, a.dtype), nd, index_dtype=getattr(ct, a.index_dtype),
        stride_lower_bound_incl=tuple(0 if s >= 0 else None for s in a.strides),
        alias_groups=a.alias_groups, may_alias_internally=a.may_alias_internally,
        stride_constant=stride_constant, shape_constant=a.static_shape or (None,) * nd,
        stride_divisible_by=(1,) * nd, shape_divisible_by=(1,) * nd, base_addr_divisible_by=a.alignment)


def kernel_signature(arguments: list[Argument]) -> Any:
    """The ``KernelSignature`` of the described arguments: calling convention ``cutile_python_v1``, or
    ``cutile_python_v2`` where an array's extent is a constant (``ct.ArrayAnnotation(static_shape_dims=...)``:
    cuTile takes static shapes from v2 on; its entry's parameters are v1's for arrays and scalars, every
    extent and stride still passed)."""
    ct, compilation = _require_cutile()
    static = any(isinstance(a, ArrayArg) and any(d is not None for d in a.static_shape) for a in arguments)
    conventions = compilation.CallingConvention
    cc = (conventions.cutile_python_v2 if static else conventions.cutile_python_v1)()
    return compilation.KernelSignature([_constraint(a, ct, compilation) for a in arguments], cc)


def ct_error_types() -> tuple[type, ...]:
    """cuTile's compile-time errors (``TileError`` and its kinds: a type, syntax or value error at
    the kernel's source), or none when cuTile does not define them."""
    ct, _ = _require_cutile()
    base = getattr(getattr(ct, "_exception", None), "TileError", None) or getattr(ct, "TileError", None)
    return (base,) if isinstance(base, type) else ()


def describe_signature(arguments: list[Argument]) -> str:
    """The arguments as the kernel was typed for them: ``a: float32 2-D array [4, 4], tile = 4``."""
    parts = []
    for x in arguments:
        if isinstance(x, ArrayArg):
            parts.append(f"{x.name}: {x.dtype} {x.ndim}-D array {list(x.shape)}")
        elif isinstance(x, ScalarArg):
            parts.append(f"{x.name}: {x.dtype} scalar")
        elif isinstance(x, ConstantArg):
            parts.append(f"{x.name} = {x.value!r} (constant)")
        else:
            parts.append(f"{x.name}: list of {len(x.items)} {x.dtype} {x.ndim}-D arrays")
    return ", ".join(parts)


def _refuse_negative_strides(arguments: list[Argument]) -> None:
    """A ValueError naming the first array (or list item) with a negative stride: cuTile 1.7 compiles
    no kernel for one (its own message asks for a ``stride_lower_bound_incl`` the caller of
    ``launch`` cannot give)."""
    for a in arguments:
        for i, x in enumerate(a.items if isinstance(a, ListArg) else (a,) if isinstance(a, ArrayArg) else ()):
            if any(st < 0 for st in x.strides):
                item = f" item {i}" if isinstance(a, ListArg) else ""
                raise ValueError(f"{_where(a.name, a.position)}{item} has strides {x.strides} (in elements): a "
                                 "negative stride (a reversed view) is not supported by cuTile kernels; pass a "
                                 "copy with non-negative strides (e.g. cupy.ascontiguousarray(x))")


def export_bytecode(kernel: Any, arguments: list[Argument]) -> bytes:
    """Tile IR bytecode of ``kernel`` for the arguments' signature (cuTile's exporter, no GPU).  An
    array with a negative stride is a ValueError naming the argument (cuTile's kernels take none)."""
    _, compilation = _require_cutile()
    _refuse_negative_strides(arguments)
    buf = io.BytesIO()
    try:
        compilation.export_kernel(kernel, [kernel_signature(arguments)], buf, gpu_code=None,
                                  output_format="tileir_bytecode", bytecode_version=BYTECODE_VERSION)
    except ct_error_types() as exc:  # cuTile's own (located at the kernel's source): say which call it typed
        exc.add_note(f"(tileorch.cutile.launch compiled kernel '{kernel_name(kernel)}' for the arguments "
                     f"{describe_signature(arguments)})")
        for a in arguments:
            if isinstance(a, ConstantArg) and isinstance(a.value, float) and _constant_declares_int(kernel, a.name):
                exc.add_note(_declared_int_text(kernel, kernel_name(kernel), _where(a.name, a.position), a.value))
        raise
    except OSError as exc:  # inspect's: a kernel defined in `python -c`, a stdin script, an exec'd string
        code = getattr(getattr(kernel, "_annotated_function", None), "pyfunc", None)
        where = getattr(getattr(code, "__code__", None), "co_filename", "?")
        raise OSError(f"cuTile could not read the source of kernel '{kernel_name(kernel)}' (defined in {where}: "
                      f"{exc}); cuTile compiles a kernel from its source file: define it in a .py file") from None
    return buf.getvalue()


def flat_parameters(arguments: list[Argument]) -> list[tuple[int, str]]:
    """The cuTile entry's parameters as (argument position, role): per array ``ptr``, ``shape<i>``
    ..., ``stride<i>`` ...; per scalar ``scalar``; constants take none."""
    out: list[tuple[int, str]] = []
    for a in arguments:
        if isinstance(a, ArrayArg):
            out += [(a.position, "ptr")] + [(a.position, f"shape{i}") for i in range(a.ndim)]
            out += [(a.position, f"stride{i}") for i in range(a.ndim)]
        elif isinstance(a, ScalarArg):
            out.append((a.position, "scalar"))
        elif isinstance(a, ListArg):
            out += [(a.position, "list_table"), (a.position, "list_length")]
    return out


def pack_simt_arguments(arguments: list[Argument]) -> list[bytes]:
    """The parameter bytes of a ``simt`` program: the cuTile entry's parameters in order."""
    params: list[bytes] = []
    for a in arguments:
        if isinstance(a, ArrayArg):
            fmt = "<q" if a.index_dtype == "int64" else "<i"
            params.append(struct.pack("<Q", a.ptr))
            params += [struct.pack(fmt, v) for v in a.shape]
            params += [struct.pack(fmt, v) for v in a.strides]
        elif isinstance(a, ScalarArg):
            params.append(struct.pack({"int32": "<i", "int64": "<q", "float32": "<f"}[a.dtype], a.value))
        elif isinstance(a, ListArg):
            if not a.table_ptr:
                raise RuntimeError(f"list argument '{a.name}' has no device table (upload_list_tables first)")
            params += [struct.pack("<Q", a.table_ptr), struct.pack("<i", len(a.items))]
    return params


_list_tables: OrderedDict = OrderedDict()  # table bytes -> DeviceBuffer (kept alive for queued kernels)
_LIST_TABLES_MAX = 256


def upload_list_tables(arguments: list[Argument]) -> list[Argument]:
    """The arguments with each list's device table in place (``table_ptr``): tables are uploaded
    once per content and kept (the oldest of :data:`_LIST_TABLES_MAX` dropped first), so a queued
    kernel's table outlives the call."""
    if not any(isinstance(a, ListArg) for a in arguments):
        return arguments
    from tileorch.runtime.buffers import DeviceBuffer

    out = []
    for a in arguments:
        if isinstance(a, ListArg):
            raw = a.table()
            buf = _list_tables.get(raw)
            if buf is None:
                import numpy as np

                buf = _list_tables[raw] = DeviceBuffer.from_array(np.frombuffer(raw, np.uint8))
                while len(_list_tables) > _LIST_TABLES_MAX:
                    _list_tables.popitem(last=False)
            else:
                _list_tables.move_to_end(raw)
            a = dataclasses.replace(a, table_ptr=buf.ptr)
        out.append(a)
    return out


def normalize_grid(grid: Any) -> tuple[int, int, int]:
    if isinstance(grid, int) and not isinstance(grid, bool):
        grid = (grid,)
    if not isinstance(grid, _SEQUENCES) or not all(isinstance(g, int) and not isinstance(g, bool) for g in grid):
        raise TypeError(f"grid must be a tuple of 1 to 3 ints, got {grid!r}")
    if not 1 <= len(grid) <= 3:  # a ValueError, as cuda.tile.launch's "Grid dimensions must be at most 3"
        raise ValueError(f"grid must be a tuple of 1 to 3 ints, got {len(grid)} of them: {tuple(grid)!r}")
    if any(g < 1 for g in grid):
        raise ValueError(f"grid extents must be positive, got {tuple(grid)}")
    if any(g > most for g, most in zip(grid, GRID_LIMITS)):
        raise ValueError(f"grid {tuple(grid)} exceeds what CUDA launches (x at most {GRID_LIMITS[0]}, y and z at "
                         f"most {GRID_LIMITS[1]}); cover the rest with larger tiles or a loop in the kernel")
    return tuple(grid) + (1,) * (3 - len(grid))  # type: ignore[return-value]


# --------------------------------------------------------------------------- compile + launch


@dataclass
class _Compiled:
    """A compiled program of :func:`compiled` and what its launches keep with it (the loaded image, remarks said)."""

    program: Any
    image: Any = None  # the loaded Module (simt) or GemmKernel (gemm)
    warned: bool = False  # its slower-path remarks were issued as a PerformanceWarning
    options_noted: bool = False  # an option it does not apply (a schedule, a tile policy) was said
    source_key: str | None = None  # the index entry's key (compiled(): source_cache_key), None: none
    source_key_remark: str = ""  # how the program was found or why not by the source identity
    launch_remarks: dict = dataclasses.field(default_factory=dict)  # grid -> how its launch was shaped (chained_ctas)
    asked: tuple = ()  # (schedule, config) compiled() was given: a deferred GEMM program compiles them in full
    kvec_said: bool = False  # a launch's K vector array TMA cannot read (the global-load kernel ran) was said
    c_scatter_said: bool = False  # a launch's C whose matrices are not stacked (a packed scratch copied out) was said
    copy_said: bool = False  # a chained launch's padded copy of an array TMA cannot address in place was said


def _note_unused_options(entry: _Compiled, kernel: Any, schedule: str, tiles: str) -> None:
    """Once per compiled program: a ``UserWarning`` when the caller asked for a GEMM option
    (a tile scheduler, ``tiles="program"``) and the SIMT path compiled the program, so the
    option was not applied."""
    if entry.options_noted or entry.program.kind != "simt":
        return
    asked = ([f"schedule={schedule!r}"] if schedule not in ("auto", "simt") else []) + \
        (["tiles='program'"] if tiles == "program" else [])
    if asked:
        import warnings

        from tileorch.diagnostics import user_stacklevel

        entry.options_noted = True
        warnings.warn(f"{kernel_warning(kernel)}: {' and '.join(asked)} not applied: the kernel has no GEMM "
                      "the TileAS tier compiles (the SIMT path compiled it); these options pick the tier GEMM's tile "
                      "scheduler and tiles", UserWarning, stacklevel=user_stacklevel())


def _warn_slow_path(entry: _Compiled, kernel: Any, why: str = "", refusals: bool = True) -> None:
    """Once per compiled program: a ``PerformanceWarning`` when the kernel runs on a slower path
    than the tensor cores the program asked for (the tier's refusal or internal-error remark,
    or ``why``: operands the tensor-core kernel cannot take), or a ``warning:`` remark (ptxas
    spilled its registers, no ptxas: the driver's JIT).  ``refusals=False`` (a program the tier
    compiled): the warnings only."""
    if entry.warned:
        return
    lines = [r for r in (getattr(entry.program, "remarks", None) or [])
             if ("refused" in r and refusals) or r.startswith("warning:")]
    if why:
        lines.append(why)
    if lines:
        import warnings

        from tileorch.diagnostics import PerformanceWarning, user_stacklevel

        entry.warned = True
        warnings.warn(f"{kernel_warning(kernel)}: " + "; ".join(lines), PerformanceWarning,
                      stacklevel=user_stacklevel())


_bytecode: dict[tuple, bytes] = {}
_programs: dict[tuple, _Compiled] = {}
_prepared: OrderedDict = OrderedDict()
_PREPARED_MAX = 64


def _forget_bound_state() -> None:
    """What launches keep keyed by their arguments (stale_settings.py: made under other compile settings), the
    prepared GEMM problems (old kernels and their parameter buffers) included."""
    forget_native()
    forget_bound()
    _prepared.clear()
    launch_copies.forget("c_scatter", "padded", "kvec")  # (the K-major copies' buffers: clear_caches)


def _set_last_hot_aside() -> None:
    last_hot[0] = (None, None)  # (the C front then takes the Python path, which rechecks the settings first)


stale_settings.watch(_forget_bound_state, _set_last_hot_aside)


def clear_caches() -> None:
    """Every in-process cache of the launcher: the bound state (:func:`_forget_bound_state`), the exported
    bytecode and the compiled programs."""
    _forget_bound_state()
    _bytecode.clear()
    _programs.clear()
    launch_copies.forget()  # (every launch copy's scratch, the K-major copies' buffers included)


def compiled(kernel: Any, arguments: list[Argument], arch: str, schedule: str, config: str = "",
             defer_gemm: bool = False, resume: Any = None) -> _Compiled:
    """Bytecode and the compiled program for these arguments, through the in-process caches
    (``config``: the tile override of ``convert-nv-tileas-to-cutlass``).  ``defer_gemm``: a program
    the tier compiles to a GEMM is only lowered through the tier (``program.deferred``: its
    configuration, to choose the launch's tiles; :func:`materialized` compiles it in full), so a
    first launch that retiles the program does not also generate and assemble the program's own tiles.  Before exporting the
    bytecode (cuTile's front end: the most of a relaunch in a new process), the on-disk cache is
    asked by the kernel's source identity (:func:`source_cache_key`): a program compiled by an
    earlier process for the same source, signature and options is read without exporting.
    ``resume``: the deferred program of the same options, whose kept tier output a full compile
    continues from (:func:`tileorch.launchers.cutile_programs._compile_program`)."""
    fn = kernel  # the @ct.kernel object: its function and compiler options (num_ctas, occupancy, ...)
    sig = signature_key(arguments)
    asked = (schedule, config)
    full_key = None
    if defer_gemm:
        full_key = (fn, sig, arch, schedule, config, compile_environment())
        full = _programs.get(full_key)
        if full is not None:  # compiled in full already: nothing to defer
            return full
        config += LOWERED_ONLY
    # the compile switches (tileorch.cache.COMPILE_ENV) in the key too: a switch set between two
    # launches compiles again (and the bound launches made under the old value are forgotten: stale_settings.py)
    key = (fn, sig, arch, schedule, config, compile_environment())
    entry = _programs.get(key)
    if entry is None:
        source_key, why = source_cache_key(kernel, sig, arch, schedule, config)
        data = _bytecode.get((fn, sig))
        program = _read_indexed(source_key) if source_key is not None and data is None else None
        if program is None:
            if data is None:
                with gc_deferred():  # cuTile's exporter (its front end: a first call imports and compiles much)
                    data = _bytecode[(fn, sig)] = export_bytecode(kernel, arguments)
                note_exported(kernel)  # what cuTile's front end read (it keeps that for the process)
            with gc_deferred():  # the compiler's imports on the first compile of a process, then the compile
                program = _compile_program(data, f"<cuTile kernel {kernel_name(kernel)}>", arch, schedule, config,
                                           resume=resume)
            if source_key is not None:
                _write_index(source_key, data, arch, schedule, config)
            why = why or "the program was not in the cache under the kernel's source identity"
        else:
            why = "read by the kernel's source identity (no bytecode export)"
        if program.kind not in ("simt", "gemm", "chained"):
            raise RuntimeError(f"compile_program returned a program of unknown kind {program.kind!r}")
        entry = _programs[key] = _Compiled(program, asked=asked)
        entry.source_key, entry.source_key_remark = source_key, why
        if full_key is not None and not getattr(program, "deferred", False):
            # not a GEMM, so compiled in full anyway: the same entry answers a later ask without
            # defer_gemm (one compile, and one entry whose launch remarks and bound launches it sees)
            _programs.setdefault(full_key, entry)
    return entry


def materialized(entry: _Compiled, kernel: Any, arguments: list[Argument], arch: str) -> _Compiled:
    """``entry`` itself, or, for a GEMM program compiled with ``defer_gemm`` (lowered through the tier
    only), the same program (schedule and tile override) compiled in full: from the tier output the
    deferred program kept when it was compiled in this process (no second load and lowering of the
    bytecode)."""
    if not getattr(entry.program, "deferred", False):
        return entry
    return compiled(kernel, arguments, arch, *entry.asked, resume=entry.program)


def warps_per_cta(programs_x: int, most: int, sms: int, registers: int) -> int:
    """Programs (warps) per CTA for a one-program-per-warp SIMT kernel launched over
    ``programs_x`` programs along x, whose threads use ``registers`` registers.  An SM runs at
    most 32 CTAs and 64 warps: one-warp CTAs stop at 32 warps, so two programs per CTA reach the
    64 warps an SM holds when the registers allow more than 32 (<= 64 a thread) and the grid has
    more programs than the SMs hold at once; otherwise one (more per CTA only coarsens the
    retirement of finished warps: measured slower on layernorm and a 4096-row softmax)."""
    if most < 2 or registers > 64 or programs_x <= sms * 32:
        return 1
    return 2


def warp_program_launch(programs_x: int, most: int, per_warp: int, sms: int, registers: int) -> tuple[int, int]:
    """(block threads, grid x) of a one-program-per-warp SIMT kernel over ``programs_x``
    programs along x, each warp running ``per_warp`` consecutive programs
    (``warp_programs.py``): warps per CTA by :func:`warps_per_cta` over the warps needed."""
    warps = warps_per_cta(-(-programs_x // per_warp), most, sms, registers)
    return 32 * warps, -(-programs_x // (warps * per_warp))


def instances_per_cta(grid: tuple, resident: int, sms: int) -> tuple[int, int]:
    """(CTAs along x, instances per CTA) of a kernel whose final atomics are combined over the instances a CTA
    runs (``transforms/tileaa_to_simt/combined_atomics.py``) launched over ``grid`` programs, when ``resident``
    CTAs fit one SM: at most one wave of resident CTAs (``sms * resident`` over the grid's y and z), each running
    every ``G``-th instance along x (``ceil(x / G)`` of them, or one fewer), so each makes its atomics once; one
    instance per CTA when the grid is one wave already; at most ``TILEORCH_CTA_PROGRAMS_MAX`` instances a CTA
    (default 4: more CTAs than one wave then).  Why the cap: one wave of CTAs each running ``R`` rows finishes
    together, and its ``2 G`` atomics on one address meet at the end, serialized at L2 (H100, session 33, CE 4096
    over 32768 rows: one wave, 16 rows a CTA, 0.86 of the copy rate; 4 rows a CTA, four waves whose atomics
    land while other CTAs still load, 0.90; forced 16: 0.84).  ``TILEORCH_CTA_PROGRAMS_MAX=0``: one wave, no cap.
    ``TILEORCH_CTA_PROGRAMS=N`` forces ``N`` instances per CTA (``ceil(x / N)`` CTAs; for measuring)."""
    from tileorch import settings

    x, rest = grid[0], max(1, grid[1] * grid[2])
    forced = settings.integer("TILEORCH_CTA_PROGRAMS")
    if forced:
        return -(-x // forced), forced
    ctas = max(1, min(x, sms * max(1, resident) // rest))  # CTAs along x of one wave
    cap = settings.integer("TILEORCH_CTA_PROGRAMS_MAX")
    cap = CTA_PROGRAMS_MAX if cap is None else cap
    if cap and -(-x // ctas) > cap:
        return -(-x // cap), cap
    return ctas, -(-x // ctas)


CTA_PROGRAMS_MAX = 4
"""The default of ``TILEORCH_CTA_PROGRAMS_MAX`` (:func:`instances_per_cta`)."""


def combined_launch(grid: tuple, ctas: int, per_cta: int) -> tuple[list[int], tuple]:
    """The two trailing ``i32`` parameters (the programs along x, ``per_cta``) and the grid (``ctas`` along x,
    ``ctas * per_cta`` covering the programs) of a launch of a kernel with combined atomics
    (``CutileProgram.cta_programs``) over ``grid`` programs."""
    assert ctas * per_cta >= grid[0], (grid, ctas, per_cta)
    return [grid[0], per_cta], (ctas, *grid[1:])


EMULATED_CTA_PROGRAMS = 3
"""Instances per CTA the CPU emulators run a kernel with combined atomics with (``TILEORCH_CTA_PROGRAMS`` when
set): several, and CTAs with one fewer for grids that are not a multiple of 3."""


def emulated_launch(grid: tuple) -> tuple[list[int], tuple]:
    """:func:`combined_launch` as the CPU emulators run it: ``TILEORCH_CTA_PROGRAMS`` (else
    :data:`EMULATED_CTA_PROGRAMS`) instances per CTA."""
    from tileorch import settings

    per_cta = settings.integer("TILEORCH_CTA_PROGRAMS") or EMULATED_CTA_PROGRAMS
    return combined_launch(grid, -(-grid[0] // per_cta), per_cta)


def resident_ctas(image: Any, threads: int, smem: int) -> int:
    """CTAs of ``threads`` threads and ``smem`` bytes of dynamic shared memory of the kernel ``image`` one SM holds
    (the driver's occupancy calculator; else an estimate from its registers: 64 K registers, 2048 threads and 32
    CTAs an SM)."""
    found = getattr(image, "resident", None)
    if found is None:
        found = image.resident = {}
    key = (threads, smem)
    if key not in found:
        n = 0
        try:
            from tileorch.runtime.driver import api

            drv = api()
            err, n = drv.cuOccupancyMaxActiveBlocksPerMultiprocessor(image.function, threads, smem)
            n = int(n) if int(err) == 0 else 0
        except Exception:  # noqa: BLE001 - a driver (or a test's fake) without the call: the estimate
            n = 0
        if n <= 0:
            warps = -(-threads // 32)
            per_warp = -(-max(1, image.registers()) * 32 // 256) * 256
            n = max(1, min(32, 2048 // (warps * 32), 65536 // (per_warp * warps)))
        found[key] = n
    return found[key]


def split_cluster_size(programs: int, most: int, sms: int) -> int:
    """CTAs per program for a kernel whose reduction loop is split over a cluster: the largest
    power of two up to ``most`` with every CTA of the grid on its own SM (1: the grid already
    fills the machine)."""
    s = 1
    while s * 2 <= most and programs * s * 2 <= sms:
        s *= 2
    return s


def _check_device(arch: str) -> Any:
    from tileorch.runtime.device import current_device

    dev = current_device()
    want = ARCHS[arch]
    if dev.compute_capability != want:
        raise ValueError(f"arch {arch} needs a compute capability {want[0]}.{want[1]} GPU; device 0 ({dev.name}) is "
                         f"{dev.compute_capability[0]}.{dev.compute_capability[1]}")
    return dev


def gemm_operands(program: Any, arguments: list[Argument]) -> tuple[ArrayArg, ArrayArg, ArrayArg]:
    """A, B and C of a ``gemm`` program: ``program.gemm_args`` are indices into the cuTile entry's
    flat parameter list (each one an array's base pointer, see :func:`flat_parameters`)."""
    flat = flat_parameters(arguments)
    by_pos = {a.position: a for a in arguments}
    if getattr(program, "gemm_args", None) is None:
        raise RuntimeError("compile_program did not report which arguments are the GEMM's A, B and C "
                           "(CutileProgram.gemm_args is None)")
    picked = []
    for role, index in zip("ABC", program.gemm_args):
        if index is None or not 0 <= index < len(flat) or flat[index][1] != "ptr":
            raise RuntimeError(f"compile_program reported GEMM operand {role} at entry parameter {index}, which is "
                               f"not an array's base pointer (entry parameters: {flat})")
        picked.append(by_pos[flat[index][0]])
    return tuple(picked)  # type: ignore[return-value]


def epi_operand(program: Any, arguments: list[Argument], b: ArrayArg, c: ArrayArg) -> ArrayArg | None:
    """E, the second dot's B of a program whose second dot reads the K loop's result (``gemm_config.epi_n``;
    ``program.gemm_args`` after the other Bs): a row-major ``[R, N]`` array (``[N, R]``, nn.Linear's layout, for
    ``gemm_config.epi_major == "k"``) of A's element type, R the first dot's N (B's columns, or B's rows for a
    K-major B) and N C's, its rows whole 16-byte units (read by TMA in place); None for other programs."""
    cfg = program.gemm_config
    if not getattr(cfg, "epi_n", 0):
        return None
    index = list(program.gemm_args)[3 + cfg.b_operands - 1]
    flat = flat_parameters(arguments)
    if index is None or not 0 <= index < len(flat) or flat[index][1] != "ptr":
        raise RuntimeError(f"compile_program reported the second dot's B at entry parameter {index}, which is not an "
                           f"array's base pointer (entry parameters: {flat})")
    e = {a.position: a for a in arguments}[flat[index][0]]
    r = b.shape[0] if cfg.b_major == "k" else b.shape[1]
    k_major = getattr(cfg, "epi_major", "n") == "k"
    want, what = ((c.shape[1], r), "C's columns x the first dot's N") if k_major else \
        ((r, c.shape[1]), "the first dot's N x C's columns")
    if e.ndim != 2 or e.shape != want or not _row_major(e) or e.dtype != b.dtype:
        raise LayoutNotSupported(f"{_where(e.name, e.position)}: the second dot's B must be a row-major "
                                 f"[{want[0]}, {want[1]}] {b.dtype} array ({what}), got {e.shape}")
    if (e.shape[1] * e.itemsize) % 16 or e.ptr % 16 or (b.shape[1] * b.itemsize) % 16 or b.ptr % 16:
        raise LayoutNotSupported(f"{_where(e.name, e.position)}: the second dot's B and the first dot's B are read "
                                 "by TMA in place: 16-byte aligned rows of whole 16-byte units")
    return e


def more_b_operands(program: Any, arguments: list[Argument], b: ArrayArg, batch: int = 1) -> list[ArrayArg]:
    """The B operands after the first of a program of dots sharing A (``program.gemm_args[3:]``,
    entry parameter indices like A's, B's and C's), each checked to have B's shape, element type
    and strides (the kernel reads every B through a tensor map laid out as B's); ``b``: B as
    :func:`gemm_problem_batched` returns it (a batched B's first matrix), ``batch``: its L."""
    indices = list(getattr(program, "gemm_args", None) or ())[3:3 + program.gemm_config.b_operands - 1]
    if not indices:
        return []
    flat = flat_parameters(arguments)
    by_pos = {a.position: a for a in arguments}
    out = []
    for i, index in enumerate(indices, start=1):
        if index is None or not 0 <= index < len(flat) or flat[index][1] != "ptr":
            raise RuntimeError(f"compile_program reported GEMM operand B{i} at entry parameter {index}, which is not "
                               f"an array's base pointer (entry parameters: {flat})")
        x = by_pos[flat[index][0]]
        lead = (getattr(program, "operand_views", None) or {}).get(f"b{i}")
        if lead:  # this dot's B is one matrix of its argument (W3[e] beside W1[e])
            from tileorch.launchers.operand_views import operand_view

            x = operand_view(x, f"B{i}", lead, arguments, flat)
        if getattr(program.gemm_config, "batched", False):
            x = _batch_matrix(x, batch)
        lora = getattr(program.gemm_config, "lora_rank", 0)
        if lora:  # a low-rank branch's B (LoRA): [K, R] (or [R, K], K-major), R up to its lora_rank tile
            r = x.shape[0] if program.gemm_config.b_major == "k" else x.shape[-1]
            k = b.shape[1] if program.gemm_config.b_major == "k" else b.shape[0]
            want = (r, k) if program.gemm_config.b_major == "k" else (k, r)
            if x.ndim != 2 or x.shape != want or r > lora or not _row_major(x) or x.dtype != b.dtype \
                    or (x.shape[1] * x.itemsize) % 16 or x.ptr % 16:
                raise LayoutNotSupported(f"{_where(x.name, x.position)}: the low-rank branch's B must be a row-major "
                                         f"{'[R, K]' if program.gemm_config.b_major == 'k' else '[K, R]'} {b.dtype} "
                                         f"array, R <= its tile of {lora}, 16-byte aligned rows of whole 16-byte "
                                         f"units (read by TMA in place), got {x.shape}")
        elif getattr(program.gemm_config, "k_segments", False):  # (a K segment's B: its own K, N as B's)
            _check_segment_operand(x, b, 1 if program.gemm_config.b_major == "n" else 0, "B")
        elif (x.shape, x.strides, x.dtype) != (b.shape, b.strides, b.dtype):
            raise LayoutNotSupported(f"{_where(x.name, x.position)}: the dots sharing A read every B like "
                                     f"{_where(b.name, b.position)} (shape {b.shape}, strides {b.strides}, {b.dtype}); "
                                     f"got shape {x.shape}, strides {x.strides}, {x.dtype}")
        out.append(x)
    return out


def more_a_operands(program: Any, arguments: list[Argument], a: ArrayArg, batch: int = 1) -> list[ArrayArg]:
    """The A operands after the first of a program whose dots read an A each (``gemm_config.a_operands > 1``;
    ``program.gemm_args`` after the other Bs), each checked to be laid out as ``a`` (A as
    :func:`gemm_problem_batched` returns it: shape, strides and element type; a batched A's first matrix, ``batch``
    its L contiguous matrices): the kernel reads every A through a tensor map laid out as A's, over A's K."""
    cfg = program.gemm_config
    more = getattr(cfg, "a_operands", 1) - 1
    if more <= 0:
        return []
    start = 3 + cfg.b_operands - 1
    flat = flat_parameters(arguments)
    by_pos = {x.position: x for x in arguments}
    out = []
    for i, index in enumerate(list(program.gemm_args)[start:start + more], start=1):
        if index is None or not 0 <= index < len(flat) or flat[index][1] != "ptr":
            raise RuntimeError(f"compile_program reported GEMM operand A{i} at entry parameter {index}, which is not "
                               f"an array's base pointer (entry parameters: {flat})")
        x = by_pos[flat[index][0]]
        if getattr(cfg, "batched", False):
            x = _batch_matrix(x, batch)
        if getattr(cfg, "k_segments", False):  # (a K segment's A: its own K, M as A's)
            _check_segment_operand(x, a, 0 if cfg.a_major == "k" else 1, "A")
        elif (x.shape, x.strides, x.dtype) != (a.shape, a.strides, a.dtype):
            raise LayoutNotSupported(f"{_where(x.name, x.position)}: the dots with an A each read every A like "
                                     f"{_where(a.name, a.position)} (shape {a.shape}, strides {a.strides}, {a.dtype}: "
                                     f"one K); got shape {x.shape}, strides {x.strides}, {x.dtype}")
        out.append(x)
    return out


_GEMM_DTYPES = {"f16": "float16", "bf16": "bfloat16", "f32": "float32", "tf32": "float32", "e4m3": "float8_e4m3fn",
                "e5m2": "float8_e5m2", "s8": "int8", "u8": "uint8", "s32": "int32"}


def kvec_tensor_maps(cfg: Any, arguments: list[Argument]) -> list[bytes]:
    """The tensor maps of the K vectors the kernel's producer TMA-loads (``GemmConfig.kvecs``: each entry
    ``bytes:param:dtype:rank``, ``param`` the program's parameter holding the array's pointer), the kernel's
    parameters between the GEMM's own and the program's: 2-D maps of the array's last dimension (contiguous) and
    its rows (1 for a 1-D array), boxes of one row of the vector's elements, unswizzled, zero fill past the array.
    An array TMA cannot read in place (a base not 16-byte aligned, rows not a multiple of 16 bytes apart) raises
    :class:`LayoutNotSupported` (the launch falls back to the SIMT path, its remark saying why)."""
    from tileorch.launchers.gemm_host import encode_tensor_map

    entries = [x for x in getattr(cfg, "kvecs", "").split(",") if x]
    if not entries:
        return []
    why = kvec_refusal(cfg, arguments)
    if why:
        raise LayoutNotSupported(why)
    flat = flat_parameters(arguments)
    by_position = {a.position: a for a in arguments if isinstance(a, ArrayArg)}
    maps = []
    for entry in entries:
        nbytes, param, dtype, rank = entry.split(":")
        x = by_position[flat[int(param)][0]]
        es = x.itemsize
        if x.ndim == 1:
            dims, row_bytes = (x.shape[0], 1), (-(-x.shape[0] * es // 16) * 16,)
        else:
            dims, row_bytes = (x.shape[1], x.shape[0]), (x.strides[0] * es,)
        maps.append(encode_tensor_map(x.ptr, dtype if dtype not in ("i8", "i32") else {"i8": "s8", "i32": "s32"}[dtype],
                                      dims, row_bytes, (int(nbytes) // es, 1), 0))
    return maps


def _kvec_arrays(cfg: Any, arguments: list[Argument]) -> list[tuple[ArrayArg, int]]:
    """The arrays of the K vectors of ``cfg.kvecs`` (each entry ``bytes:param:dtype:rank``) with the rank the kernel
    maps them at, in the entries' order."""
    flat = flat_parameters(arguments)
    by_position = {a.position: a for a in arguments if isinstance(a, ArrayArg)}
    out = []
    for entry in (x for x in getattr(cfg, "kvecs", "").split(",") if x):
        _, param, _, rank = entry.split(":")
        out.append((by_position[flat[int(param)][0]], int(rank)))
    return out


def _kvec_in_place(x: ArrayArg, rank: int) -> bool:
    """The producer's TMA reads ``x`` in place: a 16-byte aligned base, rows a multiple of 16 bytes apart and not
    overlapping, contiguous elements, the kernel's rank."""
    overlapping = x.ndim == 2 and x.shape[0] > 1 and x.strides[0] < x.shape[1]  # (a stride-0 or overlapping row)
    return not (x.ptr % 16 or (x.ndim == 2 and (x.strides[0] * x.itemsize) % 16) or x.strides[-1] != 1
                or x.ndim != rank or overlapping)


def kvec_refusal(cfg: Any, arguments: list[Argument]) -> str:
    """Why the producer's TMA cannot read the array of a K vector of ``cfg.kvecs`` in place for these arguments (a
    base not 16-byte aligned, rows not a multiple of 16 bytes apart or overlapping, elements not contiguous): the
    first such array's reason; "" when it reads every one (or there is none)."""
    for x, rank in _kvec_arrays(cfg, arguments):
        if not _kvec_in_place(x, rank):
            return (f"{_where(x.name, x.position)}: the K-indexed vector's array is read by the producer's TMA, which "
                    "needs a 16-byte aligned base, rows 16 bytes apart and contiguous elements (base "
                    f"{x.ptr:#x}, strides {x.strides})")
    return ""


def kvec_copy_refusal(cfg: Any, arguments: list[Argument]) -> str:
    """Why an array of a K vector of ``cfg.kvecs`` that TMA cannot read in place cannot be copied into an aligned
    scratch buffer by one 2-D copy either (:func:`kvec_copies`: its elements not contiguous, its rows overlapping,
    empty, or not the kernel's rank): the first such array's reason; "" when every one is read in place or copied."""
    for x, rank in _kvec_arrays(cfg, arguments):
        if _kvec_in_place(x, rank):
            continue
        rows_apart = x.ndim == 1 or x.shape[0] <= 1 or x.strides[0] >= x.shape[1]
        if x.ndim != rank or not all(x.shape) or (x.shape[-1] > 1 and x.strides[-1] != 1) or not rows_apart:
            return (f"{_where(x.name, x.position)}: no aligned copy of the K vector's array either (one 2-D copy needs "
                    f"contiguous elements in rows that do not overlap; shape {x.shape}, strides {x.strides})")
    return ""


def kvec_copies(cfg: Any, arguments: list[Argument], alloc: Any = None,
                stream: int = 0) -> tuple[list[Argument], list[tuple], list]:
    """For each array of a K vector of ``cfg.kvecs`` TMA cannot read in place (a base not 16-byte aligned, rows not
    16 bytes apart) and one 2-D copy can (:func:`kvec_copy_refusal` says ""): a packed copy of rows rounded up to 16
    bytes (:func:`tileorch.launchers.launch_copies.padded`) in stream ``stream``'s scratch for that array's layout
    (``alloc(nbytes)``: a buffer of its own instead).  Returns (``arguments`` with each such array re-described at its
    buffer, which :func:`kvec_tensor_maps` then maps; the copies ``(src, src pitch, dst, dst pitch, width, rows)`` in
    bytes, made on the launch's stream before each launch of the kernel
    (:class:`~tileorch.launchers.gemm_host.PreparedGemm`'s ``copies_in``); the buffers, which the prepared launch
    keeps)."""
    staged: dict[int, ArrayArg] = {}
    copies, buffers = [], []
    for x, rank in _kvec_arrays(cfg, arguments):
        if _kvec_in_place(x, rank) or x.position in staged:
            continue
        staged[x.position], made, buf = launch_copies.padded("kvec", x, stream, alloc)
        copies += made
        buffers.append(buf)
    return [staged.get(a.position, a) if isinstance(a, ArrayArg) else a for a in arguments], copies, buffers


def _kvec_entry(entry: _Compiled, own: _Compiled, kernel: Any, arguments: list[Argument], arch: str,
                       say: Any) -> tuple[_Compiled, bool]:
    """(the entry to launch, whether its K vectors are copied into aligned scratch first): ``entry`` as it is where
    the producer's TMA reads every K vector's array (``GemmConfig.kvecs``) in place; ``entry`` with copies
    (:func:`kvec_copies`: session 43; before, the ``kvec_global=1`` kernel ran) where an array TMA cannot read in
    place (:func:`kvec_refusal`: e.g. a misaligned base) is one 2-D copy makes readable; else the same configuration
    compiled with ``kvec_global=1`` (the consumers' own global loads of the vectors, no ``kvecs``): the launch stays
    on the tensor cores (before session 42 the whole launch ran the SIMT path).  Said once per program (``own``) as
    a PerformanceWarning at the kernel's line, and as this launch's remark; a lowering that cannot give that kernel
    raises :class:`LayoutNotSupported` (the SIMT path, with the reason)."""
    cfg = entry.program.gemm_config
    why = kvec_refusal(cfg, arguments) if getattr(cfg, "kvecs", "") else ""
    if not why:
        return entry, False
    no_copy = kvec_copy_refusal(cfg, arguments)
    if not no_copy:
        text = (f"{why}: each launch first copies the vector into an aligned scratch buffer on its stream (one 2-D "
                f"copy, rows padded to 16 bytes, one buffer per stream and layout) and the kernel {cfg.name} TMA-loads "
                "the copy, on the tensor cores")
        again = entry
    else:
        schedule, config = entry.asked or (cfg.schedule, "")
        again = compiled(kernel, arguments, arch, schedule, ",".join(filter(None, (config, "kvec_global=1"))))
        if again.program.kind != "gemm" or getattr(again.program.gemm_config, "kvecs", ""):
            raise LayoutNotSupported(f"{why}; {no_copy}; the kernel loading it from global memory was not compiled")
        text = (f"{why}; {no_copy}: the kernel {again.program.gemm_config.name} loads the K vectors from global "
                "memory in each K step instead (kvec_global=1), on the tensor cores")
    for on in {id(again): again, id(own): own}.values():  # (the kernel that runs, and the program's own entry)
        say(on, f"{kernel_location(kernel)}: remark: {text}")
    launch_copies.warn_once(own, "kvec_said", kernel_warning(kernel), text)
    return again, not no_copy


def gemm_problem(program: Any, arguments: list[Argument]) -> tuple[ArrayArg, ArrayArg, ArrayArg, int, int, int]:
    """(A, B, C, M, N, K) after checking what the GEMM host side needs (row-major A [M, K] (or
    [K, M] when the program reads A^T), B [K, N] (or [N, K] when the program reads B^T), C [M, N];
    the configuration's element types)."""
    return gemm_problem_batched(program, arguments)[:6]  # type: ignore[return-value]


def gemm_problem_batched(program: Any, arguments: list[Argument], given: list[Argument] | None = None):
    """(A, B, C, M, N, K, L): :func:`gemm_problem`, and for a batched configuration 3-D arrays
    ``[L, rows, cols]``, each matrix row-major and the matrices contiguous; ``given``: the arguments
    as the caller passed them when ``arguments`` are as the kernel reads them (:func:`stored_arguments`:
    C's column slice evaluates array extents as the kernel's parameters carry them)."""
    return gemm_problem_operand_batches(program, arguments, given)[:7]


def gemm_problem_operand_batches(program: Any, arguments: list[Argument], given: list[Argument] | None = None,
                                 strided: dict | None = None):
    """(A, B, C, M, N, K, L, (A's matrices, B's matrices)): :func:`gemm_problem_batched` and the matrix
    count of each operand's tensor map.  L is C's count; a kernel that evaluates each operand's batch
    index per work tile (``program_grid`` / ``grid_l``) reads A and B at their own counts (``[B, H, M,
    K] @ [H, K, N]``: A 6 matrices, B 3, C 6; a 2-D A, B or C: one matrix).

    ``strided``: a dict the caller (the launcher) passes when it can take A's and B's batches as they are (else
    their matrices must be stacked): :func:`strided_batches` fills it (``batch_pitch``: (A's, B's) bytes between
    matrices of a strided batch, 0 where stacked; ``broadcast_b``: B's batch stride is 0, one matrix for every
    batch, which the kernel reads at batch index 0, ``GemmConfig.b_shared``)."""
    a, b, c = gemm_operands(program, arguments)
    views = getattr(program, "operand_views", None)
    if views:  # A or B one matrix of its argument at indices the launch's scalars give (W[e]): that matrix, 2-D
        from tileorch.launchers.operand_views import apply_views

        viewed = apply_views(views, {"a": a, "b": b}, arguments, flat_parameters(arguments))
        a, b = viewed["a"], viewed["b"]
    c_view = getattr(program, "c_view", None)
    if c_view:  # C a column slice of a wider array (Out.slice(axis=1, ...)): that slice, the array's row stride
        from tileorch.launchers.operand_views import column_slice_view

        c = column_slice_view(c, c_view, arguments, flat_parameters(arguments), given)
    cfg = program.gemm_config
    if getattr(cfg, "a_gather", False):
        a = _gathered_a_operand(a, b, c, cfg)
    mid = getattr(cfg, "batch_mid", "")  # operands batched in their middle dimension: seen as [L, rows, cols]
    a, b, c = (mid_batch_view(x, role) if role in mid else x for x, role in ((a, "a"), (b, "b"), (c, "c")))

    def is_mid(x: ArrayArg) -> bool:  # x is A, B or C (as derived when called) batched in its middle dimension
        return any(x is y and role in mid for y, role in ((a, "a"), (b, "b"), (c, "c")))

    batched = bool(getattr(cfg, "batched", False))
    rank = 3 if batched else 2
    # a batched kernel that walks the launch grid (all of it, or its z as L) evaluates each operand's batch
    # indices per work tile: [B, H, rows, cols]
    # arrays flattened into one batch dimension, and a 2-D A or B (read at no batch index) one matrix
    per_tile = batched and bool(getattr(cfg, "program_grid", False) or getattr(cfg, "grid_l", False))
    if batched:
        a, b, c = (_flat_batches(x) if x.ndim > 3 else x for x in (a, b, c))
        if per_tile:  # (a 2-D C: the one matrix whose tiles the work tiles store, an operand picked per tile)
            a, b, c = (dataclasses.replace(x, shape=(1, *x.shape), strides=(x.shape[0] * x.shape[1], *x.strides))
                       if x.ndim == 2 else x for x in (a, b, c))
    shared_b = batched and bool(getattr(cfg, "b_shared", False))  # B: 2-D, or 3-D read at matrix 0
    # (a computed B, GemmConfig.b_raw, is passed as its raw array: the kernel computes the operand)
    b_type = getattr(cfg, "b_raw", "") or getattr(cfg, "b_dtype", "") or cfg.dtype
    a_type = getattr(cfg, "a_raw", "") or cfg.dtype  # a computed A (GemmConfig.a_raw): its raw array
    for x, dt in ((a, a_type), (b, b_type), (c, cfg.out_dtype)):
        if x.ndim != rank and not (x is b and shared_b and x.ndim == 2):
            raise ValueError(f"{_where(x.name, x.position)}: the {'batched ' if batched else ''}GEMM takes {rank}-D "
                             f"arrays, got shape {x.shape}")
        if x.dtype != _GEMM_DTYPES[dt] and not (x is c and dt == "s8" and x.dtype == "uint8"):  # (s8 C: low bytes)
            raise TypeError(f"{_where(x.name, x.position)} has dtype {x.dtype}; the compiled GEMM takes "
                            f"{_GEMM_DTYPES[dt]}")
    batch, counts = 1, (1, 1)
    if batched:
        shared = bool(getattr(cfg, "b_shared", False))  # one B for every batch: 2-D, or its matrix 0
        batch = c.shape[0] if per_tile else a.shape[0]
        # per work tile, each operand's batch index is the kernel's (checked in its array's extents there):
        # its tensor map holds its own matrices
        counts = (a.shape[0], b.shape[0] if b.ndim == 3 else 1) if per_tile else (batch, 1 if shared else batch)
        if not per_tile and ((b.shape[0] != batch and not shared) or c.shape[0] != batch):
            raise LayoutNotSupported(f"batch sizes do not agree: A {a.shape}, B {b.shape}, C {c.shape} {_DISAGREE}")
        loose = []  # A or B whose matrices are not stacked: the tensor maps may take them as they are
        if strided is not None and not per_tile and not is_mid(c) and scattered_c(cfg, c):
            # C's matrices not stacked row-major (a strided batch, a transposed view): the kernel stores a packed
            # scratch C, copied out into C's own layout after it (the launcher's c_scatter)
            strided["c_scatter"] = c
            c = dataclasses.replace(c, strides=(c.shape[1] * c.shape[2], c.shape[2], 1))
        for x in (a, c) if shared else (a, b, c):
            if x.strides[0] != x.shape[1] * x.shape[2] and x.shape[0] > 1 and not (
                    is_mid(x)):
                if strided is None or x is c or per_tile:
                    raise LayoutNotSupported(f"{_where(x.name, x.position)}: the batched WGMMA GEMM needs "
                                             f"contiguous matrices, got strides {x.strides} for shape {x.shape}")
                loose.append(x)
        if loose:
            strided.update(strided_batches(cfg, a, b, loose))
            if strided.get("broadcast_b"):
                counts = (counts[0], 1)
        a, c = _matrix(a), _matrix(c)
        b = _matrix(b) if b.ndim == 3 else b
    a_major = getattr(cfg, "a_major", "k")
    (m, k), (k2, n) = a.shape, b.shape
    if a_major == "m" or getattr(cfg, "transpose_a", False):  # the program reads A^T: A is given [K, M]
        k, m = a.shape
    if cfg.b_major == "k" and not getattr(cfg, "transpose_b", False):  # the program reads B^T: B is given [N, K]
        n, k2 = b.shape
    if getattr(cfg, "epi_n", 0) and not getattr(cfg, "lora_rank", 0):  # a second dot on the accumulator: B is
        # the [K, R] block, N is C's (and E's); (a low-rank branch's main B is the GEMM's own)
        if n > cfg.tile_n:
            raise LayoutNotSupported(f"{_where(b.name, b.position)}: the program reads B's column tile 0 only (the "
                                     f"rank of its second dot, {cfg.tile_n}) and B has {n} columns")
        n = c.shape[1]
    single = getattr(program, "single_tile", None) or {}
    for i, (axis, extent) in enumerate((("M", m), ("N", n))):
        limit = single.get(axis.lower(), 0)
        if limit and max(extent, c.shape[i]) > limit:  # the kernel would cover more than the program's tile 0
            raise LayoutNotSupported(f"the program computes only tile 0 along {axis} (its indices there are the "
                                     f"constant 0) and {axis} = {max(extent, c.shape[i])} > its tile of {limit}")
    k_used = getattr(cfg, "k_used", 0)
    if k_used and k > k_used:  # the program's constant K range reads less than the kernel's whole K
        raise LayoutNotSupported(f"the program reads only K elements 0 .. {k_used - 1} (its K loop has constant "
                                 f"bounds from tile 0) and K = {k}")
    c_transposed = getattr(cfg, "c_transposed", False)  # the program stores acc^T: C is given [N, M]
    # a program-grid kernel stores C at the tile coordinates the program computes (Out[:, (bn + j) * tn]): its
    # columns are C's own, any number (the launcher passes them as the kernel's column bound)
    wide_c = bool(getattr(cfg, "program_grid", False)) and not c_transposed and not batched
    if k2 != k or (c.shape != ((n, m) if c_transposed else (m, n)) and not (wide_c and c.shape[0] == m)):
        raise LayoutNotSupported(f"GEMM shapes do not agree: A {a.shape}{' (read as A^T)' if a_major == 'm' else ''}, "
                                 f"B {b.shape}{' (read as B^T)' if cfg.b_major == 'k' else ''}, C {c.shape}"
                                 f"{' (stored as C^T)' if c_transposed else ''} {_DISAGREE}")
    if k == 0 and (getattr(program, "epilogue_ops", None) or batch != 1 or getattr(cfg, "grid_l", False)):
        # (without an epilogue, one batch: the launch stores C's zeros without a kernel, _launch_gemm)
        raise LayoutNotSupported("K = 0: an empty contraction (the accumulator stays zero), which the tensor-core "
                                 "kernel's K loop of at least one K tile does not run")
    for x in (a, c) + ((b,) if cfg.b_major == "k" or batched else ()):
        if 0 in x.shape:
            continue  # (no element to address: torch gives a [M, 0] array strides (1, 1); K = 0 stores zeros)
        if x is a and getattr(cfg, "transpose_a", False):
            continue  # the launcher copies A (any layout torch can transpose)
        if x is c and _c_slice_ok(cfg) and _row_strided(x):
            continue  # a column slice of a wider array: stored ldc apart (GemmConfig.c_ld, asked for at launch)
        if is_mid(x):
            continue  # (batched in its middle dimension: mid_batch_view checked it, rows its row stride apart)
        if x is not c and strided and strided.get("row_pitch", (0, 0))["ab".index("a" if x is a else "b")]:
            continue  # (a strided batch's rows its row stride apart: strided_batches checked them, the map takes it)
        if not _row_major(x):
            raise LayoutNotSupported(f"{_where(x.name, x.position)}: the WGMMA GEMM needs a row-major contiguous "
                                     f"array, got strides {x.strides} for shape {x.shape}")
    if 0 not in b.shape and not (_row_major(b) or _column_major(b) or "b" in mid or (  # (empty: as above)
            strided and strided.get("row_pitch", (0, 0))[1])):
        raise LayoutNotSupported(f"{_where(b.name, b.position)}: the WGMMA GEMM needs B row-major or column-major "
                                 f"(a transposed view), got strides {b.strides} for shape {b.shape}")
    return a, b, c, m, n, k, batch, counts


def scattered_c(cfg: Any, c: ArrayArg) -> bool:
    """A batched kernel's C ``[L, M, N]`` whose matrices are not stacked row-major (a batch stride other than ``M N``:
    every other matrix of a larger array; rows not ``N`` apart: a ``transpose(0, 1)`` view of ``[M, L, N]``
    storage) and which the launcher can store through a packed scratch copied out after the kernel
    (:func:`tileorch.launchers.launch_copies.unpacking_copies`): elements contiguous along N, stored by the tier's
    epilogue of tiles (not atomic adds, not transposed, which address C itself).  Elements two batches share are
    refused before (:func:`check_written_arguments`)."""
    if c.ndim != 3 or not all(c.shape) or not getattr(cfg, "batched", False):
        return False
    count, rows, cols = c.shape
    stacked = (count == 1 or c.strides[0] == rows * cols) and (rows == 1 or c.strides[1] == cols)
    return (not stacked and (c.strides[2] == 1 or cols == 1) and cfg.epilogue != "atomic"
            and not getattr(cfg, "c_transposed", False) and all(x >= 0 for x in c.strides))


def c_map_takes(cfg: Any, c: ArrayArg) -> bool:
    """A C of :func:`scattered_c` the TMA epilogue's 3-D tensor map stores in place (its batch stride and row stride
    in the map, no scratch): a ``tma`` epilogue (16-bit outputs), a 16-byte aligned base, batch and row strides
    positive multiples of 16 bytes, rows at least a row apart and a whole number of 16-byte units (else the host
    would stage C), contiguous elements, no column slice (``c_ld``) or middle-dimension batch."""
    count, rows, cols = c.shape
    es = c.itemsize
    return (getattr(cfg, "epilogue", "") == "tma" and getattr(cfg, "batched", False) and not getattr(cfg, "c_ld", False)
            and "c" not in getattr(cfg, "batch_mid", "") and not c.ptr % 16 and c.strides[2] == 1
            and not (cols * es) % 16 and (count == 1 or (c.strides[0] > 0 and not (c.strides[0] * es) % 16))
            and (rows == 1 or (c.strides[1] >= cols and not (c.strides[1] * es) % 16)))


def strided_batches(cfg: Any, a: ArrayArg, b: ArrayArg, loose: list) -> dict:
    """How the batched kernel reads A and B (``[L, rows, cols]``) whose matrices are not stacked (``loose``): a batch
    stride that is a positive multiple of 16 bytes is the batch dimension's stride in the operand's 3-D tensor map
    (``batch_pitch``, bytes; TMA takes any such stride); B's batch stride 0 (``w.expand(L, K, N)``) is one matrix
    read at batch index 0 by every work tile (``broadcast_b``: the launcher runs the ``b_shared`` kernel); rows not
    ``cols`` apart (a ``transpose(0, 1)`` view of ``[rows, L, cols]`` storage) are the map's row stride
    (``row_pitch``: (A's, B's) bytes, 0 where packed).  Anything else raises :class:`LayoutNotSupported` (the SIMT
    path runs the launch, the reason in its warning)."""
    pitch = [0, 0]
    out: dict = {}
    rows: dict = {}  # role -> bytes between rows, where not cols apart
    for x in loose:
        role = "A" if x is a else "B"
        what = f"{_where(x.name, x.position)}: {role}'s matrices are not stacked (strides {x.strides} for shape {x.shape})"
        if getattr(cfg, "transpose_a" if role == "A" else "transpose_b", False):
            raise LayoutNotSupported(f"{what} and the kernel reads a K-major copy of {role} made at launch, of "
                                     "stacked matrices")
        if x.strides[0] == 0 and role == "B":
            if getattr(cfg, "b_operands", 1) != 1 or getattr(cfg, "b_raw", "") or getattr(cfg, "epi_n", 0):
                raise LayoutNotSupported(f"{what}: a B broadcast over the batch (stride 0) is read at batch index 0 "
                                         "by a kernel of one B read in place only")
            out["broadcast_b"] = True
            continue
        nbytes = x.strides[0] * x.itemsize
        if x.strides[0] <= 0 or nbytes % 16:
            raise LayoutNotSupported(f"{what}: its batch stride ({x.strides[0]} elements, {nbytes} bytes) is not a "
                                     "positive multiple of 16 bytes, which a TMA tensor map's batch dimension needs")
        if getattr(cfg, "epi_n", 0) or getattr(cfg, "lora_rank", 0) or x.ptr % 16 or (x.strides[1] * x.itemsize) % 16:
            raise LayoutNotSupported(f"{what}: a strided batch is read in place by its tensor map, which needs a "
                                     "16-byte aligned base and rows a multiple of 16 bytes apart (a staged copy "
                                     "stacks the matrices)")
        if x.shape[1] > 1 and x.strides[1] != x.shape[2]:  # rows not cols apart (a transpose(0, 1) view)
            if x.strides[2] != 1 or x.strides[1] < x.shape[2] or (x.shape[2] * x.itemsize) % 16:
                raise LayoutNotSupported(f"{what}: its rows are {x.strides[1]} elements apart, which its tensor map "
                                         "takes where they are contiguous, at least a row apart and a whole number "
                                         "of 16-byte units long")
            rows[role] = x.strides[1] * x.itemsize
        pitch["AB".index(role)] = nbytes
    if any(pitch):
        out["batch_pitch"] = tuple(pitch)
    if rows:
        out["row_pitch"] = (rows.get("A", 0), rows.get("B", 0))
    return out


_DISAGREE = ("(a valid program: its loads pad what lies outside an array, e.g. a K loop over B's rows with a wider A, "
             "or an output larger than the product; the WGMMA kernel computes one problem whose A, B and C agree)")
"""Why arrays of shapes that disagree are not an error: :func:`gemm_problem_batched` raises LayoutNotSupported for
them, and the launch runs the program on the SIMT path (a warning says why)."""


def stored_arguments(arguments: list[Argument]) -> list[Argument]:
    """The arguments as the compiled kernel reads them (:meth:`ArrayArg.as_stored`): what the
    GEMM host side and the tensor maps are built from.  The kernel's own parameters stay the
    cuTile entry's (:func:`pack_simt_arguments` of the arguments as given)."""
    return [a.as_stored() if isinstance(a, ArrayArg) else a for a in arguments]


def _stored_object(obj: Any, x: ArrayArg) -> Any:
    """``obj`` (the argument ``x`` describes, as given) as the kernel reads it: a column-major
    torch tensor transposed (a view), anything else as it is."""
    tensor_type = _torch_tensor_type()
    if x.column_major and tensor_type is not None and isinstance(obj, tensor_type):
        return obj.transpose(-1, -2)
    return obj


def _viewed_object(program: Any, role: str, obj: Any, arguments: list[Argument]) -> Any:
    """``obj`` (operand ``role``'s argument, as the kernel reads it) indexed at the leading indices of
    the program's view of it (:mod:`tileorch.launchers.operand_views`): the matrix the kernel reads."""
    lead = (getattr(program, "operand_views", None) or {}).get(role)
    if not lead:
        return obj
    from tileorch.launchers.operand_views import leading_values

    return obj[tuple(v for v, _ in leading_values(lead, arguments, flat_parameters(arguments)))]


def _flat_batches(x: ArrayArg) -> ArrayArg:
    """A ``[B0, B1, .., rows, cols]`` array as ``[B0 * B1 * .., rows, cols]`` (same pointer), for a batched
    GEMM whose kernel flattens the program's batch indices the same way; the batch dimensions must
    be contiguous over one another (else :class:`LayoutNotSupported`: the SIMT path runs it)."""
    nb = x.ndim - 2
    real = [j for j in range(nb) if x.shape[j] > 1]  # (the stride of an extent-1 dimension is never used)
    step = x.strides[real[-1]] if real else x.shape[-2] * x.shape[-1]
    for j in real:
        inner = 1
        for d in x.shape[j + 1:nb]:
            inner *= d
        if x.strides[j] != step * inner:
            raise LayoutNotSupported(f"{_where(x.name, x.position)}: the batched WGMMA GEMM flattens the batch "
                                     f"dimensions into one and needs them contiguous, got strides {x.strides} for "
                                     f"shape {x.shape}")
    flat = 1
    for d in x.shape[:nb]:
        flat *= d
    return dataclasses.replace(x, shape=(flat, *x.shape[nb:]), strides=(step, *x.strides[nb:]))


def mid_batch_view(x: ArrayArg, role: str) -> ArrayArg:
    """An operand the program reads (stores) as ``(rows, 1, cols)`` tiles at program id 2 (``GemmConfig.batch_mid``):
    its array ``[rows, L, cols]`` seen as ``[L, rows, cols]`` (the same pointer, the dimensions permuted: matrix ``l``
    has rows the array's row stride apart, ``L cols`` for a contiguous array, matrices ``cols`` apart).  Each matrix
    row must be contiguous (last stride 1), the matrices of a row ``cols`` apart (a size-1 dimension's stride is
    never used), the rows at least ``L cols`` apart (a slice ``X[:, j:j + L, :]`` of a wider middle dimension is
    taken: its row stride is the host's row pitch, :func:`tileorch.launchers.gemm_host.operand_rows`' ``mid_ld``) and
    ``cols`` a whole multiple of 16 bytes, TMA's unit for the 3-D tensor map's batch pitch (and the direct
    epilogue's column pairs); else :class:`LayoutNotSupported` (the launch runs on the SIMT path, with the reason)."""
    what = (f"{_where(x.name, x.position)}: {role.upper()} is read as (rows, 1, cols) tiles of an array batched in "
            "its middle dimension")
    if x.ndim != 3:
        raise LayoutNotSupported(f"{what}; it must be 3-D [rows, L, cols], got shape {x.shape}")
    rows, count, cols = x.shape
    # the tensor maps and C's stores take the array's row stride, matrices cols apart, each row contiguous: a size-1
    # dimension's stride is never used (X[:, j:j+1, :] of a wider array: rows its own row stride apart, not cols)
    row = x.strides[0] if rows > 1 else count * cols
    if x.strides[2] != 1 or (count > 1 and x.strides[1] != cols) or row < count * cols:
        raise LayoutNotSupported(f"{what}; the WGMMA GEMM needs each row's L matrices contiguous (strides (>= "
                                 f"{count * cols}, {cols}, 1), a size-1 dimension's free), got strides {x.strides} "
                                 f"for shape {x.shape}")
    if (cols * x.itemsize) % 16:
        raise LayoutNotSupported(f"{what}; its batch pitch ({cols} elements, {cols * x.itemsize} bytes) is not a "
                                 "multiple of 16 bytes, which TMA's 3-D tensor map needs (a padded copy would not "
                                 "keep the matrices' interleaving)")
    return dataclasses.replace(x, shape=(count, rows, cols), strides=(cols, row, 1))


def mid_row_strides(cfg: Any, a: ArrayArg, b: ArrayArg, c: ArrayArg) -> tuple[int, int, int]:
    """The row strides (elements) of A, B and C (the matrices :func:`gemm_problem_operand_batches` returns) batched in
    their array's middle dimension (``cfg.batch_mid``; 0 for the others, () when none is): the host's ``mid_ld``."""
    mid = getattr(cfg, "batch_mid", "") if getattr(cfg, "batched", False) else ""
    if not mid:
        return ()
    return tuple(x.strides[0] if role in mid and x.shape[0] > 1 else 0 for x, role in ((a, "a"), (b, "b"), (c, "c")))


def _gathered_a_operand(a: ArrayArg, b: ArrayArg, c: ArrayArg, cfg: Any) -> ArrayArg:
    """The ``[M, K]`` operand a gathered A (``GemmConfig.a_gather``) stands for in the problem: its rows are read
    by the kernel's own loads from the gathered array ``a`` (any shape), so the GEMM's M is C's rows and K is B's;
    ``a``'s pointer and position kept (no tensor map of it is read, nothing of it is staged)."""
    rows = c.shape[-1] if getattr(cfg, "c_transposed", False) else c.shape[-2]
    k_major_b = cfg.b_major == "k" and not getattr(cfg, "transpose_b", False)
    k = b.shape[-1] if k_major_b else b.shape[-2]
    return dataclasses.replace(a, shape=(rows, k), strides=(k, 1))


def _check_segment_operand(x: ArrayArg, first: ArrayArg, axis: int, role: str) -> None:
    """A later K segment's operand ``x`` (``GemmConfig.k_segments``): row-major, ``first``'s element type and its
    extent along ``axis`` (A's M, B's N); its K its own (:func:`segment_ks` pairs it with its A's)."""
    if x.ndim != 2 or not _row_major(x) or x.dtype != first.dtype or x.shape[axis] != first.shape[axis]:
        raise LayoutNotSupported(f"{_where(x.name, x.position)}: a K segment's {role} is a row-major {first.dtype} array "
                                 f"with {first.shape[axis]} {'rows' if axis == 0 else 'columns'} like "
                                 f"{_where(first.name, first.position)}; got shape {x.shape}, strides {x.strides}, "
                                 f"{x.dtype}")


def segment_ks(program: Any, more_a: list[ArrayArg], more_b: list[ArrayArg]) -> tuple[int, ...]:
    """The K of each later K segment (``gemm_config.k_segments``: pair ``i`` of A ``i`` and B ``i``): its A's K,
    which its B's must be (else LayoutNotSupported: the SIMT path runs the launch); () for other programs."""
    cfg = program.gemm_config
    if not getattr(cfg, "k_segments", False):
        return ()
    out = []
    for x, w in zip(more_a, more_b):
        k_a = x.shape[1] if cfg.a_major == "k" else x.shape[0]
        k_b = w.shape[0] if cfg.b_major == "n" else w.shape[1]
        if k_a != k_b:
            raise LayoutNotSupported(f"{_where(w.name, w.position)}: a K segment's B has K = {k_b}, its A "
                                     f"{_where(x.name, x.position)} K = {k_a}")
        out.append(k_a)
    return tuple(out)


def empty_product(k: int, seg_k: tuple[int, ...]) -> bool:
    """Whether a GEMM's product is empty: its K (the first pair's) and every later K segment's (``seg_k``,
    :func:`segment_ks`) are 0, so the launcher may store zeros without a kernel. A program whose segments
    are empty only in part raises LayoutNotSupported (the TMA maps take no zero extent, and zeros would drop
    the other segments' products): the SIMT path runs the launch."""
    ks = (k, *seg_k)
    if 0 in ks and any(ks):
        raise LayoutNotSupported(f"K segments {ks}: the WGMMA GEMM takes no empty segment beside others")
    return not any(ks)


def _batch_matrix(x: ArrayArg, batch: int) -> ArrayArg:
    """The first matrix of a batched operand ``x`` of ``batch`` contiguous ``[rows, cols]`` matrices (checked)."""
    if x.ndim != 3 or x.shape[0] != batch or (batch > 1 and x.strides[0] != x.shape[1] * x.shape[2]):
        raise LayoutNotSupported(f"{_where(x.name, x.position)}: the batched WGMMA GEMM needs {batch} contiguous "
                                 f"matrices, got strides {x.strides} for shape {x.shape}")
    return _matrix(x)


def _matrix(x: ArrayArg) -> ArrayArg:
    """The first matrix of a 3-D array (same pointer, the last two dimensions)."""
    return dataclasses.replace(x, shape=tuple(x.shape[1:]), strides=tuple(x.strides[1:]))


class LayoutNotSupported(ValueError):
    """The operands' layout is not one the WGMMA GEMM takes: the program runs on the SIMT path."""


def _row_strided(x: ArrayArg) -> bool:
    """Rows of unit-stride columns whose row stride may exceed the columns (a column slice
    ``Y[:, off:off + N]`` of a wider array)."""
    rows, cols = x.shape
    return (x.strides[1] == 1 or cols == 1) and (x.strides[0] >= cols or rows == 1)


def c_row_stride(x: ArrayArg) -> int:
    """C's row stride in elements as the GEMM stores it: the array's, or its columns for one row."""
    return x.strides[0] if x.shape[0] > 1 else x.shape[1]


def _c_slice_ok(cfg: Any) -> bool:
    """Whether this configuration's C may be a column slice of a wider array (``GemmConfig.c_ld``: a
    2-D C stored as it is by the TMA or direct epilogue)."""
    return not (getattr(cfg, "batched", False) or getattr(cfg, "c_transposed", False) or cfg.epilogue == "atomic")


def _row_major(x: ArrayArg) -> bool:
    rows, cols = x.shape
    return (x.strides[1] == 1 or cols == 1) and (x.strides[0] == cols or rows == 1)


def _column_major(x: ArrayArg) -> bool:
    rows, cols = x.shape
    return (x.strides[0] == 1 or rows == 1) and (x.strides[1] == rows or cols == 1)


def b_major(b: ArrayArg) -> str:
    """``n`` for a row-major B [K, N]; ``k`` for a column-major one (B^T stored [N, K])."""
    return "n" if _row_major(b) else "k"


def torch_stream_for(torch: Any, handle: int, device: Any) -> Any:
    """torch's stream object for the CUstream ``handle`` on ``device``: the current stream or the
    default stream when the handle is theirs, else an ``ExternalStream`` of it.

    ``ExternalStream(0)`` is not the default stream: with torch 2.x on the H200 host it is another
    stream (stream_id 3, a non-zero CUstream handle), so work enqueued on it was not ordered after
    the default stream's.  Under load (benchmarks/stress_launch_copies.py, 2026-12-04) the K-major
    copy made through it read operands the default stream had not finished writing: stale copies
    in 2 of 3 launches, wrong or NaN GEMM columns, no error (sessions 18-19's unexplained GPU
    failures); with this function 0 failures in 28,483 launches (21,656 with a copy)."""
    current = torch.cuda.current_stream(device)
    if current.cuda_stream == handle:
        return current
    default = torch.cuda.default_stream(device)
    if default.cuda_stream == handle:
        return default
    return torch.cuda.ExternalStream(handle, device=device)


def _k_major_copy(obj: Any, b: ArrayArg, stream: int, operand: str = "B") -> tuple[int, Any, str]:
    """A K-major copy ``[..., N, K]`` of the N-major ``[..., K, N]`` array ``obj`` (for A: ``[..., M, K]``
    of ``[..., K, M]``), enqueued now on ``stream`` (the launch's stream, so ordered after the work that
    wrote ``obj`` there and before the kernel) into a buffer kept per (operand, shape, dtype, stream)
    (:mod:`tileorch.launchers.k_major_copy`): (the copy's pointer, the function that enqueues the same
    copy again on a stream handle or None, what makes it).  tileorch's copy program where it has one
    (the launch can then be kept bound with it); else torch's copy (None: each call takes the full path
    to make it again).  Needs a torch tensor."""
    tensor_type = _torch_tensor_type()
    if tensor_type is None or not isinstance(obj, tensor_type):
        raise LayoutNotSupported(f"{_where(b.name, b.position)}: this GEMM reads {operand} K-major and {operand} is "
                                 f"{'N' if operand == 'B' else 'M'}-major; tileorch makes the K-major copy for a "
                                 f"torch tensor, and {operand} is not a torch tensor")
    import torch

    from tileorch.launchers import k_major_copy

    on = torch_stream_for(torch, stream, obj.device)
    buf = k_major_copy.buffer(torch, obj, operand, stream, on)
    again, what = k_major_copy.copier(obj, buf, stream, launch)
    if again is None:  # no copy program for it: torch's copy, on torch's object for the launch's stream
        with torch.cuda.stream(on):
            buf.copy_(obj.transpose(-1, -2))
        what = f"torch's copy ({what}; the launch is not kept bound: each call takes the launcher's full path)"
    return int(buf.data_ptr()), again, what


def _covered(program: Any, grid: tuple[int, int, int], m: int, n: int, batch: int) -> Any:
    """The part of C that the programs of launch ``grid`` compute when it is less than all of C
    (:func:`tileorch.launchers.user_grid.covered`), else None; :class:`LayoutNotSupported` (the SIMT path
    launches the grid as it is) when the GEMM kernel's scheduler cannot walk exactly that part.  A program-grid
    kernel walks the launch grid itself, and a ``grid_l`` kernel's L is the grid's z already."""
    from tileorch.launchers.user_grid import covered

    cfg = program.gemm_config
    if getattr(cfg, "program_grid", False):
        return None
    cov = covered(getattr(program, "grid_axes", None), grid, m, n, 1 if getattr(cfg, "grid_l", False) else batch)
    if isinstance(cov, str):
        raise LayoutNotSupported(cov)
    return cov if cov.clipped else None


def _aligned_entry(entry: _Compiled, cov: Any, kernel: Any, arguments: list[Argument], arch: str) -> _Compiled:
    """``entry``, or the program compiled with the overrides of :func:`tileorch.launchers.user_grid.aligned_config`
    when ``entry``'s tiles or clusters straddle the edge of the part ``cov`` of C that the launch covers."""
    from tileorch.kernels.gemm.config import override_string
    from tileorch.launchers.user_grid import aligned_config

    new = aligned_config(entry.program.gemm_config, cov)
    return entry if new is None else compiled(kernel, arguments, arch, new.schedule, override_string(new))


def spilled(entry: _Compiled) -> bool:
    """Whether ptxas spilled the registers of ``entry``'s kernel (its program's ``warning:`` remark)."""
    return any(r.startswith("warning: ptxas spilled") for r in (getattr(entry.program, "remarks", None) or []))


def _spill_report(entry: _Compiled) -> str:
    """ptxas's spill report of ``entry``'s kernel (``60 B stores, 56 B loads (168 registers)``), or ''."""
    for r in getattr(entry.program, "remarks", None) or []:
        if r.startswith("warning: ptxas spilled"):
            return r.rsplit(": ", 1)[-1]
    return ""


def _spill_bytes(entry: _Compiled) -> int:
    """The bytes ptxas's spill report of ``entry``'s kernel names (stores and loads; 0: no spill)."""
    import re

    return sum(int(x) for x in re.findall(r"(\d+) B (?:stores|loads)", _spill_report(entry)))


def narrower_retiles(chosen: Any) -> list[Any]:
    """The retiled configurations tried, in order, after ``chosen``'s kernel spilled registers: the widest tile the
    WGMMA builder takes (128 columns or more) whose accumulators take at most half of the consumer's accumulator
    registers (:data:`~tileorch.kernels.gemm.config.ACCUMULATOR_REGISTERS`; one f32 accumulator: 128 columns),
    leaving the rest of the consumer's ``setmaxnreg`` budget to the epilogue's operand tiles and addresses, in
    ``chosen``'s clusters, then in 1x1 clusters (a B multicast's address arithmetic takes consumer registers too);
    each only where it differs from ``chosen``, its ring in the shared memory ``chosen``'s took."""
    from tileorch.kernels.gemm.config import ACCUMULATOR_REGISTERS, GemmConfigError
    from tileorch.transforms.tileas.convert_to_cutlass import TILE_NS

    widths = [v for v in TILE_NS if v >= 128]
    width = max((v for v in widths if dataclasses.replace(chosen, tile_n=v).accumulator_registers
                 <= ACCUMULATOR_REGISTERS // 2), default=min(widths))
    out: list[Any] = []
    for cluster in dict.fromkeys((chosen.cluster_m, 1)):
        if width > chosen.tile_n or (chosen.tile_n, chosen.cluster_m) == (width, cluster):
            continue
        narrow = dataclasses.replace(chosen, tile_n=width)
        stages = min(16, max(chosen.stages, chosen.stages * chosen.stage_bytes // narrow.stage_bytes))
        while stages >= 2:
            try:
                out.append(dataclasses.replace(narrow, cluster_m=cluster, stages=stages).check())
                break
            except GemmConfigError:
                stages -= 1
    return out


def _unspilled_retile(entry: _Compiled, chosen: Any, why: str, kernel: Any, arguments: list[Argument], arch: str):
    """(entry, configuration, remark) of the retile that runs when ``entry``'s kernel (``chosen``) spilled registers:
    the first of :func:`narrower_retiles` whose kernel ptxas assembles without spilling, decided by the compile's own
    ptxas report (the consumer's registers are the budget: the accumulators, the epilogue's operand tiles and the
    addresses must fit it); where every one spills, the one that spills the fewest bytes.  ``why`` gains the
    choice and the spill reports it was made from."""
    from tileorch.kernels.gemm.config import override_string

    tried = [(entry, chosen)]
    for cand in narrower_retiles(chosen):
        got = compiled(kernel, arguments, arch, cand.schedule, override_string(cand))
        if getattr(got.program, "kind", "gemm") != "gemm":  # (not the tier's kernel: not a candidate)
            continue
        tried.append((got, cand))
        if not spilled(got):
            break
    best, cfg = min(tried, key=lambda t: _spill_bytes(t[0]))
    ran = {id(e): getattr(e.program, "gemm_config", None) or c for e, c in tried}  # (as the tier compiled it)
    said = "; ".join(f"{ran[id(e)].tile_m} x {ran[id(e)].tile_n} in {ran[id(e)].cluster_m}x1 clusters " + (
        f"spilled ({_spill_report(e)})" if spilled(e) else "does not spill") for e, _ in tried)
    cfg = ran[id(best)]
    if best is entry:
        return entry, chosen, why + f"; ptxas spilled registers of every retiled kernel tried ({said}): the " \
                                    f"{chosen.tile_m} x {chosen.tile_n} one runs, spilling the fewest bytes"
    verdict = "the first that does not spill" if not spilled(best) else "the one spilling the fewest bytes"
    return best, cfg, why + (f"; runs as {cfg.tile_m} x {cfg.tile_n} tiles in {cfg.cluster_m}x1 clusters, {verdict}: "
                             f"the retiled kernels' ptxas reports: {said}")


def retile_config(cfg: Any, m: int, n: int, k: int, major: str, schedule: str, sms: int, c_ld: bool,
                  tile_192: bool = True, batch: int = 1):
    """(configuration, remark) of a retiled GEMM program: tileorch.gemm's auto rule
    (:func:`tileorch.launchers.gemm.default_config`: 128 x 256, 128 x 128 or 128 x 192 tiles by their wave
    efficiency on ``sms`` SMs) for the ``m x n x k`` problem (M: every batch's rows), keeping the
    program's ``cfg`` element types, operand layouts and batching; ``schedule``: ``auto`` or the one
    asked for; the remark names the tile width chosen and the wave efficiencies it was chosen by;
    ``tile_192=False``: 128 x 192 tiles not considered (their kernel spilled); ``batch``: the matrices ``m``
    counts the rows of (the remark's one-tile case names each one's)."""
    from tileorch.launchers.gemm import N192_EFFICIENCY, default_config, one_tile_width, wave_efficiency

    chosen = default_config(m, n, k, cfg.dtype, cfg.out_dtype, major, schedule, sms, tile_192)
    chosen = dataclasses.replace(chosen, batched=cfg.batched, b_shared=getattr(cfg, "b_shared", False),
                                 a_major=getattr(cfg, "a_major", "k"), transpose_b=getattr(cfg, "transpose_b", False),
                                 transpose_a=getattr(cfg, "transpose_a", False), b_dtype=getattr(cfg, "b_dtype", ""),
                                 c_ld=c_ld, batch_mid=getattr(cfg, "batch_mid", "")).check()
    eff = {t: wave_efficiency(m, n, t, sms) for t in (256, 192, 128)}
    why = (f"remark: retiled to {chosen.tile_m} x {chosen.tile_n} tiles ({chosen.schedule}, {chosen.cluster_m}x1 "
           f"clusters) for {m} x {n} x {k} on {sms} SMs: wave efficiency 256-wide {eff[256]:.2f}, 192-wide "
           f"{eff[192]:.2f} (x {N192_EFFICIENCY} full-wave speed: {N192_EFFICIENCY * eff[192]:.2f}), 128-wide "
           f"{eff[128]:.2f}")
    if chosen.schedule != "streamk" and one_tile_width(m, n, tile_192):
        each = f"each of the {batch} matrices' {m // batch} x {n}" if batch > 1 else f"{m} x {n}"
        why += f" (one tile covers {each}: the narrowest tile covering N, no cluster)"
    from tileorch.kernels.gemm.config import ACCUMULATOR_REGISTERS, FP8

    if chosen.dtype in FP8 and chosen.dtype_b in FP8 and getattr(cfg, "fp8_promote", 0):
        # the program's fp8 dot accumulated as the tier accumulated it unasked (cfg: the program's own
        # configuration, promoted unless it asks for use_fast_acc=True, its kernel form is built without it or
        # TILEORCH_FP8_PROMOTE_INTERVAL=0): the retiled configuration is given to the lowering whole,
        # fp8_promote included; a tile too wide for the scratch runs narrowed
        from tileorch.transforms.tileas.fp8_promotion import narrowed_for_scratch

        if chosen.tile_n > ACCUMULATOR_REGISTERS:  # (the tier's remark at the dot says how it accumulates)
            chosen, narrowed = narrowed_for_scratch(chosen, ACCUMULATOR_REGISTERS)
            why += "; " + narrowed
        chosen = dataclasses.replace(chosen, fp8_promote=cfg.fp8_promote).check()
    return chosen, why


def _launch_gemm(entry: _Compiled, kernel: Any, arguments: list[Argument], arch: str, schedule: str,
                 stream: int, dev: Any, sync: bool, tiles: str = "auto", args: Any = (),
                 fast: tuple | None = None, grid_l: int = 1, grid: tuple[int, int, int] | None = None) -> None:
    """Launch a ``gemm`` program; ``grid_l``: the launch grid's third extent, the L a ``grid_l``
    configuration walks (split-K programs read it as program id 2); ``grid``: the launch grid, which
    a ``program_grid`` configuration walks (one work tile per program) and which bounds the tiles any
    other computes (:func:`_covered`); None: (1, 1, 1) for a program grid, all of C otherwise.

    The launch's remarks (a retile, the second dot's N tiles, the part of C covered) are recorded in
    ``launch_remarks[grid]`` of the program's entry and of the entry that runs only once the kernel is prepared: a
    :class:`LayoutNotSupported` raised before that (the SIMT path runs the launch, :func:`_fell_back`) leaves
    none of them, and none from an earlier launch of this grid."""
    from tileorch.launchers.gemm import choose_schedule
    from tileorch.launchers.gemm_host import GemmKernel
    from tileorch.runtime.driver import api, check

    program = entry.program
    own_entry, said = entry, {}  # said: id(entry) -> (entry, [this launch's remarks]), recorded once it runs
    own_entry.launch_remarks.pop(tuple(grid or (1, 1, 1)), None)

    def say(on: _Compiled, remark: str) -> None:
        said.setdefault(id(on), (on, []))[1].append(remark)
    # the operands as the kernel reads them: a column-major array as its row-major transpose
    loose: dict = {}  # A's and B's matrices as the tensor maps take them (a strided batch, B broadcast by stride 0)
    a, b, c, m, n, k, batch, counts = gemm_problem_operand_batches(program, stored_arguments(arguments), arguments,
                                                                   strided=loose)
    broadcast_b, batch_pitch = bool(loose.get("broadcast_b")), tuple(loose.get("batch_pitch", ()))
    scatter = loose.get("c_scatter")  # C's matrices not stacked: the kernel stores a packed scratch, copied out
    more_b = more_b_operands(program, stored_arguments(arguments), b, counts[1])  # dots sharing A: the other Bs
    more_a = more_a_operands(program, stored_arguments(arguments), a, counts[0])  # dots with an A each: the other As
    seg_k = segment_ks(program, more_a, more_b)  # (K segments: each later pair's own K)
    given = {x.position: x for x in arguments}
    row_pitch = tuple(loose.get("row_pitch", ()))  # (A's, B's) rows of a strided batch not cols apart
    major = program.gemm_config.b_major if program.gemm_config.b_major == "k" or "b" in getattr(
        program.gemm_config, "batch_mid", "") or (row_pitch and row_pitch[1]) else b_major(b)  # (a B batched in its
    # middle dimension, a strided batch's B of rows its row stride apart: as compiled)
    if major != program.gemm_config.b_major and getattr(program.gemm_config, "b_shared", False):
        raise LayoutNotSupported(f"{_where(b.name, b.position)}: the B shared by every batch was compiled "
                                 f"{'row' if program.gemm_config.b_major == 'n' else 'column'}-major")
    if major != program.gemm_config.b_major and (broadcast_b or batch_pitch):
        raise LayoutNotSupported(f"{_where(b.name, b.position)}: B's matrices are not stacked (a strided or broadcast "
                                 f"batch) and B is {'column' if major == 'k' else 'row'}-major while the program's "
                                 "GEMM was compiled for the other layout")
    if major != program.gemm_config.b_major and (tiles != "auto" or program.epilogue_ops):
        raise LayoutNotSupported(f"{_where(b.name, b.position)}: the program's GEMM was compiled for a "
                                 f"{'row' if program.gemm_config.b_major == 'n' else 'column'}-major B")
    if m == 0 or n == 0 or batch == 0:
        return
    cov = _covered(program, grid, m, n, batch) if grid is not None else None  # the part of C launched; None: all
    grid = grid or (1, 1, 1)
    # C's columns: N, or C's own when a program-grid kernel stores at columns the program computes
    # a C stored transposed (c_transposed, given [N, M]) is row-major contiguous (gemm_problem_batched checks
    # it): dense, never a column slice (its row stride is M, not N)
    dense_c = batch != 1 or getattr(program.gemm_config, "c_transposed", False)
    c_cols = c.shape[1] if getattr(program.gemm_config, "program_grid", False) and not dense_c else n
    ldc = n if dense_c else c_row_stride(c)  # C a column slice of a wider array: its rows ldc apart
    if empty_product(k, seg_k) and not program.epilogue_ops and batch == 1 and not getattr(program.gemm_config, "grid_l", False):  # an empty K loop stores zeros
        if cov is not None:  # only the covered rows and columns (C^T: the covered columns' rows)
            swap = getattr(program.gemm_config, "c_transposed", False)
            rows, cols, pitch = (cov.n, cov.m, m) if swap else (cov.m, cov.n, ldc)
            check(api().cuMemsetD2D8Async(c.ptr, pitch * c.itemsize, 0, cols * c.itemsize, rows,
                                          api().CUstream(stream)), "cuMemsetD2D8Async(C)")
        elif ldc != n:  # only the slice's own columns
            check(api().cuMemsetD2D8Async(c.ptr, ldc * c.itemsize, 0, n * c.itemsize, m, api().CUstream(stream)),
                  "cuMemsetD2D8Async(C)")
        else:
            check(api().cuMemsetD8Async(c.ptr, 0, m * n * c.itemsize, api().CUstream(stream)), "cuMemsetD8Async(C)")
        return
    cfg = program.gemm_config
    # a column slice of a wider C needs the kernel that stores rows ldc apart (c_ld): asked for as an override
    c_ld = ldc != c_cols or bool(getattr(cfg, "c_ld", False))
    ld_config = "c_ld=1" if c_ld and not getattr(cfg, "c_ld", False) else ""
    sched_l = None
    if getattr(cfg, "grid_l", False) and getattr(cfg, "batched", False):
        sched_l = grid_l  # the program's batch indices from program id 2: the grid's z walked, the maps hold batch
    elif getattr(cfg, "grid_l", False):
        batch = grid_l
    extra: list[bytes] = pack_simt_arguments(arguments) if program.epilogue_ops else []
    gk = None
    # an M-major A read through a launch-time K-major copy keeps the program's tiles: retiled (128x256,
    # 2x1 clusters) its last M rows came back unwritten on the H200 for M = 129 and 1000 (2026-12-02 run)
    retile = not getattr(cfg, "transpose_a", False)
    if cov is not None and major == program.gemm_config.b_major:
        retile = False  # the program's own tiles: the covered part is whole tiles of them
    if tiles == "auto" and retile and (not program.epilogue_ops or program.retile_safe):
        # tileorch picks tiles, cluster and scheduler for the shape (tileorch.gemm's heuristic),
        # keeping the program's element types, operand layouts and epilogue
        from tileorch.kernels.gemm.config import override_string
        from tileorch.launchers.gemm import kernel_for

        own = entry
        chosen, why = retile_config(cfg, m * batch, n, k, major, schedule, dev.sm_count, c_ld, batch=batch)
        if broadcast_b:  # (B's batch stride 0: the kernel reading it at batch index 0)
            chosen = dataclasses.replace(chosen, b_shared=True).check()
        if major == program.gemm_config.b_major:
            # the program itself, retiled through the tier
            entry = compiled(kernel, arguments, arch, chosen.schedule, override_string(chosen))
            if chosen.tile_n == 192 and spilled(entry):  # (an epilogue's operands on top of 96 accumulators)
                chosen, why = retile_config(cfg, m * batch, n, k, major, schedule, dev.sm_count, c_ld, False, batch=batch)
                why += "; 192-wide tiles not taken: ptxas spilled the 128 x 192 kernel's registers"
                entry = compiled(kernel, arguments, arch, chosen.schedule, override_string(chosen))
            if spilled(entry):  # (e.g. an epilogue reading C or a residual: its tiles on top of the accumulators)
                entry, chosen, why = _unspilled_retile(entry, chosen, why, kernel, arguments, arch)
        else:  # B's layout differs from the compiled program's (no epilogue): tileorch.gemm's tile program
            gk = kernel_for(chosen)
            entry = None
        if own is not None:  # (the program's own entry, the one its launches look up)
            say(own, why)
    elif (schedule == "auto" and not getattr(cfg, "grid_l", False) and cfg.epilogue != "atomic"
          and not getattr(cfg, "program_grid", False)):  # a program grid runs its tiles whole: no Stream-K
        chosen_schedule = choose_schedule(cov.m if cov else m, cov.n if cov else n, k, cfg, dev.sm_count)
        if chosen_schedule != cfg.schedule or ld_config:
            entry = compiled(kernel, arguments, arch, chosen_schedule, ld_config)
    elif ld_config:
        entry = compiled(kernel, arguments, arch, cfg.schedule, ld_config)
    if entry is not None and cov is not None:  # tiles that end where the covered part does, if the tier's do not
        entry = _aligned_entry(entry, cov, kernel, arguments, arch)
    if broadcast_b and entry is not None:
        entry = _broadcast_b_entry(entry, kernel, arguments, arch, b, say)
    kvec_copy = False  # a K vector's array the producer's TMA cannot read: an aligned copy, or global loads
    if entry is not None:
        entry, kvec_copy = _kvec_entry(entry, own_entry, kernel, arguments, arch, say)
    if getattr(program, "tier_output", None) is not None and (entry is None or entry.program is not program):
        program.tier_output = None  # another configuration runs: the deferred program's lowering is not needed
    if entry is not None:
        entry = materialized(entry, kernel, arguments, arch)  # the program's own tiles, kept: compiled in full
        _warn_slow_path(entry, kernel, refusals=False)  # the kernel that runs: its ptxas warnings
        cfg = entry.program.gemm_config
        if entry.image is None:
            image = entry.program.cubin if entry.program.cubin is not None else entry.program.ptx
            if entry.program.kernel != cfg.name:  # the host looks the kernel up by the configuration's name
                raise RuntimeError(f"GEMM program entry {entry.program.kernel!r} is not the configuration's kernel "
                                   f"{cfg.name!r}")
            entry.image = GemmKernel(cfg, image, pdl=bool(getattr(entry.program, "pdl", False)))
        gk = entry.image
    b_ptr, b_reason = b.ptr, ""
    copies: list | None = []  # the K-major copies' launches, enqueued before the GEMM's (None: one is torch's)
    if getattr(gk.cfg, "transpose_b", False):
        b_ptr, again_copy, what = _k_major_copy(_viewed_object(program, "b", _stored_object(
            args[b.position], given[b.position]), arguments), b, stream)
        copies = copies + [again_copy] if again_copy is not None and copies is not None else None
        b_reason = (f"B: N-major, the kernel reads a K-major copy of B made at each launch by {what} (one extra "
                    "pass over B)")
    a_ptr = a.ptr
    if getattr(gk.cfg, "transpose_a", False):
        a_ptr, again_copy, what = _k_major_copy(_viewed_object(program, "a", _stored_object(
            args[a.position], given[a.position]), arguments), a, stream, "A")
        copies = copies + [again_copy] if again_copy is not None and copies is not None else None
        b_reason = "; ".join(filter(None, [b_reason, f"A: M-major, the kernel reads a K-major copy of A made at each "
                                                      f"launch by {what} (one extra pass over A)"]))
    more_ptrs = tuple(x.ptr for x in more_b)
    more_a_ptrs = tuple(x.ptr for x in more_a)
    # (E's K is the first dot's N: the low-rank branch's, with one)
    e = epi_operand(program, stored_arguments(arguments), more_b[0] if getattr(gk.cfg, "lora_rank", 0) else b, c)
    epi = (e.ptr, e.shape[1] if getattr(gk.cfg, "epi_major", "n") == "k" else e.shape[0]) if e is not None else None
    program_grid = tuple(grid) if getattr(gk.cfg, "program_grid", False) else None
    sched_mn = None
    if cov is not None:  # the scheduler walks the covered tiles only
        from tileorch.launchers.user_grid import kernel_refusal

        why = kernel_refusal(cov, gk.cfg.tile_m, gk.cfg.out_tile_n, gk.cfg.cluster_m, gk.cfg.max_swizzle)
        if why is not None:
            raise LayoutNotSupported(f"{why}: the GEMM kernel cannot compute exactly the tiles of the programs "
                                     f"launched (grid {tuple(grid)})")
        sched_mn = (cov.m, cov.n)
        if getattr(gk.cfg, "batched", False) and sched_l is None:
            sched_l = cov.batch
    if ldc != c_cols and not getattr(gk.cfg, "c_ld", False):  # (tileorch.gemm's own tile program: no c_ld kernel)
        raise LayoutNotSupported(f"{_where(c.name, c.position)}: C is a column slice of a wider array (row stride "
                                 f"{ldc}, {n} columns) and this GEMM kernel stores rows N apart")
    epi_c = 1
    if getattr(gk.cfg, "epi_loop", False):  # the second dot loops over epi_c N tiles per work tile
        from tileorch import settings
        from tileorch.launchers.gemm_host import epi_tiles_per_cta
        from tileorch.transforms.tileas.epilogue_dot import COARSEN_ENV

        choice = settings.value(COARSEN_ENV) or "auto"
        # (a grid covering part of C's columns: one N tile per work tile, so none past the covered ones)
        epi_c = 1 if cov is not None and cov.n < n else epi_tiles_per_cta(gk.cfg, m, n, dev.sm_count, choice)
        if entry is not None:
            say(entry, f"remark: the second dot over N tiles: c = {epi_c} of the {-(-n // gk.cfg.epi_n)} N tiles per "
                       f"work tile of {gk.cfg.tile_m} rows ({COARSEN_ENV}={choice}, {dev.sm_count} SMs)")
    if cov is not None and entry is not None:  # (beside the second dot's remark of this launch)
        say(entry, cov.remark)
    mid_ld = mid_row_strides(gk.cfg, a, b, c)  # (an [rows, L, cols] operand's own row stride: a slice of a wider L)
    if any(batch_pitch[:2]) and entry is not None:  # (A's and B's: C's is said below)
        pitches = ", ".join(f"{r} {p} bytes between matrices" + (f", rows {q} bytes apart" if q else "")
                            for r, p, q in zip("AB", batch_pitch, row_pitch or (0, 0)) if p)
        say(entry, f"{kernel_location(kernel)}: remark: a strided batch read in place: {pitches} (the tensor maps' "
                   "batch stride)")
    if scatter is not None and (getattr(gk.cfg, "epilogue", "") == "atomic" or getattr(gk.cfg, "c_transposed", False)
                                or not getattr(gk.cfg, "batched", False)):  # (a kernel addressing C itself)
        raise LayoutNotSupported(f"{_where(c.name, c.position)}: C's matrices are not stacked (strides "
                                 f"{scatter.strides} for shape {scatter.shape}) and the kernel {gk.cfg.name} stores "
                                 "C in place (atomic adds or a transposed store)")
    c_reason = ""
    if scatter is not None and c_map_takes(gk.cfg, scatter):  # the TMA epilogue's 3-D map takes C's strides in place
        es = scatter.itemsize
        rows_apart = scatter.strides[1] * es if scatter.shape[1] > 1 and scatter.strides[1] != scatter.shape[2] else 0
        batch_pitch = (*(batch_pitch or (0, 0)), scatter.strides[0] * es if scatter.shape[0] > 1 else
                       scatter.shape[1] * max(scatter.strides[1], scatter.shape[2]) * es)  # (one matrix: unused)
        row_pitch = (*(row_pitch or (0, 0)), rows_apart)
        for on in {id(x): x for x in (entry, own_entry) if x is not None}.values():
            say(on, f"{kernel_location(kernel)}: remark: {_where(c.name, c.position)}: C's matrices are not stacked "
                    f"row-major (strides {scatter.strides} for shape {scatter.shape}): the TMA epilogue's tensor map "
                    f"stores them in place ({batch_pitch[2]} bytes between matrices"
                    + (f", rows {rows_apart} bytes apart" if rows_apart else "") + ")")
        scatter = None
    if scatter is not None:
        n_copies = len(c_scatter_copies(scatter, 0))
        c_reason = (f"{_where(c.name, c.position)}: C's matrices are not stacked row-major (strides {scatter.strides} "
                    f"for shape {scatter.shape}): the kernel stores a packed scratch C, copied into C's layout after "
                    f"it on the launch's stream ({n_copies} 2-D cop{'y' if n_copies == 1 else 'ies'}: one extra pass "
                    "over C" + ("; C copied into the scratch first: the launch grid covers part of it"
                                if cov is not None else "") + ")")
        for on in {id(x): x for x in (entry, own_entry) if x is not None}.values():
            say(on, f"{kernel_location(kernel)}: remark: {c_reason}")
        launch_copies.warn_once(own_entry, "c_scatter_said", kernel_warning(kernel), c_reason)  # (once per program)
    # a launch writing its stream's scratch (a K vector's aligned copy, a packed scratch C; a K-major copy's buffer,
    # its pointer b_ptr / a_ptr) is prepared per stream, and kept bound it is homed there
    stream_scratch = kvec_copy or scatter is not None
    key = (id(gk), a_ptr, b_ptr, c.ptr, m, n, k, batch, counts, dev.sm_count, tuple(extra), more_ptrs, program_grid,
           sched_l, ldc, c_cols, epi, epi_c, more_a_ptrs, seg_k, sched_mn, mid_ld, batch_pitch,
           tuple((x.ptr, x.shape, x.strides, x.dtype) for x, _ in _kvec_arrays(gk.cfg, arguments)), row_pitch,
           None if scatter is None else (scatter.strides, cov is not None), stream if stream_scratch else None)
    prepared = _prepared.get(key)
    if prepared is None:
        # a K vector's array TMA cannot read in place: its aligned copy in the stream's scratch, which the prepared
        # launch copies it into before each launch (the launch's stream: ordered after the work writing the vector)
        kv_arguments, kv_copies, kv_buffers = (kvec_copies(gk.cfg, arguments, stream=stream) if kvec_copy
                                               else (arguments, [], []))
        c_ptr, c_out = c.ptr, []
        if scatter is not None:  # the packed scratch C the kernel stores: the stream's, kept by the prepared launch
            scratch = launch_copies.scratch("c_scatter", (), batch * m * n * c.itemsize, stream)
            kv_buffers = [*kv_buffers, scratch]
            c_ptr, c_out = scratch.ptr, c_scatter_copies(scatter, scratch.ptr)
            if cov is not None:  # (C's uncovered parts: copied in, copied back unchanged)
                kv_copies = [*kv_copies, *launch_copies.reversed_copies(c_out)]
        # (the K vectors' tensor maps, GemmConfig.kvecs, come before the program's parameters)
        prepared = _prepared[key] = gk.prepare(a_ptr, b_ptr, c_ptr, m, n, k, dev.sm_count,
                                               extra=[*kvec_tensor_maps(gk.cfg, kv_arguments), *extra], batch=batch,
                                               more_b=more_ptrs, grid=program_grid, sched_l=sched_l,
                                               ldc=ldc if getattr(gk.cfg, "c_ld", False) else 0,
                                               c_cols=c_cols if getattr(gk.cfg, "program_grid", False) else 0,
                                               operand_batches=counts, epi=epi, epi_c=epi_c, more_a=more_a_ptrs,
                                               seg_k=seg_k, sched_mn=sched_mn, mid_ld=mid_ld, batch_pitch=batch_pitch,
                                               **({"copies_in": kv_copies, "keep": kv_buffers} if kv_buffers else {}),
                                               **({"copies_out": c_out} if c_out else {}),
                                               **({"row_pitch": row_pitch} if row_pitch else {}))
        prepared.staging.warn(kernel_warning(kernel), [b_reason] if b_reason else [])
        while len(_prepared) > _PREPARED_MAX:
            _prepared.popitem(last=False)
    for on in (own_entry, entry):  # the GEMM path runs the launch: its remarks, in place of an earlier launch's
        if on is not None:
            lines = said.get(id(on), (on, []))[1]
            if lines:
                on.launch_remarks[tuple(grid)] = "\n".join(lines)
            else:
                on.launch_remarks.pop(tuple(grid), None)
    _prepared.move_to_end(key)
    again = prepared.launcher()
    again(stream)
    if fast is not None and copies is not None:  # (a copy made with torch needs the tensor: not bound)
        again = launch_copies.sequence(copies, again)  # the copies' launches, then the GEMM's, on the call's stream
        if copies or stream_scratch:  # a scratch kept per stream: replayed elsewhere, ordered with its stream
            again = launch_copies.homed(again, stream, kernel_warning(kernel))
        keep(fast, again)
    if sync:  # bounded: KernelHang names the kernel past the deadline (was an unbounded cuStreamSynchronize)
        from tileorch.runtime.watchdog import synchronize_stream

        synchronize_stream(stream, dev, kernel_name(kernel), config=f"cuTile GEMM program, stream {stream}")


def _broadcast_b_entry(entry: _Compiled, kernel: Any, arguments: list[Argument], arch: str, b: ArrayArg,
                       say: Any) -> _Compiled:
    """``entry``, or the same configuration compiled with ``b_shared=1`` (one B matrix read at batch index 0 by every
    work tile) where it reads B at each work tile's batch index: the launch's B is broadcast over the batch by a
    batch stride of 0 (``w.expand(L, K, N)``), which no tensor map's batch dimension addresses.  Said as a launch
    remark; a configuration the lowering cannot give it raises :class:`LayoutNotSupported` (the SIMT path)."""
    if not getattr(entry.program.gemm_config, "b_shared", False):
        schedule, config = entry.asked or (entry.program.gemm_config.schedule, "")
        entry = compiled(kernel, arguments, arch, schedule, ",".join(filter(None, (config, "b_shared=1"))))
    cfg = getattr(entry.program, "gemm_config", None)
    if entry.program.kind != "gemm" or not getattr(cfg, "b_shared", False):
        refusal = "; ".join(r for r in (entry.program.remarks or []) if "b_shared" in r) or "no such kernel"
        raise LayoutNotSupported(f"{_where(b.name, b.position)}: B is broadcast over the batch (batch stride 0) and "
                                 f"the kernel reading one B at batch index 0 was not compiled: {refusal}")
    say(entry, f"{kernel_location(kernel)}: remark: {_where(b.name, b.position)}: B is broadcast over the batch "
               "(batch stride 0): the kernel "
               f"{cfg.name} reads its one matrix at batch index 0 (b_shared), on the tensor cores")
    return entry


_TMAP_DTYPES = {"float16": "f16", "bfloat16": "bf16", "float8_e4m3fn": "e4m3", "float8_e5m2": "e5m2"}
"""The arrays a chained kernel reads through tensor maps: 16-bit tiles, and e4m3 / e5m2 Q and K of an fp8 first
dot (session 43)."""


def chained_tensor_maps(record: dict, arguments: list[Argument]) -> list[bytes]:
    """The TMA tensor maps a ``chained`` program takes before the cuTile entry's parameters: one
    per loaded array (``record["tmaps"]``: the entry parameter of its base pointer, the box rows,
    the rank, the box's contiguous extent ``box`` and its swizzle span ``swizzle`` in bytes: 64
    elements and 128 bytes when the record does not say; ``rows_dim``: the array dimension of the
    box's rows when it is not the next-to-last; ``group_dim`` / ``group``: a second dimension of the
    box with ``group`` elements, whose rows follow each other in shared memory), zero fill.
    Raises :class:`LayoutNotSupported` for an array TMA cannot address."""
    from tileorch.launchers.gemm_host import encode_tensor_map

    flat = flat_parameters(arguments)
    by_pos = {a.position: a for a in arguments}
    maps = []
    for t in record["tmaps"]:
        pos, role = flat[t["arg"]]
        a = by_pos[pos]
        if role != "ptr" or not isinstance(a, ArrayArg) or a.ndim != t["rank"]:
            raise RuntimeError(f"chained program: tensor map {t} does not name an array of rank {t['rank']}")
        es = a.itemsize
        where = _where(a.name, a.position)
        if a.dtype not in _TMAP_DTYPES:
            raise LayoutNotSupported(f"{where}: dtype {a.dtype} has no TMA path here")
        if a.strides[-1] != 1 or a.ptr % 16 or any((s * es) % 16 or s <= 0 for s in a.strides[:-1]):
            raise LayoutNotSupported(f"{where}: TMA needs a contiguous last dimension, a 16-byte aligned base and "
                                     f"16-byte multiple strides (shape {a.shape}, strides {a.strides})")
        if any(d == 0 for d in a.shape):
            raise LayoutNotSupported(f"{where}: empty array")
        dims = tuple(reversed(a.shape))
        row_bytes = tuple(s * es for s in reversed(a.strides[:-1]))
        # innermost first: the contiguous box, then the rows at their dimension (``rows_dim``: the
        # array dimension of the tile's rows, the next-to-last unless the record says), ones elsewhere
        box = [int(t.get("box", 64))] + [1] * (a.ndim - 1)
        box[a.ndim - 1 - int(t.get("rows_dim", a.ndim - 2))] = t["rows"]
        if "group_dim" in t:  # the rows also run along a second dimension (GQA's (1, G, BM, D) tile)
            box[a.ndim - 1 - int(t["group_dim"])] = int(t["group"])
        box = tuple(box)
        maps.append(encode_tensor_map(a.ptr, _TMAP_DTYPES[a.dtype], dims, row_bytes, box,
                                      swizzle=int(t.get("swizzle", 128))))
    return maps


def _tma_addresses(a: ArrayArg) -> bool:
    """TMA addresses ``a`` in place: a contiguous last dimension, a 16-byte aligned base, every other stride a
    positive multiple of 16 bytes."""
    es = a.itemsize
    return a.strides[-1] == 1 and not a.ptr % 16 and all(s > 0 and not (s * es) % 16 for s in a.strides[:-1])


_CHAINED_COPIES_MAX = 4096  # 2-D copies per array and launch past which the launch runs SIMT instead


def chained_copies(record: dict, arguments: list[Argument], stream: int = 0,
                   alloc: Any = None) -> tuple[list[Argument], list[tuple], list[str], list]:
    """For each array a ``chained`` program's tensor maps load (``record["tmaps"]``) that TMA cannot address in place
    (:func:`_tma_addresses`: e.g. K stored transposed ``[BH, D, Sk]`` with 150 f16 keys, rows of 300 bytes) but whose
    elements are contiguous along its last dimension, none shared: a packed copy of rows padded to a multiple of 16
    bytes (the map's dims stay the array's: TMA's zero fill past them, the kernel's masking of ragged extents as
    before), made on the launch's stream before the kernel.  Returns (``arguments`` with each such array
    re-described at its copy, which :func:`chained_tensor_maps` maps; the 2-D copies ``(src, src pitch, dst, dst
    pitch, width, rows)`` in bytes; a reason per copied array; the buffers, which a bound launch keeps).
    Each buffer is stream ``stream``'s scratch for that array's position and layout
    (:func:`tileorch.launchers.launch_copies.padded`: reused by the next launch of that layout on that stream, after
    the kernel that read it); ``alloc(nbytes)``: a buffer of its own instead.  A map of ``copy`` ``key_major16`` (an
    fp8 P @ V's V) reads V's key-major copy (:func:`_key_major16_copy`): its entry in the copies is a function of the
    stream handle that enqueues it, not a 2-D copy."""
    import math

    from tileorch.launchers.array_overlap import shared_element

    flat = flat_parameters(arguments)
    by_pos = {a.position: a for a in arguments}
    staged: dict[int, ArrayArg] = {}
    copies: list[tuple] = []
    reasons: list[str] = []
    buffers: list = []
    for t in record.get("tmaps", ()):  # an fp8 P @ V's V: its key-major copy (launch_copies.key_major16)
        if t.get("copy") == launch_copies.KEY_MAJOR16 and flat[t["arg"]][0] not in staged:
            pos = flat[t["arg"]][0]
            staged[pos], go, buf, why = _key_major16_copy(by_pos[pos], stream, alloc)
            copies.append(go)
            buffers.append(buf)
            reasons.append(why)
    for t in record.get("tmaps", ()):
        pos, role = flat[t["arg"]]
        a = by_pos[pos]
        if (pos in staged or role != "ptr" or not isinstance(a, ArrayArg) or a.dtype not in _TMAP_DTYPES
                or not all(a.shape) or _tma_addresses(a) or (a.strides[-1] != 1 and a.shape[-1] > 1)
                or any(s < 0 for s in a.strides) or shared_element(a.shape, a.strides) is not None):
            continue
        if math.prod(a.shape[:-2]) > _CHAINED_COPIES_MAX:
            continue
        # (one copy where the outer dimensions are rows of rows, else one per outer index)
        staged[pos], made, buf = launch_copies.padded("padded", a, stream, alloc)
        copies += made
        buffers.append(buf)
        reasons.append(f"{_where(a.name, a.position)}: TMA needs a 16-byte aligned base and 16-byte multiple strides "
                       f"(shape {a.shape}, strides {a.strides}): the kernel's tensor map reads a copy of rows padded "
                       f"to {launch_copies.padded_pitch(a.shape[-1] * a.itemsize)} bytes, made on the launch's stream "
                       f"before each launch ({len(made)} 2-D cop{'y' if len(made) == 1 else 'ies'})")
    return [staged.get(a.position, a) if isinstance(a, ArrayArg) else a for a in arguments], copies, reasons, buffers


def _key_major16_program(a: ArrayArg, dst: int, stream: int) -> tuple[Any, str]:
    """``go(stream)`` enqueuing tileorch's permuted copy program of V ``a`` into ``dst``
    (:func:`tileorch.launchers.k_major_copy.key_major16_plan`: compiled and kept bound like any program, so the
    chained launch stays bound with it) and what runs, or (None, why not).  The first copy is made here, now."""
    from tileorch.launchers import cutile_bound, k_major_copy

    found = k_major_copy.key_major16_plan(a.ptr, tuple(a.shape), tuple(a.strides), dst)
    if isinstance(found, str):
        return None, found
    kernel, grid, args = found
    try:
        launch(stream, grid, kernel, args)
    except Exception as exc:  # noqa: BLE001 - a refusal or compile failure: torch's copy
        return None, f"tileorch's copy program was not launched: {type(exc).__name__}: {exc}"
    key = cutile_bound.call_key(kernel, grid, args, "sm_90a", "auto", "auto")
    bound = cutile_bound.bound_launches.get(key) if key is not None else None
    first = [True]  # (made just now: the first go is this launch's, which must not copy twice)

    def go(handle: int, kernel=kernel, grid=grid, args=args, bound=bound) -> None:
        if first[0]:
            first[0] = False
            return
        if bound is not None:
            bound(handle)
        else:
            launch(handle, grid, kernel, args)
    return go, (f"tileorch's copy program key_major16_copy_3d ({grid[0] * grid[1] * grid[2]} programs of "
                f"{args[2]} x {args[3]} elements)")


def _key_major16_copy(a: ArrayArg, stream: int, alloc: Any = None) -> tuple[ArrayArg, Any, Any, str]:
    """The key-major copy of an fp8 P @ V's V ``a`` (``[..., S, D]``, 1-byte elements, D contiguous) for a chained
    kernel (:func:`tileorch.launchers.launch_copies.key_major16`): (``a`` re-described at its dense ``[..., D, S16]``
    copy, ``go(stream)`` enqueuing the copy, the buffer, the reason said as a launch remark).  The copy is torch's
    strided copy of the raw device array (:func:`~tileorch.launchers.launch_copies.key_major16_torch`), enqueued on
    torch's object for the launch's stream; the buffer is that stream's scratch of role ``key_major16`` for the
    array's position and layout.  Raises :class:`LayoutNotSupported` (the SIMT path runs the program) without torch
    or for a V whose last dimension is not contiguous."""
    import dataclasses
    import math

    where = _where(a.name, a.position)
    if a.itemsize != 1 or a.ndim < 2 or (a.strides[-1] != 1 and a.shape[-1] > 1) or any(x < 0 for x in a.strides):
        raise LayoutNotSupported(f"{where}: an fp8 P @ V reads V ([.., S, D], D contiguous, 1-byte elements) through "
                                 f"a key-major copy; this array (shape {a.shape}, strides {a.strides}) is not one")
    try:
        import torch
    except ImportError:
        raise LayoutNotSupported(f"{where}: an fp8 P @ V reads V through a key-major copy that tileorch makes with "
                                 "torch, which is not installed") from None
    from tileorch.launchers.k_major_copy import DeviceView

    shape = launch_copies.key_major16_shape(a.shape)
    nbytes = math.prod(shape)
    dense = [1] * len(shape)
    for i in range(len(shape) - 2, -1, -1):
        dense[i] = dense[i + 1] * shape[i + 1]
    device = torch.device("cuda", torch.cuda.current_device())
    if alloc is None:
        def alloc(n: int) -> Any:
            return torch.empty((n,), dtype=torch.uint8, device=device)
        buf = launch_copies.scratch(launch_copies.KEY_MAJOR16, (a.position, tuple(a.shape), tuple(a.strides),
                                                                a.dtype), nbytes, stream, alloc)
    else:
        buf = alloc(nbytes)
    dst = int(buf.data_ptr()) if hasattr(buf, "data_ptr") else int(buf.ptr)
    go, how = _key_major16_program(a, dst, stream)
    if go is None:  # no copy program for it: torch's strided copy of the raw arrays
        src = torch.as_tensor(DeviceView(a.ptr, tuple(a.shape), tuple(x for x in a.strides), "|u1"), device=device)
        out = torch.as_tensor(DeviceView(dst, shape, tuple(dense), "|u1"), device=device)

        def go(handle: int, src=src, out=out, buf=buf) -> None:
            with torch.cuda.stream(torch_stream_for(torch, handle, device)):
                launch_copies.key_major16_torch(torch, src, out)
        how = f"torch's strided copy ({how})"

    why = (f"{where}: the fp8 P @ V reads V K-major (an 8-bit WGMMA has no transposed B): the kernel's tensor map "
           f"reads a copy {list(shape)} (keys contiguous, each 16 permuted as P's register fragment holds them), "
           f"made by {how} on the launch's stream before each launch ({2 * math.prod(a.shape)} bytes moved)")
    return dataclasses.replace(a, ptr=dst, shape=tuple(shape), strides=tuple(dense)), go, buf, why


CHAINED_CTAS_ENV = "TILEORCH_ATTN_CTAS"


def chained_ctas(record: dict, grid3: tuple[int, int, int], sm_count: int) -> tuple[int, str]:
    """(CTAs, remark) of a persistent chained kernel's launch over the program's grid ``grid3``.
    At most one CTA per SM (``sm_count``), except for a snake-dealing kernel over a heavy-first grid
    (``record["persistent"]["schedule"]``, ``record["heavy_first"]``: causal attention) whose modelled
    busiest CTA exceeds the mean by more than :data:`~tileorch.schedulers.chained_balance.IMBALANCE_LIMIT`
    at ``sm_count`` CTAs (schedulers/chained_balance.py): then one CTA per instance (``G = total``,
    each CTA's single round the instance ``w = b``; with ``snake`` the launch order of the
    one-CTA-per-instance kernel, one head's query tiles heaviest first, head after head).
    ``TILEORCH_ATTN_CTAS`` (read at each launch of new arguments) ``=sms`` / ``=total`` forces either."""

    total = grid3[0] * grid3[1] * grid3[2]
    persistent = record.get("persistent") or {}
    per_sm = int(persistent.get("ctas_per_sm", 1))  # (a kernel built for two resident CTAs: chained_occupancy)
    if per_sm > 1:
        ctas = max(1, min(total, per_sm * sm_count))
        return ctas, f"remark: {ctas} CTAs ({per_sm} per SM at most) for {total} instances"
    sms = max(1, min(total, sm_count))
    if persistent.get("row_groups"):  # work units of 64-row slices (transforms/tileas/row_groups.py)
        from tileorch.transforms.tileas.row_groups import launch_remark

        return sms, launch_remark(grid3[0], grid3[1] * grid3[2], int(persistent["row_groups"]), sms,
                                  persistent.get("idle_slices") == "pass")
    order, heavy = persistent.get("schedule"), record.get("heavy_first")
    forced = settings.value(CHAINED_CTAS_ENV)
    if forced in ("sms", "total"):
        ctas = sms if forced == "sms" else max(1, total)
        return ctas, f"remark: {ctas} CTAs for {total} instances, as {CHAINED_CTAS_ENV}={forced} asks"
    if order is None or heavy is None or total <= sm_count:
        return sms, f"remark: {sms} CTAs (one per SM at most) for {total} instances"
    from tileorch.schedulers.chained_balance import IMBALANCE_LIMIT, persistent_ctas

    ctas, ratio = persistent_ctas(order, grid3[heavy], total // grid3[heavy], sm_count)
    how = ("one CTA per SM" if ctas == sm_count else "one CTA per instance")
    return ctas, (f"remark: {ctas} CTAs ({how}) for {total} instances: the {order} dealing's modelled busiest "
                  f"CTA is {ratio:.3f}x the mean at {sm_count} CTAs ({'at most' if ctas == sm_count else 'above'} "
                  f"{IMBALANCE_LIMIT}; schedulers/chained_balance.py)")


def _chained_before(copies: list, buffers: list) -> Any:
    """``go(stream)`` enqueuing :func:`chained_copies`' copies in order: its 2-D copies (tuples) by
    :func:`~tileorch.launchers.launch_copies.copier_2d`, its key-major copies (functions of the stream) as they are; the
    function keeps ``buffers`` (the copies' scratch) alive as long as it is kept (a bound launch's)."""
    flat2d = [c for c in copies if isinstance(c, tuple)]
    calls = [c for c in copies if callable(c)]
    steps = ([launch_copies.copier_2d(flat2d, buffers)] if flat2d else []) + calls
    if len(steps) == 1 and not calls:  # (copier_2d keeps the buffers alive itself)
        return steps[0]

    def go(handle: int, steps=tuple(steps), keep=tuple(buffers)) -> None:
        for step in steps:
            step(handle)
    return go


def _launch_chained(entry: _Compiled, kernel: Any, arguments: list[Argument], grid3: tuple[int, int, int],
                    stream: int, sync: bool, fast: tuple | None = None, sm_count: int = 1) -> None:
    """Launch a ``chained`` program: its tensor maps, then the cuTile entry's parameters; a
    persistent kernel (``record["persistent"]``) on :func:`chained_ctas` CTAs (its remark kept in
    ``entry.launch_remarks[grid3]``) with the program's grid as three more parameters."""
    from tileorch.runtime.module import Module

    from tileorch.transforms.tileas.split_chains import scaled_grid

    program = entry.program
    record = program.chained
    asked, grid3 = grid3, scaled_grid(record, grid3)  # G chains of one program: G programs each (split-chains)
    # an array TMA cannot address in place (rows not a 16-byte multiple): its padded copy, made before the kernel
    staged, copies, reasons, buffers = chained_copies(record, stored_arguments(arguments), stream)
    maps = chained_tensor_maps(record, staged)
    if entry.image is None:
        image = program.cubin if program.cubin is not None else program.ptx
        entry.image = Module(image, label=f"cuTile kernel {kernel_name(kernel)}").kernel(program.kernel)
        entry.image.pdl = bool(getattr(program, "pdl", False))  # compiled with griddepcontrol.wait (TILEORCH_PDL)
    params = maps + pack_simt_arguments(arguments)
    launch_grid = grid3
    if record.get("persistent"):
        params += [struct.pack("<i", g) for g in grid3]
        if int(record["persistent"].get("ctas_per_sm", 1)) > 1:  # (both CTAs' shared memory in one SM's carveout)
            from tileorch.runtime.launch import prefer_max_shared

            prefer_max_shared(entry.image)
        ctas, remark = chained_ctas(record, grid3, sm_count)
        entry.launch_remarks[asked] = remark
        launch_grid = (ctas, 1, 1)
    if copies:
        text = "; ".join(reasons)
        said = f"{kernel_location(kernel)}: remark: {text}"
        entry.launch_remarks[asked] = f"{said}; {entry.launch_remarks[asked]}" if asked in entry.launch_remarks \
            else said
        launch_copies.warn_once(entry, "copy_said", kernel_warning(kernel), text)  # (once per program)
    # the copies on the launch's stream (ordered after the work writing the arrays), before each launch
    before = _chained_before(copies, buffers) if copies else None
    _run(entry.image, launch_grid, (record["threads"], 1, 1), params, int(record["smem"]), (1, 1, 1), stream, sync,
         fast, before=before, where=kernel_warning(kernel))


def launch(stream: Any, grid: Any, kernel: Any, args: Any, arch: str = "sm_90a", schedule: str = "auto",
           sync: bool = False, tiles: str = "auto") -> None:
    """``cuda.tile.launch(stream, grid, kernel, args)`` with tileorch as the compiler.

    ``schedule`` picks the tile scheduler of GEMM programs (``auto`` chooses Stream-K or the
    persistent one from the problem shape, as ``tileorch.gemm`` does); ``simt`` compiles any
    program with the SIMT lowering (no warp-specialized kernel; its dots on mma.sync), to compare
    the paths.  ``tiles`` (GEMM programs
    only): ``"auto"`` lets tileorch choose the tile shape, cluster and stages for the problem
    (the computation is the recognised ``C = A @ B``; measured 0.91x cuBLAS against 0.77x with
    the program's 128x128 tiles, docs/cuda-tile.md), ``"program"`` keeps the program's tiles.  A GEMM program
    computes the output tiles of the programs ``grid`` launches, as cuTile does (a grid shorter than the output's
    tile space: the program's tiles over the part it covers, :mod:`tileorch.launchers.user_grid`).
    ``sync=True`` waits for the kernel (with the runtime's hang watchdog) instead of returning
    once it is queued.  With ``TILEORCH_CUTILE_NATIVE=1`` the calls of plain SIMT programs (with
    the default options, not ``sync``) go through cuTile's own C++ launcher with tileorch's program
    (:mod:`tileorch.launchers.cutile_native`); every other call as described above.

    The options may also be given by position, in this order (they were keyword-only: Python
    fills each omitted keyword-only default by a dictionary lookup, ~580 of a repeated call's
    ~9.8k instructions, ``benchmarks/launch_instructions.py``)."""
    if settings_stale[0]:  # a TILEORCH_* setting changed since the last call (stale_settings.py)
        recheck_settings()
    if native_on[0] and not sync:  # TILEORCH_CUTILE_NATIVE=1: cuTile's C++ launcher (cutile_native.py)
        try:
            route = native_routes[kernel]  # (launch_extended, the kernel's shadow, (threads,)); None: refused
        except KeyError:
            route = _NOT_SEEN
        except TypeError:  # an unhashable kernel: the full path reports it
            route = None
        if route is not None and type(grid) is tuple and arch == "sm_90a" and schedule == "auto" and tiles == "auto":
            if route is not _NOT_SEEN:
                try:
                    route[0](stream, grid, route[2], route[1], args)
                    return
                except Exception:  # noqa: BLE001 - a new signature's block size, or a refusal: below
                    pass
            if native_launch(stream, grid, kernel, args):
                return
    # an earlier call with an equal key (cutile_bound.py) left its launch bound (or one to re-point
    # for other addresses): the kernel's hot launcher enqueues it and returns True
    if sync:
        fast = None
    else:
        last = last_hot[0]  # the kernel launched last and its hot launcher (one tuple)
        if kernel is last[0]:
            hot = last[1]
        else:
            try:
                hot = hot_launchers.get(kernel)
            except TypeError:  # an unhashable kernel: the full path reports it or launches unbound
                hot = None
            if hot is not None:
                last_hot[0] = (kernel, hot)
        fast = (hot(stream, grid, args, arch, schedule, tiles) if hot is not None
                else generic_hot(kernel, stream, grid, args, arch, schedule, tiles))
        if fast is True:
            return
    _launch(stream, grid, kernel, args, arch, schedule, sync, tiles, fast)
    if settings_stale[0]:  # (the full path's own overridden blocks, a row cache declined: the settings are back)
        recheck_settings()
    if fast is not None:
        learn(kernel, args)  # the kernel's next calls are keyed by a reader for these argument classes


_LAUNCHED: dict[str, None] = {}
"""The names of the cuTile kernels :func:`launch` compiled and launched in this process (first
calls only: the hot path records nothing), for :func:`synchronize`'s report."""


def _note_launched(kernel: Any) -> None:
    try:
        name = kernel_name(kernel)
    except AttributeError:
        return
    _LAUNCHED.pop(name, None)
    _LAUNCHED[name] = None
    while len(_LAUNCHED) > 8:
        del _LAUNCHED[next(iter(_LAUNCHED))]


def synchronize(stream: Any = None, timeout_s: float | None = None) -> None:
    """Wait for the work queued on ``stream`` (anything :func:`launch` takes; None: the default
    stream) with a deadline, where ``torch.cuda.synchronize()`` would wait forever for a kernel
    that never ends: past ``timeout_s`` seconds (None: ``$TILEORCH_SYNC_TIMEOUT``, else 10)
    raises :class:`tileorch.runtime.KernelHang` naming the cuTile kernels launched in this process
    (the launch path records nothing per call, so the one that hangs is among those named); a
    kernel that trapped (a ``debug_timeout`` build's expired wait) raises ``KernelFault``.
    Either leaves the CUDA context unusable (CUDA's rule): later launches raise
    ``ContextPoisoned``."""
    from tileorch.runtime.device import current_device
    from tileorch.runtime.watchdog import check_timeout, synchronize_stream

    if timeout_s is not None:
        check_timeout(timeout_s)
    handle = stream_handle(stream)
    names = list(_LAUNCHED)[::-1]
    if len(names) == 1:
        subject = f"kernel {names[0]!r} (the cuTile kernel tileorch.cutile.launch launched in this process)"
    elif names:
        subject = ("one of the kernels tileorch.cutile.launch launched in this process ("
                   + ", ".join(repr(n) for n in names) + ", most recent first)")
    else:
        subject = "the work queued on the stream (no cuTile kernel launched by tileorch in this process)"
    synchronize_stream(handle, current_device(), names[0] if names else "", timeout_s,
                       config=f"tileorch.cutile.synchronize, stream {handle}", subject=subject)


def _fell_back(entry: _Compiled, simt: _Compiled, grid3: tuple[int, int, int], exc: Exception) -> _Compiled:
    """``simt`` (the program compiled by the SIMT lowering), whose launch on ``grid3`` replaces the tier
    kernel's of ``entry`` (which raised ``exc``): the launch's remark on ``entry`` (the program's, the one its
    launches look up) says so, in place of any remark of the path that did not run (a retile decided before the
    refusal, an earlier launch's).  (Not on ``simt``: no launch of the tier's kernel would replace it there.)"""
    entry.launch_remarks[tuple(grid3)] = f"remark: the SIMT path runs the launch: {exc}"
    return simt


last_full_launch: list = [None]
"""``(kernel, grid, path)`` of the latest launch :func:`_launch` made (the full path; a bound launch of the hot path
records nothing): ``path`` is what ran, ``"chained"``, ``"gemm"`` or ``"simt"`` (a tier program whose launch fell
back to the SIMT path is ``"simt"``).  None until such a launch ran.  The sweeps' GPU harness
(:mod:`tileorch.testing.launch_path`) checks it against the path the program's table entry names."""


def _launch(stream: Any, grid: Any, kernel: Any, args: Any, arch: str, schedule: str, sync: bool, tiles: str,
            fast: tuple | None) -> None:
    """:func:`launch` for arguments not seen before: describe them, compile (through the caches),
    pick the path, launch; with ``fast`` (the key of these exact arguments) the launch is kept
    bound for the next call with the same arguments."""
    if tiles not in ("auto", "program"):
        raise ValueError(f"tiles must be 'auto' or 'program', got {tiles!r}")
    if not isinstance(sync, bool):
        raise TypeError(f"sync must be True or False, got {sync!r}")
    if arch not in ARCHS:
        raise ValueError(f"arch must be one of {', '.join(ARCHS)}, got {arch!r}")
    if schedule not in SCHEDULES:
        raise ValueError(f"schedule must be one of {', '.join(SCHEDULES)}, got {schedule!r}")
    grid3 = asked_grid = normalize_grid(grid)
    last_full_launch[0] = None
    arguments = describe_arguments(kernel, args)
    handle = stream_handle(stream)
    from tileorch.runtime.driver import api
    from tileorch.runtime.errors import GpuUnavailable

    try:
        api()  # GpuUnavailable, with the reason, before any compiling
    except GpuUnavailable as exc:
        raise GpuUnavailable(f"tileorch.cutile.launch needs an NVIDIA GPU (compute capability 9.0) and cuda-python, "
                             f"and found none: {exc}. Without a GPU a kernel can still be compiled: "
                             "tileorch.testing.export.export_cutile writes its bytecode, tileorch compile compiles "
                             "it") from None
    dev = _check_device(arch)
    if not sync:  # its launch is kept bound: the C launcher built (once a machine) while the kernel compiles
        from tileorch.runtime.c_launch import start

        start()
    note_bound()  # (what was bound under other compile settings is forgotten: stale_settings.py)
    # a GEMM program is lowered through the tier only: _launch_gemm compiles the tiles it runs
    entry = compiled(kernel, arguments, arch, "persistent" if schedule == "auto" else schedule, defer_gemm=True)
    # an output that cannot be written correctly (read-only, shared elements, overlapping an input): refused
    check_written_arguments(kernel, arguments, getattr(entry.program, "written", None),
                            getattr(entry.program, "read", None))
    _note_launched(kernel)
    _note_unused_options(entry, kernel, schedule, tiles)
    arguments = upload_list_tables(arguments)  # (lists: a device table each, the kernel's parameter)
    if entry.program.kind in ("chained", "gemm"):  # its warnings (no ptxas, spills); a refusal is the SIMT path's
        _warn_slow_path(entry, kernel, refusals=False)
    if entry.program.kind == "chained":
        from tileorch.launchers.head_dim_variant import choice as head_dim_choice

        schedule_asked, config_asked = entry.asked if entry.asked else ("persistent", "")
        entry, narrowed, arguments = head_dim_choice(entry, arguments, flat_parameters(arguments), lambda args: compiled(
            kernel, args, arch, schedule_asked, config_asked))
        entry, declined = _row_groups_choice(entry, kernel, arguments, arch, grid3, dev.sm_count)
        try:
            _launch_chained(entry, kernel, arguments, grid3, handle, sync, fast, dev.sm_count)
            last_full_launch[0] = (kernel, asked_grid, "chained")
            for said in (declined, narrowed):  # (the launch remark of the kernel launched: why, then its CTAs)
                if said:
                    entry.launch_remarks[grid3] = f"{said}; {entry.launch_remarks.get(grid3, '')}"
            return
        except LayoutNotSupported as exc:
            entry = _fell_back(entry, compiled(kernel, arguments, arch, "simt"), grid3, exc)
            _warn_slow_path(entry, kernel, f"{exc} [the SIMT path runs it]")
    if entry.program.kind == "gemm":
        try:
            _launch_gemm(entry, kernel, arguments, arch, schedule, handle, dev, sync, tiles, args, fast,
                         grid_l=grid3[2], grid=grid3)
            last_full_launch[0] = (kernel, asked_grid, "gemm")
            return
        except LayoutNotSupported as exc:
            # e.g. a transposed A: the same program, compiled by the SIMT lowering, takes any strides
            entry = _fell_back(entry, compiled(kernel, arguments, arch, "simt"), grid3, exc)
            _warn_slow_path(entry, kernel, f"{exc} [the SIMT path runs it]")
    else:
        _warn_slow_path(entry, kernel)  # a dot program the tier refused runs on the SIMT path
    from tileorch.runtime.module import Module

    params = pack_simt_arguments(arguments)
    entry = _row_cache_choice(entry, kernel, arguments, arch, params, grid3)
    program = entry.program
    if not isinstance(program.threads, int) or program.threads < 1:
        raise RuntimeError(f"compile_program reported no block size for {program.kernel!r} (threads={program.threads!r})")
    if entry.image is None:
        image = program.cubin if program.cubin is not None else program.ptx
        entry.image = Module(image, label=f"cuTile kernel {kernel_name(kernel)}").kernel(program.kernel)
        entry.image.pdl = bool(getattr(program, "pdl", False))  # compiled with griddepcontrol.wait (TILEORCH_PDL)
    smem = launch_smem(program, params)  # (a row kept in shared memory: a slot per tile of the row)
    if getattr(program, "row_cache", None):  # several such CTAs per SM need the largest carveout
        from tileorch.runtime.launch import prefer_max_shared

        prefer_max_shared(entry.image)
    block = program.threads
    most = int(getattr(program, "warp_programs", 0) or 0)
    if most:  # one program per warp (warp_programs.py): the programs along x as a trailing parameter
        per_warp = int(getattr(program, "programs_per_warp", 1) or 1)
        params = params + [struct.pack("<i", grid3[0])]
        block, grid_x = warp_program_launch(grid3[0], most, per_warp, dev.sm_count, entry.image.registers())
        grid3 = (grid_x, grid3[1], grid3[2])
    if getattr(program, "cta_programs", 0):  # several instances per CTA, their final atomics combined
        resident = resident_ctas(entry.image, block, smem)
        ctas, per_cta = instances_per_cta(grid3, resident, dev.sm_count)
        entry.launch_remarks[tuple(grid3)] = (
            f"remark: {ctas} CTA(s) along x run the {grid3[0]} program instances, {per_cta} or one fewer each, their "
            f"final atomics made once a CTA ({resident} resident CTAs an SM, {dev.sm_count} SMs; "
            "tileaa_to_simt/combined_atomics.py, TILEORCH_CTA_PROGRAMS)")
        extra, grid3 = combined_launch(grid3, ctas, per_cta)
        params = params + [struct.pack("<i", v) for v in extra]
    cluster = 1
    most = int(getattr(program, "cluster_split", 0) or 0)
    if most:  # the reduction loop split over a cluster (cluster_split.py): clusters of `cluster` CTAs along x
        cluster = split_cluster_size(grid3[0] * grid3[1] * grid3[2], most, dev.sm_count)
        grid3 = (grid3[0] * cluster, grid3[1], grid3[2])
    arrays = [a for a in arguments if isinstance(a, ArrayArg)]
    # (an in-place launch is re-pointed onto in-place calls only: cutile_bound._overlaps tells arrays at one
    # address from arrays overlapping shifted, which check_written_arguments refuses on this path)
    layout = ([i for i, (_, role) in enumerate(flat_parameters(arguments)) if role == "ptr"],
              tuple((lo - a.ptr, hi - a.ptr) for a in arrays for lo, hi in [a.byte_range()]))
    _run(entry.image, grid3, (block, 1, 1), params, smem, (cluster, 1, 1), handle, sync, fast, layout)
    last_full_launch[0] = (kernel, asked_grid, "simt")


# --------------------------------------------------------------------------- repeated launches


def _row_groups_choice(entry: _Compiled, kernel: Any, arguments: list[Argument], arch: str, grid3: tuple,
                       sm_count: int) -> tuple[_Compiled, str]:
    """The chained entry to launch and why it is not ``entry`` (""): ``entry``, or, when the default ``TILEORCH_ATTN_ROW_GROUPS=auto`` built row
    groups (``record["persistent"]["row_groups_default"]``) and their dealing would load this launch's busiest CTA
    with more 64-row slices than the kernel of 128-row instances
    (:func:`tileorch.transforms.tileas.row_groups.launch_declines`: a grid of at most one instance per SM, ...),
    the same program compiled with ``TILEORCH_ATTN_ROW_GROUPS=0`` (its own compile key and cache entries), with a
    launch remark on both entries saying why.  A value set by the user is launched as compiled."""
    persistent = (getattr(entry.program, "chained", None) or {}).get("persistent") or {}
    if not persistent.get("row_groups_default"):
        return entry, ""
    from tileorch.transforms.tileas.row_groups import ROW_GROUPS_ENV, launch_declines
    from tileorch.transforms.tileas.split_chains import scaled_grid

    g = scaled_grid(entry.program.chained, grid3)
    why = launch_declines(g[0], g[1] * g[2], int(persistent["row_groups"]), max(1, min(g[0] * g[1] * g[2], sm_count)),
                          persistent.get("idle_slices") == "pass")
    if why is None:
        return entry, ""
    from tileorch.settings import overridden

    schedule, config = entry.asked if entry.asked else ("persistent", "")
    with overridden(ROW_GROUPS_ENV, "0"):
        plain = compiled(kernel, arguments, arch, schedule, config)
    remark = f"remark: row groups (the default {ROW_GROUPS_ENV}=auto) not used for this launch: {why}"
    entry.launch_remarks[tuple(grid3)] = remark
    return plain, remark


def _row_cache_choice(entry: _Compiled, kernel: Any, arguments: list[Argument], arch: str, params: list[bytes],
                      grid3: tuple) -> _Compiled:
    """The SIMT entry to launch: ``entry``, or, when the default ``TILEORCH_ROW_SMEM_CACHE=auto`` declines its
    row cache for this launch (:func:`tileorch.launchers.row_cache_smem.auto_declines`: a long row), the same
    program compiled without the cache (the switch's other value: its own compile key and cache entries),
    with a launch remark on both entries saying why."""
    from tileorch.launchers.row_cache_smem import auto_declines

    why = auto_declines(entry.program, params)
    if why is None:
        entry.launch_remarks.pop(tuple(grid3), None)
        return entry
    from tileorch.settings import overridden

    schedule, config = entry.asked if entry.asked else ("simt", "")
    with overridden("TILEORCH_ROW_SMEM_CACHE", "0"):
        plain = compiled(kernel, arguments, arch, schedule, config)
    remark = f"remark: the row is not kept in shared memory for this launch: {why}"
    entry.launch_remarks[tuple(grid3)] = plain.launch_remarks[tuple(grid3)] = remark
    return plain


def _run(kernel: Any, grid: tuple, block: tuple, params: list[bytes], smem: int, cluster: tuple, stream: int,
         sync: bool, fast: tuple | None, layout: tuple | None = None, before: Any = None, where: str = "") -> None:
    """Launch ``kernel`` (a loaded :class:`~tileorch.runtime.module.Kernel`) with these parameter
    bytes.  With ``fast`` (the call's key, never with ``sync``) through a
    :class:`~tileorch.runtime.launch.BoundLaunch` that is kept under the key for the next equal
    call (the parameters are packed once); otherwise through :func:`tileorch.runtime.launch.launch`
    (``sync``: waited for, with the hang watchdog).  ``layout``: (the parameters holding the
    arrays' pointers, in argument order; each array's byte extent relative to its pointer) of a
    program whose arrays reach the kernel as those pointers only: a later call that differs in
    the addresses only re-points the bound launch (:func:`~tileorch.launchers.cutile_bound.rebound`).
    ``before(stream)``: enqueued on the stream before the kernel, at this launch and at each launch of the bound
    one (a padded copy of an array, :func:`chained_copies`, into a buffer kept per stream); such a launch is never
    re-pointed, and replayed on another stream it is ordered with its own
    (:func:`~tileorch.launchers.launch_copies.homed`; ``where``: the head of that warning)."""
    from tileorch.runtime.launch import BoundLaunch
    from tileorch.runtime.launch import launch as runtime_launch

    if before is not None:
        before(stream)
    if fast is None:
        runtime_launch(kernel, grid, block, params, cluster=cluster, smem=smem, stream=stream, wait=sync)
        return
    kernel.module.device.require_healthy()  # as runtime_launch does before preparing the kernel
    bound = BoundLaunch(kernel, grid, block, params, cluster=cluster, smem=smem)
    again = bound.launcher()
    again(stream)
    if before is not None:  # (the bound launch makes the copy first, every time)
        again = launch_copies.sequence([before], again)  # (the padded copies' buffers: the stream's)
        again = launch_copies.homed(again, stream, where or "warning: a chained kernel")
        layout = None
    keep(fast, again)
    if layout is not None:
        slots, extents = layout
        keep_layout(fast, bound.repointer(slots), extents, bound.pointer_launcher(slots))


def _front(python: Any) -> Any:
    """``python`` (:func:`launch`) behind the compiled launcher's ``Front`` where that module is on and
    built on the machine already (:func:`tileorch.runtime.c_launch.loaded_if_built`: loaded, never
    built, here): a repeat of the last kernel's call, four arguments by position, is checked by its
    ``Memo`` without this function's Python frame (~1.2k instructions a call,
    ``benchmarks/launch_instructions.py`` cutile_cai vs cutile_cai_hot); everything else is ``python``'s.
    The front carries ``python``'s name, doc and ``__wrapped__`` (``inspect.signature`` reads it)."""
    from tileorch.runtime.c_launch import loaded_if_built

    c = loaded_if_built()
    if c is None or getattr(c, "Front", None) is None:
        return python
    arch, schedule, _sync, tiles = python.__defaults__
    front = c.Front(python, last_hot, native_on, (arch, schedule, tiles))
    for attribute in ("__name__", "__qualname__", "__module__", "__doc__", "__defaults__"):
        setattr(front, attribute, getattr(python, attribute))
    front.__wrapped__ = python
    return front


launch = _front(launch)


__all__ = [
    "ArrayArg", "ConstantArg", "ListArg", "ScalarArg", "clear_caches", "describe_arguments", "export_bytecode",
    "flat_parameters", "gemm_operands", "kernel_signature", "launch", "pack_simt_arguments", "signature_key",
    "upload_list_tables",
]
