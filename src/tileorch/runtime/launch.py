"""Launching a kernel: grid, block and cluster dimensions, dynamic shared memory, argument
packing by the kernel's own parameter sizes, and a watchdog on completion."""

from __future__ import annotations

import ctypes
import struct
import sys
from dataclasses import dataclass
from typing import Any

from tileorch.runtime.buffers import device_pointer, is_device_array
from tileorch.runtime.direct_launch import direct
from tileorch.runtime.driver import api, check
from tileorch.runtime.errors import CudaError
from tileorch.runtime.module import Kernel
from tileorch.runtime.watchdog import wait_for_event

Dim3 = tuple[int, int, int]
PORTABLE_CLUSTER_SIZE = 8


def dim3(value: int | tuple[int, ...] | list[int]) -> Dim3:
    """``4`` -> (4, 1, 1); ``(2, 3)`` -> (2, 3, 1); every extent must be >= 1."""
    dims = (value,) if isinstance(value, int) else tuple(int(v) for v in value)
    if not 1 <= len(dims) <= 3 or any(d < 1 for d in dims):
        raise ValueError(f"a dimension needs 1 to 3 positive extents, got {value!r}")
    return (dims + (1, 1))[:3]  # type: ignore[return-value]


MAX_GRID_X, MAX_GRID_YZ = 2**31 - 1, 65535
MAX_BLOCK_THREADS = 1024
MAX_CLUSTER_CTAS = 16  # sm_90 / sm_100 with the non-portable size opt-in
MAX_DYNAMIC_SMEM = 232448  # 227 KB: the opt-in limit per CTA on sm_90 / sm_100


@dataclass(frozen=True)
class LaunchConfig:
    """A kernel launch's grid, block and cluster shapes (3-tuples) and dynamic shared memory bytes.  (A docstring of
    its own: ``dataclasses`` otherwise writes one from ``inspect.signature``, at the import of a fresh process.)"""

    grid: Dim3
    block: Dim3
    cluster: Dim3 = (1, 1, 1)
    smem: int = 0
    pdl: bool = False
    """Programmatic dependent launch: the launch carries ``CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION``
    = 1 (the kernel's :attr:`~tileorch.runtime.module.Kernel.pdl`, never set otherwise)."""

    @classmethod
    def make(cls, grid: Any, block: Any, cluster: Any = 1, smem: int = 0, pdl: bool = False) -> LaunchConfig:
        """The configuration, or ``ValueError`` for one no CUDA launch takes (checked here, without
        a GPU: the driver's answer is a bare ``CUDA_ERROR_INVALID_VALUE``)."""
        cfg = cls(dim3(grid), dim3(block), dim3(cluster), int(smem), bool(pdl))
        gx, gy, gz = cfg.grid
        if min(cfg.grid) < 1 or gx > MAX_GRID_X or max(gy, gz) > MAX_GRID_YZ:
            raise ValueError(f"grid {cfg.grid} is not one CUDA launches (x in [1, {MAX_GRID_X}], y and z in "
                             f"[1, {MAX_GRID_YZ}])")
        bx, by, bz = cfg.block
        if min(cfg.block) < 1 or bx * by * bz > MAX_BLOCK_THREADS or max(bx, by) > 1024 or bz > 64:
            raise ValueError(f"block {cfg.block} is not one CUDA launches (at most {MAX_BLOCK_THREADS} threads; x and "
                             "y at most 1024, z at most 64)")
        if min(cfg.cluster) < 1 or cfg.cluster_size > MAX_CLUSTER_CTAS:
            raise ValueError(f"cluster {cfg.cluster} is not one CUDA launches (at most {MAX_CLUSTER_CTAS} CTAs, 8 "
                             "portably)")
        if not 0 <= cfg.smem <= MAX_DYNAMIC_SMEM:
            raise ValueError(f"dynamic shared memory of {cfg.smem} bytes is more than a CTA has (at most "
                             f"{MAX_DYNAMIC_SMEM} on sm_90 / sm_100)" if cfg.smem > 0 else
                             f"dynamic shared memory must be >= 0 bytes, got {cfg.smem}")
        for axis, (g, c) in enumerate(zip(cfg.grid, cfg.cluster)):
            if g % c:
                raise ValueError(
                    f"grid {cfg.grid} is not a multiple of cluster {cfg.cluster} along axis {axis}"
                )
        return cfg

    @property
    def cluster_size(self) -> int:
        return self.cluster[0] * self.cluster[1] * self.cluster[2]

    def describe(self) -> str:
        text = f"grid={self.grid} block={self.block}"
        if self.cluster_size > 1:
            text += f" cluster={self.cluster}"
        return text + f" smem={self.smem}" + (" pdl" if self.pdl else "")


