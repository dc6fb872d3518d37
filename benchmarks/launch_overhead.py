"""Host time per launch: ``tileorch.gemm`` and ``tileorch.cutile.launch`` against ``torch.matmul``
and ``cuda.tile.launch`` (issue 22).

Usage::

    python benchmarks/launch_overhead.py [--mode auto|stub|gpu] [--calls 2000] [--out build/launch_overhead]

``gpu`` (the default when torch sees a CUDA device and cuda-python loads): real launches on the
current stream; each call is timed on its own (``perf_counter`` around the call) after a warm-up
that compiles and binds, and the median over the calls is the host time per call.  Every
SYNC_EVERY calls the stream is synchronised outside the timed calls, so the launch queue never
fills and a call never waits for the GPU (what is measured is host time, whatever the kernel's
GPU time; ``gpu_us`` records that time per kernel, events around single launches).  Compared
calls run in alternating rounds (ROUNDS of calls/ROUNDS each: ``tileorch.gemm`` with
``torch.matmul(a, b, out=c)``, ``tileorch.cutile.launch`` with ``cuda.tile.launch`` of the same
kernel object with the same arrays, grid and stream), so a drift of the host's speed during the
run (other processes, clocks) falls on both alike.  ``breakdown`` times the parts of a repeated
``tileorch.cutile.launch`` one by one in the same way: the key reader, the key and the lookup,
the stream handle, the bound launch, the kernel's hot launcher (key, comparison with the last
call, stream handle and bound launch: all of a repeated call but ``launch``'s own frame), the
bare ``cuLaunchKernelEx`` / ``cuLaunchKernel`` of cuda-python, the ctypes path's own
``cuLaunchKernelEx`` call (``ctypes_cuLaunchKernelEx``) and an 11-argument ``cuLaunchKernel``
through ctypes with the bound launch's own parameters, the bound launch and cuda-python's call on
a created stream (``*_created_stream``: no legacy default stream), and each torch tensor read the
key makes (``torch_reads``).

Launch paths (tileorch.runtime.direct_launch): ``gemm`` and ``cutile_launch`` take the default
one (the compiled C launcher where it builds, tileorch.runtime.c_launch; else cuda-python's binding);
``gemm_cuda_python`` (the same problem on other tensors) and
``cutile_launch_cuda_python`` (the same function as another kernel object) were bound with
``TILEORCH_LAUNCH_CTYPES=0``, and run in the same alternating rounds; ``paths`` records each
bound launch's path and why.  ``cutile_launch_created_stream`` / ``cuda_tile_launch_created_stream``:
both launchers on a created stream.

``native_route`` (gpu mode): ``TILEORCH_CUTILE_NATIVE=1`` (tileorch.launchers.cutile_native):
``tileorch.cutile.launch`` of another kernel object of the same function through cuTile's own C++
launcher with tileorch's program, in alternating rounds with the Python path and
``cuda.tile.launch``; its output checked.  ``targets`` (printed last, and in the JSON) says which
of issue 22's launch targets were met: ``tileorch.cutile.launch`` <= ``cuda.tile.launch`` (with
the bare ``cuLaunchKernelEx`` beside), the same for the native route, ``tileorch.gemm`` <=
``torch.matmul`` per shape.  ``--json`` (default ``benchmarks/results/launch_overhead_{mode}_{stamp}.json``)
keeps a copy of the record.

``stub`` (no GPU needed): the same Python paths with the CUDA driver replaced by a stand-in whose
calls return at once (``tileorch.runtime.driver.use_api`` and a stand-in
``cuda.bindings.driver`` module) and torch CPU tensors that say they live on ``cuda:0``:
what is measured is tileorch's own Python per call, the part that issue 22 asks to bring under
torch's host time (12.6 us per ``torch.matmul`` on an H200 host).  Kernels are not compiled in
this mode (the hot path never compiles); without torch the GEMM part is skipped.

``*_new_arrays``: each call passes arrays not seen in the last FRESH calls (at other addresses,
the same layout), so ``tileorch.cutile.launch`` cannot re-enqueue a bound launch as it is: it
re-points one (``cutile_bound.rebound``: the pointer parameters patched), or where it cannot,
takes its full path (argument analysis, the compile caches, packing, binding).

The JSON record (``--out``: ``launch_overhead.json``) holds the median, p10 and p90 microseconds
per call of each measured function and shape.
"""

from __future__ import annotations

import argparse
import contextlib
import itertools
import json
import os
import platform
import statistics
import sys
import time
import types
from pathlib import Path

