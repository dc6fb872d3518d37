"""Bound launches enqueued straight into libcuda through ctypes (issue 22: host time per launch).

A bound launch (:class:`tileorch.runtime.launch.BoundLaunch`, the GEMM's ``PreparedGemm``)
enqueues one kernel with one parameter buffer again and again.  Through cuda-python each call
hands the binding a ``CUlaunchConfig`` object, the function and the parameter address to convert.
Here everything is a ctypes object made once: the ``CUlaunchConfig`` of each stream handle (the
layout of cuda.h, :class:`LaunchConfigStruct`) with its cluster attribute
(:class:`LaunchAttributeStruct`), the function handle and the address of the parameters' address
table; a call is one foreign call of ``cuLaunchKernelEx`` and a test of the CUresult it returns
(non-zero: :class:`~tileorch.runtime.errors.CudaError` with ``cuGetErrorName`` /
``cuGetErrorString``, as :func:`tileorch.runtime.driver.check` raises it).

Which path (:func:`path_of`): with ``TILEORCH_LAUNCH_CTYPES`` unset, the compiled C launcher
(:mod:`tileorch.runtime.c_launch`: one C call into libcuda's ``cuLaunchKernelEx``, the cheapest
call measured on the CPU and the H100) where it is built (unless ``TILEORCH_LAUNCH_C=0``), else
cuda-python's binding; ``TILEORCH_LAUNCH_CTYPES=1`` the
ctypes call, ``=0`` cuda-python's binding.  The C launcher and the ctypes call are taken only
when the driver module in use is the ``cuda.bindings.driver`` that
:func:`tileorch.runtime.driver.api` loaded (never a test's stand-in: its handles are no driver
handles) and ``libcuda.so.1`` loads through ``ctypes.CDLL``; otherwise cuda-python's
``cuLaunchKernelEx``, and :func:`why_not` says why.  Each launcher built says which path it takes
in its ``path`` attribute (``"c"``, ``"ctypes"`` or ``"cuda-python"``) and why not a cheaper one
in ``path_reason``.  Tests hand in a stand-in library with :func:`use_library` (taken whatever
the driver module, unless ``TILEORCH_LAUNCH_CTYPES=0``).

``cuLaunchKernelEx`` is the plain symbol (the legacy default stream for handle 0), the one
cuda-python binds unless ``CUDA_PYTHON_CUDA_PER_THREAD_DEFAULT_STREAM`` asks for the per-thread
one; with that variable set at all the ctypes path is off (the two would disagree on what stream 0
is; cuda-bindings before 13.2.1 took even ``0`` for on).

Measured without a GPU (``benchmarks/launch_paths_stub.py``, a C stand-in for libcuda): the
foreign call costs what cuda-bindings 13.5's ``cuLaunchKernelEx`` costs (about 0.3 us each), and a
bound launch about 0.36 us on either path; the GPU comparison is ``benchmarks/launch_overhead.py``.
"""

from __future__ import annotations

import ctypes
import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from tileorch import settings
from tileorch.runtime.errors import CudaError

ENV = "TILEORCH_LAUNCH_CTYPES"
CLUSTER_DIMENSION = 4  # CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION (cuda.h)
PROGRAMMATIC_STREAM_SERIALIZATION = 6  # CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION (cuda.h)
STREAMS_MAX = 16  # launch configurations kept per launcher (one per stream handle)


class _Dim3(ctypes.Structure):
    _fields_ = [("x", ctypes.c_uint), ("y", ctypes.c_uint), ("z", ctypes.c_uint)]


class _AttributeValue(ctypes.Union):
    """``CUlaunchAttributeValue``: a 64-byte union; only the cluster dimensions and the programmatic stream
    serialization flag (an ``int``) are written."""

    _fields_ = [("pad", ctypes.c_char * 64), ("clusterDim", _Dim3),
                ("programmaticStreamSerializationAllowed", ctypes.c_int)]


class LaunchAttributeStruct(ctypes.Structure):
    """``CUlaunchAttribute``: the id (an enum, 4 bytes), 4 bytes of padding, the value (72 bytes)."""

    _fields_ = [("id", ctypes.c_int), ("pad", ctypes.c_char * 4), ("value", _AttributeValue)]


class LaunchConfigStruct(ctypes.Structure):
    """``CUlaunchConfig`` (56 bytes on a 64-bit host)."""

    _fields_ = [("gridDimX", ctypes.c_uint), ("gridDimY", ctypes.c_uint), ("gridDimZ", ctypes.c_uint),
                ("blockDimX", ctypes.c_uint), ("blockDimY", ctypes.c_uint), ("blockDimZ", ctypes.c_uint),
                ("sharedMemBytes", ctypes.c_uint), ("hStream", ctypes.c_void_p),
                ("attrs", ctypes.POINTER(LaunchAttributeStruct)), ("numAttrs", ctypes.c_uint)]