_INT_FORMATS = {1: "b", 2: "h", 4: "i", 8: "q"}
_U64 = struct.Struct("<Q")


def pack_argument(value: Any, size: int, index: int) -> bytes:
    """The bytes of one kernel parameter of ``size`` bytes."""
    where = f"argument {index}"
    np = sys.modules.get("numpy")  # not imported: the value is no numpy object
    if np is not None and isinstance(value, np.ndarray):
        raise TypeError(f"{where} is a host numpy array: upload it (DeviceBuffer.from_array) first")
    if isinstance(value, (bytes, bytearray)):
        data = bytes(value)
    elif np is not None and isinstance(value, np.generic):
        data = value.tobytes()
    elif is_device_array(value):
        data = struct.pack("<Q", device_pointer(value))
    elif isinstance(value, (bool, int)):
        if size not in _INT_FORMATS:
            raise TypeError(f"{where}: an integer cannot fill a {size}-byte parameter")
        bits = 8 * size
        if not -(1 << (bits - 1)) <= int(value) < (1 << bits):
            raise OverflowError(f"{where}: {value} does not fit in {bits} bits")
        data = (int(value) & ((1 << bits) - 1)).to_bytes(size, "little")
    elif isinstance(value, float):
        if size not in (4, 8):
            raise TypeError(f"{where}: a float cannot fill a {size}-byte parameter")
        data = struct.pack("<f" if size == 4 else "<d", value)
    else:
        raise TypeError(f"{where}: cannot pass a {type(value).__name__} to a kernel")
    if len(data) != size:
        raise TypeError(f"{where} has {len(data)} bytes but the kernel parameter has {size}")
    return data


def pack_arguments(kernel: Kernel, args: tuple[Any, ...] | list[Any]) -> list[bytes]:
    if len(args) != len(kernel.param_sizes):
        raise TypeError(
            f"kernel '{kernel.name}' takes {len(kernel.param_sizes)} parameters "
            f"(sizes {kernel.param_sizes}), got {len(args)} arguments"
        )
    return [pack_argument(a, s, i) for i, (a, s) in enumerate(zip(args, kernel.param_sizes))]


class Launch:
    """One launched kernel; :meth:`wait` applies the watchdog, :meth:`elapsed_ms` times it."""

    def __init__(self, kernel: Kernel, config: LaunchConfig, start: Any, end: Any, timeout_s: float):
        self.kernel, self.config, self.timeout_s = kernel, config, timeout_s
        self._start, self._end, self._done = start, end, False

    def wait(self) -> Launch:
        if not self._done:
            wait_for_event(
                self._end, self.kernel.module.device, self.kernel.name,
                self.config.describe(), self.timeout_s,
            )
            self._done = True
        return self

    def elapsed_ms(self) -> float:
        self.wait()
        return float(check(api().cuEventElapsedTime(self._start, self._end), "cuEventElapsedTime"))

    def __del__(self) -> None:
        for ev in (getattr(self, "_start", None), getattr(self, "_end", None)):
            if ev is not None:
                try:
                    api().cuEventDestroy(ev)
                except Exception:
                    pass


def _prepare(kernel: Kernel, cfg: LaunchConfig) -> None:
    drv = api()
    attr = drv.CUfunction_attribute
    # Static + dynamic shared memory above 48 KiB needs the opt-in; the kernel's static part is
    # not known here, so any dynamic size above the largest opted-in one opts in again.
    if cfg.smem > kernel.max_dynamic_smem:
        check(
            drv.cuFuncSetAttribute(
                kernel.function, attr.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, cfg.smem
            ),
            f"cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES={cfg.smem}) for '{kernel.name}'",
        )
        kernel.max_dynamic_smem = cfg.smem
    if cfg.cluster_size > PORTABLE_CLUSTER_SIZE:
        check(
            drv.cuFuncSetAttribute(
                kernel.function, attr.CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED, 1
            ),
            f"cuFuncSetAttribute(NON_PORTABLE_CLUSTER_SIZE_ALLOWED) for '{kernel.name}'",
        )