SHAPES = [(256, 256, 256), (512, 1024, 512), (1024, 1024, 1024), (2048, 2048, 1024)]


FRESH = 512  # argument tuples cycled through by the *_new_arrays measurements (more than the launcher keeps bound)
SYNC_EVERY = 64  # gpu mode: calls between two (untimed) stream synchronisations
ROUNDS = 8  # gpu mode: alternating rounds of compared calls


def _timed(fn, calls: int, sync=None, every: int = SYNC_EVERY) -> list[float]:
    """Seconds of each of ``calls`` calls of ``fn()``; ``sync()`` (untimed) every ``every`` calls."""
    times = []
    clock = time.perf_counter
    for i in range(calls):
        if sync is not None and i % every == 0:
            sync()
        t0 = clock()
        fn()
        times.append(clock() - t0)
    return times


def _stats(times: list[float]) -> dict:
    times = sorted(times)
    q = lambda f: times[min(len(times) - 1, int(f * len(times)))] * 1e6  # noqa: E731
    return {"median_us": statistics.median(times) * 1e6, "p10_us": q(0.1), "p90_us": q(0.9), "calls": len(times)}


def per_call_us(fn, calls: int, warmup: int = 20, sync=None) -> dict:
    """Median/p10/p90 microseconds of ``fn()`` timed call by call (``sync``: see :func:`_timed`)."""
    for _ in range(warmup):
        fn()
    return _stats(_timed(fn, calls, sync))


def compared_us(fns: dict, calls: int, sync=None, rounds: int = ROUNDS, warmup: int = 20) -> dict:
    """:func:`per_call_us` of each function of ``fns``, the calls in ``rounds`` alternating rounds
    (the first function first in even rounds, last in odd ones); a function that raises is
    reported as skipped, with the error."""
    out, times, live = {}, {name: [] for name in fns}, dict(fns)
    for name, fn in fns.items():
        try:
            for _ in range(warmup):
                fn()
        except Exception as exc:  # noqa: BLE001 - e.g. cuTile's own launcher unavailable
            out[name + "_skipped"] = f"{type(exc).__name__}: {exc}"
            del live[name], times[name]
    per_round = max(1, calls // rounds)
    for r in range(rounds):
        order = list(live.items()) if r % 2 == 0 else list(reversed(live.items()))
        for name, fn in order:
            times[name] += _timed(fn, per_round, sync)
    if sync is not None:
        sync()
    out.update({name: _stats(t) for name, t in times.items()})
    return out


def gpu_us(fn, launches: int = 50) -> dict:
    """GPU time of one launch's work: CUDA events around single launches on an idle stream
    (median and max microseconds)."""
    import torch

    times = []
    for _ in range(launches):
        torch.cuda.synchronize()
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end) * 1e3)
    return {"median_us": statistics.median(times), "max_us": max(times), "launches": launches}


# --------------------------------------------------------------------------- the stand-in driver


class _Opaque:
    def __init__(self):
        self.opaque = list(range(16))