class _Ref(ctypes.c_void_p):
    """An address handed to the driver, holding (``keep``) the ctypes objects behind it alive for
    as long as a call holds the address."""


_loaded: Any = None  # the CDLL once loaded; False when it cannot be
_load_error = ""
_injected: Any = None


def _switch() -> str | None:
    """``TILEORCH_LAUNCH_CTYPES``: "1" (ctypes), "0" (cuda-python's binding) or None (unset: the C launcher)."""
    return settings.asked(ENV)


def _no_c_reason(why: str) -> str:
    return (f"the C launcher is not taken ({why}); cuda-python's binding (measured cheaper than ctypes; {ENV}=1: "
            "ctypes)")


def library(drv: Any) -> Any | None:
    """The libcuda whose ``cuLaunchKernelEx`` bound launches call (through the C launcher or
    ctypes) for the driver module ``drv``, or None for cuda-python's (:func:`why_not` says why)."""
    if why_not(drv):
        return None
    return _injected if _injected is not None else _loaded


def path_of(drv: Any) -> str:
    """``"c"``, ``"ctypes"`` or ``"cuda-python"``: the path bound launches for ``drv`` take."""
    if why_not(drv):
        return "cuda-python"
    return "ctypes" if _switch() == "1" else "c"


def why_not(drv: Any) -> str:
    """Why bound launches for the driver module ``drv`` take cuda-python's binding ('' when they
    take the C launcher or the ctypes call); loads libcuda once when asked the first time, and
    builds the C launcher (:func:`tileorch.runtime.c_launch.module`) when the switch is unset."""
    switch = _switch()
    if switch == "0":
        return f"{ENV}=0"
    why = _library_why_not(drv)
    if why or switch == "1":
        return why
    from tileorch.runtime import c_launch

    why = c_launch.why_not()
    return _no_c_reason(why) if why else ""


def _library_why_not(drv: Any) -> str:
    """Why no libcuda is called directly for ``drv`` ('' when one is)."""
    global _loaded, _load_error
    if _injected is not None:
        return ""
    if "CUDA_PYTHON_CUDA_PER_THREAD_DEFAULT_STREAM" in os.environ:  # cuda-bindings < 13.2.1 took any value as 1
        return ("CUDA_PYTHON_CUDA_PER_THREAD_DEFAULT_STREAM is set: cuda-python may bind the per-thread default "
                "stream's launch")
    from tileorch.runtime.driver import loaded_driver

    if drv is None or drv is not loaded_driver():
        return "the driver module in use is not the cuda.bindings.driver the runtime loaded"
    if _loaded is None:
        try:
            lib = ctypes.CDLL("libcuda.so.1" if sys.platform != "win32" else "nvcuda.dll")
            bind(lib)
            _loaded = lib
        except (OSError, AttributeError) as exc:
            _loaded, _load_error = False, f"libcuda could not be loaded through ctypes ({type(exc).__name__}: {exc})"
    return _load_error if _loaded is False else ""


def planned_path(load: Callable[[], Any] | None = None) -> tuple[str, str]:
    """(the path bound launches will take, why) as far as it is known without loading
    cuda-python (``tileorch doctor``): the switches, whether libcuda loads through ctypes
    (``load``: what opens it, ``ctypes.CDLL("libcuda.so.1")`` by default) and, with the switch
    unset, whether the C launcher builds."""
    switch = _switch()
    if switch == "0":
        return "cuda-python", f"{ENV}=0"
    if "CUDA_PYTHON_CUDA_PER_THREAD_DEFAULT_STREAM" in os.environ:
        return "cuda-python", "CUDA_PYTHON_CUDA_PER_THREAD_DEFAULT_STREAM is set"
    try:
        lib = (load or (lambda: ctypes.CDLL("libcuda.so.1" if sys.platform != "win32" else "nvcuda.dll")))()
        lib.cuLaunchKernelEx  # noqa: B018 - the symbol must be there
    except (OSError, AttributeError) as exc:
        return "cuda-python", f"libcuda could not be loaded through ctypes ({type(exc).__name__}: {exc})"
    if switch == "1":
        return "ctypes", f"libcuda's cuLaunchKernelEx called through ctypes ({ENV}=1; unset: the C launcher)"
    from tileorch.runtime import c_launch

    if c_launch.enabled():
        c_launch.wait()  # (a diagnosis: the build's outcome, however long the compiler takes)
    why = c_launch.why_not()
    if why:
        return "cuda-python", _no_c_reason(why)
    return "c", (f"libcuda's cuLaunchKernelEx called by tileorch's compiled C launcher ({ENV}=1: ctypes, "
                 f"{ENV}=0: cuda-python's binding, {c_launch.ENV}=0: no C launcher)")