def prefer_max_shared(kernel: Kernel) -> None:
    """Ask the driver for the SM's largest shared-memory carveout for ``kernel`` (once per kernel): a kernel built
    for several resident CTAs per SM (``.minnctapersm`` > 1) needs their shared memory together in one SM's
    carveout, which the driver's default choice need not give."""
    if kernel.max_shared_carveout:
        return
    drv = api()
    check(drv.cuFuncSetAttribute(kernel.function,
                                 drv.CUfunction_attribute.CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT, 100),
          f"cuFuncSetAttribute(PREFERRED_SHARED_MEMORY_CARVEOUT=100) for '{kernel.name}'")
    kernel.max_shared_carveout = True


def launch(
    kernel: Kernel, grid: Any, block: Any, args: tuple[Any, ...] | list[Any] = (),
    cluster: Any = 1, smem: int = 0, stream: int = 0, timeout_s: float = 10.0, wait: bool = True,
) -> Launch:
    """Launch ``kernel`` with ``cuLaunchKernelEx`` on ``stream`` (0 = the legacy default stream,
    ordered with torch's default stream).  With ``wait`` the call returns once the kernel is done
    and raises :class:`KernelHang` / :class:`KernelFault` from the watchdog."""
    cfg = LaunchConfig.make(grid, block, cluster, smem, pdl=kernel.pdl)
    device = kernel.module.device
    device.require_healthy()
    params = pack_arguments(kernel, args)
    drv = api()
    _prepare(kernel, cfg)

    storage = [ctypes.create_string_buffer(p, len(p)) for p in params]
    pointers = (ctypes.c_void_p * max(len(storage), 1))(*[ctypes.addressof(s) for s in storage])

    config = _launch_config(drv, cfg)
    config.hStream = drv.CUstream(stream)

    start = check(drv.cuEventCreate(0), "cuEventCreate")
    end = check(drv.cuEventCreate(0), "cuEventCreate")
    check(drv.cuEventRecord(start, config.hStream), "cuEventRecord")
    try:
        check(
            drv.cuLaunchKernelEx(config, kernel.function, ctypes.addressof(pointers) if storage else 0, 0),
            "cuLaunchKernelEx",
        )
    except CudaError as exc:
        raise CudaError(
            exc.call, exc.name, f"{exc.description} (kernel '{kernel.name}', {cfg.describe()})",
            exc.code,
        ) from None
    check(drv.cuEventRecord(end, config.hStream), "cuEventRecord")
    record = Launch(kernel, cfg, start, end, timeout_s)
    return record.wait() if wait else record


def _launch_config(drv: Any, cfg: LaunchConfig) -> Any:
    """A ``CUlaunchConfig`` of ``cfg``'s grid, block, dynamic shared memory, cluster and programmatic stream
    serialization (PDL) (the stream is the caller's)."""
    config = drv.CUlaunchConfig()
    config.gridDimX, config.gridDimY, config.gridDimZ = cfg.grid
    config.blockDimX, config.blockDimY, config.blockDimZ = cfg.block
    config.sharedMemBytes = cfg.smem
    attrs = []
    if cfg.cluster_size > 1:
        cluster_attr = drv.CUlaunchAttribute()
        cluster_attr.id = drv.CUlaunchAttributeID.CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION
        dims = cluster_attr.value.clusterDim
        dims.x, dims.y, dims.z = cfg.cluster
        attrs.append(cluster_attr)
    if cfg.pdl:
        pdl_attr = drv.CUlaunchAttribute()
        pdl_attr.id = drv.CUlaunchAttributeID.CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION
        pdl_attr.value.programmaticStreamSerializationAllowed = 1
        attrs.append(pdl_attr)
    if attrs:
        config.attrs = attrs
    config.numAttrs = len(attrs)
    return config