def stub_driver():
    """A ``cuda.bindings.driver`` stand-in: every call succeeds at once."""
    from types import SimpleNamespace

    ns = SimpleNamespace
    d = types.ModuleType("cuda.bindings.driver")
    d.CUresult = ns(CUDA_SUCCESS=0)
    d.CUstream = lambda v: v
    d.CUdeviceptr = lambda v: v
    d.cuuint64_t = d.cuuint32_t = lambda v: v
    d.CUlaunchConfig = lambda: ns(attrs=[], numAttrs=0, hStream=0)
    d.CUlaunchAttribute = lambda: ns(id=None, value=ns(clusterDim=ns(x=0, y=0, z=0)))
    d.CUlaunchAttributeID = ns(CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION=4)
    d.CUfunction_attribute = ns(CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES=8,
                                CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED=9)
    d.CUdevice_attribute = ns(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR=75,
                              CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR=76,
                              CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT=16)
    d.CUtensorMapDataType = ns(**{f"CU_TENSOR_MAP_DATA_TYPE_{n}": i for i, n in
                                  enumerate(("BFLOAT16", "FLOAT16", "FLOAT32", "UINT8"))})
    d.CUtensorMapInterleave = ns(CU_TENSOR_MAP_INTERLEAVE_NONE=0)
    d.CUtensorMapSwizzle = ns(CU_TENSOR_MAP_SWIZZLE_128B=3)
    d.CUtensorMapL2promotion = ns(CU_TENSOR_MAP_L2_PROMOTION_L2_256B=3)
    d.CUtensorMapFloatOOBfill = ns(CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE=0)
    attrs = {75: 9, 76: 0, 16: 132}
    params: dict[str, list[int]] = {}
    d._params = params
    d.cuInit = lambda f: (0,)
    d.cuDeviceGetCount = lambda: (0, 1)
    d.cuDeviceGet = lambda i: (0, i)
    d.cuDevicePrimaryCtxRetain = lambda dev: (0, "ctx")
    d.cuCtxSetCurrent = lambda c: (0,)
    d.cuDeviceGetName = lambda n, dev: (0, b"stub H100\0")
    d.cuDeviceGetAttribute = lambda a, dev: (0, attrs[a])
    d.cuDriverGetVersion = lambda: (0, 13000)
    d.cuModuleLoadData = lambda data: (0, "module")
    d.cuModuleGetFunction = lambda mod, name: (0, name.decode())
    d.cuFuncGetParamInfo = lambda fn, i: (0, 0, params[fn][i]) if i < len(params.get(fn, [])) else (1, 0, 0)
    d.cuFuncSetAttribute = lambda fn, attr, value: (0,)
    d.cuOccupancyMaxActiveClusters = lambda fn, config: (0, 66)
    d.cuTensorMapEncodeTiled = lambda *args: (0, _Opaque())
    d.cuLaunchKernelEx = lambda config, fn, params, extra: (0,)
    d.cuLaunchKernel = lambda fn, gx, gy, gz, bx, by, bz, smem, stream, params, extra: (0,)
    d.cuMemsetD8Async = lambda ptr, v, n, stream: (0,)
    d.cuEventCreate = lambda f: (0, object())
    d.cuEventRecord = lambda ev, s: (0,)
    d.cuEventDestroy = lambda ev: (0,)
    d.cuEventQuery = lambda ev: (0,)
    d.cuStreamSynchronize = lambda s: (0,)
    d.cuGetErrorName = lambda e: (0, b"CUDA_ERROR")
    d.cuGetErrorString = lambda e: (0, b"error")
    return d


def install_stub(d) -> None:
    """``from cuda.bindings import driver`` gives the stand-in (tensor maps are encoded that way)."""
    try:
        import cuda  # the real namespace package (cuda.tile lives there), when installed
    except ImportError:
        cuda = types.ModuleType("cuda")
        cuda.__path__ = []
    bindings = types.ModuleType("cuda.bindings")
    bindings.driver = d
    cuda.bindings = bindings
    sys.modules.setdefault("cuda", cuda)
    sys.modules["cuda.bindings"] = bindings
    sys.modules["cuda.bindings.driver"] = d


# --------------------------------------------------------------------------- measurements


def stub_gemm(calls: int) -> dict:
    """tileorch.gemm's per-call Python with the driver stubbed (torch CPU tensors as cuda:0)."""
    import torch

    from tileorch.launchers import gemm as gapi
    from tileorch.launchers.gemm_host import GemmKernel
    from tileorch.runtime.driver import use_api

    cuda0 = torch.device("cuda", 0)

    class CudaLike(torch.Tensor):  # a CPU tensor that reports cuda:0 (pointers are never used)
        __torch_function__ = torch._C._disabled_torch_function_impl
        is_cuda = property(lambda self: True)
        device = property(lambda self: cuda0)

    def kernel_for(cfg):  # no compile: the hot path never compiles
        if cfg not in gapi._kernels:
            gapi._kernels[cfg] = GemmKernel(cfg, b"\x7fELF stub cubin")
        return gapi._kernels[cfg]

    d = stub_driver()
    install_stub(d)
    # torch's CUDA queries answer as an H100 would (the tileorch code asks them once or per call)
    ns = types.SimpleNamespace
    torch_patches = {"get_device_capability": lambda device=None: (9, 0),
                     "get_device_properties": lambda device=None: ns(multi_processor_count=132),
                     "current_stream": lambda device=None: ns(cuda_stream=0)}
    saved_torch = {name: getattr(torch.cuda, name) for name in torch_patches}
    for name, fn in torch_patches.items():
        setattr(torch.cuda, name, fn)
    saved = {name: getattr(gapi, name) for name in ("kernel_for", "current_stream", "_STREAM_READER")
             if hasattr(gapi, name)}
    gapi.kernel_for = kernel_for
    if "current_stream" in saved:
        gapi.current_stream = lambda index: 0
    if "_STREAM_READER" in saved:  # the hot path's stream accessor (torch's, looked up once)
        gapi._STREAM_READER = lambda index: 0
    out = {}
    try:
        with use_api(d):
            for m, n, k in SHAPES:
                a = torch.empty((m, k), dtype=torch.float16).as_subclass(CudaLike)
                b = torch.empty((k, n), dtype=torch.float16).as_subclass(CudaLike)
                c = torch.empty((m, n), dtype=torch.float16).as_subclass(CudaLike)
                out[f"{m}x{n}x{k}"] = per_call_us(lambda: gapi.gemm(a, b, c), calls)
    finally:
        for name, fn in saved.items():
            setattr(gapi, name, fn)
        for name, fn in saved_torch.items():
            setattr(torch.cuda, name, fn)
    return out