@contextmanager
def use_library(lib: Any) -> Iterator[None]:
    """Bound launches call ``lib`` (a stand-in with ``cuLaunchKernelEx``, ``cuGetErrorName`` and
    ``cuGetErrorString`` as libcuda has them) inside the block, whatever the driver module (tests)."""
    global _injected
    if lib is not None:
        bind(lib)
    saved, _injected = _injected, lib
    try:
        yield
    finally:
        _injected = saved


def bind(lib: Any) -> Any:
    """``lib.cuLaunchKernelEx`` with its result type set (a CUresult, an int); its argument types
    are left unset: every argument a launcher passes is a ctypes object made once (a declared
    ``c_void_p`` argument would convert a :class:`_Ref` at each call), or None."""
    for name in ("cuLaunchKernelEx", "cuGetErrorName", "cuGetErrorString"):
        getattr(lib, name).restype = ctypes.c_int
    return lib.cuLaunchKernelEx


def error(lib: Any, code: int, call: str) -> CudaError:
    """The :class:`CudaError` of CUresult ``code`` from ``call`` (its name and text asked of ``lib``)."""
    name, text = f"CUresult {code}", "unknown error code"
    try:
        p = ctypes.c_char_p()
        if lib.cuGetErrorName(code, ctypes.byref(p)) == 0 and p.value is not None:
            name = p.value.decode()
        p = ctypes.c_char_p()
        if lib.cuGetErrorString(code, ctypes.byref(p)) == 0 and p.value is not None:
            text = p.value.decode()
    except Exception:  # noqa: BLE001 - the launch's error is what matters
        pass
    return CudaError(call, name, text, code)


def config_struct(grid: tuple[int, int, int], block: tuple[int, int, int], smem: int,
                  cluster: tuple[int, int, int] | None, stream: int, pdl: bool = False) -> LaunchConfigStruct:
    """The ``CUlaunchConfig`` of a launch on ``stream``; ``cluster``: the cluster dimension
    attribute's extents (None: no attribute); ``pdl``: the programmatic stream serialization attribute
    (after the cluster's, as :func:`tileorch.runtime.launch._launch_config` orders them)."""
    config = LaunchConfigStruct()
    config.gridDimX, config.gridDimY, config.gridDimZ = grid
    config.blockDimX, config.blockDimY, config.blockDimZ = block
    config.sharedMemBytes = smem
    config.hStream = stream or None
    n = (cluster is not None) + bool(pdl)
    if n:
        attrs = (LaunchAttributeStruct * n)()
        if cluster is not None:
            attrs[0].id = CLUSTER_DIMENSION
            dims = attrs[0].value.clusterDim
            dims.x, dims.y, dims.z = cluster
        if pdl:
            attrs[n - 1].id = PROGRAMMATIC_STREAM_SERIALIZATION
            attrs[n - 1].value.programmaticStreamSerializationAllowed = 1
        config.attrs = ctypes.cast(attrs, ctypes.POINTER(LaunchAttributeStruct))
        config.numAttrs = n
        config._attrs = attrs  # type: ignore[attr-defined]  # alive with the configuration
    return config


def handle(function: Any) -> int | None:
    """The raw ``CUfunction`` of a cuda-python function object (``int(f)``), None when it has none."""
    try:
        value = int(function)
    except (TypeError, ValueError):
        return None
    return value if value > 0 else None