class BoundLaunch:
    """One kernel with its launch configuration and parameter bytes packed once, for callers that
    launch the same kernel with the same arguments again (``tileorch.cutile.launch``'s repeated
    calls).  The first launch of a kernel goes through :func:`launch`, which also opts the kernel
    in to its shared memory and cluster size.

    :meth:`launcher` gives the function that enqueues the launch on a stream handle (no argument
    packing, no events, no watchdog): a closure over what every call needs, so that a call is the
    device's health (a launch into a context that a fault or hang poisoned raises
    :class:`ContextPoisoned` with the first cause), one ``CUlaunchConfig`` looked up by the stream
    handle (one per stream, made on its first launch and shared with the launch's re-pointed
    copies, :meth:`repointer`), the ``cuLaunchKernelEx`` call and the check of its result.  The
    call goes straight into libcuda through the compiled C launcher or ctypes where it can
    (:mod:`tileorch.runtime.direct_launch`), else through cuda-python's binding: :attr:`path`
    and :attr:`path_reason` say which and why (so do the launch functions' ``path`` attributes)."""

    __slots__ = ("kernel", "config", "_blob", "_offsets", "_sizes", "_params", "_configs", "_drv", "_function",
                 "_label", "_device", "_launch_ex", "_direct", "_path_reason")
    STREAMS_MAX = 16  # launch configurations kept per bound launch (one per stream handle)

    def __init__(self, kernel: Kernel, grid: Any, block: Any, args: tuple[Any, ...] | list[Any] = (),
                 cluster: Any = 1, smem: int = 0):
        self.kernel = kernel
        self.config = cfg = LaunchConfig.make(grid, block, cluster, smem, pdl=kernel.pdl)
        params = pack_arguments(kernel, args)
        self._drv = api()
        _prepare(kernel, cfg)
        # one buffer: the table of the parameters' addresses the driver reads, then each parameter
        # at a 16-byte aligned offset
        blob, self._offsets, self._sizes = bytearray(8 * len(params)), [], [len(p) for p in params]
        for p in params:
            blob += bytes(-len(blob) % 16)
            self._offsets.append(len(blob))
            blob += p
        self._bind(blob)
        self._configs: dict[int, Any] = {}
        self._function = kernel.function
        self._label = f"cuLaunchKernelEx('{kernel.name}', {cfg.describe()})"
        self._device = kernel.module.device
        self._launch_ex = self._drv.cuLaunchKernelEx
        # the launches' path: straight into libcuda through ctypes where it can (direct_launch.py)
        self._direct, self._path_reason = direct(self._drv, self._function, cfg.grid, cfg.block, cfg.smem,
                                                 cfg.cluster if cfg.cluster_size > 1 else None, self._label,
                                                 self._device, pdl=cfg.pdl)

    def _bind(self, blob: bytearray) -> None:
        """Hold a copy of ``blob`` (the address table, then the parameter bytes) with the table
        filled in with the addresses of the parameters in the copy."""
        n = len(self._offsets)
        self._blob = buf = (ctypes.c_char * max(len(blob), 1)).from_buffer_copy(blob or b"\0")
        base = ctypes.addressof(buf)
        struct.pack_into(f"<{n}Q", buf, 0, *[base + o for o in self._offsets])
        self._params = base if n else 0

    def stream_config(self, stream: int) -> Any:
        """The ``CUlaunchConfig`` of this launch on ``stream`` (made once per stream handle; past
        :attr:`STREAMS_MAX` handles the configurations are made anew)."""
        configs = self._configs
        config = configs.get(stream)
        if config is None:
            if len(configs) >= self.STREAMS_MAX:
                configs.clear()
            config = configs[stream] = _launch_config(self._drv, self.config)
            config.hStream = self._drv.CUstream(stream)
        return config

    def launcher(self) -> Any:
        """The function ``launch(stream=0)`` enqueuing this launch on the stream handle ``stream``
        (see the class's doc).  It holds this object's parameter buffer (``.bound`` is this
        object); this object holds no reference to it."""
        if self._direct is not None:
            return self._direct.launcher(self, self._params)
        return stream_launcher(self, self._launch_ex, self._function, self._params, self._label, self._configs,
                               self.stream_config, check, self._device, self._path_reason)

    @property
    def path(self) -> str:
        """``"c"`` (the compiled C launcher, c_launch.py) or ``"ctypes"`` when the launches go
        straight into libcuda (direct_launch.py), else ``"cuda-python"``; :attr:`path_reason`
        says why not."""
        return "cuda-python" if self._direct is None else self._direct.path

    @property
    def path_reason(self) -> str:
        return self._path_reason

    def repointer(self, slots: list[int] | tuple[int, ...]) -> Any:
        """The function ``repoint(pointers)`` giving :meth:`launcher` of this launch with the 8-byte
        parameters ``slots`` holding ``pointers`` (the kernel, configuration and every other
        parameter byte as bound, the stream configurations shared; no driver call).  Raises
        ValueError at once for a slot that is no 8-byte parameter.

        Each call makes one small buffer (launches made earlier keep their bytes, and a launch in
        flight on another thread never sees a buffer change): the address table, whose entries for
        the ``slots`` point at the ``pointers`` written after it and whose other entries point at
        this launch's own parameter bytes (never written after binding), and closes
        :func:`stream_launchers`'s closure over it; the launcher's ``.bound`` is (that buffer, this
        launch's buffer) (:meth:`repointed` gives a whole BoundLaunch)."""
        for slot in slots:
            if self._sizes[slot] != 8:
                raise ValueError(f"parameter {slot} of '{self.kernel.name}' has {self._sizes[slot]} bytes, not a "
                                 "pointer's 8")
        blob, n = self._blob, len(slots)
        origin, head = ctypes.addressof(blob), 8 * len(self._offsets)
        template = struct.pack(f"<{len(self._offsets)}Q", *[origin + o for o in self._offsets]) + bytes(8 * n)
        buffer_type = ctypes.c_char * max(len(template), 1)
        template = template or b"\0"
        # (the table entry of each slot, where its pointer goes): the entry holds base + the pointer's place
        places = tuple((8 * s, head + 8 * i) for i, s in enumerate(slots))
        values = struct.Struct(f"<{n}Q")
        addressof, pack_into, has_table = ctypes.addressof, _U64.pack_into, bool(self._offsets)
        direct_launcher = None if self._direct is None else self._direct.launcher
        make = stream_launchers(self._launch_ex, self._function, self._label, self._configs, self.stream_config, check,
                                self._device, self._path_reason)

        def repoint(pointers: tuple[int, ...]) -> Any:
            if len(pointers) != n:
                raise ValueError(f"{n} pointers expected, got {len(pointers)}")
            buf = buffer_type.from_buffer_copy(template)
            base = addressof(buf)
            values.pack_into(buf, head, *pointers)
            for entry, place in places:
                pack_into(buf, entry, base + place)
            if direct_launcher is not None:
                return direct_launcher((buf, blob), base if has_table else 0)
            return make((buf, blob), base if has_table else 0)

        return repoint

    def pointer_launcher(self, slots: list[int] | tuple[int, ...]) -> Any:
        """The function ``go(stream, pointers)`` enqueuing this launch on the stream handle
        ``stream`` with the 8-byte parameters ``slots`` holding ``pointers`` (a tuple of as many
        ints), everything else as bound: what :meth:`repointer`'s launchers do, without making a
        buffer or a closure per call.  Raises ValueError at once for a slot that is no 8-byte
        parameter.

        The parameters go to the driver from a buffer taken from a pool (a list: ``pop`` and
        ``append`` are atomic, so two threads never hold one buffer at once; a thread that finds
        the pool empty makes one, so the pool holds as many as ever ran at once): a ``c_uint64``
        array, the address table whose entries for the slots point at the array's own tail and
        whose other entries point at this launch's parameter bytes (never written after binding),
        then the tail, where the call writes the pointers with one slice assignment (about half
        the instructions of a ``Struct.pack_into``, benchmarks/launch_instructions.py).
        ``cuLaunchKernelEx`` copies the parameters before it returns (CUDA's launch contract),
        after which the buffer goes back to the pool.  A wrong number of pointers raises
        ValueError before the driver is called."""
        for slot in slots:
            if self._sizes[slot] != 8:
                raise ValueError(f"parameter {slot} of '{self.kernel.name}' has {self._sizes[slot]} bytes, not a "
                                 "pointer's 8")
        if self._direct is not None and self._direct.c is not None:  # the C launcher: the call's own stack
            return self._direct.c_launcher(self, self._params, tuple(slots), len(self._offsets))
        blob, n, m = self._blob, len(slots), len(self._offsets)
        origin, end = ctypes.addressof(blob), m + len(slots)
        table = [origin + o for o in self._offsets]
        buffer_type = ctypes.c_uint64 * max(end, 1)
        direct_launch, device = self._direct, self._device
        pool: list[tuple[Any, Any]] = []

        def fresh() -> tuple[Any, Any]:
            buf = buffer_type(*table)
            base = ctypes.addressof(buf)
            for i, s in enumerate(slots):
                buf[s] = base + 8 * (m + i)
            if direct_launch is None:
                return buf, base if m else 0
            from tileorch.runtime.direct_launch import _Ref

            ref = _Ref(base if m else None)
            ref.keep = (buf, blob)  # type: ignore[attr-defined]
            return buf, ref

        take, give = pool.pop, pool.append
        if direct_launch is not None:
            from tileorch.runtime.direct_launch import error

            launch_ex, fn, configs, config_for = (direct_launch.launch_ex, direct_launch.function, direct_launch.configs,
                                                  direct_launch.config)
            lib, label = direct_launch.lib, direct_launch.label

            def go(stream: int, pointers: tuple[int, ...]) -> None:
                if device is not None and device.poisoned_by is not None:
                    device.require_healthy()
                try:
                    config = configs[stream]
                except KeyError:
                    config = config_for(stream)
                try:
                    item = take()
                except IndexError:
                    item = fresh()
                try:
                    item[0][m:end] = pointers
                    result = launch_ex(config, fn, item[1], None)
                finally:
                    give(item)
                if result:  # CUDA_SUCCESS is 0
                    raise error(lib, result, label)

            go.path = "ctypes"  # type: ignore[attr-defined]
        else:
            launch_ex, fn, configs, config_for = self._launch_ex, self._function, self._configs, self.stream_config
            label = self._label

            def go(stream: int, pointers: tuple[int, ...]) -> None:
                if device is not None and device.poisoned_by is not None:
                    device.require_healthy()
                try:
                    config = configs[stream]
                except KeyError:
                    config = config_for(stream)
                try:
                    item = take()
                except IndexError:
                    item = fresh()
                try:
                    item[0][m:end] = pointers
                    result = launch_ex(config, fn, item[1], 0)
                finally:
                    give(item)
                if result[0]:  # a CUresult (an int): CUDA_SUCCESS is 0
                    check(result, label)

            go.path = "cuda-python"  # type: ignore[attr-defined]
        go.bound = self  # type: ignore[attr-defined]
        go.pool = pool  # type: ignore[attr-defined]
        return go

    def repointed(self, slots: list[int] | tuple[int, ...], pointers: tuple[int, ...]) -> BoundLaunch:
        """The same launch with the 8-byte parameters ``slots`` holding ``pointers`` (see
        :meth:`repointer`), as a BoundLaunch of its own."""
        if len(slots) != len(pointers):
            raise ValueError(f"{len(slots)} slots but {len(pointers)} pointers")
        self.repointer(slots)  # the slots' checks
        blob = bytearray(self._blob)
        for slot, ptr in zip(slots, pointers):
            blob[self._offsets[slot]:self._offsets[slot] + 8] = ptr.to_bytes(8, "little")
        other = object.__new__(BoundLaunch)
        for name in ("kernel", "config", "_offsets", "_sizes", "_configs", "_drv", "_function", "_label", "_device",
                     "_launch_ex", "_direct", "_path_reason"):
            setattr(other, name, getattr(self, name))
        other._bind(blob)
        return other

    def launch(self, stream: int = 0) -> None:
        """Enqueue the kernel on ``stream`` (no synchronisation); repeated launches take
        :meth:`launcher`'s function."""
        self.launcher()(stream)