@contextlib.contextmanager
def stubbed_cutile():
    """``tileorch.cutile.launch`` against the stand-in driver, with ``compile_program`` replaced
    by a stand-in that reads the exported entry's parameter sizes (nothing is compiled): yields
    (the launcher module, a cuTile kernel ``scale(x, y, alpha, tile)``, a class of arrays with
    ``__cuda_array_interface__`` made from a pointer and a length)."""
    import cuda.tile as ct

    globals()["ct"] = ct  # the kernel's annotations are read in this module's namespace
    import tileorch.driver as frontend
    from tileorch.frontend.cuda_tile_bytecode import read_bytecode
    from tileorch.launchers import cutile as rc
    from tileorch.runtime import device as rt_device
    from tileorch.runtime.driver import use_api

    @ct.kernel
    def scale(x, y, alpha, tile: ct.Constant[int]):
        i = ct.bid(0)
        ct.store(y, index=(i,), tile=ct.load(x, index=(i,), shape=(tile,)) * alpha)

    d = stub_driver()
    sizes = {"tile<ptr<f32>>": 8, "tile<i32>": 4, "tile<f32>": 4}

    def compile_program(data, name, arch="sm_90a", schedule="persistent", ptxas=True, **_):
        entry = read_bytecode(data).body.block.first_op.body.block.first_op
        d._params[entry.sym_name.data] = [sizes[str(t).removeprefix("!cuda_tile.")]
                                          for t in entry.function_type.inputs.data]
        return types.SimpleNamespace(kind="simt", ptx=f".visible .entry {entry.sym_name.data}()\n", cubin=None,
                                     kernel=entry.sym_name.data, threads=128, gemm_config=None, gemm_args=None)

    class Dev:
        def __init__(self, ptr, n):
            self.__cuda_array_interface__ = {"data": (ptr, False), "shape": (n,), "typestr": "<f4",
                                             "strides": None, "version": 3}

    saved = frontend.compile_program
    frontend.compile_program = compile_program
    rc.clear_caches()
    rt_device.forget_devices()
    try:
        with use_api(d):
            yield rc, scale, Dev
    finally:
        frontend.compile_program = saved
        rc.clear_caches()
        rt_device.forget_devices()


def stub_cutile(calls: int) -> dict:
    """tileorch.cutile.launch's per-call Python for a SIMT program with the driver stubbed."""
    out = {}
    with stubbed_cutile() as (rc, scale, Dev):
        x, y = Dev(0x7F0000000000, 1 << 20), Dev(0x7F0001000000, 1 << 20)
        args = (x, y, 2.0, 1024)
        out["simt_scale"] = per_call_us(lambda: rc.launch(0, (1024,), scale, args), calls)
        out["breakdown"] = breakdown(rc, scale, 0, args, x, calls, None)
        fresh = itertools.cycle([(Dev(0x7E0000000000 + (i << 22), 1 << 20), y, 2.0, 1024) for i in range(FRESH)])
        out["simt_scale_new_arrays"] = per_call_us(lambda: rc.launch(0, (1024,), scale, next(fresh)), calls)
    return out