class DirectLaunch:
    """One kernel's launch through ``lib`` with its grid, block, dynamic shared memory and cluster:
    the function's handle and the ``CUlaunchConfig`` of each stream handle, made once and shared
    by every :meth:`launcher` (a bound launch and its re-pointed copies).  With ``c`` (the
    compiled launcher module, :mod:`tileorch.runtime.c_launch`) the launchers are its
    ``Launcher`` objects (:attr:`path` ``"c"``), else ctypes calls (``"ctypes"``)."""

    def __init__(self, lib: Any, function: Any, raw: int, grid: tuple[int, int, int], block: tuple[int, int, int],
                 smem: int, cluster: tuple[int, int, int] | None, label: str, device: Any = None, c: Any = None,
                 pdl: bool = False):
        self.lib, self.grid, self.block, self.smem, self.cluster = lib, grid, block, smem, cluster
        self.pdl = bool(pdl)
        self.label, self.device, self.c = label, device, c
        self.path = "ctypes" if c is None else "c"
        self.launch_ex = lib.cuLaunchKernelEx
        self.raw = raw
        self.function = _Ref(raw)
        self.function.keep = function  # type: ignore[attr-defined]
        self.configs: dict[int, _Ref] = {}
        self._enqueuers: dict[int, Any] = {}  # the C launchers of enqueue(), by parameter table address

    def config(self, stream: int) -> _Ref:
        """The address of the launch's ``CUlaunchConfig`` on ``stream`` (made once per stream
        handle; past :data:`STREAMS_MAX` handles they are made anew)."""
        ref = self.configs.get(stream)
        if ref is None:
            if len(self.configs) >= STREAMS_MAX:
                self.configs.clear()  # a call holding an old _Ref keeps its structure alive
            config = config_struct(self.grid, self.block, self.smem, self.cluster, stream, pdl=self.pdl)
            ref = _Ref(ctypes.addressof(config))
            ref.keep = config  # type: ignore[attr-defined]
            self.configs[stream] = ref
        return ref

    def enqueue(self, stream: int, params: int) -> None:
        """One launch on ``stream`` with the parameter address table at ``params`` (what a
        :meth:`launcher`'s function does, for callers that do more around the launch): through the
        compiled launcher where this launch has it (one made per table address, holding nothing: the
        caller owns the table), else ctypes."""
        if self.c is not None:
            go = self._enqueuers.get(params)
            if go is None:
                if len(self._enqueuers) >= STREAMS_MAX:
                    self._enqueuers.clear()
                go = self._enqueuers[params] = self.c_launcher(None, params)
            go(stream)
            return
        if self.device is not None:
            self.device.require_healthy()
        result = self.launch_ex(self.config(stream), self.function, _Ref(params or None), None)
        if result:
            raise error(self.lib, result, self.label)

    def c_launcher(self, bound: Any, params: int, slots: Any = None, n_params: int = 0) -> Any:
        """The compiled launcher (:mod:`tileorch.runtime.c_launch`) of this launch with the
        parameter address table at ``params`` (``n_params`` entries); ``slots``: the parameters a
        call ``launcher(stream, pointers)`` writes (None: ``launcher(stream=0)`` only).  It holds
        ``bound`` (what owns the table and parameters) and says ``path`` ``"c"``."""
        lib, label = self.lib, self.label

        def fail(code: int) -> None:
            raise error(lib, code, label)

        launcher = self.c.Launcher(ctypes.cast(self.launch_ex, ctypes.c_void_p).value, self.raw, params or 0,
                                   tuple(self.grid), tuple(self.block), self.smem,
                                   None if self.cluster is None else tuple(self.cluster),
                                   None if slots is None else tuple(slots), n_params,
                                   self.device, fail, bound, self.pdl)
        launcher.bound = bound
        launcher.path = "c"
        launcher.path_reason = ""
        return launcher

    def launcher(self, bound: Any, params: int) -> Callable[[int], None]:
        """The function ``launch(stream=0)`` enqueuing the kernel on the stream handle ``stream``
        with the parameter address table at ``params`` (0: none): the stream's configuration,
        one ``cuLaunchKernelEx`` call, a non-zero CUresult raised as :func:`error` for the label;
        with a device, a poisoned context raises first.  ``launch.bound`` keeps ``bound`` (what
        owns the parameters) alive; ``launch.path`` is ``"c"`` (:meth:`c_launcher`) or
        ``"ctypes"``."""
        if self.c is not None:
            return self.c_launcher(bound, params)
        launch_ex, fn, table, configs, config_for = self.launch_ex, self.function, _Ref(params or None), \
            self.configs, self.config
        lib, label, device = self.lib, self.label, self.device
        table.keep = bound  # type: ignore[attr-defined]

        def launch(stream: int = 0) -> None:
            if device is not None and device.poisoned_by is not None:
                device.require_healthy()
            try:
                config = configs[stream]
            except KeyError:
                config = config_for(stream)
            result = launch_ex(config, fn, table, None)
            if result:  # CUDA_SUCCESS is 0
                raise error(lib, result, label)

        launch.bound = bound  # type: ignore[attr-defined]
        launch.path = "ctypes"  # type: ignore[attr-defined]
        launch.path_reason = ""  # type: ignore[attr-defined]
        return launch


def direct(drv: Any, function: Any, grid: tuple[int, int, int], block: tuple[int, int, int], smem: int,
           cluster: tuple[int, int, int] | None, label: str, device: Any = None,
           pdl: bool = False) -> tuple[DirectLaunch | None, str]:
    """(the :class:`DirectLaunch` of ``function`` for the driver module ``drv``, '') or (None,
    why the launch takes cuda-python's path); ``pdl``: launched with programmatic stream serialization."""
    lib = library(drv)
    if lib is None:
        return None, why_not(drv)
    raw = handle(function)
    if raw is None:
        return None, f"the function {function!r} has no raw CUfunction handle"
    c = None
    if _switch() != "1":
        from tileorch.runtime import c_launch

        c = c_launch.module()
    return DirectLaunch(lib, function, raw, grid, block, smem, cluster, label, device, c, pdl), ""