def stream_launcher(bound: Any, launch_ex: Any, function: Any, params: Any, label: str, configs: dict,
                    stream_config: Any, check_result: Any, device: Any = None, path_reason: str = "") -> Any:
    """The hot-path closure ``launch(stream=0)`` of bound launches through cuda-python (the
    ctypes path's is :meth:`DirectLaunch.launcher <tileorch.runtime.direct_launch.DirectLaunch.launcher>`):
    the stream's ``CUlaunchConfig`` from ``configs`` (made by ``stream_config`` on a new stream), one
    ``cuLaunchKernelEx`` call, ``check_result`` on a non-zero CUresult; with ``device``, a poisoned
    context raises first.  ``launch.bound`` keeps ``bound`` (and with it the parameters the driver
    reads) alive; ``launch.path`` is ``"cuda-python"`` and ``launch.path_reason`` ``path_reason``
    (why not the ctypes path)."""
    return stream_launchers(launch_ex, function, label, configs, stream_config, check_result, device,
                            path_reason)(bound, params)


def stream_launchers(launch_ex: Any, function: Any, label: str, configs: dict, stream_config: Any,
                     check_result: Any, device: Any = None, path_reason: str = "") -> Any:
    """``make(bound, params)``: :func:`stream_launcher`'s closure for one kernel launch with the
    parameter address table at ``params`` (owned by ``bound``), everything else fixed here once
    (a re-pointed launch, :meth:`BoundLaunch.repointer`, makes one closure cell per call, not one
    per captured value)."""

    def make(bound: Any, params: Any) -> Any:
        def launch(stream: int = 0) -> None:
            if device is not None and device.poisoned_by is not None:
                device.require_healthy()
            try:
                config = configs[stream]
            except KeyError:
                config = stream_config(stream)
            result = launch_ex(config, function, params, 0)
            if result[0]:  # a CUresult (an int): CUDA_SUCCESS is 0
                check_result(result, label)

        launch.__dict__ = {"bound": bound, "path": "cuda-python", "path_reason": path_reason}  # one store
        return launch

    return make