def gpu(calls: int) -> dict:
    """Real launches: tileorch.gemm vs torch.matmul; tileorch.cutile.launch vs cuda.tile.launch
    (see the module's doc: alternating rounds, the stream synchronised every SYNC_EVERY calls)."""
    import torch

    import tileorch

    sync = torch.cuda.synchronize
    out: dict = {"sync_every": SYNC_EVERY, "rounds": ROUNDS, "gemm": {}, "torch_matmul": {}, "gpu_us": {},
                 "paths": {}}
    for m, n, k in SHAPES:
        a = torch.randn((m, k), dtype=torch.float16, device="cuda")
        b = torch.randn((k, n), dtype=torch.float16, device="cuda")
        c = torch.empty((m, n), dtype=torch.float16, device="cuda")
        # the same problem at other addresses, bound through cuda-python's binding (gemm_cuda_python)
        a2, b2, c2 = a.clone(), b.clone(), torch.empty_like(c)
        with _launch_path("cuda-python"):
            tileorch.gemm(a2, b2, c2)
        tileorch.gemm(a, b, c)
        name = f"{m}x{n}x{k}"
        out["paths"][f"gemm {name}"] = _gemm_path(a, b, c)
        out["paths"][f"gemm_cuda_python {name}"] = _gemm_path(a2, b2, c2)
        pair = compared_us({"gemm": lambda: tileorch.gemm(a, b, c), "torch_matmul": lambda: torch.matmul(a, b, out=c),
                            "gemm_cuda_python": lambda: tileorch.gemm(a2, b2, c2)}, calls, sync)
        for which, r in pair.items():
            out.setdefault(which, {})[name] = r
        out["gpu_us"][f"gemm {name}"] = gpu_us(lambda: tileorch.gemm(a, b, c))
        out["gpu_us"][f"torch_matmul {name}"] = gpu_us(lambda: torch.matmul(a, b, out=c))
    try:
        import cuda.tile as ct

        from tileorch.launchers import cutile as rc
    except ImportError as exc:
        out["cutile_skipped"] = str(exc)
        return out
    globals()["ct"] = ct  # the kernel's annotations are read in this module's namespace

    @ct.kernel
    def scale(x, y, alpha, tile: ct.Constant[int]):
        i = ct.bid(0)
        ct.store(y, index=(i,), tile=ct.load(x, index=(i,), shape=(tile,)) * alpha)

    x = torch.randn(1 << 20, device="cuda")
    y = torch.empty_like(x)
    stream = torch.cuda.current_stream()
    args = (x, y, 2.0, 1024)
    import tileorch.cutile

    launch = tileorch.cutile.launch  # the public entry (the launcher's own function: rc.launch)
    # the same function as another kernel object, bound through cuda-python's binding
    scale_cp = ct.kernel(scale._annotated_function.pyfunc)
    with _launch_path("cuda-python"):
        launch(stream, (1024,), scale_cp, args)
    launch(stream, (1024,), scale, args)
    from tileorch.launchers import cutile_bound as cb

    for label, kernel in (("cutile_launch", scale), ("cutile_launch_cuda_python", scale_cp)):
        bound = cb.bound_launches.get(cb.reader(kernel)(kernel, (1024,), args, "sm_90a", "auto", "auto"))
        out["paths"][label] = [getattr(bound, "path", None), getattr(bound, "path_reason", None)]
    pair = compared_us({"cutile_launch": lambda: launch(stream, (1024,), scale, args),
                        "cuda_tile_launch": lambda: ct.launch(stream, (1024,), scale, args),
                        "cutile_launch_cuda_python": lambda: launch(stream, (1024,), scale_cp, args)}, calls, sync)
    out.update(pair)
    side = torch.cuda.Stream()  # a created stream, both launchers: what the legacy default stream costs
    side.wait_stream(stream)
    launch(side, (1024,), scale, args)
    out.update(compared_us({"cutile_launch_created_stream": lambda: launch(side, (1024,), scale, args),
                            "cuda_tile_launch_created_stream": lambda: ct.launch(side, (1024,), scale, args)},
                           calls, sync))
    out["gpu_us"]["cutile_launch"] = gpu_us(lambda: launch(stream, (1024,), scale, args))
    if "cuda_tile_launch" in pair:
        out["gpu_us"]["cuda_tile_launch"] = gpu_us(lambda: ct.launch(stream, (1024,), scale, args))
    out["breakdown"] = breakdown(rc, scale, stream, args, x, calls, sync)
    # arrays not seen in the last FRESH calls at each call: a re-pointed bound launch (or the full path)
    xs = torch.randn((FRESH, 1 << 20), device="cuda")
    fresh = [(xs[i], y, 2.0, 1024) for i in range(FRESH)]
    cycles = {"cutile_launch_new_arrays": (launch, itertools.cycle(fresh)),
              "cuda_tile_launch_new_arrays": (ct.launch, itertools.cycle(fresh))}
    out.update(compared_us({name: (lambda f=f, cyc=cyc: f(stream, (1024,), scale, next(cyc)))
                            for name, (f, cyc) in cycles.items()}, calls, sync))
    try:
        out["native_route"] = native_route(rc, ct, scale, stream, args, calls, sync)
    except Exception as exc:  # noqa: BLE001 - the opt-in route on cuTile's private launcher: report, go on
        out["native_route"] = {"skipped": f"{type(exc).__name__}: {exc}"}
    return out


def native_route(rc, ct, scale, stream, args, calls: int, sync) -> dict:
    """``TILEORCH_CUTILE_NATIVE=1`` (tileorch.launchers.cutile_native): ``tileorch.cutile.launch``
    of another kernel object of the same function through cuTile's own C++ launcher, with
    tileorch's program (compiled for cuTile's signature of the call).  Checked: the output of one
    launch equals ``x * 2``.  Compared in alternating rounds with ``tileorch.cutile.launch`` on its
    Python path (``scale``, kept there: marked refused for the route, which costs it one dict
    lookup per call while the switch is on) and ``cuda.tile.launch``."""
    import torch

    import tileorch.cutile
    from tileorch.launchers import cutile_native

    why = cutile_native.available()
    if why:
        return {"skipped": why}
    launch = tileorch.cutile.launch
    native_kernel = ct.kernel(scale._annotated_function.pyfunc)
    cutile_native.set_enabled(True)
    try:
        for k in {key[0] for key in rc._programs}:  # the kernels measured on the Python path
            cutile_native._refuse(k, "launch_overhead.py: measured on tileorch's Python path")
        x, y = args[0], args[1]
        y.zero_()
        launch(stream, (1024,), native_kernel, args)
        torch.cuda.synchronize()
        route = cutile_native.routes.get(native_kernel)
        if route is None:
            return {"skipped": cutile_native.refused.get(native_kernel, "no route")}
        ok = bool(torch.equal(y, x * 2.0))
        timed = compared_us({"cutile_launch_native": lambda: launch(stream, (1024,), native_kernel, args),
                             "cutile_launch": lambda: launch(stream, (1024,), scale, args),
                             "cuda_tile_launch": lambda: ct.launch(stream, (1024,), scale, args)}, calls, sync)
        gpu = gpu_us(lambda: launch(stream, (1024,), native_kernel, args))
    finally:
        cutile_native.set_enabled(False)
    return {"threads": route[2][0], "output_ok": ok, "gpu_us": gpu, **timed}


@contextlib.contextmanager
def _launch_path(path: str):
    """Launches bound inside the block take ``path`` (``TILEORCH_LAUNCH_CTYPES``, read when a
    launch is bound): ``"cuda-python"`` or ``"ctypes"``."""
    saved = os.environ.get("TILEORCH_LAUNCH_CTYPES")
    os.environ["TILEORCH_LAUNCH_CTYPES"] = "0" if path == "cuda-python" else "1"
    try:
        yield
    finally:
        if saved is None:
            del os.environ["TILEORCH_LAUNCH_CTYPES"]
        else:
            os.environ["TILEORCH_LAUNCH_CTYPES"] = saved


def _gemm_path(a, b, c) -> list:
    """[path, why not ctypes] of the launch tileorch.gemm bound for these tensors."""
    from tileorch.launchers import gemm as gapi

    for problem in gapi._problems.values():
        launch = problem.bound.get((a.data_ptr(), b.data_ptr(), c.data_ptr()))
        if launch is not None:
            prepared = getattr(launch, "bound", None) or getattr(launch, "__self__", None)
            return [getattr(prepared, "path", None), getattr(prepared, "path_reason", None)]
    return [None, "no bound launch"]


def breakdown(rc, kernel, stream, args, tensor, calls: int, sync) -> dict:
    """Host microseconds per call of each part of a repeated ``tileorch.cutile.launch`` of
    ``kernel`` (already bound for ``args``), timed as the whole calls are (see the module's doc)."""
    import ctypes

    from tileorch.launchers import cutile_bound as cb

    read = cb.reader(kernel)
    key = read(kernel, (1024,), args, "sm_90a", "auto", "auto")
    again = cb.bound_launches.get(key)
    if again is None:
        return {"skipped": "no bound launch for the call (it takes the full path each time)"}
    handle = rc.stream_handle(stream)
    parts = {
        "empty": lambda: None,
        "key": lambda: read(kernel, (1024,), args, "sm_90a", "auto", "auto"),
        "key_and_lookup": lambda: cb.bound_launches.get(read(kernel, (1024,), args, "sm_90a", "auto", "auto")),
        "stream_handle": lambda: rc.stream_handle(stream),
        "bound_launch": lambda: again(handle),
    }
    hot = getattr(cb, "hot_launchers", {}).get(kernel)  # (none before the hot launchers)
    if hot is not None:  # what launch() calls on a hit: key, comparison with the last call, stream, bound launch
        parts["hot_launcher"] = lambda: hot(stream, (1024,), args, "sm_90a", "auto", "auto")
    bound = getattr(again, "bound", None)  # a BoundLaunch's launcher (a GEMM program binds otherwise)
    direct = getattr(bound, "_direct", None)
    if direct is not None:  # the ctypes path's foreign call with the bound launch's own objects
        from tileorch.runtime.direct_launch import _Ref

        d_cfg, d_table = direct.config(handle), _Ref(bound._params or None)
        d_call, d_fn = direct.launch_ex, direct.function
        parts["ctypes_cuLaunchKernelEx"] = lambda: d_call(d_cfg, d_fn, d_table, None)
    if bound is not None and hasattr(bound, "stream_config"):
        from tileorch.runtime.driver import api

        drv = api()  # cuda.bindings.driver (the stand-in in stub mode)
        cfg, fn, params = bound.stream_config(handle), bound._function, bound._params
        (gx, gy, gz), (bx, by, bz), smem, hs = bound.config.grid, bound.config.block, bound.config.smem, cfg.hStream
        parts["cuLaunchKernelEx"] = lambda: drv.cuLaunchKernelEx(cfg, fn, params, 0)
        parts["cuLaunchKernel"] = lambda: drv.cuLaunchKernel(fn, gx, gy, gz, bx, by, bz, smem, hs, params, 0)
        try:
            raw = ctypes.CDLL("libcuda.so.1").cuLaunchKernel
            raw.restype = ctypes.c_int
            f_ptr, s_ptr, p_ptr = ctypes.c_void_p(int(fn)), ctypes.c_void_p(int(hs)), ctypes.c_void_p(params)
            parts["ctypes_cuLaunchKernel_11_args"] = lambda: raw(f_ptr, gx, gy, gz, bx, by, bz, smem, s_ptr, p_ptr,
                                                                 None)
        except (OSError, TypeError, ValueError) as exc:  # the stub: no libcuda, handles that are no addresses
            skipped = f"{type(exc).__name__}: {exc}"
    if sync is not None:  # gpu mode: the bound launch on a created stream (no legacy default stream's
        import torch  # implicit synchronisation for the driver to arrange)

        side = torch.cuda.Stream()
        side_handle = side.cuda_stream
        parts["bound_launch_created_stream"] = lambda: again(side_handle)
        if "cuLaunchKernelEx" in parts:
            side_cfg = bound.stream_config(side_handle)
            parts["cuLaunchKernelEx_created_stream"] = lambda: drv.cuLaunchKernelEx(side_cfg, fn, params, 0)
    out = {name: per_call_us(fn, calls, sync=sync) for name, fn in parts.items()}
    if "cuLaunchKernelEx" in parts and "ctypes_cuLaunchKernel_11_args" not in parts:
        out["ctypes_cuLaunchKernel_11_args_skipped"] = skipped
    if not hasattr(tensor, "data_ptr"):  # the stub's arrays are no torch tensors
        return out
    reads = {"data_ptr()": lambda: tensor.data_ptr(), "shape": lambda: tensor.shape,
             "stride()": lambda: tensor.stride(), "dtype": lambda: tensor.dtype, "device": lambda: tensor.device,
             "get_device()": lambda: tensor.get_device(), "is_cuda": lambda: tensor.is_cuda,
             "size()": lambda: tensor.size()}
    out["torch_reads"] = {name: per_call_us(fn, calls) for name, fn in reads.items()}
    return out


def summary(record: dict) -> list[str]:
    """One line per measured function (and shape): median, p10 and p90 microseconds."""
    def line(label: str, name: str, r: dict) -> str:
        text = f"{label:22s} {name:26s} median {r['median_us']:8.2f} us"
        if "p10_us" in r:
            text += f"  p10 {r['p10_us']:8.2f}  p90 {r['p90_us']:8.2f}"
        return text + (f"  max {r['max_us']:8.2f}" if "max_us" in r else "")

    lines = []
    for section, value in record.items():
        if not isinstance(value, dict):
            continue
        if "median_us" in value:
            lines.append(line(section, "", value))
            continue
        for name, r in value.items():
            if isinstance(r, dict) and "median_us" in r:
                lines.append(line(section, name, r))
            elif isinstance(r, dict):
                for shape, rr in r.items():
                    if isinstance(rr, dict) and "median_us" in rr:
                        lines.append(line(f"{section}/{name}", shape, rr))
    return lines


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mode", choices=("auto", "stub", "gpu"), default="auto")
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--out", default="build/launch_overhead")
    parser.add_argument("--json", default="benchmarks/results/launch_overhead_{mode}_{stamp}.json",
                        help="also write the record here ({mode}, {stamp}: UTC date and time; '' for none)")
    args = parser.parse_args(argv)
    mode = args.mode
    if mode == "auto":
        try:
            import torch

            mode = "gpu" if torch.cuda.is_available() else "stub"
        except ImportError:
            mode = "stub"
    record: dict = {"mode": mode, "python": platform.python_version(), "machine": platform.machine(),
                    "cpus": os.cpu_count(), "calls": args.calls}
    if mode == "gpu":
        record["gpu"] = gpu(args.calls)
    else:
        record["stub"] = {}
        try:
            record["stub"]["gemm"] = stub_gemm(args.calls)
        except ImportError as exc:  # torch is not installed
            record["stub"]["gemm_skipped"] = str(exc)
        try:
            record["stub"]["cutile_launch"] = stub_cutile(args.calls)
        except ImportError as exc:
            record["stub"]["cutile_skipped"] = str(exc)
    for line in summary(record.get("gpu") or record.get("stub")):
        print(line)
    record["targets"] = targets(record.get("gpu") or record.get("stub") or {})
    for line in record["targets"].get("lines", []):
        print(line)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "launch_overhead.json").write_text(json.dumps(record, indent=1))
    print(f"wrote {out / 'launch_overhead.json'}")
    if args.json:
        path = Path(args.json.replace("{mode}", mode).replace("{stamp}", time.strftime("%Y-%m-%d-%H%M", time.gmtime())))
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(record, indent=1))
        print(f"wrote {path}")
    return 0


def targets(r: dict) -> dict:
    """Issue 22's launch targets from a record's measurements (median host us per call, same
    process): ``tileorch.cutile.launch`` <= ``cuda.tile.launch``, ``tileorch.gemm`` <=
    ``torch.matmul`` on every shape; with the bare ``cuLaunchKernelEx`` (cuda-python) beside."""
    med = lambda d: d.get("median_us") if isinstance(d, dict) else None  # noqa: E731
    out: dict = {"lines": []}
    ours, theirs = med(r.get("cutile_launch")), med(r.get("cuda_tile_launch"))
    raw = med((r.get("breakdown") or {}).get("cuLaunchKernelEx"))
    if ours is not None:
        out["cutile_launch_us"], out["cuda_tile_launch_us"], out["raw_cuLaunchKernelEx_us"] = ours, theirs, raw
        out["cutile_launch_met"] = None if theirs is None else ours <= theirs
        out["lines"].append(f"target tileorch.cutile.launch <= cuda.tile.launch: {ours:.2f} vs "
                            f"{'-' if theirs is None else f'{theirs:.2f}'} us (bare cuLaunchKernelEx "
                            f"{'-' if raw is None else f'{raw:.2f}'} us): "
                            f"{'not measured' if theirs is None else 'met' if ours <= theirs else 'NOT met'}")
    native = r.get("native_route") or {}
    if med(native.get("cutile_launch_native")) is not None:
        n_ours, n_theirs = med(native["cutile_launch_native"]), med(native.get("cuda_tile_launch"))
        out["cutile_launch_native_us"], out["native_cuda_tile_launch_us"] = n_ours, n_theirs
        out["cutile_launch_native_met"] = None if n_theirs is None else n_ours <= n_theirs
        out["lines"].append(f"TILEORCH_CUTILE_NATIVE=1 (cuTile's C++ launcher, tileorch's program): {n_ours:.2f} us vs "
                            f"cuda.tile.launch {'-' if n_theirs is None else f'{n_theirs:.2f}'} us, Python path "
                            f"{med(native.get('cutile_launch')) or float('nan'):.2f} us (same rounds); output ok: "
                            f"{native.get('output_ok')}")
    elif native.get("skipped"):
        out["lines"].append(f"TILEORCH_CUTILE_NATIVE=1 not measured: {native['skipped']}")
    gemm, torch_mm = r.get("gemm") or {}, r.get("torch_matmul") or {}
    pairs = {shape: (med(v), med(torch_mm.get(shape))) for shape, v in gemm.items() if med(v) is not None}
    if pairs:
        out["gemm_vs_torch_matmul_us"] = pairs
        met = [t is not None and g <= t for g, t in pairs.values()]
        out["gemm_met"] = all(met) if torch_mm else None
        out["lines"].append("target tileorch.gemm <= torch.matmul: " + ", ".join(
            f"{shape} {g:.2f} vs {'-' if t is None else f'{t:.2f}'}" for shape, (g, t) in pairs.items())
            + (f": {'met' if all(met) else 'NOT met'}" if torch_mm else ""))
    return out


if __name__ == "__main__":
    sys.exit(main())
